package sock_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

const udplite kernel.Protocol = 136

func TestNewDefaults(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	tcp := e.Sock(kernel.AF_INET6, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	udp := e.Sock(kernel.AF_INET, kernel.SOCK_DGRAM, 0)
	type defaults struct {
		Class                     kernel.SocketClass
		State                     sock.State
		Refcnt                    int
		Sndbuf, Rcvbuf, Rcvlowat  int
		ZCKey                     uint32
		Flag, Dead, Stream, Zcopy bool
		IPHeaderLen               int
		String                    string
		Omem, Wmem, Queued, Rmem  int
	}
	get := func(s *sock.Sock) defaults {
		return defaults{s.Class, s.State, s.Refcnt(), s.Sndbuf, s.Rcvbuf, s.Rcvlowat, s.ZCKey(),
			s.ZerocopyFlag(), s.Dead(), s.Stream(), s.Zerocopy(), s.IPHeaderLen(), s.String(),
			s.OmemAlloc, s.WmemAlloc, s.WmemQueued, s.RmemAlloc}
	}
	want := defaults{kernel.ClassTCP, sock.CLOSE, 1, 16384, 131072, 1, 0, false, false, true, false, 40, "sock#1(tcp)", 0, 0, 0, 0}
	if d := cmp.Diff(want, get(tcp)); d != "" {
		t.Errorf("tcp (-want +got):\n%s", d)
	}
	want = defaults{kernel.ClassUDP, sock.CLOSE, 1, 212992, 212992, 1, 0, false, false, false, false, 20, "sock#2(udp)", 0, 0, 0, 0}
	if d := cmp.Diff(want, get(udp)); d != "" {
		t.Errorf("udp (-want +got):\n%s", d)
	}
	require.Same(t, e.Task, tcp.Task)
	require.Equal(t, 131072, tcp.Net.OptmemMax)
}

func TestStateString(t *testing.T) {
	var got []string
	for _, s := range []sock.State{sock.ESTABLISHED, sock.SYN_SENT, sock.FIN_WAIT1, sock.CLOSE, sock.CLOSE_WAIT, sock.LISTEN, 3} {
		got = append(got, s.String())
	}
	require.Equal(t, []string{"TCP_ESTABLISHED", "TCP_SYN_SENT", "TCP_FIN_WAIT1", "TCP_CLOSE", "TCP_CLOSE_WAIT", "TCP_LISTEN", "state 3"}, got)
}

type sockSpec struct {
	family kernel.Family
	typ    kernel.SockType
	proto  kernel.Protocol
}

var (
	tcp4    = sockSpec{kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP}
	tcp6    = sockSpec{kernel.AF_INET6, kernel.SOCK_STREAM, 0}
	udp4    = sockSpec{kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP}
	udp6    = sockSpec{kernel.AF_INET6, kernel.SOCK_DGRAM, 0}
	udpLite = sockSpec{kernel.AF_INET, kernel.SOCK_DGRAM, udplite}
	rawTCP  = sockSpec{kernel.AF_INET, kernel.SOCK_RAW, kernel.IPPROTO_TCP}
	ping    = sockSpec{kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_ICMP}
	packet  = sockSpec{kernel.AF_PACKET, kernel.SOCK_RAW, 0}
	unix    = sockSpec{kernel.AF_UNIX, kernel.SOCK_STREAM, 0}
	rds     = sockSpec{kernel.AF_RDS, kernel.SOCK_SEQPACKET, 0}
)

// TestSetZerocopy: the checks run opt-in, class, EBUSY (4.14), value; the
// 6.18 rows are live measurements (probes/FINDINGS.md §1).
func TestSetZerocopy(t *testing.T) {
	tests := []struct {
		profile string
		sock    sockSpec
		state   sock.State
		val     int
		want    kernel.Errno
	}{
		{"linux-6.18", tcp4, sock.CLOSE, 1, 0},
		{"linux-6.18", tcp4, sock.ESTABLISHED, 1, 0},
		{"linux-6.18", tcp6, sock.LISTEN, 0, 0},
		{"linux-6.18", udp4, sock.ESTABLISHED, 1, 0},
		{"linux-6.18", udp6, sock.CLOSE, 1, 0},
		{"linux-6.18", tcp4, sock.CLOSE, 2, kernel.EINVAL},
		{"linux-6.18", tcp4, sock.CLOSE, -1, kernel.EINVAL},
		{"linux-6.18", udpLite, sock.CLOSE, 1, kernel.EOPNOTSUPP},
		{"linux-6.18", rawTCP, sock.CLOSE, 0, kernel.EOPNOTSUPP},
		{"linux-6.18", rawTCP, sock.CLOSE, 2, kernel.EOPNOTSUPP},
		{"linux-6.18", ping, sock.CLOSE, 1, kernel.EOPNOTSUPP},
		{"linux-6.18", packet, sock.CLOSE, 1, kernel.EOPNOTSUPP},
		{"linux-6.18", unix, sock.CLOSE, 1, kernel.EOPNOTSUPP},
		{"linux-6.18", rds, sock.CLOSE, 1, 0},
		{"linux-5.0", udp4, sock.ESTABLISHED, 1, 0},
		{"linux-5.0", tcp4, sock.ESTABLISHED, 1, 0},
		{"linux-5.0", rawTCP, sock.CLOSE, 1, kernel.ENOTSUPP},
		{"linux-5.0", tcp4, sock.CLOSE, 2, kernel.EINVAL},
		{"linux-4.14", tcp4, sock.CLOSE, 1, 0},
		{"linux-4.14", tcp4, sock.ESTABLISHED, 1, kernel.EBUSY},
		{"linux-4.14", tcp4, sock.LISTEN, 0, kernel.EBUSY},
		{"linux-4.14", tcp4, sock.ESTABLISHED, 2, kernel.EBUSY},
		{"linux-4.14", tcp4, sock.CLOSE, 2, kernel.EINVAL},
		{"linux-4.14", udp4, sock.ESTABLISHED, 1, kernel.ENOTSUPP},
		{"linux-4.14", rds, sock.CLOSE, 1, kernel.ENOTSUPP},
		{"rfc-v2", tcp4, sock.CLOSE, 1, kernel.ENOPROTOOPT},
		{"rfc-v2", packet, sock.CLOSE, 1, kernel.ENOPROTOOPT},
	}
	for _, tt := range tests {
		e := skbtest.NewEnv(t, tt.profile)
		s := e.Sock(tt.sock.family, tt.sock.typ, tt.sock.proto)
		s.State = tt.state
		got := s.SetZerocopy(tt.val)
		require.Equal(t, tt.want, got, "%s %v %v val %d", tt.profile, s, tt.state, tt.val)
		require.Equal(t, got == 0 && tt.val == 1, s.ZerocopyFlag())
		require.Equal(t, got, s.Setsockopt(kernel.SO_ZEROCOPY, tt.val), "Setsockopt agrees")
	}
	require.Equal(t, kernel.Errno(95), kernel.EOPNOTSUPP)
	require.Equal(t, kernel.Errno(524), kernel.ENOTSUPP)
}

func TestZerocopyTakesEffect(t *testing.T) {
	tests := []struct {
		profile string
		sock    sockSpec
		setFlag bool
		want    bool
	}{
		{"linux-6.18", tcp4, false, false},
		{"linux-6.18", tcp4, true, true},
		{"linux-6.18", udp4, true, true},
		{"linux-4.14", udp4, true, false},
		{"rfc-v2", tcp4, false, true},
		{"rfc-v2", udp4, false, true},
		{"rfc-v2", rawTCP, false, true},
		{"rfc-v2", packet, false, true},
		{"rfc-v2", rds, false, false},
		{"rfc-v2", unix, false, false},
	}
	for _, tt := range tests {
		e := skbtest.NewEnv(t, tt.profile)
		s := e.Sock(tt.sock.family, tt.sock.typ, tt.sock.proto)
		if tt.setFlag {
			s.SetZerocopy(1)
		}
		require.Equal(t, tt.want, s.Zerocopy(), "%s %v", tt.profile, s)
	}
}

func TestGetsockoptZerocopy(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	for _, spec := range []sockSpec{tcp4, udp4, unix, packet} {
		s := e.Sock(spec.family, spec.typ, spec.proto)
		v, err := s.Getsockopt(kernel.SO_ZEROCOPY)
		require.Zero(t, err, "getsockopt(SO_ZEROCOPY) succeeds on every socket")
		require.Zero(t, v)
	}
	s := e.TCP()
	v, err := s.Getsockopt(kernel.SO_ZEROCOPY)
	require.Zero(t, err)
	require.Equal(t, 1, v)
	s.SetZerocopy(0)
	v, _ = s.Getsockopt(kernel.SO_ZEROCOPY)
	require.Zero(t, v)

	rfc := skbtest.NewEnv(t, "rfc-v2").TCP()
	_, err = rfc.Getsockopt(kernel.SO_ZEROCOPY)
	require.Equal(t, kernel.ENOPROTOOPT, err, "the option does not exist")
}

// TestBufferSizes pins sock_setsockopt's SO_SNDBUF/SO_RCVBUF arithmetic as
// measured on Linux 6.18.
func TestBufferSizes(t *testing.T) {
	tests := []struct {
		opt  kernel.SockOpt
		val  int
		want int
	}{
		{kernel.SO_SNDBUF, 1000, 4608},
		{kernel.SO_SNDBUF, 0, 4608},
		{kernel.SO_SNDBUF, 1 << 16, 131072},
		{kernel.SO_SNDBUF, 1 << 20, 2 * 212992},
		{kernel.SO_SNDBUF, -1, 2 * 212992},
		{kernel.SO_SNDBUFFORCE, 1 << 20, 2097152},
		{kernel.SO_SNDBUFFORCE, -1, 4608},
		{kernel.SO_SNDBUFFORCE, 1 << 30, 2147483646},
		{kernel.SO_SNDBUFFORCE, 1<<31 - 1, 2147483646},
		{kernel.SO_RCVBUF, 1000, 2304},
		{kernel.SO_RCVBUF, 0, 2304},
		{kernel.SO_RCVBUF, 1 << 20, 2 * 212992},
		{kernel.SO_RCVBUF, -1, 2 * 212992},
		{kernel.SO_RCVBUFFORCE, 1 << 20, 2097152},
		{kernel.SO_RCVBUFFORCE, -5, 2304},
		{kernel.SO_RCVBUFFORCE, 1 << 30, 2147483646},
	}
	for _, tt := range tests {
		e := skbtest.NewEnv(t, "linux-6.18")
		s := e.Sock(kernel.AF_INET, kernel.SOCK_DGRAM, 0)
		if tt.opt == kernel.SO_SNDBUFFORCE || tt.opt == kernel.SO_RCVBUFFORCE {
			require.Equal(t, kernel.EPERM, s.Setsockopt(tt.opt, tt.val), "FORCE needs CAP_NET_ADMIN")
			s.Task.CapNetAdmin = true
		}
		require.Zero(t, s.Setsockopt(tt.opt, tt.val))
		get := kernel.SO_SNDBUF
		if tt.opt == kernel.SO_RCVBUF || tt.opt == kernel.SO_RCVBUFFORCE {
			get = kernel.SO_RCVBUF
			require.True(t, s.RcvbufLocked)
		} else {
			require.True(t, s.SndbufLocked)
		}
		got, err := s.Getsockopt(get)
		require.Zero(t, err)
		require.Equal(t, tt.want, got, "%s %d", kernel.SockOptNames.Name(tt.opt), tt.val)
	}
	require.Equal(t, 4608, sock.MinSndbuf)
	require.Equal(t, 2304, sock.MinRcvbuf)
}

func TestRcvlowat(t *testing.T) {
	tests := []struct {
		name       string
		sock       sockSpec
		rcvbuf     int // SO_RCVBUF first, if not 0
		val        int
		want       int
		wantRcvbuf int
	}{
		{"udp -1", udp4, 0, -1, 1<<31 - 1, 212992},
		{"udp 0", udp4, 0, 0, 1, 212992},
		{"udp 1000", udp4, 0, 1000, 1000, 212992},
		{"udp not capped by a locked rcvbuf", udp4, 1000, 5000, 5000, 2304},
		{"tcp 1000", tcp4, 0, 1000, 1000, 131072},
		{"tcp leaves the growth to the protocol", tcp4, 0, 100000, 100000, 131072},
		{"tcp -1 capped at tcp_rmem[2]/2", tcp4, 0, -1, 16 << 20, 131072},
		{"tcp capped at a locked rcvbuf/2", tcp4, 1000, 5000, 1152, 2304},
		{"tcp 0", tcp4, 0, 0, 1, 131072},
	}
	for _, tt := range tests {
		e := skbtest.NewEnv(t, "linux-6.18")
		s := e.Sock(tt.sock.family, tt.sock.typ, tt.sock.proto)
		if tt.rcvbuf != 0 {
			s.Setsockopt(kernel.SO_RCVBUF, tt.rcvbuf)
		}
		require.Zero(t, s.Setsockopt(kernel.SO_RCVLOWAT, tt.val), tt.name)
		got, _ := s.Getsockopt(kernel.SO_RCVLOWAT)
		require.Equal(t, tt.want, got, tt.name)
		require.Equal(t, tt.wantRcvbuf, s.Rcvbuf, tt.name)
	}
}

// SO_MAX_PACING_RATE: no limit reads back as -1 (the 4-byte form of
// ~0UL); a limit switches internal pacing on for good, and -1 (~0U)
// lifts the limit without switching it off (sk_pacing_status stays
// SK_PACING_NEEDED).
func TestMaxPacingRate(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.Sock(tcp4.family, tcp4.typ, tcp4.proto)
	got, err := s.Getsockopt(kernel.SO_MAX_PACING_RATE)
	require.Zero(t, err)
	require.Equal(t, -1, got)
	require.False(t, s.PacingNeeded)
	require.Zero(t, s.Setsockopt(kernel.SO_MAX_PACING_RATE, 4000000))
	got, _ = s.Getsockopt(kernel.SO_MAX_PACING_RATE)
	require.Equal(t, 4000000, got)
	require.Equal(t, uint64(4000000), s.MaxPacingRate)
	require.True(t, s.PacingNeeded)
	require.Zero(t, s.Setsockopt(kernel.SO_MAX_PACING_RATE, -1))
	got, _ = s.Getsockopt(kernel.SO_MAX_PACING_RATE)
	require.Equal(t, -1, got)
	require.Equal(t, uint64(sock.NoPacingLimit), s.MaxPacingRate)
	require.True(t, s.PacingNeeded)
}

func TestTimestamping(t *testing.T) {
	const (
		txsw   = kernel.SOF_TIMESTAMPING_TX_SOFTWARE
		optID  = kernel.SOF_TIMESTAMPING_OPT_ID
		stats  = kernel.SOF_TIMESTAMPING_OPT_STATS
		tsonly = kernel.SOF_TIMESTAMPING_OPT_TSONLY
	)
	e := skbtest.NewEnv(t, "linux-6.18")
	udp := e.UDP()
	udp.Tskey = 5
	require.Zero(t, udp.Setsockopt(kernel.SO_TIMESTAMPING, int(txsw|optID)))
	require.Equal(t, uint32(0), udp.Tskey, "switching OPT_ID on restarts the key")
	udp.Tskey = 5
	require.Zero(t, udp.Setsockopt(kernel.SO_TIMESTAMPING, int(optID)))
	require.Equal(t, uint32(5), udp.Tskey, "already on: kept")
	v, _ := udp.Getsockopt(kernel.SO_TIMESTAMPING)
	require.Equal(t, int(optID), v)

	for _, bad := range []int{1 << 19, 1 << 30, -1, int(stats)} {
		require.Equal(t, kernel.EINVAL, udp.Setsockopt(kernel.SO_TIMESTAMPING, bad), "%#x", bad)
	}
	require.Equal(t, optID, udp.Tsflags, "a refusal changes nothing")
	require.Zero(t, udp.Setsockopt(kernel.SO_TIMESTAMPING, int(stats|tsonly|1<<18)))

	tcp := e.TCP()
	for _, st := range []sock.State{sock.CLOSE, sock.LISTEN} {
		tcp.State = st
		require.Equal(t, kernel.EINVAL, tcp.Setsockopt(kernel.SO_TIMESTAMPING, int(optID)), "%v", st)
		require.Zero(t, tcp.Setsockopt(kernel.SO_TIMESTAMPING, int(txsw)), "%v without OPT_ID", st)
	}
	tcp.State = sock.ESTABLISHED
	tcp.Tskey = 9
	require.Zero(t, tcp.Setsockopt(kernel.SO_TIMESTAMPING, int(optID)))
	require.Equal(t, uint32(0), tcp.Tskey)
	tcp.State = sock.CLOSE
	require.Zero(t, tcp.Setsockopt(kernel.SO_TIMESTAMPING, int(optID|txsw)), "OPT_ID already on")
}

func TestUnknownOptions(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	require.Equal(t, kernel.ENOPROTOOPT, s.Setsockopt(kernel.TCP_NODELAY, 1))
	require.Equal(t, kernel.ENOPROTOOPT, s.Setsockopt(kernel.SockOpt{Level: kernel.SOL_SOCKET, Name: 999}, 1))
	for _, o := range []kernel.SockOpt{kernel.SO_SNDBUFFORCE, kernel.SO_RCVBUFFORCE, kernel.TCP_CORK} {
		_, err := s.Getsockopt(o)
		require.Equal(t, kernel.ENOPROTOOPT, err, kernel.SockOptNames.Name(o))
	}
}

// TestOptmemAdmission: a send succeeds iff omem + 576 <= optmem_max, and
// each outstanding uarg charges 832 bytes: 24 at 20480, 157 at 131072
// (live measurements, probes/FINDINGS.md §6).
func TestOptmemAdmission(t *testing.T) {
	tests := []struct {
		optmemMax int
		n         int
		omem      int
	}{
		{20480, 24, 19968},
		{131072, 157, 130624},
		{576, 1, 832},
		{575, 0, 0},
		{1408, 2, 1664},
		{1407, 1, 832},
		{2240, 3, 2496},
		{3072, 4, 3328},
	}
	for _, tt := range tests {
		for _, spec := range []sockSpec{tcp4, udp6} {
			e := skbtest.NewEnv(t, "linux-6.18")
			e.Net.OptmemMax = tt.optmemMax
			s := e.Sock(spec.family, spec.typ, spec.proto)
			s.SetZerocopy(1)
			n := 0
			for range 1000 {
				_, out := ubuf.Alloc(e.H, s, e.Task, 1, skbtest.Call(uint64(n)))
				if out.Failed() {
					require.Equal(t, ubuf.FailOptmem, out)
					break
				}
				n++
			}
			require.Equal(t, tt.n, n, "optmem_max %d %v", tt.optmemMax, s)
			require.Equal(t, tt.omem, s.OmemAlloc, "optmem_max %d %v", tt.optmemMax, s)
			require.Equal(t, uint32(tt.n), s.ZCKey(), "the refused call consumed no id")
		}
	}
}

func TestOmallocFault(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	e.H.Faults = skbtest.Faults{kernel.FaultSockOmalloc: 1}
	s := e.TCP()
	_, ok := s.Omalloc()
	require.False(t, ok)
	require.Zero(t, s.OmemAlloc)
	n, ok := s.Omalloc()
	require.True(t, ok)
	require.Equal(t, 832, n)
	s.Ofree(n)
	require.Zero(t, s.OmemAlloc)
}

func TestNotifyWmemBug(t *testing.T) {
	e := skbtest.NewEnv(t, "rfc-v2", kernel.BugNotifyWmem)
	s := e.TCP()
	s.Setsockopt(kernel.SO_SNDBUF, 0) // 4608: room for 6 charges of 768
	n := 0
	for range 100 {
		if _, ok := s.Omalloc(); !ok {
			break
		}
		n++
	}
	require.Equal(t, 6, n)
	require.Equal(t, 6*768, s.WmemAlloc)
	require.Zero(t, s.OmemAlloc)
	s.Ofree(768)
	require.Equal(t, 5*768, s.WmemAlloc)

	e.H.Faults = skbtest.Faults{kernel.FaultSockOmalloc: 1}
	_, ok := s.Omalloc()
	require.False(t, ok)
}

func TestHoldPutClose(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	s.State = sock.ESTABLISHED
	s.Hold()
	require.Equal(t, 2, s.Refcnt())
	s.Close()
	require.True(t, s.Dead())
	require.Equal(t, sock.CLOSE, s.State)
	require.Equal(t, 1, s.Refcnt())
	require.False(t, s.Freed())
	s.Put()
	require.True(t, s.Freed())
	skbtest.NoViolations(t, e.H)
	s.Put()
	s.Hold()
	skbtest.Violations(t, e.H,
		skbtest.Violation{Rule: kernel.RuleRefcount, Object: s.Ident(), Message: "sock_put after free"},
		skbtest.Violation{Rule: kernel.RuleRefcount, Object: s.Ident(), Message: "sock_hold after free"},
	)
}

func TestInheritFlags(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	listener := e.TCP()
	listener.Tsflags = kernel.SOF_TIMESTAMPING_SOFTWARE
	child := e.Sock(kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	require.False(t, child.ZerocopyFlag())
	child.InheritFlags(listener)
	require.True(t, child.ZerocopyFlag(), "SOCK_ZEROCOPY is copied by sk_clone_lock")
	require.Equal(t, kernel.SOF_TIMESTAMPING_SOFTWARE, child.Tsflags)
	require.Zero(t, child.ZCKey(), "the ids start afresh")
}

func TestDestructPurgesAndReportsLeaks(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.UDP()
	u, _ := ubuf.Alloc(e.H, s, e.Task, 100, skbtest.Call(1))
	u.Complete(skbtest.Call(1), true)
	clone := skb.Alloc(e.H, 0)
	require.Zero(t, s.QueueErr(notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING, Truesize: 1000, Skb: clone}))
	require.Equal(t, 2, s.ErrQueue.Len())
	s.Close()
	require.True(t, s.Freed())
	require.True(t, clone.Freed(), "the timestamp's skb is freed")
	require.Zero(t, s.OmemAlloc)
	require.Zero(t, s.RmemAlloc)
	skbtest.NoViolations(t, e.H)

	leaky := e.TCP()
	leaky.OmemAlloc, leaky.WmemQueued, leaky.RmemAlloc = 100, 200, 300
	leaky.Close()
	skbtest.Violations(t, e.H,
		skbtest.Violation{Rule: kernel.RuleAccounting, Object: leaky.Ident(), Message: "destroyed with sk_omem_alloc 100"},
		skbtest.Violation{Rule: kernel.RuleAccounting, Object: leaky.Ident(), Message: "destroyed with sk_wmem_queued 200"},
		skbtest.Violation{Rule: kernel.RuleAccounting, Object: leaky.Ident(), Message: "destroyed with sk_rmem_alloc 300"},
	)
}

// TestCloseWithTransmittedSkb: the socket outlives its last reference
// while a transmitted skb still charges sk_wmem_alloc.
func TestCloseWithTransmittedSkb(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.UDP()
	b := skb.Alloc(e.H, 100)
	s.ChargeW(b)
	require.Equal(t, 704, s.WmemAlloc)
	o, d := b.Owner()
	require.Equal(t, s, o)
	require.Equal(t, skb.SockWfree, d)
	s.Close()
	require.False(t, s.Freed())
	b.Free()
	require.Zero(t, s.WmemAlloc)
	require.True(t, s.Freed())
	skbtest.NoViolations(t, e.H)
}

func TestChargeQueued(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	b := skb.Alloc(e.H, 0)
	s.ChargeQueued(b)
	require.Equal(t, 576, s.WmemQueued)
	_, d := b.Owner()
	require.Equal(t, skb.WmemQueued, d)
	b.Free()
	require.Zero(t, s.WmemQueued)
}

func TestUncharge(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	s.WmemAlloc, s.RmemAlloc, s.OmemAlloc, s.WmemQueued = 10, 20, 30, 40
	s.Uncharge(skb.SockWfree, 1)
	s.Uncharge(skb.SockRfree, 2)
	s.Uncharge(skb.SockOfree, 3)
	s.Uncharge(skb.WmemQueued, 4)
	s.Uncharge(skb.NoDestructor, 5)
	require.Equal(t, []int{9, 18, 27, 36}, []int{s.WmemAlloc, s.RmemAlloc, s.OmemAlloc, s.WmemQueued})
	skbtest.NoViolations(t, e.H)
	s.Uncharge(skb.SockRfree, 19)
	skbtest.Violations(t, e.H, skbtest.Violation{Rule: kernel.RuleAccounting, Object: s.Ident(), Message: "sk_rmem_alloc 18 uncharged by 19 (underflow)"})
	require.Zero(t, s.RmemAlloc)
}

func TestQueueNotification(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	type seen struct {
		Lo     uint32
		Merged bool
	}
	var got []seen
	s.OnNotify = func(n ubuf.Notification, merged bool) { got = append(got, seen{n.Lo, merged}) }
	var us []*ubuf.Info
	for i := range 3 {
		u, _ := ubuf.Alloc(e.H, s, e.Task, 100, skbtest.Call(uint64(i)))
		us = append(us, u)
	}
	require.Equal(t, 3*832, s.OmemAlloc)
	for i, u := range us {
		u.Complete(skbtest.Call(uint64(i)), true)
	}
	require.Equal(t, []seen{{0, false}, {1, true}, {2, true}}, got)
	require.Equal(t, 832, s.OmemAlloc, "merged notifications return their optmem at once")
	require.Equal(t, 1, s.ErrQueue.Len())

	r, err := s.RecvErrqueue()
	require.Zero(t, err)
	require.Equal(t, "zerocopy [0,2]", r.String())
	require.Zero(t, s.OmemAlloc, "reading returns the rest")
	_, err = s.RecvErrqueue()
	require.Equal(t, kernel.EAGAIN, err)
	skbtest.NoViolations(t, e.H)
}

func TestQueueErrAdmission(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.UDP()
	s.Setsockopt(kernel.SO_RCVBUF, 0) // 2304
	rec := notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING, Truesize: 1152}
	require.Zero(t, s.QueueErr(rec), "0 + 1152 < 2304")
	require.Equal(t, kernel.ENOMEM, s.QueueErr(rec), "1152 + 1152 >= 2304")
	require.Equal(t, 1, s.ErrQueue.Len())
	require.Equal(t, 1152, s.RmemAlloc)
	r, err := s.RecvErrqueue()
	require.Zero(t, err)
	require.Equal(t, rec, r)
	require.Zero(t, s.RmemAlloc)
}

func TestRecvErrqueueFreesTimestampSkb(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	u, _ := ubuf.Alloc(e.H, s, e.Task, 100, skbtest.Call(1))
	b := skb.Alloc(e.H, 0)
	have := true
	b.ZcopySet(u, skbtest.Call(1), &have)
	clone, _ := b.Clone()
	b.Free()
	require.Zero(t, s.QueueErr(notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING, Info: kernel.SCM_TSTAMP_SND, Truesize: 704, Skb: clone}))
	r, err := s.RecvErrqueue()
	require.Zero(t, err)
	require.Equal(t, "timestamp SCM_TSTAMP_SND key=0", r.String())
	require.True(t, clone.Freed())
	require.True(t, u.Freed(), "freeing the clone dropped the last uarg reference")
	r, _ = s.RecvErrqueue()
	require.Equal(t, "zerocopy [0,0]", r.String())
}

func TestFailResult(t *testing.T) {
	require.Equal(t, sock.SendResult{N: -1, Err: kernel.ENOBUFS}, sock.Fail(kernel.ENOBUFS))
}

// linux-4.14 merged MSG_ZEROCOPY for TCP only: SO_ZEROCOPY on a UDP socket
// is refused with the kernel-internal ENOTSUPP, and MSG_ZEROCOPY on it is
// silently ignored.
func ExampleSock_SetZerocopy() {
	p, _ := kernel.Lookup("linux-4.14")
	h := kernel.NewHost(p)
	task := &ubuf.Task{User: &ubuf.User{UID: 1000}, Memlock: p.MemlockDefault}
	net := sock.DefaultSysctl(p)
	udp := sock.New(h, net, task, kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP)
	err := udp.Setsockopt(kernel.SO_ZEROCOPY, 1)
	fmt.Printf("UDP: setsockopt(SO_ZEROCOPY, 1) = %v (%d); MSG_ZEROCOPY takes effect: %t\n", err, err, udp.Zerocopy())

	tcp := sock.New(h, net, task, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	tcp.State = sock.ESTABLISHED
	fmt.Println("TCP after connect:", tcp.SetZerocopy(1))
	tcp.State = sock.CLOSE
	fmt.Println("TCP before connect:", tcp.SetZerocopy(1), tcp.Zerocopy())
	// Output:
	// UDP: setsockopt(SO_ZEROCOPY, 1) = ENOTSUPP (524); MSG_ZEROCOPY takes effect: false
	// TCP after connect: EBUSY
	// TCP before connect: 0 true
}

// OmemLow is the least sk_omem_alloc since MarkOmem: charges do not raise
// it, sock_ofree and sock_kfree_s lower it.
func TestOmemLow(t *testing.T) {
	s := skbtest.NewEnv(t, "linux-6.18").TCP()
	n, ok := s.Omalloc()
	require.True(t, ok)
	s.MarkOmem()
	require.Equal(t, n, s.OmemLow)
	s.Ofree(n)
	_, ok = s.Omalloc()
	require.True(t, ok)
	require.Zero(t, s.OmemLow, "the free came before the new charge")
	require.True(t, s.Kmalloc(100))
	s.MarkOmem()
	s.Kfree(100)
	require.Equal(t, n, s.OmemLow)
}

// OmallocRefuses is Omalloc's admission with extra bytes charged: the
// first uarg fits optmem_max 2000 (0 + 576), a third does not (1664 +
// 576), and asking charges nothing.
func TestOmallocRefuses(t *testing.T) {
	s := skbtest.NewEnv(t, "linux-6.18").TCP()
	s.Net.OptmemMax = 2000
	require.False(t, s.OmallocRefuses(0))
	require.False(t, s.OmallocRefuses(832))
	require.True(t, s.OmallocRefuses(2*832))
	require.Zero(t, s.OmemAlloc)
	_, ok := s.Omalloc()
	require.True(t, ok)
	require.True(t, s.OmallocRefuses(832), "Omalloc refuses what OmallocRefuses says it would")
	_, ok = s.Omalloc()
	require.True(t, ok)
	_, ok = s.Omalloc()
	require.False(t, ok)
}

// CloneFrom gives a listener's child its buffer sizes and their locks, and
// its flags.
func TestCloneFrom(t *testing.T) {
	env := skbtest.NewEnv(t, "linux-6.18")
	l, child := env.TCP(), env.TCP()
	l.Rcvbuf, l.RcvbufLocked, l.Sndbuf, l.SndbufLocked = 65536, true, 8192, true
	l.Tsflags = kernel.SOF_TIMESTAMPING_SOFTWARE
	child.CloneFrom(l)
	require.Equal(t, 65536, child.Rcvbuf)
	require.True(t, child.RcvbufLocked)
	require.Equal(t, 8192, child.Sndbuf)
	require.True(t, child.SndbufLocked)
	require.Equal(t, l.Tsflags, child.Tsflags)
}

// SO_MARK: set with CAP_NET_ADMIN only, read by anyone, as an int.
func TestSoMark(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.Sock(kernel.AF_INET, kernel.SOCK_DGRAM, 0)
	require.Equal(t, kernel.EPERM, s.Setsockopt(kernel.SO_MARK, 7))
	s.Task.CapNetAdmin = true
	require.Zero(t, s.Setsockopt(kernel.SO_MARK, -1))
	got, err := s.Getsockopt(kernel.SO_MARK)
	require.Zero(t, err)
	require.Equal(t, -1, got)
}

// __sock_cmsg_send, case by case: SO_MARK's capability comes before its
// length, SO_TIMESTAMPING replaces only the TX record flags of the
// cookie, SCM_RIGHTS is ignored, an unknown type is EINVAL.
func TestSockCmsg(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.Sock(kernel.AF_INET, kernel.SOCK_DGRAM, 0)
	require.Zero(t, s.Setsockopt(kernel.SO_TIMESTAMPING, int(kernel.SOF_TIMESTAMPING_TX_SCHED|kernel.SOF_TIMESTAMPING_OPT_ID)))
	c := s.InitSockcm()
	require.Equal(t, kernel.EPERM, s.SockCmsg(sock.Cmsg{Type: kernel.SCM_MARK, Len: 2}, &c))
	require.Equal(t, kernel.EPERM, s.SockCmsg(sock.Cmsg{Type: kernel.SCM_PRIORITY, Len: 4, Data: 7}, &c))
	require.Zero(t, s.SockCmsg(sock.Cmsg{Type: kernel.SCM_PRIORITY, Len: 4, Data: 6}, &c))
	require.Equal(t, kernel.EINVAL, s.SockCmsg(sock.Cmsg{Type: kernel.SCM_TIMESTAMPING, Len: 4, Data: uint64(kernel.SOF_TIMESTAMPING_OPT_ID)}, &c))
	require.Zero(t, s.SockCmsg(sock.Cmsg{Type: kernel.SCM_TIMESTAMPING_NEW, Len: 4, Data: uint64(kernel.SOF_TIMESTAMPING_TX_SOFTWARE)}, &c))
	require.Equal(t, kernel.SOF_TIMESTAMPING_TX_SOFTWARE|kernel.SOF_TIMESTAMPING_OPT_ID, c.Tsflags)
	require.Zero(t, s.SockCmsg(sock.Cmsg{Type: kernel.SCM_RIGHTS, Len: 1}, &c))
	require.Equal(t, kernel.EINVAL, s.SockCmsg(sock.Cmsg{Type: kernel.SCM_TXTIME, Len: 8}, &c))
	require.Equal(t, kernel.EINVAL, s.SockCmsg(sock.Cmsg{Type: kernel.CmsgType{Level: kernel.SOL_SOCKET, Name: 99}, Len: 4}, &c))
	s.Task.CapNetAdmin = true
	require.Equal(t, kernel.EINVAL, s.SockCmsg(sock.Cmsg{Type: kernel.SCM_MARK, Len: 2}, &c))
	require.Zero(t, s.SockCmsg(sock.Cmsg{Type: kernel.SCM_MARK, Len: 4, Data: 9}, &c))
	require.Equal(t, uint32(9), c.Mark)
	require.False(t, sock.Modelled(kernel.CmsgType{Level: kernel.SOL_IP, Name: 2}))
	require.False(t, sock.Modelled(kernel.SCM_TS_OPT_ID))
	require.True(t, sock.Modelled(kernel.CmsgType{Level: 1234, Name: 5}))
}

// A datagram's packet asks for the socket's software timestamps and takes
// the next key only when it asks for one; a record reports the packet's
// key, less sk_tskey on TCP, and only under OPT_ID.
func TestTxTimestampKeys(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	udp := e.UDP()
	b := skb.Alloc(e.H, 0)
	udp.SetupTxTimestamp(b, udp.Tsflags)
	require.Zero(t, b.Shinfo().TxFlags)
	require.Zero(t, udp.Setsockopt(kernel.SO_TIMESTAMPING, int(kernel.SOF_TIMESTAMPING_TX_ACK|kernel.SOF_TIMESTAMPING_OPT_ID)))
	udp.SetupTxTimestamp(b, udp.Tsflags)
	require.Zero(t, b.Shinfo().TxFlags)
	require.Equal(t, uint32(0), udp.Tskey, "TX_ACK alone asks a datagram for nothing")
	require.Zero(t, udp.Setsockopt(kernel.SO_TIMESTAMPING, int(kernel.SOF_TIMESTAMPING_TX_SCHED|kernel.SOF_TIMESTAMPING_TX_SOFTWARE|
		kernel.SOF_TIMESTAMPING_OPT_ID|kernel.SOF_TIMESTAMPING_OPT_TSONLY)))
	udp.Tskey = 7
	udp.SetupTxTimestamp(b, udp.Tsflags)
	require.Equal(t, kernel.SKBTX_ANY_TSTAMP, b.Shinfo().TxFlags)
	require.Equal(t, uint32(7), b.Shinfo().Tskey)
	require.Equal(t, uint32(8), udp.Tskey)
	udp.TstampTx(b, kernel.SCM_TSTAMP_SND)
	r, err := udp.RecvErrqueue()
	require.Zero(t, err)
	require.Equal(t, "timestamp SCM_TSTAMP_SND key=7", r.String())

	tcp := e.TCP()
	tcp.State = sock.ESTABLISHED
	require.Zero(t, tcp.Setsockopt(kernel.SO_TIMESTAMPING, int(kernel.SOF_TIMESTAMPING_TX_ACK|kernel.SOF_TIMESTAMPING_OPT_TSONLY)))
	tcp.Tskey = 1000
	b.Shinfo().Tskey = 1999
	tcp.TstampTx(b, kernel.SCM_TSTAMP_ACK)
	r, _ = tcp.RecvErrqueue()
	require.Equal(t, "timestamp SCM_TSTAMP_ACK key=0", r.String(), "no OPT_ID, no key")
	tcp.Tsflags |= kernel.SOF_TIMESTAMPING_OPT_ID
	tcp.TstampTx(b, kernel.SCM_TSTAMP_ACK)
	r, _ = tcp.RecvErrqueue()
	require.Equal(t, "timestamp SCM_TSTAMP_ACK key=999", r.String())
	b.Free()
}

// A call returns at once instead of sleeping with MSG_DONTWAIT or on an
// O_NONBLOCK socket, and only then.
func TestNoWait(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.TCP()
	require.False(t, s.NoWait(kernel.MSG_ZEROCOPY))
	require.True(t, s.NoWait(kernel.MSG_DONTWAIT))
	s.Type |= kernel.SOCK_NONBLOCK
	require.True(t, s.NoWait(0))
}

// SO_REUSEADDR and SO_REUSEPORT read back 1 for any value not 0 and 0
// for 0; SO_REUSEPORT on is EOPNOTSUPP outside AF_INET and AF_INET6,
// while off is taken; an accepted child has its listener's (probed on
// Linux 6.18).
func TestReuseOptions(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	read := func(s *sock.Sock, opt kernel.SockOpt) int {
		t.Helper()
		v, err := s.Getsockopt(opt)
		require.Zero(t, err)
		return v
	}
	s := e.TCP()
	for _, opt := range []kernel.SockOpt{kernel.SO_REUSEADDR, kernel.SO_REUSEPORT} {
		require.Equal(t, 0, read(s, opt))
		require.Zero(t, s.Setsockopt(opt, 5))
		require.Equal(t, 1, read(s, opt))
		require.Zero(t, s.Setsockopt(opt, -1))
		require.Equal(t, 1, read(s, opt))
	}
	child := e.TCP()
	child.CloneFrom(s)
	require.Equal(t, 1, read(child, kernel.SO_REUSEADDR))
	require.Equal(t, 1, read(child, kernel.SO_REUSEPORT))
	require.Zero(t, s.Setsockopt(kernel.SO_REUSEADDR, 0))
	require.Equal(t, 0, read(s, kernel.SO_REUSEADDR))

	u := e.Sock(kernel.AF_UNIX, kernel.SOCK_STREAM, 0)
	require.Equal(t, kernel.EOPNOTSUPP, u.Setsockopt(kernel.SO_REUSEPORT, 1))
	require.Zero(t, u.Setsockopt(kernel.SO_REUSEPORT, 0))
	require.Zero(t, u.Setsockopt(kernel.SO_REUSEADDR, 1))
	require.Equal(t, 1, read(u, kernel.SO_REUSEADDR))
}
