package tcp

import (
	"github.com/zcsim/zcsim/sock"
)

// rcvWindow is the receive side's window state (struct tcp_sock): what
// was offered last and the bounds the offer grows within.
type rcvWindow struct {
	// wnd and wup are rcv_wnd and rcv_wup: the window offered last and
	// rcv_nxt when it was offered; its right edge is wup + wnd.
	wnd int
	wup uint32
	// ssthresh is rcv_ssthresh, the window's growth bound during slow
	// start (tcp_grow_window); clamp is window_clamp, its ceiling.
	ssthresh, clamp int
	// wscale is rcv_wscale: offers are multiples of 1 << wscale.
	wscale uint
	// advmss is tp->advmss, the MSS this end announced.
	advmss int
}

// Window constants of include/net/tcp.h and the uapi.
const (
	maxWscale       = 14    // TCP_MAX_WSCALE
	u16Max          = 65535 // U16_MAX, the largest unscaled window
	ipv4MaxPMTU     = 65535 // IPV4_MAX_PMTU
	tcpOptTimestamp = 12    // TCPOLEN_TSTAMP_ALIGNED
	tcpHdrLen       = 20    // sizeof(struct tcphdr)
)

// winFromSpace models tcp_win_from_space: how much of space bytes of
// receive buffer the window may offer. Profiles with tp->scaling_ratio
// scale by the measured payload per truesize (in 1/256ths, half until a
// segment was measured); older ones keep tcp_adv_win_scale 1, the buffer
// less half of it.
func (c *Conn) winFromSpace(space int) int {
	if space <= 0 {
		return 0
	}
	if c.host().Profile.TCPScalingRatio {
		return space * c.ratio() >> 8
	}
	return space - space>>1
}

// space models tcp_space: the window the free receive buffer allows.
func (c *Conn) space() int { return c.winFromSpace(c.Sk.Rcvbuf - c.Sk.RmemAlloc) }

// fullSpace models tcp_full_space: the window the whole buffer allows.
func (c *Conn) fullSpace() int { return c.winFromSpace(c.Sk.Rcvbuf) }

// AdvMSS models dst_metric_advmss (ipv4_default_advmss,
// ip6_default_advmss): the MSS this end announces in its SYN, the path
// MTU less the IP and TCP headers, an IPv4 MTU counted at most
// IPV4_MAX_PMTU.
func (c *Conn) AdvMSS() int {
	mtu := c.Route.MTU
	if !c.Sk.IPv6() {
		mtu = min(mtu, ipv4MaxPMTU)
	}
	return mtu - c.Sk.IPHeaderLen() - tcpHdrLen
}

// initRcvWindow models the window of the implicit handshake:
// tcp_select_initial_window (the buffer's window at the default scaling
// ratio, rounded down to whole MSS less the timestamps, at most U16_MAX,
// its scale from the largest buffer tcp_rmem[2] or rmem_max allows) and
// tcp_init_buffer_space (window_clamp the full buffer's window,
// rcv_ssthresh the initial window). It returns the window the SYN or
// SYN-ACK offers. The implicit handshake's options are this end's
// sysctls, net.ipv4.tcp_timestamps and tcp_sack when it makes them (the
// implicit peer is taken to offer both, as a peer in the same namespace
// does): timestamps are used, and SACK permitted, when they are not 0.
func (c *Conn) initRcvWindow() int {
	if !c.neg.set {
		c.neg.ts = c.Sk.Net.TCPTimestamps != 0
		c.neg.sack = c.Sk.Net.TCPSack != 0
	}
	return c.selectInitialWindow(c.AdvMSS()-c.optLen(), true)
}

// selectInitialWindow is initRcvWindow rounding the window to whole mss
// bytes; without wscaleOK (a peer that offered no window scale) the
// window is not scaled and window_clamp stays below 64 KiB.
func (c *Conn) selectInitialWindow(mss int, wscaleOK bool) int {
	w := &c.rw
	w.advmss = c.AdvMSS()
	space := c.fullSpace()
	if space > mss {
		space -= space % mss
	}
	w.wnd = min(space, u16Max)
	scaleSpace := max(space, c.Sk.Net.TCPRmem[2], c.Sk.Net.RmemMax)
	if c.Sk.RcvbufLocked {
		// tcp_connect_init, tcp_openreq_init_rwin: a size the user
		// fixed (SOCK_RCVBUF_LOCK) clamps the window to the full
		// buffer's before the scale is chosen from it.
		scaleSpace = min(scaleSpace, c.fullSpace())
	}
	w.wscale = 0
	for scaleSpace>>w.wscale > u16Max && w.wscale < maxWscale {
		w.wscale++
	}
	if !wscaleOK {
		w.wscale = 0
	}
	w.clamp = min(u16Max<<w.wscale, c.fullSpace())
	w.ssthresh = min(w.wnd, w.clamp)
	w.wup = c.rcvNxt
	// tcp_initialize_rcv_mss
	c.rcvMSS = max(min(w.advmss, c.MSS(), w.wnd/2, tcpMSSDefault), tcpMinMSS)
	c.initRcvSpace()
	return w.wnd
}

// selectWindowNow models __tcp_select_window: the window the free buffer
// allows now, bounded by rcv_ssthresh and rounded up to the window scale;
// when less than half the buffer is free, quickack mode ends and a window
// below an MSS or a sixteenth of the buffer is offered as zero. Without a
// window scale (rcv_wscale 0: the peer offered none, or a receive buffer
// the user fixed below 64 KiB) the offer is whole segments of rcv_mss
// instead, and rcv_wnd stays while it is within a segment below the free
// space (or, with a segment as large as the buffer's window, until more
// than half of it more is free). Measured on Linux 6.18: a listener's
// child with SO_RCVBUF 16384 offers 16384 bytes to 8192-byte segments,
// and its reads take 24576 and then 16384 bytes
// (probe/testdata/tcp-rcvbuf-noscale.zcs).
func (c *Conn) selectWindowNow() int {
	w := &c.rw
	mss := c.rcvMSSNow()
	free := c.space()
	allowed := c.fullSpace()
	full := min(w.clamp, allowed)
	if mss > full {
		mss = full
		if mss <= 0 {
			return 0
		}
	}
	if free < full>>1 {
		c.ack.quick = 0
		free &^= 1<<w.wscale - 1
		if free < allowed>>4 || free < mss {
			return 0
		}
	}
	free = min(free, w.ssthresh)
	if w.wscale > 0 {
		return alignUp(free, 1<<w.wscale)
	}
	win := w.wnd
	switch {
	case win <= free-mss || win > free:
		win = free / mss * mss
	case mss == full && free > win+full>>1:
		win = free
	}
	return win
}

func alignUp(n, a int) int { return (n + a - 1) / a * a }

// receiveWindow models tcp_receive_window: what is left of the window
// offered last.
func (c *Conn) receiveWindow() int {
	return max(int(int32(c.rw.wup+uint32(c.rw.wnd)-c.rcvNxt)), 0)
}

// Window models tcp_select_window, the window an ACK sent now offers:
// selectWindowNow, but never less than what is left of the window offered
// last (TCP does not shrink its window); the offer is remembered (rcv_wnd,
// rcv_wup = rcv_nxt).
func (c *Conn) Window() int {
	cur := c.receiveWindow()
	win := c.selectWindowNow()
	if win < cur {
		win = alignUp(cur, 1<<c.rw.wscale)
	}
	c.rw.wnd, c.rw.wup = win, c.rcvNxt
	return win
}

// growWindow models tcp_grow_window for a segment of n ≥ 128 bytes with
// the given truesize: while the buffer has room above rcv_ssthresh, rcv_ssthresh grows
// by at least two segments (twice advmss when the segment's truesize is
// well used, else what __tcp_grow_window allows), and each growth grants
// one more quick ACK (icsk_ack.quick |= 1).
func (c *Conn) growWindow(n, truesize int) {
	w := &c.rw
	room := min(w.clamp, c.space()) - w.ssthresh
	if room <= 0 {
		return
	}
	var incr int
	if c.winFromSpace(truesize) <= n {
		incr = 2 * w.advmss
	} else {
		incr = c.growWindowSlow(n, truesize)
	}
	if incr > 0 {
		incr = max(incr, 2*n)
		w.ssthresh += min(room, incr)
		c.ack.quick |= 1
	}
}

// growWindowSlow models __tcp_grow_window: halving the segment's window
// share and the largest buffer's together, growth is allowed (twice
// rcv_mss) once the share fits the payload before the halved buffer falls
// below rcv_ssthresh.
func (c *Conn) growWindowSlow(n, truesize int) int {
	share := c.winFromSpace(truesize) >> 1
	window := c.winFromSpace(c.Sk.Net.TCPRmem[2]) >> 1
	for c.rw.ssthresh <= window {
		if share <= n {
			return 2 * c.rcvMSSNow()
		}
		share >>= 1
		window >>= 1
	}
	return 0
}

// setWindowClamp models tcp_set_window_clamp after tcp_measure_rcv_mss
// changed scaling_ratio: window_clamp becomes the full buffer's window (at
// least SOCK_MIN_RCVBUF / 2); a lower clamp lowers rcv_ssthresh with it
// (__tcp_adjust_rcv_ssthresh), a higher one lets it reach rcv_wnd.
func (c *Conn) setWindowClamp() {
	w := &c.rw
	clamp := max(c.fullSpace(), sock.MinRcvbuf/2)
	switch {
	case clamp < w.clamp:
		w.ssthresh = min(w.ssthresh, clamp)
	case clamp > w.clamp:
		w.ssthresh = max(min(w.wnd, clamp), w.ssthresh)
	}
	w.clamp = clamp
}
