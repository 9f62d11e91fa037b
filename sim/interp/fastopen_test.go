package interp

import "testing"

// A Fast Open listener grants a cookie to the SYN that asks for one, and
// the namespace keeps it for the destination (the device's peer address,
// per family): later sockets put data in the SYN. Without
// TFO_SERVER_WO_SOCKOPT1 the implicit peer grants none.
func TestFastOpenCookieCache(t *testing.T) {
	requireOK(t, runSrc(t, `
sysctl net.ipv4.tcp_fastopen 1027
socket a AF_INET SOCK_STREAM
sendto a 100 MSG_FASTOPEN|MSG_DONTWAIT => EINPROGRESS
socket b AF_INET SOCK_STREAM
sendto b 100 MSG_FASTOPEN|MSG_DONTWAIT => 100
socket c AF_INET6 SOCK_STREAM
sendto c 100 MSG_FASTOPEN|MSG_DONTWAIT => EINPROGRESS
connect c => 0
connect c => EISCONN
`))
	requireOK(t, runSrc(t, `
sysctl net.ipv4.tcp_fastopen 3
socket a AF_INET SOCK_STREAM
sendto a 100 MSG_FASTOPEN|MSG_DONTWAIT => EINPROGRESS
socket b AF_INET SOCK_STREAM
sendto b 100 MSG_FASTOPEN|MSG_DONTWAIT => EINPROGRESS
`))
}

// A non-blocking connect says EINPROGRESS though the handshake is done;
// the second connect finds it established.
func TestNonblockingConnect(t *testing.T) {
	requireOK(t, runSrc(t, `
socket n AF_INET SOCK_STREAM|SOCK_NONBLOCK
connect n => EINPROGRESS
expect n state=TCP_ESTABLISHED
send n 100 0 => 100
connect n => 0
connect n => EISCONN
`))
}
