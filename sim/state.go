package sim

import (
	"strconv"

	"github.com/zcsim/zcsim/packet"
)

// State returns what an expect statement can check of a socket, by key:
// zckey, zerocopy (SOCK_ZEROCOPY, 0 or 1), optmem, wmem, wmem_queued, rmem
// (bytes), errqueue (records), locked_vm (pages of the socket's user),
// sndbuf, rcvbuf, refcnt, state (TCP_ESTABLISHED…), notified (ids whose
// completion the program received, through recvmsg(MSG_ERRQUEUE) or an
// SCM_ZC_NOTIFICATION), for a packet socket pending (packet_read_pending),
// pending0…pending3 (each CPU's counter, unsigned), mapped (0 or 1),
// hooked (the protocol hook registered, 0 or 1) and rehooks (the
// synchronize_net calls unhooking cost), and for TCP unsent
// and unacked (skbs on the write and retransmit queues), queued (bytes
// received and not read), mapped_pages (pages in its zerocopy receive
// mapping) and recv_skip_hint, inq, copybuf_len, msg_controllen,
// msg_flags (0 or MSG_CTRUNC) and cmsgs (the control messages written)
// of what the last getsockopt(TCP_ZEROCOPY_RECEIVE) wrote back.
func (w *World) State(s *Socket) map[string]string {
	sk := s.Sk
	itoa := strconv.Itoa
	m := map[string]string{
		"zckey":       strconv.FormatUint(uint64(sk.ZCKey()), 10),
		"zerocopy":    itoa(boolInt(sk.ZerocopyFlag())),
		"optmem":      itoa(sk.OmemAlloc),
		"wmem":        itoa(sk.WmemAlloc),
		"wmem_queued": itoa(sk.WmemQueued),
		"rmem":        itoa(sk.RmemAlloc),
		"errqueue":    itoa(sk.ErrQueue.Len()),
		"locked_vm":   strconv.FormatUint(lockedVM(s), 10),
		"sndbuf":      itoa(sk.Sndbuf),
		"rcvbuf":      itoa(sk.Rcvbuf),
		"refcnt":      itoa(sk.Refcnt()),
		"state":       sk.State.String(),
		"unsent":      "0",
		"unacked":     "0",
		"queued":      "0",
		"notified":    strconv.FormatUint(s.notified.Len(), 10),
	}
	if p := packetOf(s); p != nil {
		m["pending"] = strconv.FormatInt(p.ReadPending(), 10)
		for cpu := range packet.NrCPUs {
			m["pending"+itoa(cpu)] = strconv.FormatUint(uint64(p.PendingCPU(cpu)), 10)
		}
		_, _, running, syncs := p.Hook()
		m["mapped"], m["hooked"], m["rehooks"] = itoa(boolInt(p.Mapped())), itoa(boolInt(running)), itoa(syncs)
	}
	if s.tcp != nil {
		m["unsent"] = itoa(len(s.tcp.WriteQueue()))
		m["unacked"] = itoa(len(s.tcp.RtxQueue()))
		m["queued"] = itoa(s.tcp.Queued())
		m["mapped_pages"] = "0"
		if mp := s.tcp.RxMap(); mp != nil {
			m["mapped_pages"] = itoa(len(mp.Pages()))
		}
		z := s.zcrx
		m["recv_skip_hint"], m["inq"], m["copybuf_len"] = itoa(int(z.RecvSkipHint)), itoa(int(z.Inq)), itoa(int(z.CopybufLen))
		m["msg_controllen"], m["cmsgs"], m["msg_flags"] = itoa(z.Control.Left), itoa(len(z.Control.Cmsgs)), "0"
		if z.Control.Ctrunc {
			m["msg_flags"] = "MSG_CTRUNC"
		}
	} else if s.dgrm != nil {
		m["queued"] = itoa(len(s.dgrm.rx))
	}
	return m
}

func lockedVM(s *Socket) uint64 {
	if s.Task == nil || s.Task.User == nil {
		return 0
	}
	if s.Task.Task != nil && s.Task.PinnedVM > 0 {
		return s.Task.PinnedVM
	}
	return s.Task.User.LockedVM
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
