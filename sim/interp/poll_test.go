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
