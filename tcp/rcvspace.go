package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
)

// rcvSpace is the receiver's autotuning state (struct tcp_sock): its
// estimate of the round trip (rcv_rtt_est) and what the reader copied
// since the last measurement (rcvq_space). Times are the simulation's,
// in microseconds as the kernel's tcp_mstamp counts them.
type rcvSpace struct {
	// rtt is rcv_rtt_est.rtt_us: eight times the estimate, 0 until the
	// first sample. rttSeq and rttTime are where and when the sample in
	// progress began (rcv_rtt_est.seq, .time); measured says one has.
	rtt      int64
	rttSeq   uint32
	rttTime  engine.Time
	measured bool
	// space, seq and time are rcvq_space: the bytes copied in the last
	// measured RTT, copied_seq when the measurement began, and when.
	space int
	seq   uint32
	time  engine.Time
	// flagged says this measurement's undetermined growth was noted;
	// restartable that a read since found the gate closed with an RTT
	// sample, where the kernel's may have been open.
	flagged, restartable bool
}

// initRcvSpace models the autotuning part of tcp_init_buffer_space:
// rcvq_space starts now at copied_seq, its space the least of
// rcv_ssthresh, rcv_wnd and TCP_INIT_CWND segments of advmss less the
// timestamp option when the connection uses it (tcp_rcv_state_process
// and tcp_rcv_synsent_state_process tweak advmss before, "tcp: fix
// initial tp->rcvq_space.space value for passive TS enabled flows").
func (c *Conn) initRcvSpace() {
	w := &c.rw
	c.rs = rcvSpace{
		space: min(w.ssthresh, w.wnd, initCwnd*(w.advmss-c.optLen())),
		seq:   c.copiedSeq,
		time:  c.Net.Now(),
	}
}

// rcvRttMeasure models tcp_rcv_rtt_measure, run for each data segment
// (tcp_event_data_recv): a sample ends when rcv_nxt reaches the right
// edge of the window offered when it began, and measures the time that
// window took to arrive (at least 1µs); a new one begins at once. The
// estimate keeps the least sample (tcp_rcv_rtt_update with win_dep:
// larger window samples are ignored).
//
// The model takes no timestamp samples (tcp_rcv_rtt_measure_ts): they
// count in milliseconds since the peer echoed this end's TSval, which
// over loopback without a wait is 0, a sample Linux 6.16 and later
// ignore ("tcp: remove zero TCP TS samples for autotuning").
func (c *Conn) rcvRttMeasure() {
	r := &c.rs
	now := c.Net.Now()
	if r.measured {
		if int32(c.rcvNxt-r.rttSeq) < 0 {
			return
		}
		sample := max(int64(now.Sub(r.rttTime)/engine.Microsecond), 1) << 3
		if r.rtt == 0 || sample < r.rtt {
			r.rtt = sample
		}
	}
	r.measured = true
	r.rttSeq = c.rcvNxt + uint32(c.rw.wnd)
	r.rttTime = now
}

// rcvSpaceAdjust models tcp_rcv_space_adjust, run after each skb a read
// copies from (tcp_recvmsg_locked) and once after a zerocopy receive
// (tcp_zerocopy_receive): at most once per estimated RTT, the bytes
// copied since the last measurement — less what is still queued, on
// profiles with RcvbufWindow — become the new measurement; more than the
// last one grows the buffer (rcvbufGrow). Without an RTT sample nothing
// happens.
//
// The kernel's gate is wall-clock microseconds, the model's its own
// time, so where the two may part the socket's history says so
// (OpRcvbufUndetermined): a closed gate with more than the last
// measurement copied (the kernel grows if its RTT has passed; with no RTT
// sample, only after a millisecond or more, the least timestamp sample),
// and a growth from bytes copied across reads at which the kernel's gate
// may have opened and restarted the measurement.
func (c *Conn) rcvSpaceAdjust() {
	r := &c.rs
	now := c.Net.Now()
	elapsed := int64(now.Sub(r.time) / engine.Microsecond)
	copied := int(int32(c.copiedSeq - r.seq))
	form := c.host().Profile.TCPRcvbufGrow
	if form == kernel.RcvbufWindow {
		copied -= int(int32(c.rcvNxt - c.copiedSeq))
	}
	sk := c.Sk
	canGrow := sk.Net.TCPModerateRcvbuf != 0 && !sk.RcvbufLocked && sk.Rcvbuf < sk.Net.TCPRmem[2]
	if r.rtt == 0 || elapsed < r.rtt>>3 {
		switch {
		case !canGrow || r.flagged:
		case copied > r.space && (r.rtt != 0 || elapsed >= 1000):
			r.flagged = true
			sk.Note(kernel.Entry{Op: kernel.OpRcvbufUndetermined, Args: [4]int64{kernel.RcvbufMayGrow, int64(copied), int64(r.space)}})
		case r.rtt != 0 && c.copiedSeq != r.seq:
			r.restartable = true
		}
		return
	}
	if copied > r.space {
		if r.restartable && canGrow {
			sk.Note(kernel.Entry{Op: kernel.OpRcvbufUndetermined, Args: [4]int64{kernel.RcvbufMayHaveRestarted, int64(copied), int64(r.space)}})
		}
		c.rcvbufGrow(form, copied)
	}
	r.seq, r.time = c.copiedSeq, now
	r.flagged, r.restartable = false, false
}

// rcvbufGrow models the growth of tcp_rcv_space_adjust (tcp_rcvbuf_grow
// on RcvbufWindow profiles, see kernel.RcvbufGrow for the three forms):
// rcvq_space.space becomes copied, and unless net.ipv4.tcp_moderate_rcvbuf
// is 0 or the user fixed the size (SOCK_RCVBUF_LOCK), sk_rcvbuf grows to
// the new size, at most tcp_rmem[2], with window_clamp after it. It never
// shrinks.
func (c *Conn) rcvbufGrow(form kernel.RcvbufGrow, copied int) {
	old := c.rs.space
	c.rs.space = copied
	sk := c.Sk
	if sk.Net.TCPModerateRcvbuf == 0 || sk.RcvbufLocked {
		return
	}
	var rcvbuf, clamp int
	switch form {
	case kernel.RcvbufWindow:
		rcvwin := copied << 1
		rcvwin += rcvwin * (copied - old) / old << 1
		rcvbuf = min(c.spaceFromWin(rcvwin), sk.Net.TCPRmem[2])
		clamp = c.winFromSpace(rcvbuf)
	case kernel.RcvbufRcvmem:
		rcvwin := copied<<1 + 16*c.rw.advmss
		rcvwin += rcvwin * (copied - old) / old << 1
		rcvbuf = min(rcvwin/c.rw.advmss*c.rcvmem(), sk.Net.TCPRmem[2])
		clamp = c.winFromSpace(rcvbuf)
	default:
		rcvwin := copied<<1 + 16*c.rw.advmss
		switch {
		case copied >= old+old>>1:
			rcvwin <<= 1
		case copied >= old+old>>2:
			rcvwin += rcvwin >> 1
		}
		rcvbuf = min(rcvwin/c.rw.advmss*c.rcvmem(), sk.Net.TCPRmem[2])
		clamp = rcvwin
	}
	if rcvbuf > sk.Rcvbuf {
		sk.Note(kernel.Entry{Op: kernel.OpRcvbufGrow, Args: [4]int64{int64(sk.Rcvbuf), int64(rcvbuf), int64(clamp), int64(copied)}})
		sk.Rcvbuf = rcvbuf
		c.rw.clamp = clamp
	}
}

// rcvmem is the truesize the older forms of autotuning reckon per
// segment: SKB_TRUESIZE(advmss + MAX_TCP_HEADER), raised by 128 bytes
// until its window holds advmss.
func (c *Conn) rcvmem() int {
	m := c.rw.advmss + maxTCPHeader + skbSize + shinfoSize
	for c.winFromSpace(m) < c.rw.advmss {
		m += 128
	}
	return m
}

// spaceFromWin models tcp_space_from_win, the inverse of winFromSpace:
// the buffer whose window is win.
func (c *Conn) spaceFromWin(win int) int {
	if c.host().Profile.TCPScalingRatio {
		return win << 8 / c.ratio()
	}
	return win << 1
}

// setRcvlowat models tcp_set_rcvlowat: the socket layer caps and sets
// SO_RCVLOWAT, then, unless the user fixed the size (SOCK_RCVBUF_LOCK), a
// buffer too small for a window of the mark grows to
// tcp_space_from_win(mark) at the connection's scaling ratio, and
// window_clamp becomes the mark. Measured on Linux 6.18: after 65483-byte
// segments (scaling ratio 249/256) SO_RCVLOWAT 200000 makes SO_RCVBUF
// 205622; on a fresh socket (ratio 1/2) 100000 makes it 200000.
func (c *Conn) setRcvlowat(val int) kernel.Errno {
	if err := c.Sk.Setsockopt(kernel.SO_RCVLOWAT, val); err != 0 {
		return err
	}
	if c.Sk.RcvbufLocked {
		return 0
	}
	mark := c.Sk.Rcvlowat
	if space := c.spaceFromWin(mark); space > c.Sk.Rcvbuf {
		c.Sk.Rcvbuf = space
		c.rw.clamp = mark
	}
	return 0
}
