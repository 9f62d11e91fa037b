package sim

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// unixSend is the send of n bytes with flags on an AF_UNIX socket, which
// has no peer in the model. unix_seqpacket_sendmsg says ENOTCONN before
// anything else; unix_stream_sendmsg too, but for MSG_OOB with zero bytes,
// which has no byte to send out of band (EOPNOTSUPP, before the peer is
// looked up; CONFIG_AF_UNIX_OOB, measured on Linux 6.18). unix_dgram_sendmsg refuses MSG_OOB
// (EOPNOTSUPP), then a datagram longer than sk_sndbuf - 32 (EMSGSIZE),
// then, in sock_alloc_send_pskb, a socket shut down for writing (EPIPE,
// zero bytes too); only then does it look for the peer (ENOTCONN), when
// Profile.UnixDgramPeerLast. Measured on Linux 6.18. Without the knob
// (the 6.1 source), the peer is looked up right after MSG_OOB, so
// ENOTCONN comes before EMSGSIZE and EPIPE.
func unixSend(sk *sock.Sock, n int, flags kernel.MsgFlags) kernel.Errno {
	switch sk.Type.Base() {
	case kernel.SOCK_STREAM:
		if flags&kernel.MSG_OOB != 0 && n == 0 {
			return kernel.EOPNOTSUPP
		}
		return kernel.ENOTCONN
	case kernel.SOCK_SEQPACKET:
		return kernel.ENOTCONN
	}
	switch {
	case flags&kernel.MSG_OOB != 0:
		return kernel.EOPNOTSUPP
	case !sk.Host().Profile.UnixDgramPeerLast:
		return kernel.ENOTCONN
	case n > sk.Sndbuf-32:
		return kernel.EMSGSIZE
	case sk.Shutdown&sock.SendShutdown != 0:
		return kernel.EPIPE
	}
	return kernel.ENOTCONN
}
