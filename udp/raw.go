package udp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// rawSendmsg models raw_sendmsg (rawv6_sendmsg alike): first sendChecks
// (IPv4: more than 65535 bytes is EMSGSIZE; MSG_OOB EOPNOTSUPP); then the
// control messages (ip_cmsg_send: cmsgSend); with IP_HDRINCL
// raw_send_hdrinc (rawv6_send_hdrinc), whose only length bound on IPv6 is
// the device MTU: an IPv6 IPPROTO_RAW socket, header-including from
// inet6_create, sends 65536 bytes over loopback and not 65537; else
// rawProbeProtoOpt, then ip_append_data (ip6_append_data: more than
// 65535 bytes of pending payload is EMSGSIZE with a local error record)
// on sk_write_queue with no transport header
// (transhdrlen 0: the payload is counted from the first byte), flushed on
// error and pushed unless MSG_MORE. An ENOBUFS from the push is success
// unless IP_RECVERR is set.
func (u *Sock) rawSendmsg(a *call, flags kernel.MsgFlags) sock.SendResult {
	n := a.it.Count()
	if err := u.sendChecks(n, flags); err != 0 {
		return a.result(-1, err)
	}
	ipc, err := u.cmsgSend()
	if err != 0 {
		return a.result(-1, err)
	}
	if u.Sk.Hdrincl {
		return a.result(n, u.rawSendHdrinc(a, n, flags, ipc.sockc.Tsflags))
	}
	if err := u.rawProbeProtoOpt(n); err != 0 {
		return a.result(-1, err)
	}
	if !u.pending {
		u.cork = u.setupCork(ipc)
		u.cork.gsoSize = 0
		u.pending = true
	}
	err = u.ipAppendData(&u.cork, a, n, 0, flags)
	switch {
	case err != 0:
		u.flushPending()
	case flags&kernel.MSG_MORE == 0:
		err = u.rawv6Checksum()
		if err == 0 {
			err = u.pushPending()
		}
	}
	return a.result(n, err)
}

// rawv6Checksum models the check that opens rawv6_push_pending_frames on
// a socket whose checksum the kernel fills in (rawv6_init_sk: ICMPv6 at
// offset 2, IPPROTO_MH at offset 4; IPV6_CHECKSUM is not modelled): a
// datagram too short to hold the 16-bit checksum at that offset
// (offset >= length - 1) is flushed, EINVAL. Measured on Linux 6.18: an
// ICMPv6 socket sends 4 bytes, not 2 or 3 (probe/testdata/raw-short.zcs).
func (u *Sock) rawv6Checksum() kernel.Errno {
	var offset int
	switch {
	case !u.v6():
		return 0
	case u.Sk.Protocol == kernel.IPPROTO_ICMPV6:
		offset = 2
	case u.Sk.Protocol == kernel.IPPROTO_MH:
		offset = 4
	default:
		return 0
	}
	if offset >= u.cork.length-1 {
		u.flushPending()
		return kernel.EINVAL
	}
	return 0
}

// rawProbeProtoOpt models raw_probe_proto_opt (rawv6_probe_proto_opt):
// before the route lookup, an ICMP (ICMPv6) socket copies the message's
// first two bytes, its type and code, and an IPv6 IPPROTO_MH socket its
// first four (memcpy_from_msg), for the flow: a shorter message is
// EFAULT, a zero-byte one too. Other protocols read nothing. Measured on
// Linux 6.18 (probe/testdata/raw-short.zcs).
func (u *Sock) rawProbeProtoOpt(n int) kernel.Errno {
	need := 0
	switch p := u.Sk.Protocol; {
	case p == kernel.IPPROTO_ICMP && !u.v6(), p == kernel.IPPROTO_ICMPV6 && u.v6():
		need = 2
	case p == kernel.IPPROTO_MH && u.v6():
		need = 4
	}
	if n < need {
		return kernel.EFAULT
	}
	return 0
}

// rawSendHdrinc models raw_send_hdrinc (rawv6_send_hdrinc on AF_INET6,
// which reads nothing of the header): the user supplies the IP header.
// A packet above the device MTU is EMSGSIZE, leaving a local error record
// of ee_info the MTU under IP_RECVERR (ip_local_error, ipv6_local_error;
// measured on IPv6, probe/testdata/raw-hdrincl-size.zcs), one shorter
// than an IP header EINVAL; the skb comes from sock_alloc_send_skb. Then the header's ihl,
// read from the user's buffer, must not reach past the packet, nor (with
// HdrinclMinIHL) fall short of 5 words: else EINVAL. The model knows the
// header only if the program's buffer states it (mm.Buffer.Head, the
// scenario's ihl=); if not, the result is undetermined and the model goes
// on as if ihl were 5. Measured on Linux 6.18: 29 zero bytes are EINVAL,
// ihl 5 is sent, ihl 4 and ihl 15 in 40 bytes are EINVAL
// (probe/testdata/raw-hdrincl.zcs). Merged kernels copy
// everything into the linear area (MSG_ZEROCOPY cannot take effect on a
// RAW socket). The RFC's patch 10 with MSG_ZEROCOPY, a non-empty packet
// and scatter-gather copies MAX_HEADER bytes into the linear area, then
// allocates a uarg for the rest (skb_zerocopy_alloc; its failure returns
// the EINVAL left over from the header check) and pins the rest as frags
// (EMSGSIZE past MAX_SKB_FRAGS), aborting the id on error. An ENOBUFS is
// reported as success unless IP_RECVERR is set.
func (u *Sock) rawSendHdrinc(a *call, length int, flags kernel.MsgFlags, tsflags kernel.Timestamping) kernel.Errno {
	if length > u.Route.MTU {
		u.localError(kernel.EMSGSIZE, uint32(u.Route.MTU)) // ip_local_error, ipv6_local_error
		return kernel.EMSGSIZE
	}
	if length < u.Sk.IPHeaderLen() {
		return kernel.EINVAL
	}
	linear := length
	zc := flags&kernel.MSG_ZEROCOPY != 0 && u.Sk.Zerocopy() && u.Route.SG
	if zc {
		linear = min(length, kernel.MaxHeader)
	}
	b, err := u.allocSendSkb(linear, flags)
	if err != 0 {
		if err == kernel.ENOBUFS && !u.recvErr() {
			err = 0
		}
		return err
	}
	if err := u.checkIHL(a, length); err != 0 {
		b.Free()
		return err
	}
	b.AppendLinear(linear)
	a.it.Advance(linear)
	if length != linear {
		datalen := length - linear
		uarg, out := ubuf.Alloc(u.host(), u.Sk, u.Sk.Task, uint32(datalen), a.holder)
		a.outcome = out
		if uarg == nil {
			b.Free()
			return kernel.EINVAL
		}
		a.took(u, uarg, out)
		haveRef := true
		b.ZcopySet(uarg, a.holder, &haveRef)
		got, zerr := b.ZerocopyFromIter(&a.it, datalen, uarg, a.holder)
		if zerr != 0 || got != datalen {
			a.abort(false)
			b.Free()
			return kernel.EMSGSIZE
		}
	}
	u.Sk.ChargeW(b)
	u.Sk.SetupTxTimestamp(b, tsflags) // raw_send_hdrinc: skb_setup_tx_timestamp
	u.ipSendSkb(b)
	return 0
}

// checkIHL is raw_send_hdrinc's check of the header's ihl, read at the
// start of the payload, against the packet's length. An IPv6 header has
// no ihl: rawv6_send_hdrinc checks nothing of it.
func (u *Sock) checkIHL(a *call, length int) kernel.Errno {
	if u.v6() {
		return 0
	}
	b0, known := a.it.Byte()
	if !known {
		a.undetermined = "raw_send_hdrinc reads ihl from the IP header in the program's buffer, which the scenario does not state (socket ... ihl=N); assumed 5"
		b0 = 0x45
	}
	ihl := int(b0&0xf) * 4
	if ihl > length || u.host().Profile.HdrinclMinIHL && ihl < u.Sk.IPHeaderLen() {
		return kernel.EINVAL
	}
	return 0
}
