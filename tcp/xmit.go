package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// after is the kernel's after(a, b) on sequence numbers: a is later than b
// modulo 2^32.
func after(a, b uint32) bool { return int32(b-a) < 0 }

func (c *Conn) writeTail() *Segment {
	if len(c.write) == 0 {
		return nil
	}
	return c.write[len(c.write)-1]
}

// entail models tcp_stream_alloc_skb plus tcp_skb_entail: a new skb with
// linear bytes of linear area behind the profile's MAX_TCP_HEADER headroom
// (Profile.TCPHeadroom, in its truesize) at the tail of the write queue,
// charged to sk_wmem_queued.
func (c *Conn) entail(linear int) *Segment {
	b := skb.Alloc(c.host(), linear)
	b.Reserve(c.host().Profile.TCPHeadroom)
	c.Sk.ChargeQueued(b)
	seg := c.segment(Segment{Skb: b, Seq: c.writeSeq, EndSeq: c.writeSeq})
	c.write = segmentPtrSlab.Of(c.host()).Append(c.write, seg)
	return seg
}

// segment returns a new segment with s's fields, from the Host's slab.
func (c *Conn) segment(s Segment) *Segment {
	seg := segmentSlab.Of(c.host()).New()
	*seg = s
	return seg
}

// removeEmptyTail models tcp_remove_empty_skb: an skb the call allocated
// but put nothing in is unlinked and freed.
func (c *Conn) removeEmptyTail() {
	if seg := c.writeTail(); seg != nil && seg.Skb.Len == 0 && !seg.Fin {
		c.write = c.write[:len(c.write)-1]
		seg.Skb.Free()
	}
}

// memoryFree models sk_stream_memory_free (__sk_stream_memory_free(sk,
// 0)): sk_wmem_queued below sk_sndbuf, and tcp_stream_memory_free.
func (c *Conn) memoryFree() bool { return c.Sk.WmemQueued < c.Sk.Sndbuf && c.streamMemoryFree(0) }

// streamMemoryFree models tcp_stream_memory_free(sk, wake): the bytes
// written and not yet sent (write_seq - snd_nxt), doubled when wake is 1
// (poll and the write-space wakeup), below tcp_notsent_lowat: the
// socket's TCP_NOTSENT_LOWAT, or net.ipv4.tcp_notsent_lowat when that is
// 0 (UINT_MAX, no limit, by default). Measured on Linux 6.18 over
// loopback (probe/testdata/tcp-notsent-lowat.zcs).
func (c *Conn) streamMemoryFree(wake uint) bool {
	lowat := c.notsentLowat
	if lowat == 0 {
		lowat = c.Sk.Net.TCPNotsentLowat
	}
	return uint64(c.writeSeq-c.sndNxt)<<wake < uint64(lowat)
}

// fillableTail returns the write queue's tail and the room sizeGoal
// leaves in it when tcp_sendmsg_locked may go on filling it (below
// size_goal, no EOR, no FIN); nil when the send needs a new segment.
func (c *Conn) fillableTail(sizeGoal int) (*Segment, int) {
	seg := c.writeTail()
	if seg == nil || seg.EOR || seg.Fin || sizeGoal-seg.Skb.Len <= 0 {
		return nil, 0
	}
	return seg, sizeGoal - seg.Skb.Len
}

// SendWouldWait reports whether a send of size bytes, with MSG_ZEROCOPY
// when zerocopy, would now reach wait_for_space before queuing a byte
// (tcp_sendmsg_locked): new_segment finds sk_stream_memory_free false and
// the write queue's tail cannot take the first bytes -- there is none, it
// reached size_goal, it ends a record (EOR) or carries the FIN, its frags
// are full, or, for a zerocopy send, it holds a uarg that
// msg_zerocopy_realloc would not extend (a new uarg:
// skb_zerocopy_iter_stream's -EEXIST). With the frags full, a copy is
// taken to need a new segment too, although it may still coalesce into
// the last frag when the page frag continues it (skb_can_coalesce after
// sk_page_frag_refill, which this does not run): it may report a wait
// where the send would go on.
func (c *Conn) SendWouldWait(size int, zerocopy bool) bool {
	if c.memoryFree() {
		return false
	}
	seg, _ := c.fillableTail(c.sizeGoal(0))
	if seg == nil {
		return true
	}
	b := seg.Skb
	if b.Tailroom() > 0 {
		return false
	}
	if len(b.Shinfo().Frags) >= kernel.MaxSkbFrags {
		return true
	}
	if !zerocopy || size == 0 || !c.Sk.Zerocopy() || !c.Route.SG {
		return false
	}
	tail := b.Zcopy()
	return tail != nil && tail.Flavour == ubuf.MsgZerocopy && ubuf.Extends(c.host().Profile, c.Sk, tail, uint32(size)) != ubuf.Extended
}

// sizeGoal models tcp_xmit_size_goal as tcp_send_mss calls it for a
// send with flags: without GSO, or for a MSG_OOB send (large_allowed is
// !(flags & MSG_OOB)), one MSS; otherwise as many whole MSS as fit the
// GSO size less MAX_TCP_HEADER, bounded to half the largest window the
// peer offered (tcp_bound_to_half_wnd). Measured on Linux 6.18 over a
// loopback with a 2074-byte MTU: a non-blocking MSG_OOB send right after
// the handshake queues skbs of one 2022-byte MSS each, whose overhead
// fills the 130560-byte send buffer after 46 of them (93012 bytes), while
// without MSG_OOB the send takes all 114688 bytes
// (probe/testdata/tcp-oob-size-goal.zcs).
func (c *Conn) sizeGoal(flags kernel.MsgFlags) int {
	mss := c.MSS()
	if c.Route.GSO == 0 || flags&kernel.MSG_OOB != 0 {
		return mss
	}
	goal := c.Route.GSO - 1 - maxTCPHeader
	if c.maxWindow > 536 {
		goal = min(goal, max(c.maxWindow/2, 68-c.HeaderLen()))
	}
	return max(goal/mss, 1) * mss
}

// markPush models tcp_mark_push: PSH on seg, pushed_seq = write_seq.
func (c *Conn) markPush(seg *Segment) { seg.Push = true }

// forcedPush models forced_push: more than half the largest window was
// written since the last PSH.
func (c *Conn) forcedPush() bool {
	var pushed uint32
	for i := len(c.rtx) - 1; i >= 0; i-- {
		if c.rtx[i].Push {
			pushed = c.rtx[i].EndSeq
			break
		}
	}
	for _, seg := range c.write {
		if seg.Push {
			pushed = seg.EndSeq
		}
	}
	return after(c.writeSeq, pushed+uint32(c.maxWindow/2))
}

// push models tcp_push at the end of a send call: mark PSH unless
// MSG_MORE, move snd_up with MSG_OOB (tcp_mark_urg), and treat MSG_MORE
// as a cork for this push.
func (c *Conn) push(flags kernel.MsgFlags, nonagle int) {
	seg := c.writeTail()
	if seg == nil {
		return
	}
	if flags&kernel.MSG_MORE == 0 || c.forcedPush() {
		c.markPush(seg)
	}
	c.markUrg(flags)
	if flags&kernel.MSG_MORE != 0 {
		nonagle = nagleCork
	}
	c.pushPending(nonagle)
}

// The push_one argument of tcp_write_xmit: send everything the windows
// allow, one skb (tcp_push_one), or one skb as a loss probe, which
// schedules no further probe (tcp_send_loss_probe).
const (
	pushAll = iota
	pushOneSkb
	pushOneProbe
)

// pushOne models tcp_push_one: send at most the head of the write queue.
func (c *Conn) pushOne() { c.writeXmit(naglePush, pushOneSkb) }

// pushPending models __tcp_push_pending_frames: retransmit what is marked
// lost, then send new data as far as the windows and Nagle allow.
func (c *Conn) pushPending(nonagle int) { c.writeXmit(nonagle, pushAll) }

// pcount is tcp_skb_pcount: the segments an skb becomes on the wire.
func (c *Conn) pcount(seg *Segment) int { return segments(seg.Skb.Len, c.MSS()) }

// segments is how many segments of mss bytes n bytes take, at least one.
func segments(n, mss int) int { return max(1, (n+mss-1)/mss) }

// inFlight is tcp_packets_in_flight: segments sent and neither acknowledged
// nor given up as lost.
func (c *Conn) inFlight() int {
	n, mss := 0, c.MSS()
	for _, seg := range c.rtx {
		if !seg.lost {
			n += segments(seg.Skb.Len, mss)
		}
	}
	return n
}

// writeXmit models tcp_write_xmit (and tcp_xmit_retransmit_queue before
// it): while the congestion window has room, transmit the head of the
// queue, splitting it (tso_fragment) to what the congestion and receive
// windows allow; the last skb waits while Nagle or a cork holds it
// partial. New data sent schedules the loss probe
// (tcp_schedule_loss_probe), unless this is the probe.
func (c *Conn) writeXmit(nonagle, pushOne int) {
	for _, seg := range c.rtx {
		if seg.lost && c.cwnd-c.inFlight() > 0 {
			c.transmit(seg, true)
		}
	}
	from := c.sndNxt
	c.writeNew(nonagle, pushOne)
	c.cwndValidate(from)
	if c.sndNxt != from && pushOne != pushOneProbe {
		c.scheduleLossProbe(false)
	}
}

// writeNew is tcp_write_xmit's loop over the write queue. A loss probe
// goes out as one segment even when the congestion window is full.
func (c *Conn) writeNew(nonagle, pushOne int) {
	mss := c.MSS()
	for len(c.write) > 0 {
		if c.pacingCheck() {
			return
		}
		seg := c.write[0]
		quota := c.cwndTest(seg)
		if quota == 0 {
			if pushOne != pushOneProbe {
				return
			}
			quota = 1
		}
		quota = min(quota, c.tsoSegs(mss))
		if c.host().Profile.TCPGrowSkb {
			if missing := quota*mss - seg.Skb.Len; missing > 0 {
				c.growSkb(seg, missing)
			}
		}
		// tcp_nagle_test pushes an skb that is not the last; the split
		// of one larger than an MSS (tcp_mss_split_point) takes the
		// caller's nonagle as it is.
		push := nonagle
		if len(c.write) > 1 && seg.Skb.Len <= mss {
			push = naglePush
		}
		limit := c.splitPoint(seg, quota*mss, push)
		if limit <= 0 {
			return
		}
		if limit < seg.Skb.Len && !c.fragment(seg, limit) {
			return
		}
		if !c.transmit(seg, false) {
			return
		}
		if pushOne != pushAll {
			return
		}
	}
}

// cwndTest models tcp_cwnd_test: the segments the congestion window lets
// the head skb send now, none when the window is full, and at most half
// the window, so that at least two GSO packets are in flight; a FIN in
// an skb of one segment goes whatever the window.
func (c *Conn) cwndTest(seg *Segment) int {
	if seg.Fin && c.pcount(seg) == 1 {
		return 1
	}
	inFlight := c.inFlight()
	if inFlight >= c.cwnd {
		return 0
	}
	return min(max(c.cwnd>>1, 1), c.cwnd-inFlight)
}

// growSkb models tcp_grow_skb (Profile.TCPGrowSkb): the head skb takes up
// to missing bytes from the front of the next one (skb_shift, which
// refuses zerocopy skbs), unless the head ends a record
// (tcp_skb_can_collapse_to) or only one of the two is pure zerocopy
// (skb_pure_zcopy_same). A next skb left empty is eaten (tcp_eat_one_skb):
// its end, PSH, FIN and EOR pass to the head and it is freed, and
// sk_wmem_queued loses its head's truesize (the payload's moved along).
func (c *Conn) growSkb(seg *Segment, missing int) {
	if len(c.write) < 2 || seg.EOR {
		return
	}
	next := c.write[1]
	if pureZcopy(seg.Skb) != pureZcopy(next.Skb) {
		return
	}
	n := skb.Shift(seg.Skb, next.Skb, min(missing, next.Skb.Len))
	if n == 0 {
		return
	}
	seg.EndSeq += uint32(n)
	next.Seq += uint32(n)
	if next.Skb.Len > 0 {
		return
	}
	seg.EndSeq = next.EndSeq
	seg.Push = seg.Push || next.Push
	seg.Fin = seg.Fin || next.Fin
	seg.EOR = next.EOR
	c.write = append(c.write[:1], c.write[2:]...)
	next.Skb.Free()
}

func pureZcopy(b *skb.Buff) bool { return b.Shinfo().Flags&kernel.SKBFL_PURE_ZEROCOPY != 0 }

// tsoSegs models tcp_tso_segs, which bounds the congestion window's quota
// of one skb: tcp_tso_autosize allows sk_gso_max_size whole when min_rtt
// is below 2^tcp_tso_rtt_log (512) microseconds, as on the model's paths,
// and at least tcp_min_tso_segs (2) segments; one without GSO
// (sk_gso_max_segs).
func (c *Conn) tsoSegs(mss int) int {
	if c.Route.GSO == 0 {
		return 1
	}
	return max(c.Route.GSO/mss, 2)
}

// splitPoint models the checks of tcp_write_xmit for the head skb: the
// receive window (tcp_snd_wnd_test), Nagle and corks (tcp_nagle_test) and
// tcp_mss_split_point. It returns how many bytes may go now, 0 for none.
func (c *Conn) splitPoint(seg *Segment, cwndBytes, nonagle int) int {
	mss := c.MSS()
	if seg.Fin && seg.Skb.Len == 0 {
		return 1 // a bare FIN needs no window
	}
	// tcp_wnd_end - seq, none when the window ends before seg.
	window := max(int(int32(c.sndUna+uint32(c.sndWnd)-seg.Seq)), 0)
	limit := min(seg.Skb.Len, cwndBytes, window)
	if limit < min(seg.Skb.Len, mss) {
		// tcp_snd_wnd_test: not even one segment fits. With nothing in
		// flight no ACK will come to open the window: the probe timer
		// (tcp_check_probe_timer) fires after the RTO, and its
		// tcp_write_wakeup sends what the window takes, split off, or
		// with no window at all a zero-window probe (writeWakeup).
		if len(c.rtx) == 0 {
			if c.t.probeDue && window > 0 {
				c.t.probeDue = false
				return limit
			}
			c.armProbe()
		}
		return 0
	}
	if c.sndUrg.active {
		// Urgent mode: tcp_nagle_test lets the skb go, and tcp_write_xmit
		// sends one MSS (no tcp_mss_split_point).
		return min(seg.Skb.Len, mss)
	}
	// tcp_mss_split_point: a congestion window's quota is whole segments;
	// the end of the skb or of the receive window leaves a partial one,
	// which goes unless Nagle or a cork holds it.
	partial := limit % mss
	if partial > 0 && c.nagleHolds(nonagle) && !seg.Fin {
		limit -= partial
		if limit == 0 && len(c.rtx) == 0 {
			// A cork holds the only data and nothing is in flight:
			// tcp_write_xmit returns true, so __tcp_push_pending_frames
			// arms the probe timer (tcp_check_probe_timer), and its
			// tcp_write_wakeup sends the held segment with PSH, cork or
			// not: the 200ms ceiling of tcp(7)'s TCP_CORK. Measured on
			// Linux 6.18 over loopback: a corked byte reaches the peer
			// between 150ms and 250ms (probe/testdata/tcp-cork-probe.zcs).
			if c.t.probeDue {
				c.t.probeDue = false
				return partial
			}
			c.armProbe()
		}
	}
	return limit
}

// nagleHolds models tcp_nagle_check for a partial segment: corked, or
// Nagle on while a segment shorter than the MSS is still unacknowledged
// (Minshall's variant, tcp_minshall_check).
func (c *Conn) nagleHolds(nonagle int) bool {
	if nonagle&naglePush != 0 {
		return false
	}
	minshall := after(c.sndSml, c.sndUna) && !after(c.sndSml, c.sndNxt)
	return nonagle&nagleCork != 0 || (nonagle == 0 && len(c.rtx) > 0 && minshall)
}

// fragment models tso_fragment / tcp_fragment: split the head skb of the
// write queue, or the last of the retransmit queue (TCP_FRAG_IN_RTX_QUEUE,
// the new skb sent when it was), at n bytes with skb_split; the new skb
// follows it, charged like it, with its own uarg reference.
func (c *Conn) fragment(seg *Segment, n int) bool {
	if c.host().Fail(kernel.FaultAllocSkb) {
		return false
	}
	b := seg.Skb
	nb, err := b.Split(n)
	if nb == nil {
		return false
	}
	// tcp_fragment allocates the new skb as tcp_stream_alloc_skb does,
	// with MAX_TCP_HEADER of headroom, charges its own truesize and moves
	// the payload's share of the old one with it.
	nb.Reserve(c.host().Profile.TCPHeadroom)
	c.Sk.ChargeQueued(nb)
	moved := nb.Len
	nb.Truesize += moved
	b.Truesize -= moved
	if err != 0 {
		nb.Free()
		return false
	}
	ns := c.segment(Segment{Skb: nb, Seq: seg.Seq + uint32(n), EndSeq: seg.EndSeq, Push: seg.Push, EOR: seg.EOR, Fin: seg.Fin,
		Sent: seg.Sent, lost: seg.lost, sentAt: seg.sentAt})
	seg.EndSeq, seg.Push, seg.EOR, seg.Fin = ns.Seq, false, false, false
	fragmentTstamp(seg, ns)
	if seg.Sent > 0 { // seg is the retransmit queue's last
		c.rtx = segmentPtrSlab.Of(c.host()).Append(c.rtx, ns)
		return true
	}
	c.write = append([]*Segment{seg, ns}, c.write[1:]...)
	return true
}

// fragmentTstamp models tcp_fragment_tstamp: the timestamp requests of a
// split skb (tx_flags, tskey, txstamp_ack) go with the part that holds
// the key's byte, the second one when the key is not before it.
func fragmentTstamp(seg, ns *Segment) {
	sh, nsh := seg.Skb.Shinfo(), ns.Skb.Shinfo()
	if sh.TxFlags&kernel.SKBTX_ANY_TSTAMP == 0 && !seg.TxstampAck || after(ns.Seq, sh.Tskey) {
		return
	}
	nsh.TxFlags |= sh.TxFlags & kernel.SKBTX_ANY_TSTAMP
	sh.TxFlags &^= kernel.SKBTX_ANY_TSTAMP
	sh.Tskey, nsh.Tskey = nsh.Tskey, sh.Tskey
	ns.TxstampAck, seg.TxstampAck = seg.TxstampAck, false
}

// txTimestamp models tcp_tx_timestamp at the end of a call that queued
// data, before its tcp_push: the write queue's tail skb, or the
// retransmit queue's last when everything was sent already, asks for the
// transmit timestamps of the call's sockcm cookie, tsflags (the socket's
// SO_TIMESTAMPING, or a control message's for this call;
// sock_tx_timestamp: tx_flags), TX_ACK
// marks it txstamp_ack, and any of them makes its last byte the key
// (tskey = seq + len - 1). Only that skb is timestamped: a call that
// fills several reports once, a FIN sent alone never. Measured on Linux
// 6.18 over loopback: a 50000-byte send sent in two segments gives one
// SCHED, one SND and one ACK record, key 50999.
func (c *Conn) txTimestamp(tsflags kernel.Timestamping) {
	if tsflags == 0 {
		return
	}
	seg := c.writeTail()
	if seg == nil {
		if len(c.rtx) == 0 {
			return
		}
		seg = c.rtx[len(c.rtx)-1]
	}
	sh := seg.Skb.Shinfo()
	sh.TxFlags |= sock.TxFlags(tsflags)
	if tsflags&kernel.SOF_TIMESTAMPING_TX_ACK != 0 {
		seg.TxstampAck = true
	}
	if sock.WantsTxRecord(tsflags) {
		sh.Tskey = seg.EndSeq - 1
	}
}

// ackTstamp models tcp_ack_tstamp for an skb an ACK frees: with
// txstamp_ack, the ACK that moved snd_una past its key from before it
// (prior) is timestamped, SCM_TSTAMP_ACK, before the skb is freed and
// before the notification that freeing may queue.
func (c *Conn) ackTstamp(seg *Segment, prior uint32) {
	key := seg.Skb.Shinfo().Tskey
	if seg.TxstampAck && !after(prior, key) && after(c.sndUna, key) {
		c.Sk.TstampTx(seg.Skb, kernel.SCM_TSTAMP_ACK)
	}
}

// transmit models tcp_transmit_skb: send a clone of the skb, or a private
// copy (pskb_copy, with its own uarg reference) if an earlier clone is
// still in flight; the copy is charged to sk_wmem_alloc (tcp_wfree) and
// handed to the network. Every segment carries the ACK of what was
// received, so an ACK due goes with it (tcp_event_ack_sent,
// Packet.Acks). A first transmission moves the segment to the
// retransmit queue.
func (c *Conn) transmit(seg *Segment, retrans bool) bool {
	urg := c.urgPtr(seg.Seq, c.sndNxt)
	var out *skb.Buff
	var err kernel.Errno
	if seg.Skb.IsCloned() {
		out, err = seg.Skb.Copy()
	} else {
		out, err = seg.Skb.Clone()
	}
	if err != 0 {
		return false
	}
	c.Sk.ChargeW(out)
	if seg.Skb.Len < c.pcount(seg)*c.MSS() {
		c.sndSml = seg.EndSeq // tcp_minshall_update
	}
	seg.Sent++
	seg.lost = false
	seg.sentAt = c.Net.Now()
	seg.clone, seg.cloneID = out, out.Ident()
	if retrans {
		c.totalRetrans += c.pcount(seg) // tcp_retransmit_skb: tp->total_retrans
	} else {
		c.write = c.write[1:]
		c.rtx = segmentPtrSlab.Of(c.host()).Append(c.rtx, seg)
		if after(seg.end(), c.sndNxt) {
			c.sndNxt = seg.end()
		}
	}
	// __tcp_transmit_skb forces PSH on a GSO packet (the clone's header
	// only: the queued skb keeps its flags).
	p := sock.Packet{Skb: out, From: c.Sk, Seq: seg.Seq, EndSeq: seg.EndSeq, Retransmit: retrans, Fin: seg.Fin, Push: seg.Push || c.pcount(seg) > 1, Urg: urg}
	if c.ack.pending&ackSched != 0 {
		p.Acks = true
		p.Ack, p.Win = c.takeAck()
	}
	if seg.Skb.Len > 0 {
		c.paced(seg.Skb.Len, c.pcount(seg))
	}
	c.Net.Xmit(p)
	if !retrans {
		c.newDataSent()
	}
	if seg.Skb.Len > 0 { // __tcp_transmit_skb: a FIN alone is no data
		c.eventDataSent()
	}
	return true
}

// end is the sequence number after the segment, FIN included.
func (s *Segment) end() uint32 {
	if s.Fin {
		return s.EndSeq + 1
	}
	return s.EndSeq
}

// Ack models tcp_ack for a cumulative acknowledgment of everything before
// ack with the peer's window: tcp_clean_rtx_queue frees every fully
// acknowledged skb (dropping its uarg reference), the congestion control
// sets the window (congControl), what now fits is sent
// (tcp_data_snd_check), and a writer that found no space may get a larger
// send buffer (checkSpace). An ACK for data not yet sent is ignored.
func (c *Conn) Ack(ack uint32, window int) { c.cleanAck(ack, window, true) }

// AckData is Ack for a segment that carries data or a FIN: tcp_ack runs
// before tcp_data_queue, but what it lets go is sent only after it, by
// the caller's DataSndCheck (tcp_rcv_established: tcp_data_snd_check
// after tcp_queue_rcv on the fast path, after tcp_data_queue on the slow
// one), so the data pushed carries the ACK the segment scheduled.
func (c *Conn) AckData(ack uint32, window int) { c.cleanAck(ack, window, false) }

// cleanAck is Ack, which sends what the ACK lets go only if push.
func (c *Conn) cleanAck(ack uint32, window int, push bool) {
	if c.done || after(ack, c.sndNxt) {
		return
	}
	priorOut := len(c.rtx)
	c.sndWnd = window
	c.t.probes = 0 // tcp_ack: the peer answered
	c.maxWindow = max(c.maxWindow, window)
	prior := c.sndUna
	if after(ack, c.sndUna) {
		c.sndUna = ack
		c.urgAcked(prior)
	}
	if c.fastOpenChild {
		c.fastOpenChild = false // the handshake completes
		c.ackUpdateRTT(c.Net.Now().Sub(c.synAt), false, 0)
	}
	limited := c.cwndLimited()
	acked := 0
	var firstAckt, headSent engine.Time
	if len(c.rtx) > 0 {
		headSent = c.rtx[0].sentAt
	}
	sampled, retransAcked := false, false
	for len(c.rtx) > 0 && !after(c.rtx[0].end(), c.sndUna) {
		seg := c.rtx[0]
		c.rtx = c.rtx[1:]
		acked += c.pcount(seg)
		if seg.Sent > 1 {
			retransAcked = true
		} else if !sampled {
			firstAckt, sampled = seg.sentAt, true
		}
		if c.host().Profile.Bugs.Has(kernel.BugRecycleCloned) && seg.Skb.IsCloned() {
			// B5: sk_wmem_free_skb readies the skb for sk_tx_skb_cache
			// with skb_zcopy_clear, though a clone still shares its info.
			seg.Skb.ZcopyClear()
		}
		c.ackTstamp(seg, prior)
		seg.Skb.Free() // sk_wmem_free_skb
	}
	if len(c.rtx) > 0 && after(c.sndUna, c.rtx[0].Seq) {
		seg := c.rtx[0]
		if n := c.tsoAcked(seg); n > 0 {
			acked += n
			if seg.Sent > 1 {
				retransAcked = true
			} else if !sampled {
				firstAckt, sampled = seg.sentAt, true
			}
		}
	}
	if acked > 0 {
		if sampled || retransAcked { // tcp_clean_rtx_queue: Karn's rule
			c.ackUpdateRTT(c.Net.Now().Sub(firstAckt), retransAcked, headSent)
		}
		c.progress()
		c.congControl(acked, limited)
	}
	c.processTLPAck(ack)
	c.lossRecovered()
	c.ackedRetransmits(after(c.sndUna, prior))
	if acked > 0 && !c.scheduleLossProbe(true) {
		c.Net.Cancel(c.tlp.timer) // tcp_set_xmit_timer: the RTO instead (syncRTO)
	}
	if c.finAcked() && c.Sk.State != sock.FIN_WAIT2 {
		if !c.Sk.Dead() && !c.rcvFin {
			// tcp_rcv_state_process in FIN_WAIT1: the user still holds
			// the socket, which stays half-closed, takes the peer's data
			// and waits for its FIN with no timer.
			c.Sk.State = sock.FIN_WAIT2
		} else {
			// tcp_rcv_state_process: CLOSING ends in a time-wait socket
			// whether or not the user holds the socket (tcp_time_wait),
			// as does an orphan in FIN_WAIT1 (its FIN_WAIT2 substate);
			// LAST_ACK ends with none (tcp_done).
			if c.Sk.State != sock.LAST_ACK {
				c.enterTimeWait()
			}
			c.finish()
			return
		}
	}
	if priorOut == 0 {
		c.ackProbe()
	}
	if push {
		c.pushPending(c.nonagle)
	}
	c.syncRTO()
	c.checkSpace()
}

// DataSndCheck models tcp_data_snd_check, which tcp_rcv_established runs
// once a segment's data is queued: on the fast path if the segment
// acknowledged new data (AckData), on the slow path whatever it
// acknowledged (UrgSlowPath); the caller, which does not predict headers,
// runs it after every segment that carries an ACK. With a write queue, what the windows and Nagle let go is
// sent (tcp_push_pending_frames under tp->nonagle, so a tail a MSG_MORE
// call held back goes out and one TCP_CORK holds stays), and a writer
// that found no space may get a larger send buffer (tcp_check_space).
func (c *Conn) DataSndCheck() {
	if c.done {
		return
	}
	if len(c.write) > 0 {
		c.pushPending(c.nonagle)
		c.syncRTO()
	}
	c.checkSpace()
}

// tsoAcked models tcp_tso_acked: an skb of several segments that the ACK
// covers in part loses the acknowledged bytes from its head
// (tcp_trim_head: unshared first, skb_unclone_keeptruesize, then
// __pskb_trim_head; its truesize and sk_wmem_queued lose the frag bytes),
// and the segments it no longer holds count as acknowledged. Such an ACK
// comes where the skb reached the peer as several packets: over loopback
// when it was too large for GSO (gso_features_check).
func (c *Conn) tsoAcked(seg *Segment) int {
	before := c.pcount(seg)
	if before == 1 {
		return 0
	}
	b := seg.Skb
	if b.IsCloned() && b.ExpandHead() != 0 {
		return 0
	}
	freed := b.TrimHead(int(c.sndUna - seg.Seq))
	b.Truesize -= freed
	c.Sk.GrowQueued(-freed)
	seg.Seq = c.sndUna
	return before - c.pcount(seg)
}

// congControl models tcp_cong_control for an ACK that acknowledged acked
// segments (tcp_count_delivered adds them to tp->delivered), limited
// being tcp_is_cwnd_limited before it. Under CUBIC (and Reno) the window
// grows by acked in slow start, and only if the sender used it
// (bictcp_cong_avoid → tcp_slow_start; the model has no ssthresh, so it
// never leaves slow start). Under BBR (bbr_main → bbr_set_cwnd) it grows
// by acked while tp->delivered is below TCP_INIT_CWND, used or not, and
// after that while it is below the target bbr_bdp gives (its bandwidth
// and min_rtt estimates times the STARTUP gain, 2.885, plus
// bbr_quantization_budget), and once bbr_full_bw_reached it is cut to
// that target. Those estimates are rates and delays of wall-clock time
// (tcp_rate_gen, the RTT samples), which no scenario shows: the model
// keeps none, grows the window by acked when tcp_is_cwnd_limited holds
// (a window used whole delivers at about a window a round trip, so the
// target is nearly three windows) and holds it otherwise (an
// application-limited sender's rate sample is its own small flight),
// and the first ACK that leaves tp->delivered at TCP_INIT_CWND or more
// notes in the socket's history that the window is undetermined from
// there (kernel.OpCwndUndetermined, once a connection). Measured on
// Linux 6.18 over loopback with one ACK a segment: bbr's window grows
// 11, 12, …, 18 and stops when delivered reaches 10; cubic's stays 10.
// Past it the two part: a 124928-byte send over a 2084-byte MTU left the
// kernel's window where a non-blocking send after it queued 90464
// bytes, the model's 97056 (probe/testdata/tcp-bbr-cwnd.zcs). Under
// reno the same send agreed once (145824) and in another run the kernel
// queued 97056, the model 145824: reno's window past slow start's first
// ACKs is not settled either.
func (c *Conn) congControl(acked int, limited bool) {
	c.delivered += acked
	switch c.ca {
	case kernel.CongestionBBR:
		if c.delivered < initCwnd || limited {
			c.cwnd += acked
		}
		if c.delivered >= initCwnd && !c.cwndUndetermined {
			c.cwndUndetermined = true
			c.Sk.Note(kernel.Entry{Op: kernel.OpCwndUndetermined, Args: [4]int64{int64(c.cwnd), int64(c.delivered)}})
		}
	default:
		if limited {
			c.cwnd += acked
		}
	}
}

// checkSpace models tcp_check_space: only a writer that found the send
// buffer full (SOCK_NOSPACE: tcp_poll, or sk_stream_wait_memory, which
// also sets it for EAGAIN) makes tcp_new_space run, which expands the
// send buffer while the congestion window has room
// (tcp_should_expand_sndbuf, tcp_sndbuf_expand) and wakes the writers
// when the queue is writeable again (sk_stream_write_space).
func (c *Conn) checkSpace() {
	if !c.Sk.NoSpace {
		return
	}
	if c.inFlight() < c.cwnd {
		c.expandSndbuf()
	}
	c.Sk.WriteSpaceTCP(c.writeable())
}

// cwndValidate models tcp_cwnd_validate after a tcp_write_xmit that
// began at snd_nxt from and sent something or used the whole congestion
// window (is_cwnd_limited): it keeps the most packets out in the current
// window (max_packets_out, renewed once snd_una passes cwnd_usage_seq).
func (c *Conn) cwndValidate(from uint32) {
	out := c.packetsOut()
	limited := c.inFlight() >= c.cwnd
	if c.sndNxt == from && !limited {
		return
	}
	if !after(c.cwndUsageSeq, c.sndUna) || limited || out > c.maxPacketsOut {
		c.maxPacketsOut, c.cwndUsageSeq, c.isCwndLimited = out, c.sndNxt, limited
	}
}

// cwndLimited is tcp_is_cwnd_limited in slow start (the model has no
// ssthresh): the window was all used, or less than twice the most
// packets out — on loopback, where few large segments are in flight,
// the window stays at TCP_INIT_CWND (measured on Linux 6.18: sk_sndbuf
// keeps its first size through megabytes of sends).
func (c *Conn) cwndLimited() bool {
	return c.isCwndLimited || c.cwnd < 2*c.maxPacketsOut
}

// finAcked reports that our FIN was sent and acknowledged.
func (c *Conn) finAcked() bool {
	return c.finQueue && len(c.write) == 0 && len(c.rtx) == 0
}

// Timeout models the retransmission timer (tcp_retransmit_timer,
// tcp_enter_loss): every unacknowledged segment is marked lost, the
// congestion window falls to one, and retransmission starts from the
// head. It reports whether anything was outstanding.
func (c *Conn) Timeout() bool {
	if len(c.rtx) == 0 {
		return false
	}
	for _, seg := range c.rtx {
		seg.lost = true
	}
	c.cwnd = 1
	c.enterLoss()
	c.pushPending(c.nonagle)
	return true
}

// takeError returns and clears a pending socket error (sock_error).
func (c *Conn) takeError() kernel.Errno {
	return c.Sk.TakeError()
}
