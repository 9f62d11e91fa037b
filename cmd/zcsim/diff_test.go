package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/internal/probetest"
	"github.com/zcsim/zcsim/sim/scenario"
)

// TestMain lets the test binary serve as its own unprivileged probe child.
func TestMain(m *testing.M) { probetest.Main(m) }

// On a host that can be probed, zcsim diff prints the root seed first and
// a summary last, exits 1 only with a stable disagreement written to a
// file that is a scenario, and 0 otherwise.
func TestDiffLive(t *testing.T) {
	if err := diffHost(); err != nil {
		z := runCLI("diff", "--runs", "1")
		z.requireStatus(t, exitUsage, "diff")
		require.Contains(t, z.stderr, "zcsim diff: ")
		t.Skipf("skipped: %v", err)
	}
	dir := t.TempDir()
	z := runCLI("diff", "--seed", "5", "--runs", "3", "--keep-going", "--shrink-time", "5s", "--out", dir)
	lines := strings.Split(strings.TrimSuffix(z.stdout, "\n"), "\n")
	require.Equal(t, "# zcsim diff: root seed 5; the live kernel against the model under linux-6.18", lines[0])
	require.Regexp(t, `^# 3 runs \(\d+ timed out\), \d+ statements compared, \d+ stable and \d+ unstable disagreements$`, lines[len(lines)-1])
	files, err := filepath.Glob(filepath.Join(dir, "*.zcs"))
	require.NoError(t, err)
	stable := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		_, err = scenario.Parse(f, src)
		require.NoError(t, err)
		if strings.HasPrefix(filepath.Base(f), "diff-") {
			stable++
		}
	}
	require.Equal(t, len(files), len(regexp.MustCompile(`(?m)^(DIFFERS|unstable on the kernel) at run`).FindAllString(z.stdout, -1)))
	want := exitOK
	if stable > 0 {
		want = exitFindings
	}
	z.requireStatus(t, want, "diff")
}

// Bad usage exits 2 with a message and no output.
func TestDiffUsage(t *testing.T) {
	for _, args := range [][]string{
		{"diff", "--runs", "3", "--for", "1s"},
		{"diff", "--runs", "0"},
		{"diff", "--for", "-1s"},
		{"diff", "extra"},
		{"diff", "--out", "", "--runs", "1"},
		{"diff", "--shrink-time", "0s", "--runs", "1"},
	} {
		z := runCLI(args...)
		z.requireStatus(t, exitUsage, args...)
		require.Empty(t, z.stdout, args)
		require.NotEmpty(t, z.stderr, args)
	}
}
