//go:build !linux

package probe

import (
	"fmt"
	"io"
	"os"

	"github.com/zcsim/zcsim/sim/scenario"
)

// live is ErrNotLinux: only Linux has the kernel the probe compares with.
func live(string, []byte, []scenario.Stmt, plan, Options) ([]Obs, error) {
	return nil, ErrNotLinux
}

// Child reports ErrNotLinux and returns exit status 2.
func Child(io.Reader, io.Writer) int {
	fmt.Fprintln(os.Stderr, "probe child:", ErrNotLinux)
	return 2
}

// Supported is ErrNotLinux.
func Supported() error { return ErrNotLinux }

// hostSysctls reads nothing: there is no live host to follow.
func hostSysctls() ([]HostSysctl, error) { return nil, nil }
