//go:build linux

package probe

import (
	"time"

	"golang.org/x/sys/unix"
)

// netstampOffWait bounds how long a live run waits for the host's
// receive timestamps to go off before it starts.
const netstampOffWait = 500 * time.Millisecond

// awaitNetstampOff waits, up to netstampOffWait, until the host stamps
// no received packet: the last socket of an earlier run that asked for
// receive timestamps leaves netstamp_needed_key on until a work item
// turns it off (net_disable_timestamp), and the model starts every run
// with it off (kernel.Netstamp). A process outside zcsim that holds the
// key (a time daemon stamping its own socket) keeps it on past the
// bound; the run then goes on, and its receive stamps may disagree. It
// runs in the run's namespace, where lo is up.
func awaitNetstampOff() {
	for deadline := time.Now().Add(netstampOffWait); ; time.Sleep(2 * time.Millisecond) {
		stamped, err := hostStamps()
		if err != nil || !stamped || time.Now().After(deadline) {
			return
		}
	}
}

// hostStamps says whether the host stamps a received packet now: a
// datagram a UDP socket sends itself, read with SOF_TIMESTAMPING_SOFTWARE
// alone — which reports a software stamp the packet has without asking
// the host for one (sock_set_timestamping enables the key only for
// SOF_TIMESTAMPING_RX_SOFTWARE) — carries SCM_TIMESTAMPING only if the
// host stamped it (__sock_recv_timestamp).
func hostStamps() (bool, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false, err
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPING, unix.SOF_TIMESTAMPING_SOFTWARE); err != nil {
		return false, err
	}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 100000}); err != nil {
		return false, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return false, err
	}
	self, err := unix.Getsockname(fd)
	if err != nil {
		return false, err
	}
	if err := unix.Sendto(fd, []byte{0}, 0, self); err != nil {
		return false, err
	}
	oob := make([]byte, 256)
	_, oobn, _, _, err := unix.Recvmsg(fd, make([]byte, 1), oob, 0)
	if err != nil {
		return false, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return false, err
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPING {
			return true, nil
		}
	}
	return false, nil
}
