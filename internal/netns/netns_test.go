//go:build linux

package netns

import (
	"fmt"
	"net"
	"os"
	"runtime"
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
	require.ErrorIs(t, Run(func() error { runtime.Goexit(); return nil }), ErrGoexit,
		"a function that ends its goroutine, as t.FailNow inside it does, does not leave Run waiting")
}

// Inside Run, lo's MTU can be set, without touching the host's.
func TestSetLoMTU(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a private network namespace")
	}
	err := Run(func() error {
		if err := SetLoMTU(49204); err != nil {
			return err
		}
		ifc, err := net.InterfaceByName("lo")
		if err != nil {
			return err
		}
		if ifc.MTU != 49204 {
			return fmt.Errorf("lo's mtu is %d", ifc.MTU)
		}
		return nil
	})
	require.NoError(t, err)
}
