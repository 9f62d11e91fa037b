package tcp

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// Header sizes that bound a segment's payload: MAX_TCP_HEADER, the
// headroom every TCP skb reserves (a segment's own header is HeaderLen).
const (
	maxTCPHeader = 320
	// maxTCPOptionSpace is MAX_TCP_OPTION_SPACE, what tcp_send_syn_data
	// keeps free of data in a Fast Open SYN.
	maxTCPOptionSpace = 40
	initCwnd          = 10 // TCP_INIT_CWND
	// tcpReordering is net.ipv4.tcp_reordering's default, tp->reordering
	// of a new connection.
	tcpReordering = 3
	// shinfoSize and skbSize are SKB_DATA_ALIGN(sizeof(struct
	// skb_shared_info)) and SKB_DATA_ALIGN(sizeof(struct sk_buff)) on
	// x86_64.
	shinfoSize = 320
	skbSize    = 256
)

// segmentSlab and segmentPtrSlab hold a Host's segments and its
// connections' lists of them.
var segmentSlab, segmentPtrSlab = kernel.SlabSlot[Segment](), kernel.SlabSlot[*Segment]()

// Segment is an skb on the write or retransmit queue with its control block
// (struct tcp_skb_cb): the sequence range it carries.
type Segment struct {
	Skb         *skb.Buff
	Seq, EndSeq uint32
	// Push is TCPHDR_PSH, set by tcp_mark_push: the skb may not grow.
	Push bool
	// EOR forbids appending to the skb (MSG_EOR).
	EOR bool
	// Fin marks the FIN, which takes one sequence number.
	Fin bool
	// Sent counts transmissions.
	Sent int
	// TxstampAck is txstamp_ack: the ACK of the skb's tskey is to be
	// timestamped (SOF_TIMESTAMPING_TX_ACK, tcp_ack_tstamp).
	TxstampAck bool
	// lost marks a segment the retransmission timer gave up on.
	lost bool
	// sentAt is skb_mstamp_ns: when the skb was last transmitted.
	sentAt engine.Time
	// clone is the copy last transmitted and cloneID its identity then,
	// for skb_still_in_host_queue (stillInHost).
	clone   *skb.Buff
	cloneID kernel.ObjectID
}

// Conn is one end of a TCP connection: struct tcp_sock as far as
// MSG_ZEROCOPY sees it.
//
// Ownership: Conn holds one reference on its Sock for as long as the
// connection exists (the protocol's, taken when it is hashed), besides the
// descriptor's. It owns the skbs of its write queue (unsent) and its
// retransmit queue (sent, not yet acknowledged) and the page of its
// sk_page_frag; it hands clones of them to its Network.
type Conn struct {
	Sk    *sock.Sock
	Route sock.Route
	Net   Network
	t     timers
	pace  pacing
	tlp   lossProbe
	// rtt is the round-trip estimate (tcp_rtt_estimator).
	rtt rttState
	// synAt is when the SYN or SYN-ACK of a handshake on the wire went
	// out, for its RTT sample.
	synAt engine.Time
	// fastOpenChild is tp->fastopen_rsk: a Fast Open child whose
	// handshake is not complete (AcceptedAtSyn, until its first ACK).
	fastOpenChild bool

	write []*Segment // unsent, oldest first (sk_write_queue)
	rtx   []*Segment // sent, unacknowledged (tcp_rtx_queue)
	// fastOpenQlen is fastopenq.max_qlen (TCP_FASTOPEN).
	fastOpenQlen int
	// ca is the congestion control (icsk_ca_ops), caSet whether
	// TCP_CONGESTION chose it (icsk_ca_setsockopt).
	ca    kernel.Congestion
	caSet bool

	writeSeq, sndNxt, sndUna uint32
	// notsentLowat is tp->notsent_lowat (TCP_NOTSENT_LOWAT; 0 for the
	// sysctl's).
	notsentLowat uint32
	// recvmsgInq is tp->recvmsg_inq (TCP_INQ): recvmsg reports the bytes
	// left unread (TCP_CM_INQ); getsockopt(TCP_ZEROCOPY_RECEIVE) does not
	// look at it.
	recvmsgInq bool
	// sndSml is snd_sml, the end of the last segment sent shorter than
	// the MSS (tcp_minshall_update).
	sndSml            uint32
	sndWnd, maxWindow int
	cwnd              int
	// delivered is tp->delivered: segments the peer has acknowledged,
	// the SYN (or SYN-ACK) included; totalRetrans is tp->total_retrans,
	// the segments retransmitted.
	delivered, totalRetrans int
	// cwndUndetermined says the history has noted where a BBR window
	// stops being the model's to predict (congControl).
	cwndUndetermined bool
	// maxPacketsOut, cwndUsageSeq and isCwndLimited are what
	// tcp_cwnd_validate keeps of the window's use (cwndValidate).
	maxPacketsOut int
	cwndUsageSeq  uint32
	isCwndLimited bool
	// nonagle is tp->nonagle: TCP_NAGLE_OFF, TCP_NAGLE_CORK, TCP_NAGLE_PUSH.
	nonagle int
	// shutWr says the FIN is queued (tcp_close_state ran).
	shutWr   bool
	finQueue bool
	done     bool
	pfrag    mm.PageFrag
	// connected is sock->state == SS_CONNECTED: set by Connect, never
	// cleared.
	connected bool
	// disconnected is sock->state SS_UNCONNECTED again after a connect
	// reported the connection's end (Disconnect).
	disconnected bool
	// inProgress is sock->state still SS_CONNECTING: a non-blocking
	// connect returned EINPROGRESS (InProgress).
	inProgress bool
	// disconnecting is sock->state SS_DISCONNECTING (ShutdownConnecting).
	disconnecting bool
	// listenStopped says a shutdown ended the socket's listening
	// (StopListening) and it has not listened since (ListenStopped).
	listenStopped bool
	// syn is the SYN retransmission of a connect whose SYN was dropped.
	syn synState

	// Receive side: in-order data not yet read by the application.
	rcvQueue []*rcvSkb
	rcvNxt   uint32
	rcvFin   bool
	// copiedSeq is copied_seq, the next byte the reader takes; rs the
	// autotuning of the receive buffer.
	copiedSeq uint32
	rs        rcvSpace
	// urg is the urgent byte received (urg_data, urg_seq), sndUrg the
	// urgent mode of the sending side (snd_up).
	urg    urgent
	sndUrg sndUrgent
	// rcvMSS and scalingRatio are icsk_ack.rcv_mss and tp->scaling_ratio
	// (0 until a segment was measured).
	rcvMSS, scalingRatio int
	// rw is the receive window offered and its bounds; ack the
	// delayed-ACK engine.
	rw  rcvWindow
	ack ackState
	// lastOowAck is tp->last_oow_ack_time, when an ACK last answered an
	// out-of-window segment (oowRateLimited); set is false until one did.
	lastOowAck struct {
		at  engine.Time
		set bool
	}
	// timeWait is set when an orphan's FIN was acknowledged (TimeWait);
	// twWnd is the time-wait socket's tw_rcv_wnd, -1 until the ACK due
	// when it took over went.
	timeWait bool
	twWnd    int
	// neg is what a handshake on the wire negotiated.
	neg negotiated
	// rxMap is the program's tcp_mmap mapping of the socket, or nil.
	rxMap *RxMapping
}

// Nagle states of tp->nonagle (include/net/tcp.h).
const (
	nagleOff  = 1
	nagleCork = 2
	naglePush = 4
)

// New models tcp_v4_init_sock for the socket sk: a closed connection whose
// packets will take route r into net.
func New(sk *sock.Sock, r sock.Route, net Network) *Conn {
	sk.Hold() // the protocol's reference
	return &Conn{Sk: sk, Route: r, Net: net, cwnd: initCwnd, delivered: 1, ca: sk.Net.TCPCongestion}
}

func (c *Conn) host() *kernel.Host { return c.Sk.Host() }

// String renders the connection for a timeline.
func (c *Conn) String() string {
	return fmt.Sprintf("%v %v snd_una %d snd_nxt %d write_seq %d", c.Sk, c.Sk.State, c.sndUna, c.sndNxt, c.writeSeq)
}

// MSS returns the current MSS (tcp_current_mss as tcp_sync_mss set it):
// the MSS announced (AdvMSS), at most the peer's MSS option when the
// handshake was on the wire (rx_opt.mss_clamp), less the timestamp option
// when timestamps are in use (tcp_established_options), at least TCP_MIN_SND_MSS, bounded to half
// the largest window the peer offered once that exceeds TCP_MSS_DEFAULT
// (tcp_bound_to_half_wnd; tcp_ack_update_window syncs the MSS again
// whenever max_window grows): over loopback a fresh connection sends
// 32741-byte segments into the peer's 65483-byte first window (measured
// on Linux 6.18).
func (c *Conn) MSS() int { return c.mssBoundTo(c.maxWindow) }

// mssBoundTo is MSS with max_window maxWindow.
func (c *Conn) mssBoundTo(maxWindow int) int {
	mss := c.AdvMSS()
	if c.neg.set {
		mss = min(mss, c.neg.mssClamp) // __tcp_mtu_to_mss
	}
	mss -= c.optLen()
	mss = max(mss, tcpMinSndMSS)
	if maxWindow > tcpMSSDefault && mss > maxWindow>>1 {
		mss = max(maxWindow>>1, 68-c.HeaderLen())
	}
	return mss
}

// WindowMovesMSS says whether an ACK offering win bytes would change
// the MSS: it raises max_window (tcp_ack_update_window) past what keeps
// the MSS where it is (tcp_bound_to_half_wnd in tcp_sync_mss).
func (c *Conn) WindowMovesMSS(win int) bool {
	return win > c.maxWindow && c.mssBoundTo(win) != c.MSS()
}

// Connect models a completed three-way handshake with the peer, whose
// receive window is window: the connection is ESTABLISHED and its send
// buffer is sized by tcp_init_buffer_space unless SO_SNDBUF locked it.
// __inet_stream_connect refuses with EISCONN a socket that was connected
// once (sock->state stays SS_CONNECTED through shutdown, FIN_WAIT2, a
// reset or a timeout: only connect(AF_UNSPEC) clears it, which the model
// does not offer) and one whose sk_state is not TCP_CLOSE (a listener).
func (c *Conn) Connect(window int) kernel.Errno {
	if c.connected || c.Sk.State != sock.CLOSE {
		return kernel.EISCONN
	}
	c.connected = true
	c.establish(window)
	return 0
}

// establish makes the connection ESTABLISHED with a peer whose receive
// window is window.
func (c *Conn) establish(window int) {
	c.Sk.State = sock.ESTABLISHED
	c.SynWindow()
	c.sndWnd, c.maxWindow = window, window
	c.ackUpdateRTT(0, false, 0) // the implicit handshake's round trip
	c.expandSndbuf()
	c.Sk.Note(kernel.Entry{Op: kernel.OpConnected, Args: [4]int64{int64(window), int64(c.Sk.Sndbuf)}})
}

// Connected reports whether a connect began on the socket (sock->state
// no longer SS_UNCONNECTED in the model, which never returns to it).
func (c *Conn) Connected() bool { return c.connected }

// InProgress marks a connection a non-blocking connect made: the call
// returned EINPROGRESS and sock->state stays SS_CONNECTING although the
// handshake completed (over loopback, before the call returned).
func (c *Conn) InProgress() { c.inProgress = true }

// ShutdownConnecting models the start of inet_shutdown on a socket whose
// non-blocking connect is still SS_CONNECTING (InProgress): with the
// handshake completed sock->state becomes SS_CONNECTED, so a later
// connect is EISCONN rather than 0; on a connection closed since (a
// refused SYN) it becomes SS_DISCONNECTING, which every later connect
// finds in __inet_stream_connect's default case, EINVAL (both measured
// on Linux 6.18). A SYN still unanswered (SYN_SENT) is disconnected
// further on in inet_shutdown (DisconnectSynSent).
func (c *Conn) ShutdownConnecting() {
	if !c.inProgress || c.SynWaiting() {
		return
	}
	c.inProgress = false
	c.disconnecting = c.Sk.State == sock.CLOSE
}

// Disconnecting reports whether sock->state is SS_DISCONNECTING
// (ShutdownConnecting).
func (c *Conn) Disconnecting() bool { return c.disconnecting }

// FinishConnect models __inet_stream_connect on a socket whose connect is
// in progress (SS_CONNECTING, not a deferred connect): EALREADY while
// the handshake runs, but the model's has completed, so the call finds
// the connection established and returns 0 with sock->state
// SS_CONNECTED, or finds it closed since (TCP_CLOSE: a reset, a timeout)
// and reports why (sock_error, then Disconnect). ok is false for a
// socket with no connect in progress.
func (c *Conn) FinishConnect() (ok bool) {
	ok, c.inProgress = c.inProgress, false
	return ok
}

// Disconnect models the end of __inet_stream_connect for a connection
// closed before the call saw it established (sock_error): the socket is
// disconnected (tcp_disconnect, sock->state SS_UNCONNECTED), which clears
// sk_shutdown and SOCK_DONE and purges the receive queue, so a read finds
// a TCP_CLOSE socket no longer shut down, ENOTCONN, where tcp_done's
// RCV_SHUTDOWN said 0, and poll no POLLIN (measured on Linux 6.18,
// probe/testdata/tcp-connect-refused-read.zcs). The kernel would let it
// connect anew, which the model does not (Disconnected).
func (c *Conn) Disconnect() {
	c.disconnected = true
	c.Sk.Shutdown, c.rcvFin = 0, false
	c.purgeRcv()
}

// ConnectError models __inet_stream_connect finding the connection that
// was in progress closed (TCP_CLOSE): the pending error (sock_error, or
// ECONNABORTED if none), and the socket disconnected (Disconnect).
func (c *Conn) ConnectError() kernel.Errno {
	c.Disconnect()
	if err := c.takeError(); err != 0 {
		return err
	}
	return kernel.ECONNABORTED
}

// Disconnected reports whether a connect reported the connection's end
// (Disconnect).
func (c *Conn) Disconnected() bool { return c.disconnected }

// SynWindow returns the window this end offers in its SYN or SYN-ACK
// (tcp_select_initial_window), initializing its receive side the first
// time.
func (c *Conn) SynWindow() int {
	if c.rw.advmss == 0 {
		return c.initRcvWindow()
	}
	return c.rw.wnd
}

// Listen models inet_listen with the backlog __sys_listen passed on
// (already at most net.core.somaxconn): a closed socket that was never
// connected (sock->state SS_UNCONNECTED) starts listening, and a
// listener takes the new backlog (sk_max_ack_backlog; measured on Linux
// 6.18: a second listen changes it, either way); otherwise EINVAL. A
// socket that starts listening under net.ipv4.tcp_fastopen's
// TFO_SERVER_WO_SOCKOPT1 and TFO_SERVER_ENABLE, with no TCP_FASTOPEN
// set, gets a Fast Open queue of the backlog (fastopen_queue_tune).
func (c *Conn) Listen(backlog int) kernel.Errno {
	if c.connected || c.Sk.State != sock.CLOSE && c.Sk.State != sock.LISTEN {
		return kernel.EINVAL
	}
	c.Sk.MaxAckBacklog = backlog
	const woSockopt = sock.TFOServerWoSockopt | sock.TFOServerEnable
	if c.Sk.State == sock.CLOSE && c.Sk.Net.TCPFastOpen&woSockopt == woSockopt && c.fastOpenQlen == 0 {
		c.fastOpenQlen = min(backlog, c.Sk.Net.Somaxconn)
	}
	c.Sk.State = sock.LISTEN
	c.listenStopped = false
	return 0
}

// ListenStopped reports whether a shutdown ended the socket's listening
// (StopListening) and it has not listened again: its connect is EINVAL,
// every time, though listen works again (and makes connect EISCONN).
// Measured on Linux 6.18 (probe/testdata/listen-shutdown-connect.zcs);
// the 6.1 source has no such refusal: there __inet_stream_connect finds
// SS_UNCONNECTED and TCP_CLOSE and tcp_v4_connect runs. Whether connect
// refuses is the profile's (kernel.Profile.ListenStopRefusesConnect).
func (c *Conn) ListenStopped() bool { return c.listenStopped }

// expandSndbuf models tcp_sndbuf_expand: two (three under BBR,
// bbr_sndbuf_expand; the connection's congestion control) times nr_segs skbs of per_mss bytes, up to tcp_wmem[2], where nr_segs is the
// larger of TCP_INIT_CWND, the congestion window and tp->reordering + 1,
// and per_mss is the truesize of a worst-case (non-GSO) skb for the
// larger of mss_clamp and the MSS: roundup_pow_of_two(mss +
// MAX_TCP_HEADER + SKB_DATA_ALIGN(sizeof(struct skb_shared_info))) +
// SKB_DATA_ALIGN(sizeof(struct sk_buff)). Measured on Linux 6.18 over
// loopback under bbr: 3 × 10 × 131328 = 3939840 bytes after connect,
// 8273664 with tcp_reordering 20, 69120 with TCP_MAXSEG 1000; under
// cubic at MTU 49204, 2 × 10 × 65792.
func (c *Conn) expandSndbuf() { c.ExpandSndbufFor(c.cwnd) }

// Cwnd returns the congestion window in segments (tp->snd_cwnd).
func (c *Conn) Cwnd() int { return c.cwnd }

// ExpandSndbufFor grows sk_sndbuf as tcp_sndbuf_expand does for a
// congestion window of cwnd segments: the model's own (expandSndbuf), or
// a larger one a front end assumes the kernel's congestion control had
// opened (bbr sets it from a delivery rate and an RTT measured in
// wall-clock time). It reports whether sk_sndbuf grew; SO_SNDBUF's lock
// and tcp_wmem[2] bound it.
func (c *Conn) ExpandSndbufFor(cwnd int) bool {
	old := c.Sk.Sndbuf
	c.Sk.Sndbuf = c.sndbufFor(cwnd)
	return c.Sk.Sndbuf > old
}

// sndbufFor is the sk_sndbuf tcp_sndbuf_expand leaves for a congestion
// window of cwnd segments: two (bbr: three) windows of per_mss, at least
// what it was and at most tcp_wmem[2]; a buffer SO_SNDBUF fixed stays.
func (c *Conn) sndbufFor(cwnd int) int {
	if c.Sk.SndbufLocked {
		return c.Sk.Sndbuf
	}
	mss := c.MSS()
	if c.neg.set {
		mss = max(mss, c.neg.mssClamp)
	} else {
		mss = max(mss, c.AdvMSS()) // the implicit peer announces what this end does
	}
	perMSS := 1
	for perMSS < mss+maxTCPHeader+shinfoSize {
		perMSS <<= 1
	}
	perMSS += skbSize
	nrSegs := max(initCwnd, cwnd, tcpReordering+1)
	factor := 2
	if c.ca == kernel.CongestionBBR {
		factor = 3
	}
	want := factor * nrSegs * perMSS
	return min(max(c.Sk.Sndbuf, want), c.Sk.Net.TCPWmem[2])
}

// Setsockopt models do_tcp_setsockopt for TCP_NODELAY and TCP_CORK (clearing
// either pushes what waits), TCP_QUICKACK (setQuickack) and TCP_FASTOPEN
// (fastopen_queue_tune: the most Fast Open children that may wait for
// their handshake's ACK, capped at net.core.somaxconn, on a closed or
// listening socket, else EINVAL, as for a negative value), TCP_INQ (0
// or 1, else EINVAL), TCP_RTO_MAX_MS (setRtoMax), TCP_USER_TIMEOUT
// (setUserTimeout); other levels go to the socket.
func (c *Conn) Setsockopt(opt kernel.SockOpt, val int) kernel.Errno {
	switch opt {
	case kernel.TCP_NODELAY:
		if val != 0 {
			c.nonagle |= nagleOff | naglePush
			c.pushPending(c.nonagle)
		} else {
			c.nonagle &^= nagleOff
		}
	case kernel.TCP_CORK:
		if val != 0 {
			c.nonagle |= nagleCork
		} else {
			c.nonagle &^= nagleCork
			if c.nonagle&nagleOff != 0 {
				c.nonagle |= naglePush
			}
			c.pushPending(c.nonagle | naglePush)
		}
	case kernel.TCP_QUICKACK:
		c.setQuickack(val)
	case kernel.SO_RCVLOWAT:
		return c.setRcvlowat(val)
	case kernel.TCP_FASTOPEN:
		if val < 0 || c.Sk.State != sock.CLOSE && c.Sk.State != sock.LISTEN {
			return kernel.EINVAL
		}
		c.fastOpenQlen = min(val, c.Sk.Net.Somaxconn)
	case kernel.TCP_INQ:
		if val < 0 || val > 1 {
			return kernel.EINVAL
		}
		c.recvmsgInq = val == 1
	case kernel.TCP_RTO_MAX_MS:
		if err := c.setRtoMax(val); err != 0 {
			return err
		}
	case kernel.TCP_USER_TIMEOUT:
		if err := c.setUserTimeout(val); err != 0 {
			return err
		}
	case kernel.TCP_NOTSENT_LOWAT:
		// tp->notsent_lowat, a u32 (0: the sysctl's), then
		// sk->sk_write_space: sk_stream_write_space wakes the writers if
		// the socket is writeable now.
		c.notsentLowat = uint32(val)
		if c.writeable() {
			c.Sk.StreamWriteSpace()
		}
	default:
		if opt.Level == kernel.SOL_TCP {
			return kernel.ENOPROTOOPT
		}
		return c.Sk.Setsockopt(opt, val)
	}
	c.Sk.Note(kernel.Entry{Op: kernel.OpSetsockopt, Args: [4]int64{int64(opt.Level), int64(opt.Name), int64(val)}})
	return 0
}

// Getsockopt returns TCP_NODELAY, TCP_CORK, TCP_QUICKACK (1 unless in
// pingpong mode), TCP_FASTOPEN (the Fast Open queue's max_qlen) and
// TCP_RTO_MAX_MS (icsk_rto_max in ms: net.ipv4.tcp_rto_max_ms unless
// set), TCP_USER_TIMEOUT (icsk_user_timeout), or the socket's options.
func (c *Conn) Getsockopt(opt kernel.SockOpt) (int, kernel.Errno) {
	switch opt {
	case kernel.TCP_NODELAY:
		return boolInt(c.nonagle&nagleOff != 0), 0
	case kernel.TCP_CORK:
		return boolInt(c.nonagle&nagleCork != 0), 0
	case kernel.TCP_QUICKACK:
		return boolInt(!c.ack.pingpong), 0 // !inet_csk_in_pingpong_mode
	case kernel.TCP_FASTOPEN:
		return c.fastOpenQlen, 0
	case kernel.TCP_NOTSENT_LOWAT:
		return int(int32(c.notsentLowat)), 0
	case kernel.TCP_INQ:
		return boolInt(c.recvmsgInq), 0
	case kernel.TCP_RTO_MAX_MS:
		if c.host().Profile.TCPRtoMaxOpt {
			return int(c.rtoMax() / engine.Millisecond), 0
		}
	case kernel.TCP_USER_TIMEOUT:
		return c.t.userTimeout, 0
	}
	return c.Sk.Getsockopt(opt)
}

// FastOpenQlen is the listener's Fast Open max_qlen: 0 unless
// TCP_FASTOPEN set it.
func (c *Conn) FastOpenQlen() int { return c.fastOpenQlen }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// WriteQueue returns the unsent segments, oldest first.
func (c *Conn) WriteQueue() []*Segment { return append([]*Segment(nil), c.write...) }

// RtxQueue returns the sent, unacknowledged segments, oldest first.
func (c *Conn) RtxQueue() []*Segment { return append([]*Segment(nil), c.rtx...) }

// RtxLen returns how many segments wait for an ACK, without copying the
// queue.
func (c *Conn) RtxLen() int { return len(c.rtx) }

// Done reports whether the connection is gone (tcp_done).
func (c *Conn) Done() bool { return c.done }

// PageFrag returns the page of the socket's sk_page_frag, or nil.
func (c *Conn) PageFrag() *mm.Page { return c.pfrag.Page }
