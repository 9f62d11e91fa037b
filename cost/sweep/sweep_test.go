package sweep

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/cost"
	"github.com/zcsim/zcsim/sim/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixed are constants of round numbers, so that the goldens do not move
// when the machine is calibrated again.
func fixed() (*cost.Calibration, cost.Constants) {
	k := cost.Constants{1000, 1500, 0.1, 50, 300, 600, 0.2, 500, 0.1}
	c := &cost.Calibration{Machine: "a test machine", Kernel: "6.18", Date: "2026-01-01"}
	c.SetConstants(k)
	return c, k
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "run go test ./cost/sweep -update to accept")
}

// The three outputs of a sweep of the loopback family, byte for byte,
// and the same on a second run.
func TestGolden(t *testing.T) {
	f, ok := Lookup("loopback")
	require.True(t, ok)
	c, k := fixed()
	render := func() (text, js, svg []byte) {
		res, err := Run(f, []int{4 << 10, 64 << 10}, c, k)
		require.NoError(t, err)
		var a, b, s bytes.Buffer
		require.NoError(t, res.WriteText(&a))
		require.NoError(t, res.WriteJSON(&b))
		require.NoError(t, res.WriteSVG(&s))
		return a.Bytes(), b.Bytes(), s.Bytes()
	}
	text, js, svg := render()
	golden(t, "loopback.txt", text)
	golden(t, "loopback.jsonl", js)
	golden(t, "loopback.svg", svg)
	text2, js2, svg2 := render()
	require.Equal(t, text, text2)
	require.Equal(t, js, js2)
	require.Equal(t, svg, svg2)
}

// The JSON is one object per line, config first and summary last, and
// the SVG is well-formed XML.
func TestOutputStructure(t *testing.T) {
	f, _ := Lookup("zc-cmsg-32")
	c, k := fixed()
	res, err := Run(f, []int{16 << 10}, c, k)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, res.WriteJSON(&b))
	var kinds []string
	for _, line := range bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n")) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal(line, &rec), "%s", line)
		kinds = append(kinds, rec["kind"].(string))
	}
	require.Equal(t, []string{"config", "row", "row", "summary"}, kinds, "zc-cmsg-32 has no seed figure at 16 KB")
	var s bytes.Buffer
	require.NoError(t, res.WriteSVG(&s))
	d := xml.NewDecoder(&s)
	for {
		_, err := d.Token()
		if err != nil {
			require.ErrorContains(t, err, "EOF")
			break
		}
	}
}

// What the model counts, not what the constants make of it: a copied
// run copies every byte it sends, a zerocopy run over a NIC none, and
// pins a page per 4 KB, and again each page an skb boundary splits (a
// 64 KB send from a fresh buffer spans 17 pages, and segments of 65483
// bytes cut pages in two).
func TestCounts(t *testing.T) {
	f, _ := Lookup("netperf")
	c, k := fixed()
	res, err := Run(f, []int{64 << 10}, c, k)
	require.NoError(t, err)
	require.Len(t, res.Rows, 2)
	cp, zc := res.Rows[0].Account.Counts, res.Rows[1].Account.Counts
	require.Equal(t, int64(f.Total), cp.Total(cost.CopyByte))
	require.Zero(t, cp.Total(cost.PinPage))
	require.Zero(t, zc.Total(cost.CopyByte))
	pages := zc.Total(cost.PinPage)
	require.GreaterOrEqual(t, pages, int64(f.Total/4096))
	require.LessOrEqual(t, pages, int64(f.Total/4096)*3/2)
	require.Equal(t, 100.0, res.Rows[0].ProcessPct)
	require.Less(t, res.Rows[1].ProcessPct, 100.0, "at 64 KB zerocopy saves the copy")
}

// Every built-in family runs clean at its own sizes.
func TestFamiliesRunClean(t *testing.T) {
	c, k := fixed()
	for _, f := range Families() {
		t.Run(f.Name, func(t *testing.T) {
			res, err := Run(f, f.Sizes[:1], c, k)
			require.NoError(t, err)
			require.Len(t, res.Rows, len(f.Variants))
		})
	}
}

func TestTemplateErrors(t *testing.T) {
	_, err := Parse("bad.tmpl", []byte("socket s AF_INET SOCK_STREAM\n{{if .ZC}\n"), 1<<20, 32)
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "bad.tmpl", e.File)
	require.Equal(t, 2, e.Line)

	f, err := Parse("field.tmpl", []byte("# ok\nsend s {{.Bytes}} 0\n"), 1<<20, 32)
	require.NoError(t, err)
	c, k := fixed()
	_, err = Run(f, []int{4096}, c, k)
	require.ErrorAs(t, err, &e)
	require.Equal(t, 2, e.Line)
	require.Contains(t, e.Error(), "field.tmpl:2:")

	f, err = Parse("scenario.tmpl", []byte("socket s AF_INET SOCK_STREAM\nsend s {{.Size}} NOT_A_FLAG\n"), 1<<20, 32)
	require.NoError(t, err)
	_, err = Run(f, []int{4096}, c, k)
	var list scenario.ErrorList
	require.ErrorAs(t, err, &list)
	require.Contains(t, err.Error(), "scenario.tmpl[size=4096 variant=copy]:2:")

	f, err = Parse("mismatch.tmpl", []byte("socket s AF_INET SOCK_DGRAM\nsend s {{.Size}} 0 => 0\n"), 1<<20, 32)
	require.NoError(t, err)
	_, err = Run(f, []int{4096}, c, k)
	require.True(t, errors.Is(err, ErrRun), "%v", err)
	require.ErrorContains(t, err, "expected 0, got -1 EDESTADDRREQ")

	_, err = Parse("zero.tmpl", []byte("x"), 0, 32)
	require.ErrorContains(t, err, "want both at least 1")
}
