// Package probetest lets a test binary serve as the unprivileged child
// that the live-kernel probe re-executes (probe.ChildEnv), so that tests
// of the probe and of what drives it can run scenarios that drop
// CAP_IPC_LOCK or set RLIMIT_MEMLOCK.
package probetest

import (
	"os"
	"testing"

	"github.com/zcsim/zcsim/probe"
)

// Main is a TestMain: it runs the probe child when the binary was
// re-executed as one, and the tests of m otherwise.
func Main(m *testing.M) {
	if os.Getenv(probe.ChildEnv) != "" {
		os.Exit(probe.Child(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}
