package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// examples/lock-order.zcs is the merged design and runs clean (every
// example does); under the seed's profile its mmap is the lock-order
// violation the lesson quotes, and its getsockopt a mismatch, since the
// seed series has no TCP_ZEROCOPY_RECEIVE.
func TestLockOrderLesson(t *testing.T) {
	atRoot(t)
	f := "examples/lock-order.zcs"
	z := runCLI("run", "--brief", "--profile", "tcp-mmap-rfc", f)
	z.requireStatus(t, exitFindings, "run", "--profile", "tcp-mmap-rfc", f)
	violations := regexp.MustCompile(`(?m)^VIOLATION at step \d+: .*$`).FindAllString(z.stdout, -1)
	require.Len(t, violations, 1, z.stdout)
	require.Contains(t, violations[0], "invariant lock-order: ")
	require.Regexp(t, `(?m)^step \d+ .* mmap s\.peer 16K PROT_READ = 0\n`+regexp.QuoteMeta(violations[0]), z.stdout,
		"the mmap is the step reported")
	require.Contains(t, z.stdout, "MISMATCH at step 10 (examples/lock-order.zcs:43):\n  expected: 16384\n       got: -1 ENOPROTOOPT\n")
	require.Equal(t, 1, strings.Count(z.stdout, "MISMATCH"), z.stdout)

	src, err := os.ReadFile(f)
	require.NoError(t, err)
	var comments []string
	for _, l := range strings.Split(string(src), "\n") {
		if c, ok := strings.CutPrefix(l, "#"); ok {
			comments = append(comments, strings.TrimSpace(c))
		}
	}
	require.Contains(t, strings.Join(comments, " "), violations[0], "the lesson quotes the report as zcsim prints it")
}
