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
	// fn runs on a goroutine of its own (netns.Run): it reports by its
	// error and these flags, and the test goroutine judges them.
	var before, during, after bool
	_, err = inNetns(nil, 0, func() ([]Obs, error) {
		awaitNetstampOff() // the run before may have left the switch on
		var err error
		if before, err = hostStamps(); err != nil || before {
			return nil, err
		}
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
		if err != nil {
			return nil, err
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMP, 1); err != nil {
			return nil, err
		}
		for deadline := time.Now().Add(2 * time.Second); !during && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if during, err = hostStamps(); err != nil {
				return nil, err
			}
		}
		if err := unix.Close(fd); err != nil {
			return nil, err
		}
		awaitNetstampOff()
		after, err = hostStamps()
		return nil, err
	})
	require.NoError(t, err)
	if before {
		t.Skip("skipped: the host stamps received packets before the test asks: a process outside it holds the switch")
	}
	require.True(t, during, "a socket with SO_TIMESTAMP switches the host's stamping on")
	require.False(t, after, "the last such socket closed, the switch goes off")
}
