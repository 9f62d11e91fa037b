//go:build linux

package probe

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// hostStamps sees the host's receive timestamps go on while a socket
// asks for them and off again once it is closed, which is what a live
// run waits for before it starts.
func TestHostStamps(t *testing.T) {
	requireLive(t)
	release, err := hostTurn()
	require.NoError(t, err)
	defer release()
	_, err = inNetns(nil, 0, func() ([]Obs, error) {
		if on, err := hostStamps(); err != nil || on {
			t.Skipf("skipped: the host stamps received packets before the test asks (err %v): a process outside it holds the switch", err)
		}
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
		require.NoError(t, err)
		require.NoError(t, unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMP, 1))
		on := false
		for deadline := time.Now().Add(2 * time.Second); !on && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			on, err = hostStamps()
			require.NoError(t, err)
		}
		require.True(t, on, "a socket with SO_TIMESTAMP switches the host's stamping on")
		require.NoError(t, unix.Close(fd))
		awaitNetstampOff()
		on, err = hostStamps()
		require.NoError(t, err)
		require.False(t, on, "the last such socket closed, the switch goes off")
		return nil, nil
	})
	require.NoError(t, err)
}
