package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// SynOptions are what a SYN or SYN-ACK says of its sender, as
// tcp_parse_options reads them: the window (never scaled in a SYN, RFC
// 7323), the MSS option (0: none), the window scale option (-1: none),
// SACK permitted and the timestamp option. The zero value is a SYN with
// a window of 0, an absent MSS and wscale 0.
type SynOptions struct {
	Window int
	MSS    int
	Wscale int
	SackOK bool
	TS     bool
}

// NoWscale is SynOptions.Wscale when the segment has no window scale
// option.
const NoWscale = -1

// tcpMinSndMSS is TCP_MIN_SND_MSS, the least MSS tcp_sync_mss keeps.
const tcpMinSndMSS = 48

// negotiated holds what a handshake agreed (struct
// tcp_options_received): the peer's MSS clamp, timestamps (tstamp_ok),
// the peer's window scale and SACK (sack_ok). set says the handshake was
// on the wire; one the model made implicitly (Connect) has no MSS clamp
// and scales no window, and its timestamps and SACK are the sysctls'
// (initRcvWindow).
type negotiated struct {
	set       bool
	mssClamp  int
	ts, sack  bool
	sndWscale uint
	// noWscale says the peer's SYN offered no window scale, so neither
	// end scales (wscale_ok 0).
	noWscale bool
}

// SynOffer models tcp_syn_options for this end's SYN (tcp_connect_init):
// the MSS it announces (AdvMSS), its window scale (rcv_wscale from
// tcp_select_initial_window), SACK permitted when net.ipv4.tcp_sack is
// not 0 and timestamps when net.ipv4.tcp_timestamps is not 0 (both 1 by
// default), and the window of the buffer rounded down to whole MSS. A
// client's SYN rounds by advmss, not less timestamps: ts_recent_stamp is
// still 0 (tcp_connect_init).
func (c *Conn) SynOffer() SynOptions {
	if c.rw.advmss == 0 {
		c.selectInitialWindow(c.AdvMSS(), true)
	}
	n := c.Sk.Net
	return SynOptions{Window: c.rw.wnd, MSS: c.rw.advmss, Wscale: int(c.rw.wscale), SackOK: n.TCPSack != 0, TS: n.TCPTimestamps != 0}
}

// SynHeaderLen is the TCP header of a SYN or SYN-ACK offering o
// (tcp_syn_options, tcp_synack_options, tcp_options_write): struct
// tcphdr, the MSS option, the timestamps (TCPOLEN_TSTAMP_ALIGNED, SACK
// permitted riding in their padding) or else SACK permitted with two
// NOPs, and the window scale with a NOP: 40 bytes with all of them.
func SynHeaderLen(o SynOptions) int {
	n := tcpHdrLen
	if o.MSS > 0 {
		n += 4 // TCPOLEN_MSS
	}
	switch {
	case o.TS:
		n += tcpOptTimestamp
	case o.SackOK:
		n += 4 // NOP, NOP, TCPOLEN_SACK_PERM
	}
	if o.Wscale != NoWscale {
		n += 4 // NOP, TCPOLEN_WINDOW
	}
	return n
}

// parseSyn models what tcp_parse_options reads of a SYN or SYN-ACK's
// options (estab 0): the timestamp option only when
// net.ipv4.tcp_timestamps is not 0 (saw_tstamp), SACK permitted only when
// net.ipv4.tcp_sack is not 0 (sack_ok); an end whose sysctl is 0 answers
// and sends as if the peer had not offered them.
func (c *Conn) parseSyn(peer SynOptions) SynOptions {
	peer.TS = peer.TS && c.Sk.Net.TCPTimestamps != 0
	peer.SackOK = peer.SackOK && c.Sk.Net.TCPSack != 0
	return peer
}

// StartConnect models tcp_v4_connect and tcp_connect for a handshake on
// the wire: the socket goes to SYN_SENT (rx_opt.mss_clamp reset to
// TCP_MSS_DEFAULT) and the SYN its caller puts on the wire offers
// SynOffer. A socket connected once, or not closed, is EISCONN as in
// Connect.
func (c *Conn) StartConnect() (SynOptions, kernel.Errno) {
	if c.connected || c.Sk.State != sock.CLOSE {
		return SynOptions{}, kernel.EISCONN
	}
	c.connected = true
	c.Sk.State = sock.SYN_SENT
	c.neg = negotiated{set: true, mssClamp: tcpMSSDefault}
	c.synAt = c.Net.Now()
	return c.SynOffer(), 0
}

// SynAckReceived models tcp_rcv_synsent_state_process for a SYN-ACK that
// acknowledges ack (the model's sequence space: 0 is the first byte after
// the SYN) with the peer's options: an ack outside the SYN and the data it
// carried is refused (the kernel answers it with a reset; reported
// false), and so, in the model, is one that acknowledges part of the
// SYN's data. Otherwise the options are taken (tcp_parse_options: the MSS
// clamp, timestamps, the window scale, SACK), snd_wnd is the SYN-ACK's
// unscaled window, the MSS is synced (tcp_sync_mss), the connection is
// ESTABLISHED (tcp_finish_connect) with its send buffer sized, and the
// SYN's data, if the SYN-ACK acknowledges it, is freed (tcp_ack). Data it
// leaves unacknowledged is retransmitted at once
// (tcp_rcv_fastopen_synack: tcp_mark_skb_lost,
// tcp_non_congestion_loss_retransmit): retransmitted says so, and then the
// data segment carries the ACK of the SYN-ACK; otherwise the caller sends
// it (tcp_send_ack).
func (c *Conn) SynAckReceived(peer SynOptions, ack uint32) (ok, retransmitted bool) {
	if c.Sk.State != sock.SYN_SENT || ack != c.sndNxt && (ack != 0 || len(c.rtx) == 0) {
		return false, false
	}
	c.takeOptions(peer)
	c.ackUpdateRTT(c.Net.Now().Sub(c.synAt), false, 0) // tcp_ack of the SYN
	c.Sk.State = sock.ESTABLISHED
	c.sndWnd, c.maxWindow = peer.Window, peer.Window
	c.initRcvSpace()
	c.expandSndbuf()
	c.Sk.Note(kernel.Entry{Op: kernel.OpConnected, Args: [4]int64{int64(peer.Window), int64(c.Sk.Sndbuf)}})
	if len(c.rtx) == 0 {
		return true, false
	}
	if ack == c.sndNxt {
		c.Ack(ack, peer.Window)
		return true, false
	}
	for _, seg := range c.rtx {
		seg.lost = true
	}
	c.pushPending(c.nonagle)
	return true, true
}

// SynAckOffer models tcp_openreq_init_rwin and tcp_synack_options for a
// SYN with the peer's options, on the connection that will be the
// listener's child: the MSS announced; window
// scale, timestamps and SACK only when the SYN offered them and this
// end's sysctls take them (ireq->wscale_ok, tstamp_ok, sack_ok:
// parseSyn); the window rounded down to whole MSS less the timestamps,
// unscaled when the peer cannot scale.
func (c *Conn) SynAckOffer(peer SynOptions) SynOptions {
	peer = c.parseSyn(peer)
	wscaleOK := peer.Wscale != NoWscale
	mss := c.AdvMSS()
	if peer.TS {
		mss -= tcpOptTimestamp
	}
	c.rw = rcvWindow{}
	c.synAt = c.Net.Now()
	c.selectInitialWindow(mss, wscaleOK)
	o := SynOptions{Window: c.rw.wnd, MSS: c.rw.advmss, Wscale: NoWscale, SackOK: peer.SackOK, TS: peer.TS}
	if wscaleOK {
		o.Wscale = int(c.rw.wscale)
	}
	return o
}

// Accepted models tcp_create_openreq_child and the SYN_RECV case of
// tcp_rcv_state_process on the connection whose SynAckOffer answered the
// peer's SYN (the request sock and the child it becomes are one Conn in
// the model): it takes the SYN's options, and the ACK that completes the
// handshake gives snd_wnd, its window scaled by the peer's wscale. The
// child is ESTABLISHED and connected.
func (c *Conn) Accepted(peer SynOptions, ackWindow int) {
	c.accept(peer)
	c.ackUpdateRTT(c.Net.Now().Sub(c.synAt), false, 0) // tcp_synack_rtt_meas
	c.established(c.PeerWindow(ackWindow))
}

// AcceptedAtSyn models tcp_fastopen_create_child: the child of a Fast
// Open SYN is made before the handshake completes, with the SYN's
// options and its window, unscaled, as snd_wnd; the ACK that completes
// the handshake later sets snd_wnd as any ACK does (Ack). The model's
// child is ESTABLISHED at once (the kernel's is TCP_SYN_RECV, in the
// accept queue already, and sends and receives as an established one).
func (c *Conn) AcceptedAtSyn(peer SynOptions) {
	c.accept(peer)
	c.fastOpenChild = true
	c.established(peer.Window)
}

func (c *Conn) accept(peer SynOptions) {
	c.connected = true
	c.neg = negotiated{set: true, mssClamp: tcpMSSDefault}
	if c.Sk.Family == kernel.AF_INET6 {
		c.neg.mssClamp = ipv6MinMTU - tcpHdrLen - 40
	}
	c.takeOptions(peer)
}

func (c *Conn) established(sndWnd int) {
	c.Sk.State = sock.ESTABLISHED
	c.sndWnd = sndWnd
	c.maxWindow = c.sndWnd
	c.initRcvSpace()
	c.expandSndbuf()
	c.Sk.Note(kernel.Entry{Op: kernel.OpConnected, Args: [4]int64{int64(c.sndWnd), int64(c.Sk.Sndbuf)}})
}

// ReceiveSynData models tcp_fastopen_add_skb: the data of a Fast Open
// SYN, in b, joins the child's empty receive queue, charged to
// sk_rmem_alloc, and rcv_nxt moves past it; nothing is measured
// (tcp_event_data_recv does not run) and no ACK is scheduled: the SYN-ACK
// acknowledges the data.
func (c *Conn) ReceiveSynData(b *skb.Buff) {
	c.rcvNxt += uint32(b.Len)
	c.queueRcv(b)
}

// ipv6MinMTU is IPV6_MIN_MTU: tcp_request_sock_ipv6_ops' mss_clamp is it
// less the IPv6 and TCP headers.
const ipv6MinMTU = 1280

// takeOptions models what tcp_parse_options and the handshake keep of the
// peer's SYN or SYN-ACK: its MSS option lowers mss_clamp (an absent one
// leaves TCP_MSS_DEFAULT), timestamps are used when the peer offered them
// and this end's net.ipv4.tcp_timestamps takes them (parseSyn), the
// peer's wscale (at most TCP_MAX_WSCALE) applies when both offered one,
// otherwise neither end scales and window_clamp stays below 64 KiB; SACK
// likewise, under net.ipv4.tcp_sack. The MSS is then what tcp_sync_mss
// gives, and the rest of the receive side what tcp_init_buffer_space
// sets once the handshake completes (initRcvSpace, with advmss less the
// timestamps).
func (c *Conn) takeOptions(peer SynOptions) {
	peer = c.parseSyn(peer)
	if peer.MSS > 0 {
		c.neg.mssClamp = peer.MSS
	}
	c.neg.ts = peer.TS
	c.neg.sack = peer.SackOK
	c.neg.noWscale = peer.Wscale == NoWscale
	if c.neg.noWscale {
		c.neg.sndWscale, c.rw.wscale = 0, 0
		c.rw.clamp = min(c.rw.clamp, u16Max)
	} else {
		c.neg.sndWscale = uint(min(peer.Wscale, maxWscale))
	}
}

// PeerWindow models tcp_ack_update_window's reading of a segment's window
// field after the handshake: shifted by the peer's window scale.
func (c *Conn) PeerWindow(field int) int { return field << c.neg.sndWscale }

// WindowField is the window field of a segment this end sends offering
// win bytes: shifted right by rcv_wscale (tcp_select_window).
func (c *Conn) WindowField(win int) int { return win >> c.rw.wscale }

// Timestamps reports whether the connection's segments carry the
// timestamp option (tp->rx_opt.tstamp_ok); an implicit handshake has
// them unless net.ipv4.tcp_timestamps was 0 when it was made.
func (c *Conn) Timestamps() bool { return c.neg.ts }

// HeaderLen is tp->tcp_header_len, the TCP header of the connection's
// segments: struct tcphdr and, when timestamps are in use, the aligned
// timestamp option (tcp_established_options).
func (c *Conn) HeaderLen() int { return tcpHdrLen + c.optLen() }

// optLen is the option space every segment of the connection takes:
// TCPOLEN_TSTAMP_ALIGNED with timestamps, else none (the model sends no
// SACK blocks).
func (c *Conn) optLen() int {
	if c.neg.ts {
		return tcpOptTimestamp
	}
	return 0
}

// SndNxt returns snd_nxt in the model's sequence space.
func (c *Conn) SndNxt() uint32 { return c.sndNxt }
