//go:build linux

package netns

import (
	"net"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// Inside, lo is up and the host's other interfaces are gone; fn's error
// comes back.
func TestRun(t *testing.T) {
	if os.Geteuid() != 0 {
		err := Run(func() error { return nil })
		require.ErrorContains(t, err, "run as root")
		return
	}
	var names []string
	err := Run(func() error {
		ifs, err := net.Interfaces()
		for _, i := range ifs {
			require.NotZero(t, i.Flags&net.FlagUp, i.Name)
			names = append(names, i.Name)
		}
		return err
	})
	require.NoError(t, err)
	require.Equal(t, []string{"lo"}, names)
	require.EqualError(t, Run(func() error { return os.ErrClosed }), os.ErrClosed.Error())
}
