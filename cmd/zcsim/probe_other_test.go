//go:build !linux

package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Away from Linux, zcsim probe says it needs Linux: a usage error.
func TestProbeNeedsLinux(t *testing.T) {
	f := filepath.Join("testdata", "good.zcs")
	z := runCLI("probe", f)
	z.requireStatus(t, exitUsage, "probe", f)
	require.Empty(t, z.stdout)
	require.Contains(t, z.stderr, "needs Linux")
}
