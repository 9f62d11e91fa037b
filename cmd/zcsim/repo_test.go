package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The repository ignores what builds and failing property runs leave
// behind, wherever it is left, and nothing it keeps.
func TestGitignore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	ignored := func(path string) bool {
		err := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", path).Run()
		if err == nil {
			return true
		}
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "git check-ignore %s", path)
		require.Equal(t, 1, exit.ExitCode(), "git check-ignore %s", path)
		return false
	}
	for _, p := range []string{
		"testdata/rapid/TestX-123.fail",
		"probe/testdata/rapid/TestCheck/TestCheck-1.fail",
		"sim/scenario/testdata/rapid/FuzzParse.fail",
		"zcsim",
		"cmd/zcsim/zcsim.test",
		"cover.out",
		"sim/coverage.out",
		"cpu.prof",
	} {
		require.True(t, ignored(p), "%s is not ignored", p)
	}
	for _, p := range []string{"cmd/zcsim/main.go", "cmd/zcsim/testdata/good.zcs", "sim/scenario/testdata/golden/ids.zcs", "examples/ids.zcs"} {
		require.False(t, ignored(p), "%s is ignored", p)
	}
}
