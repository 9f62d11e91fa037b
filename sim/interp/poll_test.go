package interp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A poll's outcome may check the revents it returned, exactly: the
// events asked for (and POLLERR, POLLHUP) that the socket reports.
func TestPollRevents(t *testing.T) {
	requireClean(t, `
socket s AF_INET SOCK_STREAM
connect s => 0
poll s POLLIN => 0 revents=0
poll s POLLIN|POLLOUT => 1 revents=POLLOUT
send s 100 0 => 100
poll s.peer POLLIN|POLLRDNORM 1ms => 1 revents=POLLIN|POLLRDNORM
`)
	tr := runSrc(t, `
socket s AF_INET SOCK_STREAM
connect s => 0
poll s POLLOUT|POLLWRNORM => 1 revents=POLLOUT
`)
	ms := mismatches(tr)
	require.Len(t, ms, 1, timeline(t, tr))
	require.Equal(t, "1 revents=POLLOUT|POLLWRNORM", ms[0].Got)
}

// AF_UNIX: a stream or seqpacket socket the model never connects is in
// TCP_CLOSE, which unix_poll reports as POLLHUP whatever was asked for; a
// datagram socket is only writable (probe/testdata/unix-poll.zcs holds
// the counts to the kernel).
func TestPollUnixHup(t *testing.T) {
	requireClean(t, `
socket u AF_UNIX SOCK_STREAM
poll u POLLIN => 1 revents=POLLHUP
poll u POLLIN|POLLOUT => 1 revents=POLLOUT|POLLHUP
socket q AF_UNIX SOCK_SEQPACKET
poll q POLLOUT|POLLWRNORM => 1 revents=POLLOUT|POLLWRNORM|POLLHUP
socket d AF_UNIX SOCK_DGRAM
poll d POLLIN|POLLOUT => 1 revents=POLLOUT
`)
}
