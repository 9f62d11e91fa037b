package picture_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/picture"
)

var screenshot = flag.String("screenshot", "", "write the PNG of the tcp-loopback page, step 4 clicked, to this file (docs/timeline.png)")

// chromium finds a Chromium to drive, or skips the test saying how to get
// one.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no Chromium on PATH: apt-get install -y chromium to run the browser test")
	return ""
}

// browser starts a headless Chromium for the test, or skips it, and
// stops it when the test ends.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1500, 800),
	}
	// The deadline only stops a browser that hangs; nothing waits on it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelCtx := chromedp.NewContext(ctx)
	t.Cleanup(cancelCtx)
	return ctx
}

// The page works in a real browser: clicking a step in the list
// highlights the dots of that step and the lanes it touched, and shows the
// step's explanation.
func TestHTMLInBrowser(t *testing.T) {
	ctx := browser(t)
	var page bytes.Buffer
	require.NoError(t, picture.WriteHTML(&page, run(t, "tcp-loopback.zcs")))
	file := filepath.Join(t.TempDir(), "tcp-loopback.html")
	require.NoError(t, os.WriteFile(file, page.Bytes(), 0o644))

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate("file://"+file),
		chromedp.Click(chromedp.CSS(`#steps li[data-step="15"]`))))
	story, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#story`)))
	require.NoError(t, err)
	lit, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll(".hl")).map(e => e.getAttribute("data-step") || e.textContent).join(" ")`))
	require.NoError(t, err)
	dots, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("circle.dot.hl").length`))
	require.NoError(t, err)
	lanes, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll(".lanename.hl")).map(e => e.textContent).join(" ")`))
	require.NoError(t, err)
	require.Contains(t, story, "Step 15 at t=40ms")
	require.Contains(t, story, "__msg_zerocopy_callback")
	require.Contains(t, story, "Why merged=false: the error queue held no record.")
	require.Greater(t, dots, 0, "step 15's dots are lit")
	for _, f := range strings.Fields(lit) {
		if f[0] >= '0' && f[0] <= '9' {
			require.Equal(t, "15", f, "only step 15 is lit: %s", lit)
		}
	}
	require.Contains(t, lanes, "uarg#28", "the lanes step 15 touched are lit")
	require.Contains(t, lanes, "errqueue t")
	require.NotContains(t, lanes, "skb#31", "skb#31 is not touched at step 15")

	// The screenshot CI takes (and the README's, with -screenshot): step 4,
	// the copy on loopback, clicked.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#steps li[data-step="4"]`))))
	story, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#story`)))
	require.NoError(t, err)
	require.Contains(t, story, "skb_copy_ubufs (loopback)")
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "a PNG")
	if *screenshot != "" {
		require.NoError(t, os.WriteFile(*screenshot, png, 0o644))
	}
}

// mermaidJS is Mermaid's browser bundle, from $ZCSIM_MERMAID_JS (.ci/run
// installs the npm package mermaid and sets it), or the test skips.
func mermaidJS(t *testing.T) string {
	t.Helper()
	path := os.Getenv("ZCSIM_MERMAID_JS")
	if path == "" {
		t.Skip("set ZCSIM_MERMAID_JS to node_modules/mermaid/dist/mermaid.min.js (npm install mermaid) to parse the diagrams with Mermaid")
	}
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	_, err = os.Stat(abs)
	require.NoError(t, err, "ZCSIM_MERMAID_JS names no file")
	return abs
}

// Mermaid itself parses the diagram of every example: loaded in a
// headless Chromium, mermaid.parse accepts each and says it is a
// sequence diagram.
func TestMermaidParses(t *testing.T) {
	js := mermaidJS(t)
	ctx := browser(t)
	dir := t.TempDir()
	html := filepath.Join(dir, "mermaid.html")
	require.NoError(t, os.WriteFile(html, []byte(`<!DOCTYPE html><html><body><script src="file://`+js+`"></script></body></html>`), 0o644))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+html)))
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.zcs"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		diagram := render(t, mermaid, run(t, filepath.Base(f)))
		src, err := json.Marshal(string(diagram))
		require.NoError(t, err)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](
			`mermaid.parse(`+string(src)+`).then(r => r.diagramType, e => "error: " + e.message)`, chromedp.EvalAwaitPromise))
		require.NoError(t, err)
		require.Equal(t, "sequence", got, "%s: Mermaid refuses its diagram", f)
	}
}
