package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// explain tells the story of every id of every example, and names the
// send of each id it tells.
func TestExplainEveryExample(t *testing.T) {
	atRoot(t)
	for _, f := range examples(t) {
		t.Run(name(f), func(t *testing.T) {
			z := runCLI("explain", f)
			z.requireStatus(t, exitOK, "explain", f)
			require.Empty(t, z.stderr)
			require.NotEmpty(t, z.stdout)
			for _, line := range strings.Split(strings.TrimSpace(z.stdout), "\n") {
				if strings.HasPrefix(line, "Id ") {
					require.Contains(t, line, f+":", "the story of an id names the line of its send")
				}
			}
		})
	}
}

// A few stories are golden: a copy on loopback, a corked UDP uarg that
// four sends share, a merged notification, an ENOBUFS step.
func TestExplainGolden(t *testing.T) {
	testdata := atRoot(t)
	for _, tt := range []struct {
		golden string
		args   []string
	}{
		{"tcp-loopback-id0", []string{"examples/tcp-loopback.zcs", "--id", "0", "--socket", "t"}},
		{"udp-cork-id0", []string{"examples/udp-cork.zcs", "--id", "0"}},
		{"errqueue-coalescing-id1", []string{"examples/errqueue-coalescing.zcs", "--id", "1"}},
		{"memlock-enobufs-step14", []string{"examples/memlock-enobufs.zcs", "--step", "14"}},
		{"tcp-loopback-step4", []string{"examples/tcp-loopback.zcs", "--step", "4"}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			args := append([]string{"explain"}, tt.args...)
			z := runCLI(args...)
			z.requireStatus(t, exitOK, args...)
			golden(t, filepath.Join(testdata, "explain", tt.golden+".txt"), []byte(z.stdout))
		})
	}
}

// What the run does not have is an input error that says what it has.
func TestExplainErrors(t *testing.T) {
	testdata := atRoot(t)
	good := filepath.Join(testdata, "good.zcs")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"examples/ids.zcs", "--id", "99"}, "examples/ids.zcs: no send got id 99; ids given: s: 0..1"},
		{[]string{"examples/ids.zcs", "--id", "0", "--socket", "nope"}, "no send got id 0 on nope; ids given: s: 0..1"},
		{[]string{"examples/ids.zcs", "--step", "999"}, "the run has no step 999: its steps are 1..26"},
		{[]string{"examples/ids.zcs", "--step", "3", "--id", "0"}, "--step and --id exclude each other"},
		{[]string{"examples/no-such.zcs"}, "no-such.zcs"},
		{[]string{good, "--id", "0"}, "no send got id 0: the run gave no notification ids"},
	} {
		args := append([]string{"explain"}, tt.args...)
		z := runCLI(args...)
		z.requireStatus(t, exitUsage, args...)
		require.Contains(t, z.stderr, tt.want)
		require.Empty(t, z.stdout)
	}
	none := runCLI("explain", good)
	none.requireStatus(t, exitOK, "explain", good)
	require.Equal(t, "The run gave no notification ids: no send took effect as a zerocopy send.\n", none.stdout)
}
