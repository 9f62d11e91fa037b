package sim

import (
	"fmt"
	"slices"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
)

// DeviceKind says what a device does with the skbs it transmits.
type DeviceKind uint8

// Device kinds.
const (
	// NIC transmits to another host: it holds each frame until its TX
	// completion and the peer receives a copy made on the far side.
	NIC DeviceKind = iota
	// Loopback delivers each frame to a socket on this host: the frame is
	// orphaned (skb_orphan) and its user frags copied
	// (skb_orphan_frags_rx in __netif_receive_skb), so the notification
	// says COPIED.
	Loopback
	// Tun hands each frame to a user-space reader: tun_net_xmit copies its
	// user frags first (skb_orphan_frags_rx).
	Tun
)

var deviceKindNames = [...]string{"nic", "loopback", "tun"}

// String names the kind as the scenario language spells it.
func (k DeviceKind) String() string { return deviceKindNames[k] }

// Device is a network device with its link: features, delay, loss and TX
// completion timing, and the packet taps attached to it.
type Device struct {
	Name string
	Kind DeviceKind
	// SG and Csum are NETIF_F_SG and checksum offload.
	SG, Csum bool
	// GSO lets sockets build skbs larger than one MSS; TSO says the device
	// segments them itself. With GSO and without TSO, skb_segment runs in
	// validate_xmit_skb and every segment holds its own uarg reference.
	GSO, TSO bool
	// GSOMaxSize is the device's gso_max_size, the largest skb a socket
	// builds for it: 64 KiB unless set higher for BIG TCP.
	GSOMaxSize int
	MTU        int
	// Delay is the one-way link delay.
	Delay engine.Duration
	// LossPPM is the probability, in parts per million, that a frame is
	// lost on the link (drawn from the stream "loss/<device>").
	LossPPM uint32
	// TxComplete is how long the device holds a frame before freeing it;
	// ManualTx holds frames until a complete statement.
	TxComplete engine.Duration
	ManualTx   bool
	// Taps are packet sockets (tcpdump) attached to the device.
	Taps []Tap
	// CPU is the CPU its TX completions run on, below packet.NrCPUs
	// (the softirq that frees transmitted skbs).
	CPU int
	// OrphanRxPlain is the loopback switch of the RFC v2 benchmarks: the
	// receive paths of this device (loopback delivery, tun, its packet
	// taps) call plain skb_orphan_frags where the kernel calls
	// skb_orphan_frags_rx. msg_zerocopy frags (SKBFL_DONT_ORPHAN) then
	// reach the receiving socket uncopied and their notification waits
	// until the reader frees them; legacy and ring frags are still copied.
	// The RFC's cover letter: "calls to skb_orphan_frags_rx were replaced
	// with skb_orphan_frags to allow looping to local sockets". No kernel
	// ships it; the scenario option is orphan_rx=plain.
	OrphanRxPlain bool
	// Scripted says the scenario plays the far side of the TCP
	// connections through the device: they have no implicit peer, each
	// packet they transmit is kept for the packet statement (sent), and
	// inject statements bring the peer's.
	Scripted bool
	// HeaderSplit is a NIC that splits headers from payload on receive
	// (ethtool tcp-data-split): the payload of a received frame lands in
	// order-0 pages, one frag per page from offset 0, where TCP zerocopy
	// receive can map it; otherwise the driver builds a linear skb.
	HeaderSplit bool
	// GRO is generic receive offload on the receiving side of a NIC's
	// link, on by default as on a Linux NIC (NETIF_F_GRO): the TCP wire
	// segments one NAPI poll brings are merged before tcp_v4_rcv
	// (dev_gro_receive → tcp_gro_receive, napi_gro_flush; sim/gro.go);
	// off, each wire segment goes up alone. The scenario option is gro.
	GRO bool

	held []*skb.Buff // frames awaiting a manual TX completion
	sent []Packet
}

// DefaultLoopbackMTU is loopback's MTU (LOOPBACK_MTU in
// drivers/net/loopback.c), also the largest MTU a device of the model
// has; MinMTU is IPV6_MIN_MTU, the smallest with which both families fit.
const (
	DefaultLoopbackMTU = 65536
	MinMTU             = 1280
)

// DefaultDevice returns a device of kind k with the defaults zcsim assumes:
// every offload on (GRO on a NIC), a 1500-byte MTU (64 KiB on loopback),
// 50us of delay (none on loopback) and TX completion 10us after
// transmission.
func DefaultDevice(name string, k DeviceKind) *Device {
	d := &Device{Name: name, Kind: k, SG: true, Csum: true, GSO: true, TSO: true, GSOMaxSize: 65536,
		MTU: 1500, Delay: 50 * engine.Microsecond, TxComplete: 10 * engine.Microsecond, GRO: k == NIC}
	if k == Loopback {
		d.MTU, d.Delay, d.TxComplete = DefaultLoopbackMTU, 0, 0
	}
	return d
}

// AddDevice adds (or replaces) a device.
func (w *World) AddDevice(d *Device) {
	for i, have := range w.devices {
		if have.Name == d.Name {
			w.devices[i] = d
			return
		}
	}
	w.devices = append(w.devices, d)
}

// route is what a socket on d learns of it (sk_route_caps, the MTU).
func (d *Device) route() sock.Route {
	r := sock.Route{SG: d.SG, Csum: d.Csum, MTU: d.MTU}
	if d.GSO || d.TSO {
		r.GSO = d.GSOMaxSize
	}
	return r
}

// frame is what travels on the link: the skb itself when it stays on this
// host (loopback), otherwise only its length, from which the far side
// builds its own skb on arrival; and the TCP sequence range it carries.
type frame struct {
	skb         *skb.Buff
	len         int
	seq, endSeq uint32
	fin, push   bool
	moreFrags   bool
	// urg is a TCP segment's urgent pointer (Packet.Urg).
	urg uint16
	// acks, ack and win: the ACK a TCP segment carries (Packet.Acks).
	acks bool
	ack  uint32
	win  int
	// acked: an injected segment whose ACK the caller gave tcp_ack
	// already (tcp.Conn.AckData).
	acked bool
	// ipID and fragOff place an IP fragment in its datagram (ip_defrag).
	ipID    uint32
	fragOff int
	// gso is the segment size of a UDP GSO datagram the device sent whole
	// (TSO); the receiver cuts it into datagrams (udp_rcv_segment).
	gso int
}

// Xmit implements sock.Network: the path of a packet below the socket, as
// dev_queue_xmit and the driver take it. In order: the SCM_TSTAMP_SCHED
// timestamp __dev_queue_xmit takes before the queueing discipline, the
// packet taps (dev_queue_xmit_nit, each a
// clone whose frags are copied), linearization for a device without
// scatter-gather (__skb_linearize in validate_xmit_skb: COPIED) and of a
// TCP skb with shared (zerocopy) frags for a device without checksum
// offload (skb_checksum_help linearizes before it checksums, since
// cef401de7be8 "net: fix possible wrong checksum generation": the user
// could change the payload under the checksum; COPIED), software
// segmentation for a GSO skb the device cannot segment or that is too
// long for it (skb_segment; gsoTooLarge), then
// for each frame the link: held, dropped or delivered after the delay,
// and the device's TX completion; the driver's SCM_TSTAMP_SND
// (skb_tx_timestamp) follows the taps. Each timestamp is taken only when
// the packet's tx_flags ask for it (sock.Sock.TstampTx): the send path set
// them, not the socket's flags now. Measured on Linux 6.18 over loopback,
// for TCP and UDP: SCHED, then SND with the same key, then the send's
// zerocopy notification; a FIN sent alone, after SHUT_WR, asks for none.
func (w *World) Xmit(p sock.Packet) {
	s := w.bySock(p.From)
	dev := s.Dev
	tx := p.Skb.Shinfo().TxFlags
	if tx&kernel.SKBTX_SCHED_TSTAMP != 0 {
		s.Sk.TstampTx(p.Skb, kernel.SCM_TSTAMP_SCHED)
	}
	for _, tap := range dev.Taps {
		w.tapCopy(dev, tap, p.Skb)
	}
	if tx&kernel.SKBTX_SW_TSTAMP != 0 {
		s.Sk.TstampTx(p.Skb, kernel.SCM_TSTAMP_SND)
	}
	if p.Skb.DataLen > 0 && (!dev.SG || !dev.Csum && s.tcp != nil && p.Skb.Shinfo().Flags&kernel.SKBFL_SHARED_FRAG != 0) {
		p.Skb.Linearize()
	}
	frames := []frame{{skb: p.Skb, len: p.Skb.Len, seq: p.Seq, endSeq: p.EndSeq, fin: p.Fin, push: p.Push, urg: p.Urg,
		moreFrags: p.MoreFrags, ipID: p.IPID, fragOff: p.FragOff, acks: p.Acks, ack: p.Ack, win: p.Win}}
	if size := s.gsoSize(p.Skb); size > 0 {
		if dev.TSO && !s.gsoTooLarge(p.Skb) {
			frames[0].gso = size
		} else {
			frames = w.segment(p, size)
		}
	}
	for _, f := range frames {
		w.wire(s, f)
	}
}

// gsoTooLarge models the length test of gso_features_check for a TCP
// skb: one whose frame, link and network and TCP headers included, is
// gso_max_size (gso_ipv4_max_size) or longer loses the device's GSO
// features and is segmented in software (skb_gso_segment in
// validate_xmit_skb) even where the device has TSO. tcp_tso_autosize's
// floor of tcp_min_tso_segs (two) lets tcp_grow_skb build such skbs when
// the MSS is above a quarter of the MTU: over loopback two segments of
// 65483 or 32741 bytes. Measured on Linux 6.18: such an skb arrives as
// two segments, each acknowledged on its own.
func (s *Socket) gsoTooLarge(b *skb.Buff) bool {
	if s.tcp == nil {
		return false
	}
	return b.Len+s.tcp.HeaderLen()+s.Sk.IPHeaderLen()+s.Dev.hardHeaderLen() >= s.Dev.GSOMaxSize
}

// hardHeaderLen is dev->hard_header_len: ETH_HLEN on a NIC and on
// loopback, none on a tun device.
func (d *Device) hardHeaderLen() int {
	if d.Kind == Tun {
		return 0
	}
	return ethHLen
}

// ethHLen is ETH_HLEN, the Ethernet header.
const ethHLen = 14

// segment models skb_segment for a device without TSO: the GSO skb becomes
// MSS-sized segments, each with its own uarg reference, and is consumed.
// Each keeps the urgent pointer of the GSO skb's header as it is
// (tcp_gso_segment leaves th->urg and urg_ptr alone).
func (w *World) segment(p sock.Packet, mss int) []frame {
	segs, err := p.Skb.Segment(mss)
	if err != 0 {
		return []frame{{skb: p.Skb, len: p.Skb.Len, seq: p.Seq, endSeq: p.EndSeq, fin: p.Fin}}
	}
	p.Skb.Free()
	frames := make([]frame, len(segs))
	seq := p.Seq
	for i, seg := range segs {
		frames[i] = frame{skb: seg, len: seg.Len, seq: seq, endSeq: seq + uint32(seg.Len), urg: p.Urg}
		seq += uint32(seg.Len)
	}
	frames[len(frames)-1].fin = p.Fin
	frames[len(frames)-1].push = p.Push
	return frames
}

// Tap is a packet socket attached to a device (tcpdump): its name, and
// how long after a transmit it reads the copy it got (0: at once).
type Tap struct {
	Name  string
	Delay engine.Duration
}

// tapCopy models dev_queue_xmit_nit for one packet tap: a clone whose user
// frags are copied (skb_orphan_frags_rx in deliver_skb), which the tap
// reads and frees, at once or after its delay.
func (w *World) tapCopy(dev *Device, tap Tap, b *skb.Buff) {
	clone, err := b.Clone()
	if err != 0 {
		return
	}
	clone.Note(kernel.Entry{Op: kernel.OpTapDeliver, Str: tap.Name})
	dev.orphanRx(clone, kernel.CopyTap)
	if tap.Delay == 0 {
		clone.Free()
		return
	}
	w.tapped = append(w.tapped, clone)
	w.after(tap.Delay, "tap_read", "tap_read "+tap.Name, func(e *Event) {
		w.tapped = slices.DeleteFunc(w.tapped, func(c *skb.Buff) bool { return c == clone })
		clone.Free()
		e.Text = fmt.Sprintf("%s reads its copy %v", tap.Name, clone.Ident())
	})
}

// wire puts one frame on the link: the device holds it until TX completion
// (a NIC) or hands it on at once (loopback, tun), and the far side gets it
// after the link delay unless the path holds or drops it.
func (w *World) wire(s *Socket, f frame) {
	dev := s.Dev
	if !s.Far() {
		w.work.TxFrames++
	}
	switch dev.Kind {
	case Loopback:
		f.skb.Orphan() // loopback_xmit
		if (f.moreFrags || f.fragOff > 0) && s.Peer != nil && orphanAfterDefrag(s.Peer) {
			break // copied after reassembly (reasmKeep)
		}
		why, fn := loopbackCopy(s.Sk.Host().Profile)
		if dev.orphanRx(f.skb, why) != 0 {
			w.lose(s, f, "is dropped: "+fn+" cannot copy its user frags (skb_orphan_frags_rx)")
			return
		}
	case Tun:
		err := dev.orphanRx(f.skb, kernel.CopyTun) // tun_net_xmit
		if err != 0 {
			w.lose(s, f, "is dropped: tun_net_xmit cannot copy its user frags (skb_orphan_frags_rx)")
			return
		}
		f.skb.Free()
		f.skb = nil
	default:
		w.txComplete(dev, f.skb)
		f.skb = nil
	}
	switch {
	case s.scripted():
		w.emitFrame(s, f)
	case s.dropData > 0:
		s.dropData--
		w.lose(s, f, "is dropped by the scenario")
	case dev.LossPPM > 0 && uint32(w.Streams.Rand("loss/"+dev.Name).IntN(1_000_000)) < dev.LossPPM:
		w.lose(s, f, "is lost on the link")
	case s.holdData:
		s.heldData = append(s.heldData, f)
	default:
		w.deliverLater(s, f)
	}
}

// loopbackCopy is the reason a looped skb's zerocopy frags are copied on
// their way to the local receiver, and the function that copies them:
// skb_orphan_frags_rx in ip_local_deliver_finish (ip6_input_finish) under
// Profile.OrphanRxAtLocalDeliver, as Linux 6.18's source has it, for TCP
// as for UDP and RAW; else in __netif_receive_skb_core, as 6.1's.
func loopbackCopy(p *kernel.Profile) (kernel.CopyWhy, string) {
	if p.OrphanRxAtLocalDeliver {
		return kernel.CopyLocalDeliver, "ip_local_deliver_finish"
	}
	return kernel.CopyLoopback, "__netif_receive_skb_core"
}

// orphanRx is what the device's receive paths call on an skb that may
// loop to a local reader: skb_orphan_frags_rx (a private copy of every
// zerocopy frag, reported as copied for why), or under the loopback switch
// (OrphanRxPlain) skb_orphan_frags, which leaves msg_zerocopy frags alone.
func (d *Device) orphanRx(b *skb.Buff, why kernel.CopyWhy) kernel.Errno {
	if d.OrphanRxPlain {
		return b.OrphanFrags()
	}
	return b.OrphanFragsRx(why)
}

// lose frees a frame s sent that never arrives, and says so in the step.
func (w *World) lose(s *Socket, f frame, why string) {
	w.say(fmt.Sprintf("%s: a frame of %d bytes %s", s.Name, f.len, why))
	if f.skb != nil {
		f.skb.Note(kernel.Entry{Str: why})
		f.skb.Free()
	}
}

// received is the skb the receiver r gets: the frame's own on loopback,
// else one the far side's driver builds in its own memory, never the
// sender's pages: linear, or with header split each wire segment's
// payload in fresh order-0 pages (a page_pool's), at most PAGE_SIZE per
// frag; a packet GRO merged keeps its segments' frags (skb_gro_receive),
// so with an MSS short of a page none of them is a whole page.
func (w *World) received(r *Socket, f frame) *skb.Buff {
	if f.skb != nil {
		return f.skb
	}
	if r.Dev == nil || !r.Dev.HeaderSplit {
		rx := skb.Alloc(w.Host, f.len)
		rx.AppendLinear(f.len)
		return rx
	}
	rx := skb.Alloc(w.Host, 0)
	seg := f.len
	if f.gso > 0 {
		seg = f.gso
	}
	for off := 0; off < f.len; off += seg {
		for left := min(seg, f.len-off); left > 0; left -= kernel.PageSize {
			p := mm.AllocPages(w.Host, 0)
			rx.AppendPageFrag(p, 0, min(left, kernel.PageSize))
			p.Put() // the frag holds the page now
		}
	}
	return rx
}

// txComplete holds a transmitted frame in the device until its TX
// completion (napi_consume_skb), then frees it.
func (w *World) txComplete(dev *Device, b *skb.Buff) {
	if dev.ManualTx {
		dev.held = append(dev.held, b)
		return
	}
	w.after(dev.TxComplete, "tx_complete", "tx_complete "+dev.Name, func(e *Event) {
		w.cpu = dev.CPU
		b.Free()
		e.Text = fmt.Sprintf("%s: TX completion frees %v", dev.Name, b.Ident())
	})
}

// Complete finishes up to n held transmissions of a device with manual TX
// completion, oldest first (n ≤ 0: all). It returns how many it finished.
func (w *World) Complete(dev *Device, n int) int {
	done := dev.takeHeld(n)
	w.cpu = dev.CPU
	for _, b := range done {
		b.Free()
	}
	return len(done)
}

// takeHeld removes and returns up to n of the frames the device holds for
// a manual TX completion, oldest first (n ≤ 0: all).
func (d *Device) takeHeld(n int) []*skb.Buff {
	if n <= 0 || n > len(d.held) {
		n = len(d.held)
	}
	out := d.held[:n:n]
	d.held = d.held[n:]
	return out
}

// deliverLater delivers a frame to the socket's peer: after the link
// delay, or on a local path inside the current step (onPath); a TCP
// frame across a NIC in the NAPI poll of its batch (groQueue).
func (w *World) deliverLater(s *Socket, f frame) {
	if s.Dev.Kind == NIC && f.skb == nil && s.Peer != nil && s.Peer.tcp != nil {
		w.groQueue(s, f)
		return
	}
	w.onPath(s, "deliver", "deliver", arrival{kind: arriveFrame, to: s.Peer, f: f})
}

// ReleaseData delivers the frames held on s's path, in order.
func (w *World) ReleaseData(s *Socket) {
	s.holdData = false
	held := s.heldData
	s.heldData = nil
	for _, f := range held {
		w.deliverLater(s, f)
	}
}
