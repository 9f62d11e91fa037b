package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// urgState is what tp->urg_data says of the urgent byte.
type urgState uint8

// The states of tp->urg_data; its zero value is none (0).
const (
	urgNone   urgState = iota
	urgNotYet          // TCP_URG_NOTYET: the pointer came, the byte not yet
	urgValid           // TCP_URG_VALID: the byte came and is held apart
	urgRead            // TCP_URG_READ: recv(MSG_OOB) took it
)

// urgent is the receiving side's urgent data: tp->urg_data and
// tp->urg_seq, the sequence number of the urgent byte. The zero value is
// none.
type urgent struct {
	state urgState
	seq   uint32
}

// sndUrgent is the sending side's urgent mode: snd_up, the sequence
// number after the last urgent byte, and whether it is ahead of snd_una
// (tcp_urg_mode). The zero value is no urgent mode.
type sndUrgent struct {
	up     uint32
	active bool
}

// markUrg models tcp_mark_urg, called by tcp_push at the end of a send
// call with MSG_OOB (and at wait_for_space): snd_up becomes write_seq, so
// the last byte queued is the urgent one.
func (c *Conn) markUrg(flags kernel.MsgFlags) {
	if flags&kernel.MSG_OOB != 0 {
		c.sndUrg = sndUrgent{up: c.writeSeq, active: c.writeSeq != c.sndUna}
	}
}

// urgAcked ends urgent mode once snd_una reaches snd_up, as
// tcp_clean_rtx_queue does (snd_up = snd_una) for an ACK that moved
// snd_una from prior past it.
func (c *Conn) urgAcked(prior uint32) {
	if c.sndUrg.active && !after(prior, c.sndUrg.up) && !after(c.sndUrg.up, c.sndUna) {
		c.sndUrg.active = false
	}
}

// urgPtr models the urgent pointer __tcp_transmit_skb writes into a
// segment starting at seq while snd_nxt is nxt: in urgent mode, for a
// segment before snd_up, snd_up - seq when that fits 16 bits, else 0xFFFF
// while seq + 0xFFFF is after snd_nxt. It returns 0 for a segment without
// URG.
func (c *Conn) urgPtr(seq, nxt uint32) uint16 {
	up := c.sndUrg.up
	switch {
	case !c.sndUrg.active || !after(up, seq):
		return 0
	case after(seq+0x10000, up):
		return uint16(up - seq)
	case after(seq+0xFFFF, nxt):
		return 0xFFFF
	}
	return 0
}

// Urgent models tcp_urg for a segment [seq, endSeq) whose urgent pointer
// is ptr (0 without URG), before its data is queued (tcp_rcv_established
// and tcp_rcv_state_process run it before tcp_data_queue). With URG,
// tcp_check_urg takes the pointer less one (net.ipv4.tcp_stdurg 0, the
// BSD reading) as the urgent byte's sequence number, unless the reader is
// past it, it is before rcv_nxt, or it is no later than the urgent byte
// already known; an unread urgent byte the reader stands at is then
// dropped from the stream (copied_seq++, without SO_OOBINLINE), and the
// new one is TCP_URG_NOTYET. A byte not yet here becomes TCP_URG_VALID
// when a segment holding it arrives, URG or not. SIGURG (sk_send_sigurg)
// is not modelled.
func (c *Conn) Urgent(seq, endSeq uint32, ptr uint16) {
	if c.done {
		return
	}
	if ptr != 0 {
		c.checkUrg(seq + uint32(ptr) - 1)
	}
	if c.urg.state == urgNotYet && !after(seq, c.urg.seq) && after(endSeq, c.urg.seq) {
		c.urg.state = urgValid
	}
}

// UrgSlowPath reports whether a segment whose urgent pointer is ptr (0
// without URG) misses tcp_rcv_established's header prediction for urgent
// data, asked before Urgent: URG is not among pred_flags, and while
// urg_data is set pred_flags stays 0 (tcp_check_urg clears it and
// tcp_fast_path_check leaves it so until tcp_recvmsg_locked clears
// urg_data). The slow path then runs DataSndCheck after tcp_data_queue.
func (c *Conn) UrgSlowPath(ptr uint16) bool { return ptr != 0 || c.urg.state != urgNone }

// checkUrg is tcp_check_urg for an urgent byte at sequence number at.
func (c *Conn) checkUrg(at uint32) {
	switch {
	case after(c.copiedSeq, at), after(c.rcvNxt, at):
		return
	case c.urg.state != urgNone && !after(at, c.urg.seq):
		return
	}
	if c.urg.state != urgNone && c.urg.seq == c.copiedSeq && !c.Sk.URGInline && c.copiedSeq != c.rcvNxt {
		c.consume(1, false)
	}
	c.urg = urgent{state: urgNotYet, seq: at}
}

// RecvUrgent models tcp_recv_urg, recv(MSG_OOB) of up to n bytes, which
// never blocks: EINVAL with SO_OOBINLINE, without an urgent byte, or once
// it was read; ENOTCONN on a closed socket that never got a FIN (and on a
// listener, tcp_recvmsg_locked's first test); the byte, one of n, marked
// read unless peek; 0 after the FIN or SHUT_RD; else EAGAIN, as the byte
// is announced but not here.
func (c *Conn) RecvUrgent(n int, peek bool) (int, kernel.Errno) {
	switch {
	case c.Sk.State == sock.LISTEN:
		return 0, kernel.ENOTCONN
	case c.Sk.URGInline || c.urg.state == urgNone || c.urg.state == urgRead:
		return 0, kernel.EINVAL
	case c.Sk.State == sock.CLOSE && !c.rcvFin:
		return 0, kernel.ENOTCONN
	case c.urg.state == urgValid:
		if !peek {
			c.urg.state = urgRead
		}
		return min(n, 1), 0
	case c.Sk.State == sock.CLOSE || c.Sk.Shutdown&sock.RcvShutdown != 0:
		return 0, 0
	}
	return 0, kernel.EAGAIN
}

// readSpan models the urgent mark in tcp_recvmsg_locked for a read of up
// to n of the avail bytes from seq: a read that copied something stops
// before the urgent byte; one that starts at it skips it (without
// SO_OOBINLINE), which TCP_URG_VALID or TCP_URG_READ alike, and reads on.
// It returns the bytes skipped first, then those copied.
func (c *Conn) readSpan(seq uint32, avail, n int) (skip, copied int) {
	off := int(int32(c.urg.seq - seq))
	if c.urg.state == urgNone || n == 0 || off < 0 || off >= avail {
		return 0, min(n, avail)
	}
	if off > 0 {
		return 0, min(n, off)
	}
	if c.Sk.URGInline {
		return 0, min(n, avail)
	}
	return 1, min(n, avail-1)
}

// urgPassed models the end of each pass of tcp_recvmsg_locked's copy: once
// copied_seq is past the urgent byte, urg_data is cleared, so a byte never
// read with MSG_OOB is gone.
func (c *Conn) urgPassed() {
	if c.urg.state != urgNone && after(c.copiedSeq, c.urg.seq) {
		c.urg = urgent{}
	}
}

// urgPoll models tcp_poll's urgent data: EPOLLPRI while the byte is held
// (TCP_URG_VALID), and a reader at the mark without SO_OOBINLINE needs one
// byte more for EPOLLIN, the byte it would skip. It returns the events
// and the extra target.
func (c *Conn) urgPoll() (kernel.PollEvents, int) {
	var ev kernel.PollEvents
	if c.urg.state == urgValid {
		ev = kernel.POLLPRI
	}
	if c.urg.state != urgNone && c.urg.seq == c.copiedSeq && !c.Sk.URGInline {
		return ev, 1
	}
	return ev, 0
}
