package interp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim"
)

// The child is made when its handshake completes (sk_clone_lock copies the
// listener's flags then): SO_ZEROCOPY set after `connect l.peer` but
// before accept does not reach it; set before, it does. Without a
// connect the peer connects at accept. A second connect of a connected
// peer is EISCONN, and each accept gives the listener a fresh peer.
func TestAcceptChildAtHandshake(t *testing.T) {
	requireOK(t, runSrc(t, `
socket l AF_INET SOCK_STREAM
listen l => 0
connect l.peer => 0
connect l.peer => EISCONN
setsockopt l SOL_SOCKET SO_ZEROCOPY 1 => 0
accept l c => 4
getsockopt c SOL_SOCKET SO_ZEROCOPY => 0
send c 1000 MSG_ZEROCOPY => 1000
recvmsg c MSG_ERRQUEUE => EAGAIN
recv c.peer 2000 MSG_DONTWAIT => 1000
connect l.peer => 0
setsockopt l SOL_SOCKET SO_ZEROCOPY 0 => 0
accept l d => 5
getsockopt d SOL_SOCKET SO_ZEROCOPY => 1
send d 1000 MSG_ZEROCOPY => 1000
recvmsg d MSG_ERRQUEUE => zerocopy [0,0] copied
accept l e => 6
getsockopt e SOL_SOCKET SO_ZEROCOPY => 0
send e.peer 10 0 => 10
recv e 100 MSG_DONTWAIT => 10
`))
}

// A connect that reported the connection's end disconnected the socket
// (__inet_stream_connect's sock_error, SS_UNCONNECTED): the next connect
// starts a new connection on the kernel, which the model does not, so it
// is undetermined, for a socket with an implicit peer and for a client
// of a listener alike.
func TestConnectAfterFailedConnect(t *testing.T) {
	for _, src := range []string{`
socket s AF_INET SOCK_STREAM|SOCK_NONBLOCK
connect s => -1 EINPROGRESS
close s.peer => 0
send s 26 0 => 26
connect s => -1 EPIPE
connect s
`, `
socket l AF_INET SOCK_STREAM
socket s AF_INET SOCK_STREAM|SOCK_NONBLOCK to=l
connect s => -1 EINPROGRESS
connect s => -1 ECONNREFUSED
connect s
`} {
		tr := runSrc(t, src)
		require.Empty(t, mismatches(tr), timeline(t, tr))
		var last *sim.Event
		for _, e := range events(tr) {
			if e.Op == "connect" {
				last = e
			}
		}
		require.Contains(t, last.Undetermined, "connects again after its connect failed", timeline(t, tr))
	}
}

// Connect on a listener a shutdown stopped is EINVAL on linux-6.18 alone
// (kernel.Profile.ListenStopRefusesConnect); on linux-5.0 the socket,
// TCP_CLOSE and SS_UNCONNECTED again, connects and sends, as one that
// never listened does.
func TestListenStoppedConnectByProfile(t *testing.T) {
	const src = `
socket a AF_INET SOCK_STREAM
listen a => 0
shutdown a SHUT_RD => 0
`
	requireOK(t, runSrc(t, "profile linux-6.18\n"+src+"connect a => -1 EINVAL\n"))
	requireOK(t, runSrc(t, "profile linux-5.0\n"+src+"connect a => 0\nsend a 10 0 => 10\nrecv a.peer 100 MSG_DONTWAIT => 10\n"))
}
