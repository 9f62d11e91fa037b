package interp

import "testing"

// An unconnected AF_UNIX datagram send: on linux-6.18 EMSGSIZE and EPIPE
// come before ENOTCONN; the older profiles look for the peer first.
func TestUnixDgramSendOrder(t *testing.T) {
	requireOK(t, runSrc(t, `
socket d AF_UNIX SOCK_DGRAM
send d 10 MSG_OOB => EOPNOTSUPP
send d 300000 0 => EMSGSIZE
send d 10 0 => ENOTCONN
shutdown d SHUT_WR => 0
send d 0 0 => EPIPE
socket q AF_UNIX SOCK_SEQPACKET
send q 10 MSG_OOB => ENOTCONN
`))
	requireOK(t, runSrc(t, `
profile linux-5.0
socket d AF_UNIX SOCK_DGRAM
send d 10 MSG_OOB => EOPNOTSUPP
send d 300000 0 => ENOTCONN
shutdown d SHUT_WR => 0
send d 0 0 => ENOTCONN
`))
}
