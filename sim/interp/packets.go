package interp

import (
	"fmt"
	"math"
	"strings"

	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/scenario"
	"github.com/zcsim/zcsim/tcp"
)

// segmentFlags is the header flags a statement names.
func segmentFlags(f scenario.Flags) sim.PacketFlags {
	var out sim.PacketFlags
	for _, n := range f.Names {
		b, _ := sim.ParsePacketFlag(n.Name)
		out |= b
	}
	return out
}

// injected is the segment an inject statement sends s: seq defaults to
// the next byte s expects, ack (with ACK) to everything s sent, win to
// 65535; wscale and mss are absent unless given.
func injected(st *scenario.Inject, s *sim.Socket) sim.Packet {
	os := st.Options
	p := sim.Packet{Flags: segmentFlags(st.Flags), Wscale: tcp.NoWscale, Win: int(optNum(os, "win", math.MaxUint16))}
	if c := s.Conn(); c != nil {
		p.Seq, p.Ack = c.RcvNxt()+1, c.SndNxt()+1
	}
	if p.Flags&sim.SYN != 0 {
		p.Seq = 0
	}
	p.Seq = uint32(optNum(os, "seq", uint64(p.Seq)))
	p.Ack = uint32(optNum(os, "ack", uint64(p.Ack)))
	p.Len = int(optNum(os, "len", 0))
	p.MSS = int(optNum(os, "mss", 0))
	if o, ok := os.Lookup("wscale"); ok {
		p.Wscale = int(o.Value.N)
	}
	_, p.SackOK = os.Lookup("sackok")
	_, p.TS = os.Lookup("ts")
	p.FastOpen = fastOpenOption(os)
	return p
}

// fastOpenOption is the Fast Open option fo or foexp names.
func fastOpenOption(os scenario.Options) sim.FastOpen {
	for _, k := range []string{"fo", "foexp"} {
		if o, ok := os.Lookup(k); ok {
			return sim.FastOpen{Set: true, Exp: k == "foexp", Cookie: strings.ToLower(o.Value.Text)}
		}
	}
	return sim.FastOpen{}
}

func (in *interp) inject(c sim.Call, st *scenario.Inject) {
	s := in.sock(st.Sock)
	if !in.w.Inject(c, s, injected(st, s)) {
		in.mismatch(st, "a segment "+st.Sock.String()+" takes", "the model has no answer to it (see the step)")
	}
}

// packet checks the oldest packet the device transmitted against the
// statement: flags exactly, each header field the statement names, and
// the TCP options as a set when it names any.
func (in *interp) packet(c sim.Call, st *scenario.Packet) {
	dev := in.w.Device(st.Device.Name)
	if st.None {
		in.w.Control(c, "packet", c.Text, nil)
		if sent := dev.Sent(); len(sent) > 0 {
			in.mismatch(st, "no packet sent", fmt.Sprintf("%d packets, the first %v", len(sent), sent[0]))
		}
		return
	}
	var got sim.Packet
	var ok bool
	in.w.Control(c, "packet", c.Text, func() { got, ok = dev.TakeSent() })
	want := scenario.FormatCall(st)
	if !ok {
		in.mismatch(st, want, "no packet was sent")
		return
	}
	if diff := packetDiff(st, got); diff != "" {
		in.mismatch(st, want, got.String()+" ("+diff+")")
	}
}

// packetDiff says what of got differs from st, or "".
func packetDiff(st *scenario.Packet, got sim.Packet) string {
	var diffs []string
	if f := segmentFlags(st.Flags); f != got.Flags {
		diffs = append(diffs, "flags "+got.Flags.String())
	}
	fields := []struct {
		key string
		got uint64
	}{{"seq", uint64(got.Seq)}, {"len", uint64(got.Len)}, {"ack", uint64(got.Ack)}, {"win", uint64(got.Win)}, {"gso", uint64(got.GSO)}}
	for _, f := range fields {
		if o, ok := st.Options.Lookup(f.key); ok && o.Value.N != f.got {
			diffs = append(diffs, fmt.Sprintf("%s=%d", f.key, f.got))
		}
	}
	named := false
	for _, k := range scenario.SegmentOptionKeys {
		_, ok := st.Options.Lookup(k)
		named = named || ok
	}
	if named {
		_, sack := st.Options.Lookup("sackok")
		_, ts := st.Options.Lookup("ts")
		wscale := tcp.NoWscale
		if o, ok := st.Options.Lookup("wscale"); ok {
			wscale = int(o.Value.N)
		}
		if int(optNum(st.Options, "mss", 0)) != got.MSS || wscale != got.Wscale || sack != got.SackOK || ts != got.TS || fastOpenOption(st.Options) != got.FastOpen {
			diffs = append(diffs, "options differ")
		}
		if got.FastOpen.Undetermined {
			diffs = append(diffs, "the Fast Open cookie's bytes are undetermined: SipHash of the addresses under net.ipv4.tcp_fastopen_key, which the model does not have")
		}
	}
	return strings.Join(diffs, ", ")
}

// segmentBounds checks an inject's or a packet's fields: sequence and
// acknowledgment numbers are 32-bit, a window field, an MSS and an
// injected length 16-bit, a window scale at most 255 (the kernel uses at
// most TCP_MAX_WSCALE, 14, of it).
func (r *resolver) segmentBounds(os scenario.Options, injected bool) {
	maxLen := uint64(maxBuf)
	if injected {
		maxLen = math.MaxUint16
	}
	for _, b := range []struct {
		key string
		max uint64
	}{{"seq", maxID}, {"ack", maxID}, {"win", math.MaxUint16}, {"mss", math.MaxUint16}, {"wscale", math.MaxUint8}, {"len", maxLen}, {"gso", math.MaxUint16}} {
		if o, ok := os.Lookup(b.key); ok {
			r.bound(o.Value, b.key, 0, b.max)
		}
	}
}

// packetStmt resolves inject and packet, and the peer option of a device.
func (r *resolver) packetStmt(st scenario.Stmt) {
	switch s := st.(type) {
	case *scenario.Inject:
		r.segmentBounds(s.Options, true)
		r.fastOpenOnce(s.Options)
	case *scenario.Packet:
		r.need(r.devices, "device", s.Device)
		r.segmentBounds(s.Options, false)
		r.fastOpenOnce(s.Options)
	case *scenario.Device:
		if o, ok := s.Options.Lookup("peer"); ok && o.Value.Text == "script" && s.Kind.Name == "loopback" {
			r.fail(o.Pos, "peer", "peer=script needs a nic or tun device: loopback's far side is this host")
		}
	}
}

// fastOpenOnce refuses fo with foexp: a segment the model sends or takes
// has one Fast Open option at most (tcp_parse_options keeps the last).
func (r *resolver) fastOpenOnce(os scenario.Options) {
	if _, ok := os.Lookup("fo"); ok {
		if o, ok := os.Lookup("foexp"); ok {
			r.fail(o.Pos, "foexp", "fo and foexp together: a segment here has one Fast Open option")
		}
	}
}
