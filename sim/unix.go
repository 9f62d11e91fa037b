package sim

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// unixSend is the send of n bytes with flags on an AF_UNIX socket s,
// which has no peer in the model. unix_seqpacket_sendmsg says ENOTCONN
// before anything else. unix_stream_sendmsg and unix_dgram_sendmsg first
// parse the control messages (scm_send: unixScmSend); then the stream
// says ENOTCONN, but for MSG_OOB with zero bytes, which has no byte to
// send out of band (EOPNOTSUPP, before the peer is looked up;
// CONFIG_AF_UNIX_OOB, measured on Linux 6.18). unix_dgram_sendmsg refuses MSG_OOB
// (EOPNOTSUPP), then a datagram longer than sk_sndbuf - 32 (EMSGSIZE),
// then, in sock_alloc_send_pskb, a socket shut down for writing (EPIPE,
// zero bytes too); only then does it look for the peer (ENOTCONN), when
// Profile.UnixDgramPeerLast. Measured on Linux 6.18. Without the knob
// (the 6.1 source), the peer is looked up right after MSG_OOB, so
// ENOTCONN comes before EMSGSIZE and EPIPE.
func (w *World) unixSend(s *Socket, n int, flags kernel.MsgFlags) Result {
	sk := s.Sk
	if sk.Type.Base() == kernel.SOCK_SEQPACKET {
		return fail(kernel.ENOTCONN)
	}
	err, why := w.unixScmSend(sk.Control)
	if err != 0 {
		return fail(err)
	}
	r := fail(unixSendChecks(sk, n, flags))
	r.Undetermined = why
	return r
}

// unixSendChecks is what an AF_UNIX stream or datagram send checks once
// its control messages are parsed.
func unixSendChecks(sk *sock.Sock, n int, flags kernel.MsgFlags) kernel.Errno {
	if sk.Type.Base() == kernel.SOCK_STREAM {
		if flags&kernel.MSG_OOB != 0 && n == 0 {
			return kernel.EOPNOTSUPP
		}
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

// scmMaxFD is SCM_MAX_FD, the descriptors one sendmsg may pass.
const scmMaxFD = 253

// unixScmSend models __scm_send, which an AF_UNIX sendmsg runs before
// anything else: messages of other levels are skipped; of SOL_SOCKET,
// SCM_RIGHTS passes the descriptors its data holds (scm_fp_copy: none
// when it has less than an int, EINVAL past SCM_MAX_FD, EBADF for one
// the program has not open; 0 to 2 are its standard streams),
// SCM_CREDENTIALS needs exactly a struct ucred (EINVAL) whose pid, uid
// and gid scm_check_creds holds against the caller's, which the model
// does not know (undetermined, said in the string: the send's other
// checks still give its result under the assumption that they pass), and any other type is
// EINVAL: SO_TIMESTAMPING, SO_MARK and the rest of __sock_cmsg_send's
// have no meaning here. Measured on Linux 6.18
// (probe/testdata/unix-send.zcs).
func (w *World) unixScmSend(ctl *sock.Control) (kernel.Errno, string) {
	if ctl == nil {
		return 0, ""
	}
	for _, m := range ctl.Msgs {
		switch {
		case m.Type.Level != kernel.SOL_SOCKET:
		case m.Type == kernel.SCM_RIGHTS:
			if err := w.scmFpCopy(m); err != 0 {
				return err, ""
			}
		case m.Type == kernel.SCM_CREDENTIALS:
			if m.Len != ucredSize {
				return kernel.EINVAL, ""
			}
			return 0, "SCM_CREDENTIALS: scm_check_creds compares its pid, uid and gid with the caller's, which the scenario does not show"
		default:
			return kernel.EINVAL, ""
		}
	}
	return 0, ""
}

// ucredSize is sizeof(struct ucred): pid, uid, gid.
const ucredSize = 12

// scmFpCopy models scm_fp_copy for an SCM_RIGHTS message m: its data is
// an array of ints, the descriptors (the model's value gives the first
// eight bytes, zeros after), each of which must be open (fget, EBADF).
func (w *World) scmFpCopy(m sock.Cmsg) kernel.Errno {
	num := m.Len / 4
	if num > scmMaxFD {
		return kernel.EINVAL
	}
	for i := range num {
		fd := 0
		if i < 2 {
			fd = int(int32(uint32(m.Data >> (32 * i))))
		}
		if !w.fdOpen(fd) {
			return kernel.EBADF
		}
	}
	return 0
}

// fdOpen reports whether the program has descriptor fd open: its
// standard streams, or what the model gave it.
func (w *World) fdOpen(fd int) bool {
	return fd >= 0 && (fd < 3 || fd < len(w.fds) && w.fds[fd] != nil)
}
