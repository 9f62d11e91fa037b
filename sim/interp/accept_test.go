package interp

import "testing"

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
