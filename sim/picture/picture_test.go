package picture_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/picture"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// run runs an example of the repository.
func run(t *testing.T, example string) *sim.Trace {
	t.Helper()
	f := filepath.Join("..", "..", "examples", example)
	src, err := os.ReadFile(f)
	require.NoError(t, err)
	tr, err := interp.Run("examples/"+example, src, interp.Options{Seed: 1})
	require.NoError(t, err)
	return tr
}

// golden compares got with the file, or rewrites it under -update.
func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "%s differs; run with -update if the change is intended", path)
}

func render(t *testing.T, write func(*bytes.Buffer, *sim.Trace) error, tr *sim.Trace) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, write(&b, tr))
	return b.Bytes()
}

func page(b *bytes.Buffer, tr *sim.Trace) error { return picture.WriteHTML(b, tr) }

// The page is self-contained and deterministic: no URL it would fetch, the
// same bytes twice; every step has its list item and its story.
func TestHTMLSelfContained(t *testing.T) {
	for _, ex := range []string{"tcp-loopback", "udp-cork", "long-run"} {
		got := render(t, page, run(t, ex+".zcs"))
		require.Equal(t, got, render(t, page, run(t, ex+".zcs")), "%s: deterministic", ex)
		s := string(got)
		for _, bad := range []string{"http://", "https://", "src=", "<link", "@import"} {
			if bad == "http://" {
				s = strings.ReplaceAll(s, `xmlns="http://www.w3.org/2000/svg"`, "")
			}
			require.NotContains(t, s, bad, "%s: nothing to fetch", ex)
		}
	}
	s := string(render(t, page, run(t, "tcp-loopback.zcs")))
	require.Contains(t, s, `<li data-step="15">step 15: t.peer: delayed-ACK timer fires; t receives ACK 65536 window 62464; t: notification [0,0] COPIED queued (COPIED by loopback at step 11)</li>`)
	require.Contains(t, s, `id="lane-0" class="lanename" x="4" y="43" dy="4">sock#1</text>`)
	require.Contains(t, s, `"15":{"text":"t.peer: delayed-ACK timer fires`)
	require.Contains(t, s, `class="flow" data-step="4"`, "the arrow of id 0 starts at its send")
}

func mermaid(b *bytes.Buffer, tr *sim.Trace) error { return picture.WriteMermaid(b, tr) }

// The sequence diagrams of a loopback copy and of a corked UDP uarg are
// golden, and the same run draws the same bytes.
func TestMermaidGolden(t *testing.T) {
	for _, ex := range []string{"tcp-loopback", "udp-cork"} {
		got := render(t, mermaid, run(t, ex+".zcs"))
		require.Equal(t, got, render(t, mermaid, run(t, ex+".zcs")), "deterministic")
		golden(t, ex+".mmd", got)
	}
}

// Every participant a message uses is declared, and every message line
// has the step first: the diagram parses as Mermaid reads it.
func TestMermaidShape(t *testing.T) {
	out := string(render(t, mermaid, run(t, "tcp-loopback.zcs")))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, "sequenceDiagram", lines[0])
	declared := map[string]bool{}
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(l, "participant "); ok {
			declared[strings.Fields(rest)[0]] = true
			continue
		}
		if rest, ok := strings.CutPrefix(l, "Note over "); ok {
			who, _, _ := strings.Cut(rest, ":")
			require.True(t, declared[who], "%q: %s is declared", l, who)
			continue
		}
		arrow := "->>"
		if strings.Contains(l, "-->>") {
			arrow = "-->>"
		}
		from, rest, ok := strings.Cut(l, arrow)
		require.True(t, ok, "%q is a message", l)
		to, label, ok := strings.Cut(rest, ": ")
		require.True(t, ok, l)
		require.True(t, declared[from] && declared[to], "%q: both ends declared", l)
		require.Regexp(t, `^\d+: `, label, "the step first")
	}
	require.Contains(t, out, "Note over puarg_4: 4: zerocopy = 0: loopback")
	require.Contains(t, out, "ps-->>papp: 5: recvmsg(MSG_ERRQUEUE) [0,0] COPIED")
}
