package interp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/packet"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/scenario"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
)

func optText(os scenario.Options, key string) string {
	o, _ := os.Lookup(key)
	return o.Value.Text
}

func optNum(os scenario.Options, key string, def uint64) uint64 {
	if o, ok := os.Lookup(key); ok {
		return o.Value.N
	}
	return def
}

// rlimitOf is a limit as setrlimit takes it: a size, or RLIM_INFINITY
// for unlimited.
func rlimitOf(v scenario.Value) uint64 {
	if v.Kind == scenario.ValueWord {
		return kernel.RLIM_INFINITY
	}
	return v.N
}

// optval is the buffer the options optlen= and null describe.
func optval(os scenario.Options) sim.Optval {
	ov := sim.IntOptval
	if o, ok := os.Lookup("optlen"); ok {
		ov.Len = int(o.Value.Int())
	}
	_, ov.Null = os.Lookup("null")
	return ov
}

// bufOptval is a buffer of n bytes unless optlen= says otherwise: a
// program passes strlen of a TCP_CONGESTION name to setsockopt, a
// TCP_CA_NAME_MAX buffer to getsockopt, a struct tcp_info for TCP_INFO.
func bufOptval(os scenario.Options, n int) sim.Optval {
	ov := optval(os)
	if _, ok := os.Lookup("optlen"); !ok {
		ov.Len = n
	}
	return ov
}

// optOr is an operand's value, or def when the statement left it out.
func optOr(v scenario.Value, def uint64) uint64 {
	if v.IsZero() {
		return def
	}
	return v.N
}

// zcArgs are the in fields of a TCP_ZEROCOPY_RECEIVE getsockopt: length
// the socket's mapping when not given, copybuf_len 0, address the
// mapping's start plus offset, flags, msg_flags and reserved 0,
// msg_control NULL unless control= gives it a buffer of that many bytes,
// optlen the profile's struct.
func (in *interp) zcArgs(s *scenario.Getsockopt) tcp.ZcArgs {
	ov := optval(s.Options)
	if _, ok := s.Options.Lookup("optlen"); !ok {
		ov.Len = in.w.Profile().TCPZerocopyRecv
	}
	ctl := sock.RecvControl{Null: true}
	if o, ok := s.Options.Lookup("control"); ok {
		ctl = sock.RecvControl{Left: int(o.Value.N)}
	}
	return tcp.ZcArgs{
		Offset:     int(optNum(s.Options, "offset", 0)),
		Length:     uint32(optNum(s.Options, "length", uint64(in.sock(s.Sock).RxMapLen()))),
		CopybufLen: int32(optNum(s.Options, "copybuf", 0)),
		Flags:      uint32(optNum(s.Options, "flags", 0)),
		MsgFlags:   uint32(optNum(s.Options, "msg_flags", 0)),
		Reserved:   uint32(optNum(s.Options, "reserved", 0)),
		Control:    ctl,
		Optlen:     ov.Len,
		Null:       ov.Null,
	}
}

func optOn(os scenario.Options, key string, def bool) bool {
	if o, ok := os.Lookup(key); ok {
		return o.Value.Text == "on"
	}
	return def
}

func (in *interp) sysctl(s *scenario.Sysctl) {
	k, _ := sock.LookupSysctl(s.Key.Name)
	numbers := make([]int64, len(s.Values))
	for i, v := range s.Values {
		numbers[i] = int64(v.N)
	}
	k.Set(in.w.Net, numbers, s.Values[0].Text)
}

func (in *interp) task(s *scenario.Task) {
	w := in.w
	user := w.AddUser(1000)
	for _, u := range in.named {
		if u.name == optText(s.Options, "user") {
			user = w.AddUser(u.uid)
		}
	}
	memlock := w.Profile().MemlockDefault
	if o, ok := s.Options.Lookup("memlock"); ok {
		memlock = o.Value.N
		if o.Value.Kind == scenario.ValueWord {
			memlock = kernel.RLIM_INFINITY
		}
	}
	_, capLock := s.Options.Lookup("cap_ipc_lock")
	t := w.AddTask(s.Name.Name, user, memlock, capLock)
	_, t.HugePages = s.Options.Lookup("hugepages")
	t.CPU = int(optNum(s.Options, "cpu", 0))
	_, t.CapNetAdmin = s.Options.Lookup("cap_net_admin")
}

// namedUser pairs a scenario user name with its uid.
type namedUser struct {
	name string
	uid  int
}

// device builds the device a device statement describes; a gso_max_size
// above the profile's GSO_MAX_SIZE is clamped to it, as older kernels
// refuse larger values.
func device(s *scenario.Device, p *kernel.Profile) *sim.Device {
	kind := map[string]sim.DeviceKind{"nic": sim.NIC, "loopback": sim.Loopback, "tun": sim.Tun}[s.Kind.Name]
	d := sim.DefaultDevice(s.Name.Name, kind)
	d.SG = optOn(s.Options, "sg", d.SG)
	d.Csum = optOn(s.Options, "csum", d.Csum)
	d.GSO = optOn(s.Options, "gso", d.GSO)
	d.TSO = optOn(s.Options, "tso", d.TSO)
	d.GSOMaxSize = min(int(optNum(s.Options, "gso_max_size", uint64(d.GSOMaxSize))), p.GSOMaxSize)
	d.MTU = int(optNum(s.Options, "mtu", uint64(d.MTU)))
	d.CPU = int(optNum(s.Options, "cpu", 0))
	d.HeaderSplit = optOn(s.Options, "header_split", false)
	d.GRO = optOn(s.Options, "gro", d.GRO)
	if o, ok := s.Options.Lookup("orphan_rx"); ok {
		d.OrphanRxPlain = o.Value.Text == "plain"
	}
	d.Scripted = optText(s.Options, "peer") == "script"
	d.Delay = engine.Duration(optNum(s.Options, "delay", uint64(d.Delay)))
	if o, ok := s.Options.Lookup("loss"); ok {
		d.LossPPM = lossPPM(o.Value.Text)
	}
	if o, ok := s.Options.Lookup("txcomplete"); ok {
		d.ManualTx = o.Value.Text == "manual"
		d.TxComplete = engine.Duration(o.Value.N)
	}
	return d
}

// lossPPM converts a probability the parser accepted ("0", "1", "0.25") to
// parts per million, ignoring digits beyond the sixth.
func lossPPM(p string) uint32 {
	whole, frac, _ := strings.Cut(p, ".")
	if whole == "1" {
		return 1_000_000
	}
	n, _ := strconv.ParseUint((frac + "000000")[:6], 10, 32)
	return uint32(n)
}

func (in *interp) socket(c sim.Call, s *scenario.Socket) sim.Result {
	w := in.w
	family, typ, proto := s.Args()
	dev := w.Device(defaultDevice)
	if via := optText(s.Options, "via"); via != "" {
		dev = w.Device(via)
	}
	task := w.Task("main")
	if t := optText(s.Options, "task"); t != "" {
		task = w.Task(t)
	}
	po := sim.PeerOptions{Rcvbuf: int(optNum(s.Options, "peer_rcvbuf", 0)), AutoRead: optText(s.Options, "peer_read") == "auto"}
	_, po.V4Mapped = s.Options.Lookup("mapped")
	if l := w.Socket(optText(s.Options, "to")); l != nil {
		po.To, dev = l, l.Dev
	}
	switch optText(s.Options, "peer_ack") {
	case "immediate":
		po.Ack = tcp.AckImmediate
	case "delayed":
		po.Ack = tcp.AckDelayed
	case "quickack":
		po.Ack = tcp.AckQuick
	}
	sk, r := w.NewSocket(c, s.Name.Name, task, family, typ, proto, dev, po)
	if o, ok := s.Options.Lookup("ihl"); ok && sk != nil {
		sk.SendHead = []byte{ipv4Version | byte(o.Value.N)}
	}
	return r
}

// ipv4Version is the version nibble of an IPv4 header's first byte.
const ipv4Version = 4 << 4

// matches checks a result against an expectation: its base form, then
// its field checks.
func matches(want scenario.Outcome, r sim.Result) bool {
	return matchesBase(want, r) && (want.Msg == nil || fieldsMatch(*want.Msg, r)) &&
		(want.Epoll == nil || epollMatch(*want.Epoll, r.Epoll))
}

// epollMatch checks the events an epoll_wait returned, in order.
func epollMatch(want scenario.EpollEvents, got []sim.EpollEvent) bool {
	if len(want) != len(got) {
		return false
	}
	for i, e := range want {
		if e.Sock.String() != got[i].Socket || e.Events.EpollEvents() != got[i].Events {
			return false
		}
	}
	return true
}

func matchesBase(want scenario.Outcome, r sim.Result) bool {
	switch want.Kind {
	case scenario.OutcomeReturn:
		return r.Errno == 0 && r.Ret == want.Ret
	case scenario.OutcomeErrno:
		if want.AnyCode {
			return r.Errno != 0
		}
		e, _ := kernel.ErrnoNames.ByName(want.Errno)
		return r.Errno == e
	case scenario.OutcomeZerocopy:
		rec := r.Record
		return !r.Ctrunc && rec != nil && rec.IsZerocopy() && rec.Info == want.Range.Lo && rec.Data == want.Range.Hi &&
			(want.AnyCode || rec.Copied() == want.Copied)
	case scenario.OutcomeTimestamp:
		rec := r.Record
		return !r.Ctrunc && rec != nil && rec.Origin == kernel.SO_EE_ORIGIN_TIMESTAMPING &&
			notify.TstampName(rec.Info) == want.Tstamp && (!want.HasKey || rec.Data == want.Key)
	case scenario.OutcomeCtrunc:
		return r.Ctrunc
	case scenario.OutcomeName:
		return r.Errno == 0 && r.Name != nil && *r.Name == want.Name
	case scenario.OutcomeICMP:
		rec := r.Record
		origin := uint8(kernel.SO_EE_ORIGIN_ICMP)
		if want.ICMP6 {
			origin = kernel.SO_EE_ORIGIN_ICMP6
		}
		e, _ := kernel.ErrnoNames.ByName(want.Errno)
		return !r.Ctrunc && rec != nil && rec.Origin == origin && rec.Errno == e && rec.Type == want.Type && rec.Code == want.Code &&
			(!want.HasQuoted || r.Ret == int64(want.Quoted))
	}
	return true
}

// resultText describes a result for a mismatch of want: the record an
// error-queue read returned, or the return value, then what it returned
// for each field want checks.
func resultText(want scenario.Outcome, r sim.Result) string {
	s := baseText(r)
	if want.Epoll != nil {
		s += " " + sim.EpollText(r.Epoll)
	}
	if want.Msg != nil {
		s += " " + fieldsText(*want.Msg, r)
	}
	return s
}

func baseText(r sim.Result) string {
	if r.Ctrunc {
		return "ctrunc (" + r.Record.String() + " lost)"
	}
	if r.Record != nil {
		return r.Record.String()
	}
	if r.Name != nil {
		return strconv.Quote(*r.Name)
	}
	return r.String()
}

// expect checks a socket's state, then the union of the ids it was
// notified of.
func (in *interp) expect(s *scenario.Expect) {
	sk := in.sock(s.Sock)
	state := in.w.State(sk)
	for _, c := range s.Checks {
		got := state[c.Key]
		// A number matches as written (64K) or decoded (65536).
		match := got == c.Value.Text || c.Value.Kind != scenario.ValueWord && got == fmt.Sprint(c.Value.N)
		if !match {
			in.mismatch(s, fmt.Sprintf("%s=%s", c.Key, c.Value.Text), fmt.Sprintf("%s=%s", c.Key, got))
		}
	}
	if ids := s.Notified; !ids.IsZero() {
		if ok, got := sk.Notified().Exactly(notify.Range{Lo: uint32(ids.Lo.N), Hi: uint32(ids.Hi.N)}); !ok {
			in.mismatch(s, "notified="+ids.String(), "notified "+got)
		}
	}
}

// tpacketReq is the struct tpacket_req of a PACKET_TX_RING setsockopt.
func tpacketReq(v []scenario.Value) packet.TpacketReq {
	return packet.TpacketReq{BlockSize: int(v[0].N), BlockNr: int(v[1].N), FrameSize: int(v[2].N), FrameNr: int(v[3].N)}
}
