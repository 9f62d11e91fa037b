package sim

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sock"
)

// ZcInfo is an SCM_ZC_NOTIFICATION control message (the unmerged v7
// series, seed 003) that a sendmsg carries: a struct zc_info whose size
// field is Size, in DataLen bytes of cmsg data (kernel.ZcInfoLen(Size)
// when well formed).
type ZcInfo struct {
	Size    uint32
	DataLen int
}

// ZcReply is what became of a call's SCM_ZC_NOTIFICATION.
type ZcReply struct {
	// Parsed says the handler ran: the protocol reached sock_cmsg_send
	// and the message was valid. A call that failed first, or a UDP
	// append to a pending datagram, leaves the program's zc_info as it
	// passed it.
	Parsed bool
	// Elems are the completions the program received, in queue order;
	// the kernel set zc_info->size to their number.
	Elems []notify.ZcInfoElem
	// Lost are completions the handler took off the error queue that
	// never reached the program (kernel.BugZcCmsgLoss).
	Lost []notify.ZcInfoElem
}

// zcCall is an SCM_ZC_NOTIFICATION on its way through one sendmsg.
type zcCall struct {
	info  ZcInfo
	reply ZcReply
	// taken are the completions unlinked by the handler and not yet
	// copied to the program (the v7 copy comes after the send).
	taken []notify.ZcInfoElem
}

// SendMsg models sendmsg(2) of iovecs with the given lengths carrying the
// control buffer ctl. ____sys_sendmsg first copies the control buffer (the
// CMSG_SPACE of each message) into the kernel: one larger than its stack
// buffer is sock_kmalloc'd from optmem, ENOBUFS when that fails, and freed
// when the call returns. The protocol parses the messages where its
// sendmsg does (sock.Sock.CmsgSend for TCP and packet sockets, UDP's
// udp_cmsg_send and ip_cmsg_send), so a call that fails before that point
// parses nothing; the SCM_ZC_NOTIFICATION comes after the other messages.
//
// As the v7 series posted it (kernel.BugZcCmsgLoss on), the
// SCM_ZC_NOTIFICATION handler unlinks the completions at once, and
// sendmsg_copy_cmsg_to_user copies them back only if the call succeeded;
// put_cmsg's failure (fault site put_cmsg) is ignored. A failed send or a
// failed copy loses them. Fixed, the handler copies them to the program
// before unlinking them: a failed copy fails the cmsg (EFAULT, which TCP
// before TCPCmsgErrno reports as EINVAL) and leaves the queue as it was,
// and completions copied stay the program's even if the send then fails.
func (w *World) SendMsg(c Call, s *Socket, lens []int, flags kernel.MsgFlags, ctl Control) Result {
	if s.closed {
		return w.FailCall(c, "send", kernel.EBADF)
	}
	if len(ctl.Msgs) == 0 && ctl.Zc == nil {
		return w.send(c, s, lens, flags, ctl.To, ctl.IovApart)
	}
	size := 0
	for _, m := range ctl.Msgs {
		size += kernel.CmsgSpace(m.Len)
	}
	if ctl.Zc != nil {
		size += kernel.CmsgSpace(ctl.Zc.DataLen)
	}
	if size > kernel.CmsgStackCtl {
		if !s.Sk.Kmalloc(size) {
			return w.syscall(c, "send", s, func() Result { return fail(kernel.ENOBUFS) })
		}
		defer s.Sk.Kfree(size)
	}
	s.Sk.Control = &sock.Control{Msgs: ctl.Msgs}
	if ctl.Zc != nil {
		z := &zcCall{info: *ctl.Zc}
		s.Sk.Control.Zc = func() kernel.Errno { return w.zcHandler(s, z) }
		s.zc = z
	}
	defer func() { s.Sk.Control, s.zc = nil, nil }()
	return w.send(c, s, lens, flags, ctl.To, ctl.IovApart)
}

// Control is what a sendmsg carries beside its data: its control
// messages in order and, after them, an SCM_ZC_NOTIFICATION when Zc is
// set. To says the sendmsg names the peer (msg_name), as SendTo does.
// IovApart puts each iovec at the start of a page of its own instead of
// back to back (World.Send), as separately allocated buffers lie: no two
// share a frag.
type Control struct {
	Msgs     []sock.Cmsg
	Zc       *ZcInfo
	To       bool
	IovApart bool
}

// zcHandler is the SCM_ZC_NOTIFICATION case of __sock_cmsg_send.
func (w *World) zcHandler(s *Socket, z *zcCall) kernel.Errno {
	lossy := w.Host.Profile.Bugs.Has(kernel.BugZcCmsgLoss)
	if err := s.Sk.ZcInfoCheck(z.info.Size, z.info.DataLen); err != 0 {
		return err
	}
	if !lossy && w.Host.Fail(kernel.FaultPutCmsg) {
		return kernel.EFAULT
	}
	elems, _ := s.Sk.ZcNotification(z.info.Size, z.info.DataLen)
	z.reply.Parsed = true
	for _, e := range elems {
		w.Monitor.Unlinked(s.Sk, e.Record())
	}
	if lossy {
		z.taken = elems
		return 0
	}
	w.deliverZc(s, z, elems)
	return 0
}

// deliverZc hands completions to the program.
func (w *World) deliverZc(s *Socket, z *zcCall, elems []notify.ZcInfoElem) {
	for _, e := range elems {
		w.Monitor.Delivered(s.Sk, e.Range())
		s.notified.Add(e.Range())
	}
	z.reply.Elems = append(z.reply.Elems, elems...)
}

// finishZc ends a call's SCM_ZC_NOTIFICATION as it returns res: under
// kernel.BugZcCmsgLoss, the v7 sendmsg_copy_cmsg_to_user of what the
// handler took, if the call succeeded and put_cmsg does not fault;
// otherwise those completions are lost.
func (w *World) finishZc(s *Socket, res *Result) {
	z := s.zc
	if z == nil {
		return
	}
	if w.Host.Profile.Bugs.Has(kernel.BugZcCmsgLoss) && z.reply.Parsed {
		if res.Errno == 0 && !w.Host.Fail(kernel.FaultPutCmsg) {
			w.deliverZc(s, z, z.taken)
		} else {
			z.reply.Lost = z.taken
		}
		z.taken = nil
	}
	reply := z.reply
	res.ZcInfo = &reply
}
