package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// A socket connected once stays SS_CONNECTED: __inet_stream_connect says
// EISCONN after shutdown(SHUT_RDWR) and after a reset (probed on Linux
// 6.18), and inet_listen says EINVAL; a listener gets EISCONN too.
func TestConnectOnceConnected(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	require.Equal(t, kernel.Errno(0), p.c.Shutdown())
	require.Equal(t, kernel.EISCONN, p.c.Connect(p.peer.Window()))
	p.c.Reset()
	require.Equal(t, kernel.EISCONN, p.c.Connect(p.peer.Window()))
	require.Equal(t, kernel.EINVAL, p.c.Listen())

	lsk := sock.New(p.h, p.c.Sk.Net, p.task, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	l := New(lsk, p.c.Route, p.w)
	require.Equal(t, kernel.Errno(0), l.Listen())
	require.Equal(t, kernel.EISCONN, l.Connect(0))
}
