package sim

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
)

// An MPTCP socket, socket(AF_INET or AF_INET6, SOCK_STREAM,
// IPPROTO_MPTCP), is the model's as far as its own answers go: its
// creation (mptcp_init_sock), its buffers and the socket options it takes
// or refuses (mptcp_setsockopt, mptcp_getsockopt). It has no data path in
// the model: which subflow carries a send (the packet scheduler,
// mptcp_subflow_get_send), the MPTCP-level DATA_ACKs that free its send
// buffer and whether a connection fell back to plain TCP (its peer's
// handshake) are the kernel's alone. Its class is kernel.ClassOther, so it
// takes no MSG_ZEROCOPY (sk_setsockopt refuses SO_ZEROCOPY on a protocol
// other than TCP and UDP, EOPNOTSUPP) and gets no implicit peer.
//
// Measured on Linux 6.18 (probe/testdata/mptcp-sockopt.zcs,
// probe/testdata/mptcp-socket.zcs): mptcp_sendmsg keeps only MSG_MORE,
// MSG_DONTWAIT and MSG_NOSIGNAL of a send's flags, so MSG_ZEROCOPY (and
// MSG_OOB) sends copy and no zerocopy notification ever comes;
// mptcp_recvmsg hands MSG_ERRQUEUE to inet_recv_error (an empty queue:
// EAGAIN); an MPTCP listener's accept of a plain TCP client returns the
// plain TCP subflow itself (SO_PROTOCOL 6, SO_ZEROCOPY taken), while an
// MPTCP client of a plain TCP listener stays an MPTCP socket in fallback.

// mptcpOpts are the TCP-level options an MPTCP socket keeps for its
// subflows (mptcp_setsockopt_sol_tcp stores them on the msk, or on the
// first subflow, and mptcp_getsockopt_sol_tcp reads them back).
type mptcpOpts struct {
	nodelay, cork, inq, fastopen int
	notsentLowat                 uint32
}

// IsMPTCP reports whether s is an IPPROTO_MPTCP socket.
func (s *Socket) IsMPTCP() bool { return s.Sk.Protocol == kernel.IPPROTO_MPTCP }

// mptcpInit is mptcp_init_sock's part of socket(2): ENOPROTOOPT when the
// namespace's net.mptcp.enabled is 0 (mptcp_is_enabled), else the msk's
// buffers from net.ipv4.tcp_wmem[1] and tcp_rmem[1], as a TCP socket's.
// The refusal is inetLookup's.
func (w *World) mptcpInit(s *Socket) {
	s.mptcp = &mptcpOpts{}
	s.Sk.Sndbuf, s.Sk.Rcvbuf = w.Net.TCPWmem[1], w.Net.TCPRmem[1]
}

// mptcpLevel is optLevel4 for an MPTCP socket: the handler an option
// reaches, or the refusal mptcp_setsockopt or mptcp_getsockopt answers,
// for the options the model knows (probed on Linux 6.18):
//
//   - SOL_SOCKET: sk_setsockopt on the msk and its subflows, except
//     SO_OOBINLINE, SO_MAX_PACING_RATE and SO_ZEROCOPY (whatever the
//     value), EOPNOTSUPP (mptcp_setsockopt_sol_socket); every option reads
//     as sk_getsockopt has it.
//   - SOL_TCP: TCP_NODELAY, TCP_CORK, TCP_INQ, TCP_FASTOPEN and
//     TCP_NOTSENT_LOWAT are kept (mptcp_setsockopt_sol_tcp); the others
//     are ENOPROTOOPT to set and EOPNOTSUPP to get (TCP_QUICKACK,
//     TCP_USER_TIMEOUT, TCP_RTO_MAX_MS, TCP_ZEROCOPY_RECEIVE, TCP_INFO
//     to set).
//   - SOL_IP and SOL_IPV6: IP_RECVERR and IPV6_RECVERR are EOPNOTSUPP
//     both ways (mptcp_supported_sockopt leaves them out), IP_HDRINCL is
//     ENOPROTOOPT to set and EOPNOTSUPP to get, on AF_INET and AF_INET6
//     sockets alike.
//   - any other level (SOL_UDP, SOL_PACKET): ENOPROTOOPT to set,
//     EOPNOTSUPP to get.
//
// TCP_CONGESTION, TCP_INFO and SO_TIMESTAMPING with SOF_TIMESTAMPING_OPT_ID read or act
// on the subflows (mptcp_getsockopt_tcpinfo; sock_set_timestamping on
// each subflow, which refuses OPT_ID on one not yet connected, EINVAL,
// after the msk took the flags): whether a subflow exists yet is the
// kernel's, so their results are undetermined (Socket.MPTCPUndetermined).
func mptcpLevel(opt kernel.SockOpt, set bool) (optLevel, kernel.Errno) {
	refuse := kernel.EOPNOTSUPP
	if set {
		refuse = kernel.ENOPROTOOPT
	}
	switch opt.Level {
	case kernel.SOL_SOCKET:
		switch opt {
		case kernel.SO_OOBINLINE, kernel.SO_MAX_PACING_RATE, kernel.SO_ZEROCOPY:
			if set {
				return 0, kernel.EOPNOTSUPP
			}
		}
		return levelSocket, 0
	case kernel.SOL_TCP:
		switch opt {
		case kernel.TCP_NODELAY, kernel.TCP_CORK, kernel.TCP_INQ, kernel.TCP_FASTOPEN, kernel.TCP_NOTSENT_LOWAT, kernel.TCP_INFO:
			if opt != kernel.TCP_INFO || !set {
				return levelMPTCP, 0
			}
		}
		return 0, refuse
	case kernel.SOL_IP, kernel.SOL_IPV6:
		if opt == kernel.IP_RECVERR || opt == kernel.IPV6_RECVERR {
			return 0, kernel.EOPNOTSUPP
		}
	}
	return 0, refuse
}

// MPTCPUndetermined says why the result of setting opt to val (set) or
// reading it on s, an MPTCP socket, is the kernel's alone (mptcpLevel);
// "" when the model knows it or s is not an MPTCP socket.
func (s *Socket) MPTCPUndetermined(opt kernel.SockOpt, val int, set bool) string {
	switch {
	case s.mptcp == nil:
		return ""
	case opt == kernel.TCP_CONGESTION:
		return "TCP_CONGESTION of an MPTCP socket is its subflows' (mptcp_setsockopt_sol_tcp_congestion, mptcp_getsockopt_first_sf_only), which the model does not have"
	case opt == kernel.TCP_INFO && !set:
		return "TCP_INFO of an MPTCP socket is its first subflow's (mptcp_getsockopt_tcpinfo), which the model does not have"
	case set && (opt == kernel.SO_TIMESTAMPING || opt == kernel.SO_TIMESTAMPING_NEW) && kernel.Timestamping(val)&kernel.SOF_TIMESTAMPING_OPT_ID != 0:
		return "SOF_TIMESTAMPING_OPT_ID on an MPTCP socket is refused (EINVAL) by a subflow not yet connected, and whether the msk has one yet is the kernel's"
	}
	return ""
}

// set is mptcp_setsockopt_sol_tcp for the options mptcpLevel keeps:
// TCP_NODELAY and TCP_CORK as booleans, TCP_INQ 0 or 1 (EINVAL),
// TCP_FASTOPEN a queue length from 0 (EINVAL), TCP_NOTSENT_LOWAT a u32.
func (o *mptcpOpts) set(opt kernel.SockOpt, val int) kernel.Errno {
	switch opt {
	case kernel.TCP_NODELAY:
		o.nodelay = flag(val)
	case kernel.TCP_CORK:
		o.cork = flag(val)
	case kernel.TCP_INQ:
		if val < 0 || val > 1 {
			return kernel.EINVAL
		}
		o.inq = val
	case kernel.TCP_FASTOPEN:
		if val < 0 {
			return kernel.EINVAL
		}
		o.fastopen = val
	case kernel.TCP_NOTSENT_LOWAT:
		o.notsentLowat = uint32(val)
	}
	return 0
}

// flag is an int option's value as a boolean keeps it: 0 or 1.
func flag(val int) int {
	if val != 0 {
		return 1
	}
	return 0
}

// get is mptcp_getsockopt_sol_tcp for the options set keeps.
func (o *mptcpOpts) get(opt kernel.SockOpt) int {
	switch opt {
	case kernel.TCP_NODELAY:
		return o.nodelay
	case kernel.TCP_CORK:
		return o.cork
	case kernel.TCP_INQ:
		return o.inq
	case kernel.TCP_FASTOPEN:
		return o.fastopen
	}
	return int(int32(o.notsentLowat))
}

// mptcpDataOp reports whether op, a call's name as World records it, is
// on an MPTCP socket's data path, which the model does not run: its
// result is undetermined (mptcpDataPath).
func mptcpDataOp(op string) bool {
	switch op {
	case "listen", "connect", "accept", "send", "recv", "shutdown", "mmap":
		return true
	}
	return false
}

// mptcpDataPath says why op on the MPTCP socket s is undetermined.
func mptcpDataPath(s *Socket, op string) string {
	return fmt.Sprintf("%s is an MPTCP socket: the model has no MPTCP data path (subflow scheduling, mptcp_subflow_get_send; MPTCP-level DATA_ACKs; fallback to TCP), so what %s returns is the kernel's", s.Name, op)
}

// AcceptFallback models accept(2) on l, an MPTCP socket listening, of
// the connection client, a plain TCP socket of this world, opened to it:
// the client's SYN carried no MP_CAPABLE, so mptcp_stream_accept hands
// back the TCP subflow itself (measured on Linux 6.18: its SO_PROTOCOL is
// IPPROTO_TCP and it takes SO_ZEROCOPY), here client's peer, which got
// the msk's socket-level flags (mptcp_sockopt_sync). The model does not
// run l's listen (its data path), so the caller vouches that l listens.
//
// Preconditions: client is a connected TCP socket with a TCP peer.
func (w *World) AcceptFallback(c Call, l, client *Socket) (*Socket, Result) {
	var child *Socket
	r := w.syscall(c, "accept", nil, func() Result {
		if l.mptcp == nil || client == nil || client.tcp == nil || client.Peer == nil || client.Peer.tcp == nil {
			return fail(kernel.EINVAL)
		}
		child = client.Peer
		child.Sk.InheritFlags(l.Sk)
		return ok(w.allocFD(child))
	})
	return child, r
}
