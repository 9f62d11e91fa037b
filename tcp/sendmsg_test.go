package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sock"
)

const zc = kernel.MSG_ZEROCOPY

func ranges(recs []notify.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.String())
	}
	return out
}

// The seed's snd_zerocopy sizes, over a NIC: each send gets the next id,
// nothing is copied, and the notification waits for both the ACK and the
// device's TX completion of the clone.
func TestSeedSizesOverNIC(t *testing.T) {
	for _, size := range []int{4096, 1500, 1472, 32000, 65000, 400000, 1} {
		p := newPair(t, "linux-6.18", false)
		r := p.send(zc, size)
		require.Equal(t, size, r.N)
		require.True(t, r.ZC)
		require.Equal(t, uint32(0), r.ID)
		p.drain()
		require.Equal(t, size, int(p.c.sndUna), "all acked")
		require.Empty(t, p.read(), "notification before TX completion")
		p.w.txComplete()
		require.Equal(t, []string{"zerocopy [0,0]"}, ranges(p.read()))
		p.closeAll()
	}
}

// Over loopback every send is copied on delivery and reported COPIED.
func TestLoopbackCopied(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.send(zc, 4096)
	p.w.deliver()
	require.Equal(t, []string{"zerocopy [0,0] COPIED"}, ranges(p.read()))
	p.closeAll()
}

// Sends acknowledged before the error queue is read coalesce at its tail.
func TestErrQueueCoalescing(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	for i := 0; i < 3; i++ {
		p.send(zc, 4000)
		p.w.deliver()
		p.w.txComplete()
	}
	require.Equal(t, []string{"zerocopy [0,2]"}, ranges(p.read()))
	p.send(zc, 4000)
	p.w.deliver()
	p.w.txComplete()
	require.Equal(t, []string{"zerocopy [3,3]"}, ranges(p.read()))
	p.closeAll()
}

// Under TCP_CORK sends wait unsent, so they extend one uarg.
func TestCorkExtendsOneUarg(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	require.Zero(t, p.c.Setsockopt(kernel.TCP_CORK, 1))
	a, b := p.send(zc, 100), p.send(zc, 100)
	require.Same(t, a.Uarg, b.Uarg)
	require.Equal(t, uint32(1), b.ID)
	require.Equal(t, 832, p.c.Sk.OmemAlloc, "one notification skb")
	require.Zero(t, p.c.Setsockopt(kernel.TCP_CORK, 0))
	p.w.deliver()
	p.w.txComplete()
	require.Equal(t, []string{"zerocopy [0,1]"}, ranges(p.read()))
	p.closeAll()
}

// A plain send between zerocopy sends takes no id and the uarg cannot
// extend across it if a new uarg was needed: ids stay gapless.
func TestMixedCopyAndZerocopy(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	p.send(zc, 4096)
	r := p.send(0, 4096)
	require.False(t, r.ZC)
	r = p.send(zc, 4096)
	require.Equal(t, uint32(1), r.ID)
	p.w.deliver()
	p.w.txComplete()
	require.Equal(t, []string{"zerocopy [0,1]"}, ranges(p.read()))
	p.closeAll()
}

// A zero-length send, MSG_ZEROCOPY without SO_ZEROCOPY, and a send on an
// unconnected socket take no id.
func TestNoID(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	r := p.send(zc, 0)
	require.Equal(t, sock.SendResult{}, r)
	require.Zero(t, p.c.Sk.SetZerocopy(0))
	r = p.send(zc, 4096)
	require.False(t, r.ZC)
	require.Equal(t, 4096, r.N)
	require.Zero(t, p.c.Sk.ZCKey())
	p.closeAll()

	p = newPair(t, "linux-6.18", false)
	p.c.Sk.State = sock.CLOSE
	r = p.send(zc, 4096)
	require.Equal(t, kernel.EPIPE, r.Err)
	require.Equal(t, -1, r.N)
	require.Zero(t, p.c.Sk.ZCKey(), "aborted id rolled back")
	require.Zero(t, p.c.Sk.OmemAlloc)
	require.Zero(t, p.task.User.LockedVM)
	p.c.Sk.State = sock.ESTABLISHED
	require.Equal(t, uint32(0), p.send(zc, 10).ID)
	p.w.deliver()
	p.w.txComplete()
	require.Equal(t, []string{"zerocopy [0,0]"}, ranges(p.read()))
	p.closeAll()
}

// linux-4.14 checks the state before allocating: EINVAL, no id.
func TestUnconnectedUnderOldKernel(t *testing.T) {
	p := newPair(t, "linux-4.14", false)
	p.c.Sk.State = sock.CLOSE_WAIT
	require.Equal(t, kernel.EINVAL, p.send(zc, 4096).Err)
	p.c.Sk.State = sock.ESTABLISHED
	p.closeAll()
}

// optmem exhausted: ENOBUFS with no id consumed; reading frees it.
func TestOptmemENOBUFS(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	p.c.Sk.Net.OptmemMax = 3 * 832
	for i := 0; i < 3; i++ {
		require.True(t, p.send(zc|kernel.MSG_MORE, 4096).ZC) // one uarg while unsent
	}
	require.Zero(t, p.c.Setsockopt(kernel.TCP_NODELAY, 1))
	p.w.deliver()
	// Sends that each need their own uarg: the previous data has left the
	// write queue, so nothing can be extended.
	var got []kernel.Errno
	for i := 0; i < 4; i++ {
		got = append(got, p.send(zc, 4096).Err)
	}
	require.Equal(t, []kernel.Errno{0, 0, kernel.ENOBUFS, kernel.ENOBUFS}, got)
	require.Equal(t, uint32(5), p.c.Sk.ZCKey())
	p.w.deliver()
	p.w.txComplete()
	require.Equal(t, []string{"zerocopy [0,4]"}, ranges(p.read()))
	p.closeAll()
}

// Eighteen one-byte iovecs: MAX_SKB_FRAGS ends the first skb, both carry
// PSH (maxfrags.pkt).
func TestMaxFrags(t *testing.T) {
	p := newPair(t, "linux-6.18", false, func(_ *kernel.Profile, r *sock.Route) { r.GSO = 0 })
	require.Zero(t, p.c.Setsockopt(kernel.TCP_CORK, 1))
	lens := make([]int, 18)
	for i := range lens {
		lens[i] = 1
	}
	require.Equal(t, 18, p.send(zc, lens...).N)
	q := append(p.c.RtxQueue(), p.c.WriteQueue()...)
	require.Len(t, q, 2, "the full skb is not the last: it is sent despite the cork")
	require.Len(t, q[0].Skb.Shinfo().Frags, 17)
	require.Len(t, q[1].Skb.Shinfo().Frags, 1)
	require.True(t, q[0].Push)
	require.Equal(t, 2, q[0].Skb.Zcopy().Refcnt(), "one per skb")
	require.Zero(t, p.c.Setsockopt(kernel.TCP_CORK, 0))
	p.w.deliver()
	p.w.txComplete()
	require.Equal(t, []string{"zerocopy [0,0]"}, ranges(p.read()))
	p.closeAll()
}

// Without scatter-gather the data is copied and the COPIED notification
// is queued before anything is sent.
func TestNoSGCopiesAtOnce(t *testing.T) {
	p := newPair(t, "linux-6.18", false, func(_ *kernel.Profile, r *sock.Route) { r.SG = false })
	r := p.send(zc, 4096)
	require.True(t, r.Copied)
	require.Equal(t, []string{"zerocopy [0,0] COPIED"}, ranges(p.read()))
	p.closeAll()
}

// Close with data in flight: no notification, nothing leaked, pages
// unaccounted once the data is acknowledged.
func TestCloseInFlight(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	p.send(zc, 64<<10)
	require.NotZero(t, p.task.User.LockedVM)
	p.c.Close()
	require.NotZero(t, p.task.User.LockedVM, "pages stay pinned")
	p.drain()
	p.w.txComplete()
	require.Zero(t, p.task.User.LockedVM)
	p.peer.Close()
	p.back.deliver()
	p.back.txComplete()
	p.noViolations()
	for _, id := range p.h.Live() {
		require.Equal(t, "upage", id.Kind, "%v", p.h.Object(id).History())
	}
}

// A retransmission while the first clone is still held by the device is a
// private copy with its own uarg reference; the notification waits for
// all of them.
func TestRetransmitHoldsPages(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	p.w.dropNext = 1
	r := p.send(zc, 4096)
	p.w.deliver() // dropped: the clone stays on the device
	require.Equal(t, 1, r.Uarg.Refcnt(), "the rtx skb's shinfo, shared by the in-device clone")
	require.True(t, p.c.Timeout())
	require.Equal(t, 2, r.Uarg.Refcnt(), "+ the pskb_copy of the retransmission")
	p.w.deliver()
	require.Empty(t, p.read())
	p.w.txComplete()
	require.Equal(t, []string{"zerocopy [0,0]"}, ranges(p.read()))
	p.closeAll()
}

// Partial send: non-blocking with a small send buffer, some bytes queued,
// the id kept.
func TestPartialSendKeepsID(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	require.Zero(t, p.c.Sk.Setsockopt(kernel.SO_SNDBUF, 4096))
	require.Zero(t, p.c.Setsockopt(kernel.TCP_CORK, 1))
	r := p.send(zc|kernel.MSG_DONTWAIT, 200000)
	require.True(t, r.ZC)
	require.Less(t, r.N, 200000)
	require.Greater(t, r.N, 0)
	require.Equal(t, kernel.EAGAIN, p.send(zc|kernel.MSG_DONTWAIT, 100).Err)
	require.Equal(t, uint32(1), p.c.Sk.ZCKey())
	require.Zero(t, p.c.Setsockopt(kernel.TCP_CORK, 0))
	p.drain()
	p.w.txComplete()
	require.Equal(t, []string{"zerocopy [0,0]"}, ranges(p.read()))
	p.closeAll()
}

// B18: before v4.18 small zerocopy sends landed in the linear area, so a
// loopback notification said "not copied" though the data was copied.
func TestLinearAreaHidesCopy(t *testing.T) {
	p := newPair(t, "linux-4.14", true)
	p.send(zc, 100)
	p.w.deliver()
	require.Equal(t, []string{"zerocopy [0,0]"}, ranges(p.read()))
	p.closeAll()
}

// A reset from the peer (Reset) or retransmissions given up (GiveUp) end
// the connection at once: its queues are purged, the clone still in flight
// keeps the uarg until it is freed, and then the notification is queued on
// the still-open socket. A later send consumes no id.
func TestAbortPurgesQueues(t *testing.T) {
	for _, tt := range []struct {
		name  string
		state sock.State
		abort func(*Conn)
		err   kernel.Errno
	}{
		{"Reset", sock.ESTABLISHED, (*Conn).Reset, kernel.ECONNRESET},
		{"ResetInCloseWait", sock.CLOSE_WAIT, (*Conn).Reset, kernel.EPIPE},
		{"GiveUp", sock.ESTABLISHED, (*Conn).GiveUp, kernel.ETIMEDOUT},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newPair(t, "linux-6.18", false)
			r := p.send(zc, 4096)
			p.c.Sk.State = tt.state
			require.Len(t, p.w.inFlight, 1)
			tt.abort(p.c)
			require.True(t, p.c.Done())
			require.Empty(t, p.c.WriteQueue())
			require.Empty(t, p.c.RtxQueue())
			require.Equal(t, sock.CLOSE, p.c.Sk.State)
			require.Equal(t, 1, r.Uarg.Refcnt(), "the clone in flight still holds it")
			require.Empty(t, p.read())
			for _, pk := range p.w.inFlight {
				pk.Skb.Free()
			}
			p.w.inFlight = nil
			require.Equal(t, []string{"zerocopy [0,0]"}, ranges(p.read()))

			next := p.send(zc, 4096)
			require.Equal(t, -1, next.N)
			require.Equal(t, tt.err, next.Err, "sock_error reports the abort once")
			require.False(t, next.ZC)
			require.Equal(t, uint32(1), p.c.Sk.ZCKey(), "no id consumed")
			require.Equal(t, kernel.EPIPE, p.send(zc, 4096).Err, "then the closed socket's EPIPE")
			p.noViolations()
		})
	}
}

// Interrupt ends a call blocked on the send buffer with the bytes queued so
// far; the id it took stays consumed.
func TestInterruptBlockedCall(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	require.Zero(t, p.c.Sk.Setsockopt(kernel.SO_SNDBUF, 4096))
	buf := mm.NewBuffer(p.h, 256<<10)
	call := p.c.Sendmsg([]mm.Iovec{{Buf: buf, Len: 256 << 10}}, zc, kernel.ObjectID{Kind: "sendmsg", Serial: 1})
	require.True(t, call.Blocked())
	require.False(t, call.Done())
	call.Interrupt(kernel.EINTR)
	require.True(t, call.Done())
	require.False(t, call.Blocked())
	r := call.Result()
	require.Positive(t, r.N)
	require.Less(t, r.N, 256<<10)
	require.True(t, r.ZC)
	require.Equal(t, uint32(0), r.ID)
	require.Equal(t, uint32(1), p.c.Sk.ZCKey())
	call.Interrupt(kernel.EINTR)
	require.Equal(t, r, call.Result(), "interrupting a finished call changes nothing")
	require.NoError(t, p.ledger.Sent(r.ID, "send", r.N))
	p.drain()
	p.w.txComplete()
	require.Equal(t, []string{"zerocopy [0,0]"}, ranges(p.read()))
	p.closeAll()
}

// The receiver never moves the right edge of its window back: a window
// computed smaller than what remains of the one already offered is offered
// as that remainder (tcp_select_window).
func TestWindowDoesNotShrink(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	first := p.peer.Window()
	p.peer.Sk.RmemAlloc += 100000 // the buffer fills without data arriving
	require.Equal(t, first, p.peer.Window(), "the offered edge stays")
	p.peer.Sk.RmemAlloc -= 100000
	require.Equal(t, first, p.peer.Window())
	p.closeAll()
}

// blockedSend starts a 256 KiB send on a pair whose sender's SO_SNDBUF is
// 4096, asleep at wait_for_space.
func blockedSend(t *testing.T) (*pair, *SendCall) {
	t.Helper()
	p := newPair(t, "linux-6.18", false)
	require.Zero(t, p.c.Sk.Setsockopt(kernel.SO_SNDBUF, 4096))
	buf := mm.NewBuffer(p.h, 256<<10)
	call := p.c.Sendmsg([]mm.Iovec{{Buf: buf, Len: 256 << 10}}, 0, kernel.ObjectID{Kind: "sendmsg", Serial: 1})
	require.True(t, call.Blocked())
	return p, call
}

// A call asleep at wait_for_space goes on only once woken, by an ACK that
// leaves the queue writeable (free send buffer at least half of what is
// queued), any other wakeup that finds room, an error or a shutdown;
// bytes freed that leave more queued than that wake nobody, though the
// tail skb has room (measured on Linux 6.18 after a window probe's ACK).
func TestBlockedSendWakesWhenWriteable(t *testing.T) {
	p, call := blockedSend(t)
	queued := p.c.Sk.WmemQueued
	tail := p.c.writeTail()
	tail.Seq += uint32(tail.Skb.TrimHead(1000)) // room in the tail skb, as a probe's split leaves
	end := tail.EndSeq
	call.Resume()
	require.True(t, call.Blocked(), "not writeable: nobody woke the call")
	require.Equal(t, queued, p.c.Sk.WmemQueued)
	require.Equal(t, end, tail.EndSeq, "nothing added to the tail")
	p.c.Sk.Err = kernel.ECONNRESET
	call.Resume()
	require.True(t, call.Done(), "the error wakes it")
	require.Positive(t, call.Result().N)
}

// Any wakeup of the socket's wait queue wakes a call asleep at
// wait_for_space (woken_wake_function ignores the key): a zerocopy
// notification's sk_error_report lets it go on if the send buffer has
// room then (sk_stream_memory_free), though the queue is not writeable;
// room without a wakeup, or a wakeup without room, leaves it asleep.
func TestBlockedSendWokenByAnyWakeup(t *testing.T) {
	p, call := blockedSend(t)
	p.c.Sk.ErrorReport()
	call.Resume()
	require.True(t, call.Blocked(), "woken without room: asleep again")
	queued := p.c.Sk.WmemQueued
	p.c.Sk.Sndbuf = queued + 1 // room, the queue not writeable
	call.Resume()
	require.True(t, call.Blocked(), "room without a wakeup")
	require.Equal(t, queued, p.c.Sk.WmemQueued)
	p.c.Sk.ErrorReport()
	call.Resume()
	require.Greater(t, p.c.Sk.WmemQueued, queued, "the wakeup found room: the call queued more")
}

// An ACK that covers part of an skb of several segments trims the
// acknowledged ones off its head (tcp_tso_acked, tcp_trim_head): the skb
// keeps the rest, sk_wmem_queued and its truesize lose the bytes, and the
// segments count as acknowledged, so one packet is out.
func TestPartialAckTrimsHead(t *testing.T) {
	p := newPair(t, "linux-6.18", false)
	mss := p.c.MSS()
	require.Equal(t, 2*mss, p.send(0, 2*mss).N)
	require.Len(t, p.c.rtx, 1)
	seg := p.c.rtx[0]
	require.Equal(t, 2, p.c.packetsOut())
	queued, truesize := p.c.Sk.WmemQueued, seg.Skb.Truesize
	p.c.Ack(seg.Seq+uint32(mss), 65535)
	require.Len(t, p.c.rtx, 1)
	require.Equal(t, mss, seg.Skb.Len)
	require.Equal(t, p.c.sndUna, seg.Seq)
	require.Equal(t, 1, p.c.packetsOut())
	require.Equal(t, queued-mss, p.c.Sk.WmemQueued)
	require.Equal(t, truesize-mss, seg.Skb.Truesize)
	p.drain()
	p.w.txComplete()
	p.noViolations()
}

// tcp_event_new_data_sent runs tcp_check_space: a writer that found no
// space gets the send buffer of the congestion window as soon as an skb
// is sent while fewer packets are in flight than the window allows, and
// is woken with it; with the window full nothing grows.
func TestNewDataSentExpandsSndbuf(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.send(0, 2*p.c.MSS())
	require.Positive(t, p.c.inFlight())
	p.c.cwnd = p.c.inFlight() // the window full
	before := p.c.Sk.Sndbuf
	p.c.Sk.NoSpace = true
	p.c.newDataSent()
	require.Equal(t, before, p.c.Sk.Sndbuf, "tcp_should_expand_sndbuf: the window is full")

	p.c.cwnd = 2 * initCwnd // room, and more than the initial window's buffer
	p.c.Sk.NoSpace = true
	p.c.newDataSent()
	require.Greater(t, p.c.Sk.Sndbuf, before, "room in the window: tcp_sndbuf_expand")
	require.False(t, p.c.Sk.NoSpace, "sk_stream_write_space woke the writer")
	p.closeAll()
}

// A MSG_OOB send allocates skbs of one MSS (tcp_send_mss:
// tcp_xmit_size_goal without large_allowed), where the same send without
// it fills skbs to the size goal, several MSS over a GSO route.
func TestOOBSendSizeGoalIsOneMSS(t *testing.T) {
	for _, tc := range []struct {
		flags kernel.MsgFlags
		skbs  int
	}{{kernel.MSG_OOB, 4}, {0, 1}} {
		p := newPair(t, "linux-6.18", false)
		mss := p.c.MSS()
		call := p.c.Sendmsg([]mm.Iovec{{Buf: mm.NewBuffer(p.h, 4*mss), Len: 4 * mss}}, tc.flags, kernel.ObjectID{Kind: "sendmsg", Serial: 1})
		require.True(t, call.Done())
		require.Equal(t, 4*mss, call.Result().N)
		require.Equal(t, tc.skbs, call.processBacklog, "flags %v: skbs allocated", tc.flags)
		p.drain()
	}
}
