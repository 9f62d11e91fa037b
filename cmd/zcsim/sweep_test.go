package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSweepList(t *testing.T) {
	z := runCLI("sweep", "--list")
	z.requireStatus(t, exitOK, "sweep", "--list")
	for _, f := range []string{"netperf ", "loopback ", "zc-cmsg-1 ", "zc-cmsg-32 "} {
		require.Contains(t, z.stdout, f)
	}
}

// A built-in family prints its table with the seed's figures, and
// --svg writes the plot.
func TestSweepFamily(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "p.svg")
	args := []string{"sweep", "zc-cmsg-32", "--sizes", "16K,4K", "--svg", svg}
	z := runCLI(args...)
	z.requireStatus(t, exitOK, args...)
	require.Regexp(t, `(?m)^ +4K +errqueue +\d+ `, z.stdout)
	require.Regexp(t, `(?m)^ +16K +cmsg +\d+ `, z.stdout)
	b, err := os.ReadFile(svg)
	require.NoError(t, err)
	require.Contains(t, string(b), "<svg")
	js := runCLI("sweep", "zc-cmsg-32", "--sizes", "4K", "--json")
	js.requireStatus(t, exitOK, "sweep", "--json")
	require.Regexp(t, `^\{"kind":"config","schema":1,`, js.stdout)
}

// A template file sweeps its copy and zerocopy variants.
func TestSweepTemplate(t *testing.T) {
	args := []string{"sweep", filepath.Join("testdata", "sweep", "udp-nic.zcs"), "--sizes", "1000,8000", "--total", "64000", "--every", "8"}
	z := runCLI(args...)
	z.requireStatus(t, exitOK, args...)
	require.Regexp(t, `(?m)^ +8000 +zerocopy +\d+ `, z.stdout)
}

// Bad input exits 2 with where it is; a family whose run breaks an
// expectation exits 1.
func TestSweepBadInput(t *testing.T) {
	dir := filepath.Join("testdata", "sweep")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", filepath.Join(dir, "bad-template.zcs")}, "bad-template.zcs:2: "},
		{[]string{"sweep", filepath.Join(dir, "bad-scenario.zcs"), "--sizes", "100"}, "bad-scenario.zcs[size=100 variant=copy]:2:"},
		{[]string{"sweep", "no-such-family"}, `"no-such-family" is no built-in family`},
		{[]string{"sweep", "netperf", "--sizes", "4K,x"}, `--sizes: "x" is not a size`},
		{[]string{"sweep", "netperf", "--sizes", "0"}, `--sizes: "0" is not a size`},
		{[]string{"sweep", filepath.Join(dir, "udp-nic.zcs"), "--every", "0"}, "want both at least 1"},
		{[]string{"sweep"}, "accepts 1 arg"},
	} {
		z := runCLI(tc.args...)
		z.requireStatus(t, exitUsage, tc.args...)
		require.Contains(t, z.stderr, tc.want)
	}
	args := []string{"sweep", filepath.Join(dir, "unconnected.zcs"), "--sizes", "100"}
	z := runCLI(args...)
	z.requireStatus(t, exitFindings, args...)
	require.Contains(t, z.stderr, "expected 100, got -1 EDESTADDRREQ")
}

// --calibration prices with another machine's constants; a file that is
// not a calibration is bad input.
func TestSweepCalibrationFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "c.json")
	require.NoError(t, os.WriteFile(good, []byte(`{"machine":"elsewhere","kernel":"6.1","date":"2020-01-01","ns":{"syscall":100,"send_call":100,"copy_byte":0.3,"pin_page":40,"uarg":200,"packet":300,"rx_copy_byte":0.4,"errqueue_read":100,"read_byte":0.3}}`), 0o644))
	args := []string{"sweep", "zc-cmsg-32", "--sizes", "4K", "--calibration", good}
	z := runCLI(args...)
	z.requireStatus(t, exitOK, args...)
	require.Contains(t, z.stdout, "calibrated on elsewhere, Linux 6.1, 2020-01-01")
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"ns":{"syscall":1}}`), 0o644))
	args = []string{"sweep", "zc-cmsg-32", "--calibration", bad}
	z = runCLI(args...)
	z.requireStatus(t, exitUsage, args...)
	require.Contains(t, z.stderr, "bad.json: calibration: no cost for")
}

// The plots in docs/cost.md are what zcsim sweep draws now, with the
// checked-in calibration; -update redraws them.
func TestCostPlots(t *testing.T) {
	atRoot(t)
	for _, family := range []string{"netperf", "loopback", "zc-cmsg-1"} {
		file := filepath.Join("docs", "cost-"+family+".svg")
		got := filepath.Join(t.TempDir(), "p.svg")
		args := []string{"sweep", family, "--svg", got}
		runCLI(args...).requireStatus(t, exitOK, args...)
		b, err := os.ReadFile(got)
		require.NoError(t, err)
		if *update {
			require.NoError(t, os.WriteFile(file, b, 0o644))
		}
		want, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Equal(t, string(want), string(b), "%s is not what zcsim sweep %s draws: go test ./cmd/zcsim -run TestCostPlots -update", file, family)
	}
}

// The tables in docs/cost.md are what zcsim sweep prints now: each
// indented block that begins "# zcsim sweep FAMILY:" is that family's
// output, indented by four spaces; -update rewrites them.
func TestCostTables(t *testing.T) {
	atRoot(t)
	doc := filepath.Join("docs", "cost.md")
	b, err := os.ReadFile(doc)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	var out strings.Builder
	tables := 0
	for i := 0; i < len(lines); {
		family, ok := strings.CutPrefix(lines[i], "    # zcsim sweep ")
		family, _, named := strings.Cut(family, ":")
		if !ok || !named {
			out.WriteString(lines[i])
			i++
			continue
		}
		tables++
		end := i
		var old strings.Builder
		for ; end < len(lines) && strings.HasPrefix(lines[end], "    "); end++ {
			old.WriteString(lines[end])
		}
		z := runCLI("sweep", family)
		z.requireStatus(t, exitOK, "sweep", family)
		var now strings.Builder
		for _, l := range strings.SplitAfter(strings.TrimSuffix(z.stdout, "\n"), "\n") {
			now.WriteString("    " + l)
		}
		now.WriteString("\n")
		if !*update {
			require.Equal(t, now.String(), old.String(), "%s:%d: the table is not what zcsim sweep %s prints: go test ./cmd/zcsim -run TestCostTables -update", doc, i+1, family)
		}
		out.WriteString(now.String())
		i = end
	}
	require.Equal(t, 4, tables, "%s: the four built-in families' tables", doc)
	if *update {
		require.NoError(t, os.WriteFile(doc, []byte(out.String()), 0o644))
	}
}
