package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// sendCallSlab holds a Host's send calls.
var sendCallSlab = kernel.SlabSlot[SendCall]()

// SendCall is one tcp_sendmsg call. A blocking call that runs out of send
// buffer waits in sk_stream_wait_memory: Blocked reports it, and Resume
// continues once the network has freed memory, with the call's progress,
// its uarg and its reference kept, as the sleeping kernel thread keeps
// them.
type SendCall struct {
	c       *Conn
	dest    *Dest
	it      mm.Iter
	size    int
	flags   kernel.MsgFlags
	holder  kernel.ObjectID
	uarg    *ubuf.Info
	zc      bool
	copied  int
	blocked bool
	// retryAt is when the RFC v2's sleep before its second uarg
	// allocation ends (0: not sleeping).
	retryAt engine.Time
	// waitMem says that sleep waits for send-buffer room instead.
	waitMem bool
	// waitSpace says the call sleeps at wait_for_space
	// (sk_stream_wait_memory) until it is woken (woken).
	waitSpace bool
	// slept is the socket's wakeup count (sock.Sock.Wakeups) when the
	// call last went to sleep at wait_for_space.
	slept uint64
	done  bool
	// processBacklog counts the skbs allocated since the backlog was
	// last flushed (tcp_sendmsg_locked's process_backlog).
	processBacklog int
	// sockc is the call's sockcm cookie: the socket's SO_TIMESTAMPING
	// flags, or those a control message gave this call.
	sockc sock.Sockcm
	// syn says the payload left is what tcp_send_syn_data put in the
	// SYN, sent whatever sk_shutdown says.
	syn bool
	// waitConnect says the call sleeps in inet_wait_for_connect for a
	// handshake its far side answers later (Dest.SynSent).
	waitConnect bool
	res         sock.SendResult
}

// Dest is a send's msg_name as tcp_sendmsg_fastopen uses it: the
// destination of a MSG_FASTOPEN connect, known to the world outside the
// socket.
type Dest struct {
	// Cookie says tcp_fastopen_cookie_check finds a Fast Open cookie
	// cached for the destination (tcp_fastopen_cache_get).
	Cookie bool
	// Connect completes the handshake with the destination, as loopback
	// does inside the call (the SYN-ACK waits in the backlog until
	// release_sock, so a non-blocking call still says EINPROGRESS).
	// cookieReq says the SYN asked for a cookie (tcp_send_syn_data's
	// fallback), which a Fast Open listener grants.
	Connect func(cookieReq bool) kernel.Errno
	// SynSent is set for a destination that answers later (a far side
	// the scenario plays): Connect then only starts the handshake
	// (SYN_SENT), and SynSent sends the SYN with the data bytes
	// tcp_send_syn_data put in it.
	SynSent func(data int)
	// MSS is the peer's MSS the destination's cache entry keeps
	// (tcp_fastopen_cache_get), 0 if none: it bounds the SYN's data.
	MSS int
}

// Sendmsg models tcp_sendmsg_locked for the payload iov with flags, made by
// holder (the call's name in reference histories). It runs until the call
// returns or blocks.
//
// MSG_ZEROCOPY with a non-empty payload on a socket where it takes effect
// first gets a uarg: msg_zerocopy_realloc against the tail of the write
// queue (so calls coalesce into one uarg only while data waits unsent), or
// ENOBUFS with no id consumed. Without scatter-gather on the route the
// uarg is marked copied and the data copied. Zerocopy payload goes into
// frags, one per page chunk, a chunk continuing the last frag in its page
// extending it (__zerocopy_sg_from_iter); a full skb or a tail skb owned by another uarg
// (EEXIST) ends the segment with PSH. The call's own reference is dropped
// on return (net_zcopy_put), or, if nothing was queued, the call is aborted
// and its id rolled back (net_zcopy_put_abort).
func (c *Conn) Sendmsg(iov []mm.Iovec, flags kernel.MsgFlags, holder kernel.ObjectID) *SendCall {
	return c.SendmsgTo(iov, flags, holder, nil)
}

// SendmsgTo is Sendmsg with a msg_name, dest (nil when there is none),
// which only a MSG_FASTOPEN send on a socket never connected uses.
func (c *Conn) SendmsgTo(iov []mm.Iovec, flags kernel.MsgFlags, holder kernel.ObjectID, dest *Dest) *SendCall {
	s := sendCallSlab.Of(c.host()).New()
	*s = SendCall{c: c, dest: dest, it: *mm.NewIter(iov...), flags: flags, holder: holder}
	s.size = s.it.Count()
	s.start()
	return s
}

// Blocked reports that the call waits for send-buffer space.
func (s *SendCall) Blocked() bool { return s.blocked }

// Done reports that the call has returned.
func (s *SendCall) Done() bool { return s.done }

// Copied returns the bytes the call has queued so far.
func (s *SendCall) Copied() int { return s.copied }

// Result returns what the call returned. Valid once Done.
func (s *SendCall) Result() sock.SendResult { return s.res }

// Resume continues a blocked call.
func (s *SendCall) Resume() { s.resume(s.woken) }

// ResumeWoken continues a call whose wait's condition is checked without
// another wake: after release_sock processed the socket's backlog in
// sk_wait_event, or once a wake-up came. The call goes on if the send
// buffer has room (sk_stream_memory_free) or an error or a shutdown ends
// the wait.
func (s *SendCall) ResumeWoken() {
	s.resume(func() bool { return s.c.memoryFree() || s.errorOrShutdown() })
}

func (s *SendCall) resume(cond func() bool) {
	if s.blocked && !s.waitConnect {
		if s.waitSpace && !cond() {
			return
		}
		s.blocked, s.waitSpace = false, false
		s.loop()
	}
}

// woken is sk_stream_wait_memory's sk_wait_event for a call asleep at
// wait_for_space: an error or a shutdown ends the wait; otherwise the
// call goes on only once a wakeup of the socket's wait queue came since
// it slept, and then only if the send buffer has room
// (sk_stream_memory_free), else it sleeps again. Any wakeup wakes it
// (woken_wake_function ignores the key): sk_stream_write_space, which an
// ACK calls only when the write queue is writeable again (tcp_check_space:
// the free send buffer at least half of sk_wmem_queued,
// __sk_stream_is_writeable), and sk_error_report, which every zerocopy
// notification calls (__msg_zerocopy_callback), as does the data_ready of
// data arriving. Measured on Linux 6.18: a blocked send whose queue still
// holds more than the send buffer sleeps on when a window probe's ACK
// frees a few bytes, and adds none to its tail skb.
func (s *SendCall) woken() bool {
	if s.errorOrShutdown() {
		return true
	}
	if s.c.Sk.Wakeups == s.slept {
		return false
	}
	s.slept = s.c.Sk.Wakeups
	return s.c.memoryFree()
}

// errorOrShutdown is the rest of sk_stream_wait_memory's condition: an
// error or a shutdown (or the connection's end) ends the wait.
func (s *SendCall) errorOrShutdown() bool {
	c := s.c
	return c.Sk.Err != 0 || c.Sk.Shutdown&sock.SendShutdown != 0 || c.done
}

// Interrupt ends a blocked call as a signal or SO_SNDTIMEO would: with the
// bytes queued so far, or err if none.
func (s *SendCall) Interrupt(err kernel.Errno) {
	if s.blocked {
		s.blocked = false
		s.fail(err)
	}
}

func (s *SendCall) start() {
	c := s.c
	sk := c.Sk
	p := c.host().Profile
	s.sockc = sk.InitSockcm() // sockcm_init
	if s.wantsUarg() && !p.TCPZerocopyWaitRetry {
		if p.TCPZerocopyStateCheck && !zerocopyState(p, sk.State) {
			s.fail(kernel.EINVAL)
			return
		}
		if !s.allocUarg() {
			s.fail(kernel.ENOBUFS)
			return
		}
	}
	if s.flags&kernel.MSG_FASTOPEN != 0 && !s.fastOpen() {
		return
	}
	if sk.State != sock.ESTABLISHED && sk.State != sock.CLOSE_WAIT {
		// sk_stream_wait_connect: a pending error first (sock_error: the
		// reset or timeout that closed the connection, reported once),
		// then a handshake still under way (SYN_SENT: a SYN a full
		// accept queue dropped, or one a scripted far side has not
		// answered) is -EAGAIN for a call that does not wait (measured
		// on Linux 6.18), else not connecting, so -EPIPE.
		err := c.takeError()
		if err == 0 && sk.State == sock.SYN_SENT && sk.NoWait(s.flags) {
			err = kernel.EAGAIN
		}
		if err == 0 {
			err = kernel.EPIPE
			sk.Note(kernel.Entry{Op: kernel.OpSendPipe, Str: "sk_stream_wait_connect: state " + sk.State.String() + " is neither established nor connecting"})
		}
		s.fail(err)
		return
	}
	if sk.Control != nil {
		// sock_cmsg_send's error, reported after the wait for the
		// connection (6.18 parses first and reports here, "Don't return
		// error until MSG_FASTOPEN has been processed"): as it is, or
		// EINVAL before TCPCmsgErrno; the id is rolled back. Other
		// levels than SOL_SOCKET are skipped: UDP_SEGMENT is ignored.
		if err := sk.CmsgSend(&s.sockc); err != 0 {
			if !p.TCPCmsgErrno {
				err = kernel.EINVAL
			}
			s.fail(err)
			return
		}
	}
	s.loop()
}

// fastOpen models tcp_sendmsg_fastopen, after the uarg, so that each
// failure gives its id back: EOPNOTSUPP without TFO_CLIENT_ENABLE;
// __inet_stream_connect's EISCONN for a socket that was connected
// (SS_CONNECTED, shut down or not) or is not TCP_CLOSE (a listener),
// while after a non-blocking connect's EINPROGRESS it finds the
// connection established and the call sends as any send, or, the
// handshake still under way (SYN_SENT), EALREADY for a call that does
// not wait, or the connection closed since (a reset), its error, and
// the socket disconnected (ConnectError); EINVAL, as connect's, for a listener a shutdown stopped
// (ListenStopped) where the profile refuses its connect
// (kernel.Profile.ListenStopRefusesConnect: measured on Linux 6.18,
// probe/testdata/tcp-fastopen-listen-stopped.zcs; the 6.1 source
// connects it); tcp_v4_connect's EINVAL without a msg_name. Otherwise the socket
// connects. The SYN carries data (tcp_send_syn_data) when a cookie is
// cached or TFO_CLIENT_NO_COOKIE needs none: the MSS less
// MAX_TCP_OPTION_SPACE, at most synDataRoom; else it asks for a cookie
// and carries none. A non-blocking call returns what the SYN
// carried, or EINPROGRESS if nothing, and sock->state stays
// SS_CONNECTING, as after a non-blocking connect; a blocking one waits for the
// handshake and sends the rest as any send (unless SEND_SHUTDOWN stops
// it: the SYN's data counts all the same). It reports whether the call
// goes on.
func (s *SendCall) fastOpen() bool {
	c := s.c
	fo := c.Sk.Net.TCPFastOpen
	switch {
	case fo&sock.TFOClientEnable == 0:
		s.fail(kernel.EOPNOTSUPP)
		return false
	case c.inProgress && c.Sk.State == sock.SYN_SENT && c.Sk.NoWait(s.flags):
		// The handshake is still under way: __inet_stream_connect in
		// SS_CONNECTING without defer_connect says EALREADY, and the
		// call does not wait for it (tcp_sendmsg_fastopen passes
		// MSG_DONTWAIT as O_NONBLOCK); sock->state stays.
		s.fail(kernel.EALREADY)
		return false
	case c.FinishConnect():
		if c.Sk.State == sock.CLOSE {
			// The connection closed before the call saw it
			// established: __inet_stream_connect's sock_error,
			// then tcp_disconnect.
			s.fail(c.ConnectError())
			return false
		}
		return true
	case c.listenStopped && c.host().Profile.ListenStopRefusesConnect:
		s.fail(kernel.EINVAL)
		return false
	case c.connected || c.Sk.State != sock.CLOSE:
		s.fail(kernel.EISCONN)
		return false
	case s.dest == nil:
		s.fail(kernel.EINVAL)
		return false
	}
	cookie := s.dest.Cookie || fo&sock.TFOClientNoCookie != 0
	if err := s.dest.Connect(!cookie); err != 0 {
		s.fail(err)
		return false
	}
	syn, why := 0, "no cookie cached: the SYN asks for one"
	if cookie {
		mss := c.AdvMSS()
		if s.dest.MSS > 0 {
			mss = min(mss, s.dest.MSS)
		}
		syn = min(s.size, mss-maxTCPOptionSpace, c.synDataRoom())
		why = "a cookie is cached"
		if !s.dest.Cookie {
			why = "TFO_CLIENT_NO_COOKIE"
		}
	}
	c.Sk.Note(kernel.Entry{Op: kernel.OpFastOpen, Args: [4]int64{int64(syn)}, Str: why})
	nonblock := c.Sk.NoWait(s.flags)
	if s.dest.SynSent != nil {
		s.synSent(syn, nonblock)
		return false
	}
	if nonblock {
		c.InProgress()
		if syn == 0 {
			s.fail(kernel.EINPROGRESS)
			return false
		}
	}
	if syn > 0 && (nonblock || c.Sk.Shutdown&sock.SendShutdown != 0) {
		s.it.Truncate(syn)
		s.syn = true
	}
	return true
}

// synSent models tcp_send_syn_data on a connection whose far side answers
// later (Dest.SynSent): the data skb, syn_data, takes the first n bytes
// of the call, copied (into the page frag under Profile.TCPSynDataFrag,
// else into its linear area), the call's uarg attached with
// skb_zcopy_set and PSH set; it goes out with the SYN and waits in the
// retransmit queue until the SYN-ACK acknowledges it (SynAckReceived). A
// non-blocking call returns the bytes the SYN carried, or EINPROGRESS
// for none; a blocking one sleeps in inet_wait_for_connect until the
// handshake completes, which no later event of the call's own can bring:
// it stays blocked.
func (s *SendCall) synSent(n int, nonblock bool) {
	c := s.c
	if n > 0 {
		linear := n
		if c.host().Profile.TCPSynDataFrag {
			linear = 0
		}
		seg := c.entail(linear)
		added, _ := s.append(seg, n)
		seg.Skb.ZcopySet(s.uarg, s.holder, nil)
		seg.EndSeq += uint32(added)
		seg.Push = true
		seg.Sent = 1
		c.writeSeq += uint32(added)
		c.write = c.write[:len(c.write)-1]
		c.rtx = segmentPtrSlab.Of(c.host()).Append(c.rtx, seg)
		c.sndNxt = seg.EndSeq
		s.copied = added
	}
	s.dest.SynSent(s.copied)
	c.InProgress()
	switch {
	case !nonblock:
		s.blocked, s.waitConnect = true, true
	case s.copied == 0:
		s.fail(kernel.EINPROGRESS)
	default:
		s.out()
	}
}

// wantsUarg reports whether the call takes a uarg: MSG_ZEROCOPY with a
// payload on a socket where it takes effect, and under
// Profile.TCPZerocopyNeedsSG (the RFC v2's "if (sg && (flags &
// MSG_ZEROCOPY) && size && !uarg)") only on a scatter-gather route.
func (s *SendCall) wantsUarg() bool {
	c := s.c
	if s.flags&kernel.MSG_ZEROCOPY == 0 || s.size == 0 || !c.Sk.Zerocopy() || s.uarg != nil {
		return false
	}
	return c.Route.SG || !c.host().Profile.TCPZerocopyNeedsSG
}

// allocUarg is msg_zerocopy_realloc against the write queue's tail: it
// reports false, with the outcome recorded, when no uarg could be had.
// Without scatter-gather the uarg is marked copied and the data copied.
func (s *SendCall) allocUarg() bool {
	c := s.c
	id := c.Sk.ZCKey()
	u, outcome := ubuf.Realloc(c.host(), c.Sk, c.Sk.Task, uint32(s.size), c.tailUarg(), s.holder)
	s.res.Outcome = outcome
	if u == nil {
		return false
	}
	s.uarg, s.res.Uarg, s.res.ID = u, u, id
	switch {
	case s.flags&kernel.MSG_FASTOPEN != 0 && !c.connected && c.Sk.State == sock.CLOSE:
		u.SetCopied(kernel.CopyUnrouted)
		s.res.Copied = true
	case c.Route.SG:
		s.zc = true
	default:
		u.SetCopied(kernel.CopyNoSG)
		s.res.Copied = true
	}
	return true
}

// synDataRoom is the most data tcp_send_syn_data copies into a SYN. With
// Profile.TCPSynDataFrag, the room left in the page frag after
// sk_page_frag_refill (measured on Linux 6.18: a 200000-byte send with a
// cookie puts 32768 bytes in the SYN, 27768 after the task's page frag
// took 5000 bytes of another socket's send). The kernel's frag is the
// task's (current->task_frag), shared by its sockets; the model's is the
// connection's, so the room is the same for a task's first copying
// socket. Without it, the linear area of one order-0 skb,
// SKB_MAX_HEAD(MAX_TCP_HEADER).
func (c *Conn) synDataRoom() int {
	if !c.host().Profile.TCPSynDataFrag {
		return kernel.PageSize - 2*maxTCPHeader
	}
	c.pfrag.Refill(c.host())
	return c.pfrag.Page.Size() - c.pfrag.Off
}

// rfcUarg is the RFC v2's allocation at the restart label
// (Profile.TCPZerocopyWaitRetry): sock_zerocopy_realloc; on failure
// sk_stream_wait_memory, which fails at once with EAGAIN for a
// non-blocking call; otherwise, if the send buffer is full, it waits for
// room (sk_stream_memory_free), and if it is not -- the usual case, as
// optmem or RLIMIT_MEMLOCK refused -- it sleeps vm_wait,
// prandom_u32_max(HZ / 5) + 2 jiffies, which the model takes at its
// longest, VMWait. Then the second attempt, whose failure is ENOBUFS
// ("fix: in tcp, check return value of second allocation attempt"). It
// reports whether the call may go on.
func (s *SendCall) rfcUarg() bool {
	c := s.c
	if s.retryAt != 0 || s.waitMem {
		if s.waitMem && !c.memoryFree() || !s.waitMem && c.Net.Now() < s.retryAt {
			s.blocked = true
			return false
		}
		s.retryAt, s.waitMem = 0, false
		if !s.allocUarg() {
			if c.host().Profile.Bugs.Has(kernel.BugUncheckedRealloc) {
				c.Sk.Violate(kernel.RuleRefcount, "sock_zerocopy_get on the NULL uarg of an unchecked second sock_zerocopy_realloc: the kernel oopses (bug unchecked-realloc)")
			}
			s.fail(kernel.ENOBUFS)
			return false
		}
		return true
	}
	if s.allocUarg() {
		return true
	}
	c.Sk.NoSpace = true // sk_stream_wait_memory, for EAGAIN too (do_eagain)
	if c.Sk.NoWait(s.flags) {
		s.fail(kernel.EAGAIN)
		return false
	}
	if !c.memoryFree() {
		s.waitMem, s.blocked = true, true
		return false
	}
	s.retryAt = c.Net.Now().Add(VMWait)
	s.blocked = true
	c.Net.After(c.Sk, VMWait, "sk_stream_wait_memory", func() string {
		return "the vm_wait sleep of sk_stream_wait_memory is over"
	})
	return false
}

// VMWait is the longest sleep of sk_stream_wait_memory when memory is not
// short (vm_wait: prandom_u32_max(HZ / 5) + 2 jiffies, HZ 1000), which
// the RFC v2's tcp_sendmsg sleeps before its second uarg allocation.
const VMWait = 201 * engine.Millisecond

// zerocopyState is the pre-v5.5 state test of a MSG_ZEROCOPY send.
func zerocopyState(p *kernel.Profile, st sock.State) bool {
	return st == sock.ESTABLISHED || (p.TCPZerocopyCloseWait && st == sock.CLOSE_WAIT)
}

// tailUarg is skb_zcopy(tcp_write_queue_tail(sk)).
func (c *Conn) tailUarg() *ubuf.Info {
	if len(c.write) == 0 {
		return nil
	}
	return c.write[len(c.write)-1].Skb.Zcopy()
}

// loop is the body of tcp_sendmsg_locked from "restart" on.
func (s *SendCall) loop() {
	if !s.sendable() {
		return
	}
	if s.wantsUarg() && s.c.host().Profile.TCPZerocopyWaitRetry && !s.rfcUarg() {
		return
	}
	for !s.send() {
		if !s.sendable() {
			return
		}
	}
}

// sendable is the check at the restart label and in
// sk_stream_wait_memory: a pending error, or the sending side shut down
// (EPIPE), ends the call. The error is reported (sock_error, which
// clears it) only by a call that queued nothing: one that did returns
// its count and leaves sk_err for the next call (do_error, out_err).
func (s *SendCall) sendable() bool {
	c := s.c
	if c.Sk.Err != 0 {
		err := kernel.EPIPE // what sk_stream_wait_memory returns
		if s.copied == 0 {
			err = c.takeError()
		}
		s.fail(err)
		return false
	}
	if !s.syn && (c.Sk.Shutdown&sock.SendShutdown != 0 || c.done) {
		why := "SEND_SHUTDOWN: the socket was shut down for writing"
		if c.done {
			why = "the connection is closed (tcp_done)"
		}
		c.Sk.Note(kernel.Entry{Op: kernel.OpSendPipe, Str: why})
		s.fail(kernel.EPIPE)
		return false
	}
	return true
}

// send is the copy loop of tcp_sendmsg_locked with the size goal of the
// restart label (tcp_send_mss): a full skb is pushed (forced_push, else
// tcp_push_one for the send head), except in a MSG_OOB call, which
// pushes only at its end (or when it waits for space), so every segment
// it sends carries the urgent pointer of its last byte (measured on Linux
// 6.18, probe/testdata/tcp-oob-large.zcs). It returns false to restart:
// the socket's backlog was processed at new_segment (its ACKs may have
// changed the MSS and the size goal).
func (s *SendCall) send() bool {
	c := s.c
	sizeGoal := c.sizeGoal(s.flags)
	for s.it.Count() > 0 {
		seg, room := c.fillableTail(sizeGoal)
		if seg == nil {
			var restart bool
			if seg, restart = s.newSegment(); restart {
				return false
			}
			if seg == nil {
				s.waitForSpace()
				return true
			}
			room = sizeGoal
		}
		n, newSeg := s.append(seg, min(room, s.it.Count()))
		if newSeg {
			c.markPush(seg)
			var restart bool
			if seg, restart = s.newSegment(); restart {
				return false
			}
			if seg == nil {
				s.waitForSpace()
				return true
			}
			continue
		}
		if n == 0 {
			s.waitForSpace()
			return true
		}
		c.writeSeq += uint32(n)
		seg.EndSeq += uint32(n)
		s.copied += n
		if s.it.Count() == 0 {
			seg.EOR = s.flags&kernel.MSG_EOR != 0
			break
		}
		if seg.Skb.Len < sizeGoal || s.flags&kernel.MSG_OOB != 0 {
			continue // a call with MSG_OOB sends only when it pushes, urgent pointer marked
		}
		if c.forcedPush() {
			c.markPush(seg)
			c.pushPending(naglePush)
		} else if seg == c.write[0] {
			c.pushOne()
		}
	}
	s.out()
	return true
}

// backlogEvery is how many skbs tcp_sendmsg_locked allocates between two
// sk_flush_backlog calls (process_backlog >= 16).
const backlogEvery = 16

// newSegment is the new_segment label: sk_stream_memory_free; every
// backlogEvery skbs the call made, sk_flush_backlog processes the
// packets that arrived on the socket's backlog meanwhile, and if there
// were any the call restarts (goto restart); then tcp_stream_alloc_skb
// (linear area per the profile) and tcp_skb_entail. It returns nil when
// the call must wait for memory, restart when it restarts.
func (s *SendCall) newSegment() (seg *Segment, restart bool) {
	c := s.c
	if !c.memoryFree() {
		return nil, false
	}
	if s.processBacklog >= backlogEvery {
		s.processBacklog = 0
		if c.Net.FlushBacklog(c.Sk) {
			return nil, true
		}
	}
	if c.host().Fail(kernel.FaultAllocSkb) {
		c.Sk.Note(kernel.Entry{Op: kernel.OpFaultFailed, Str: kernel.FaultAllocSkb})
		return nil, false
	}
	s.processBacklog++
	return c.entail(c.host().Profile.TCPLinear), false
}

// append adds up to n bytes of the call's payload to seg and returns how
// many, or newSeg when the skb cannot take them and a new segment is needed.
func (s *SendCall) append(seg *Segment, n int) (added int, newSeg bool) {
	c := s.c
	b := seg.Skb
	before := b.Truesize
	// Copying the payload from user memory or pinning it may fault, under
	// the socket lock (might_fault: the lock-order check sees sk_lock →
	// mmap_lock).
	c.host().MightFault("tcp_sendmsg_locked", c.Sk.Ident())
	switch {
	case b.Tailroom() > 0:
		// skb_add_data_nocache into the linear area (kernels before v4.18):
		// zerocopy payload copied here is a copy no notification reports.
		added = min(n, b.Tailroom())
		b.AppendLinear(added)
		s.it.Advance(added)
		s.res.Copied = s.res.Copied || s.uarg != nil
	case !s.zc:
		c.pfrag.Refill(c.host())
		if !b.CanCoalesce(c.pfrag.Page, c.pfrag.Off) && len(b.Shinfo().Frags) >= kernel.MaxSkbFrags {
			return 0, true
		}
		added = min(n, c.pfrag.Page.Size()-c.pfrag.Off)
		b.Shinfo().Flags &^= kernel.SKBFL_PURE_ZEROCOPY // tcp_downgrade_zcopy_pure
		b.AppendPageFrag(c.pfrag.Page, c.pfrag.Off, added)
		s.it.Advance(added)
		c.pfrag.Off += added
	default:
		if b.Len == 0 && c.host().Profile.PureZerocopy {
			b.Shinfo().Flags |= kernel.SKBFL_PURE_ZEROCOPY
		}
		var err kernel.Errno
		added, err = b.ZerocopyFromIter(&s.it, n, s.uarg, s.holder)
		if err == kernel.EMSGSIZE || err == kernel.EEXIST {
			return 0, true
		}
	}
	c.Sk.GrowQueued(b.Truesize - before)
	return added, false
}

// waitForSpace is the wait_for_space label: drop an empty tail skb, push
// what was queued, then block, or fail with EAGAIN for MSG_DONTWAIT and
// non-blocking sockets.
func (s *SendCall) waitForSpace() {
	c := s.c
	c.removeEmptyTail()
	if s.copied > 0 {
		c.push(s.flags&^kernel.MSG_MORE, c.nonagle)
	}
	c.Sk.NoSpace = true // sk_stream_wait_memory, for EAGAIN too (do_eagain)
	if c.Sk.NoWait(s.flags) {
		if !c.memoryFree() {
			c.Sk.Note(kernel.Entry{Op: kernel.OpStreamNoSpace, Args: [4]int64{int64(c.Sk.WmemQueued), int64(c.Sk.Sndbuf)}})
		}
		s.fail(kernel.EAGAIN)
		return
	}
	s.blocked, s.waitSpace, s.slept = true, true, c.Sk.Wakeups
}

// out is the out label: ask for the call's transmit timestamps
// with its cookie's flags (txTimestamp), push what was queued and drop the call's uarg reference.
func (s *SendCall) out() {
	c := s.c
	if s.copied > 0 {
		c.txTimestamp(s.sockc.Tsflags)
		c.push(s.flags, c.nonagle)
	}
	if s.uarg != nil {
		s.uarg.Complete(s.holder, true)
		s.res.ZC = true
	}
	s.res.N = s.copied
	s.done = true
}

// fail is do_error/out_err: a call that queued something returns its
// count; one that queued nothing aborts its uarg (rolling back the id) and
// returns err.
func (s *SendCall) fail(err kernel.Errno) {
	s.c.removeEmptyTail()
	if s.copied > 0 {
		s.out()
		return
	}
	if s.uarg != nil {
		s.uarg.PutAbort(s.holder, true)
	}
	s.res = sock.SendResult{N: -1, Err: err, Outcome: s.res.Outcome}
	s.done = true
}
