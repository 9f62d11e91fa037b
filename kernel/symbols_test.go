package kernel_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

func TestSymbolsRoundTrip(t *testing.T) {
	for _, name := range kernel.ErrnoNames.Names() {
		v, ok := kernel.ErrnoNames.ByName(name)
		require.True(t, ok, name)
		back := kernel.ErrnoNames.Name(v)
		if name == "EWOULDBLOCK" {
			require.Equal(t, "EAGAIN", back, "alias resolves to the first name")
			continue
		}
		require.Equal(t, name, back)
	}
	for _, name := range kernel.MsgFlagNames.Names() {
		v, _ := kernel.MsgFlagNames.ByName(name)
		require.Equal(t, name, v.String())
	}
}

func TestSymbolsAliases(t *testing.T) {
	tests := []struct {
		alias, canonical string
		got              func(string) (string, bool)
	}{
		{"EWOULDBLOCK", "EAGAIN", func(n string) (string, bool) {
			v, ok := kernel.ErrnoNames.ByName(n)
			return kernel.ErrnoNames.Name(v), ok
		}},
		{"AF_LOCAL", "AF_UNIX", func(n string) (string, bool) {
			v, ok := kernel.FamilyNames.ByName(n)
			return kernel.FamilyNames.Name(v), ok
		}},
		{"IPPROTO_TCP", "SOL_TCP", func(n string) (string, bool) {
			v, ok := kernel.LevelNames.ByName(n)
			return kernel.LevelNames.Name(v), ok
		}},
		{"IPPROTO_IP", "SOL_IP", func(n string) (string, bool) {
			v, ok := kernel.LevelNames.ByName(n)
			return kernel.LevelNames.Name(v), ok
		}},
	}
	for _, tt := range tests {
		got, ok := tt.got(tt.alias)
		require.True(t, ok, tt.alias)
		require.Equal(t, tt.canonical, got, tt.alias)
	}
}

func TestSymbolsTable(t *testing.T) {
	s := kernel.NewSymbols(kernel.Symbol[int]{"B", 2}, kernel.Symbol[int]{"A", 1}, kernel.Symbol[int]{"ONE", 1})
	require.Equal(t, []string{"A", "B", "ONE"}, s.Names(), "sorted")
	names := s.Names()
	names[0] = "changed"
	require.Equal(t, []string{"A", "B", "ONE"}, s.Names(), "Names returns a copy")
	require.Equal(t, "A", s.Name(1), "first name given wins")
	_, ok := s.ByName("C")
	require.False(t, ok)
	require.Equal(t, "", s.Name(3))

	var zero kernel.Symbols[int]
	_, ok = zero.ByName("A")
	require.False(t, ok)
	require.Equal(t, "", zero.Name(1))
	require.Empty(t, zero.Names())

	require.PanicsWithValue(t, `kernel: symbol "A" defined twice`, func() {
		kernel.NewSymbols(kernel.Symbol[int]{"A", 1}, kernel.Symbol[int]{"A", 2})
	})
}

func TestSockOptNames(t *testing.T) {
	require.Equal(t, "SO_ZEROCOPY", kernel.SockOptNames.Name(kernel.SO_ZEROCOPY))
	require.Equal(t, kernel.SockOpt{Level: kernel.SOL_SOCKET, Name: 60}, kernel.SO_ZEROCOPY)
	v, ok := kernel.SockOptNames.ByName("UDP_SEGMENT")
	require.True(t, ok)
	require.Equal(t, kernel.SockOpt{Level: kernel.SOL_UDP, Name: 103}, v)
	require.Equal(t, "AF_INET6", kernel.FamilyNames.Name(kernel.AF_INET6))
	require.Equal(t, "IPPROTO_ICMPV6", kernel.ProtocolNames.Name(58))
}

func TestErrnoString(t *testing.T) {
	tests := []struct {
		e    kernel.Errno
		want string
	}{
		{0, "0"},
		{kernel.ENOBUFS, "ENOBUFS"},
		{105, "ENOBUFS"},
		{kernel.EAGAIN, "EAGAIN"},
		{kernel.EOPNOTSUPP, "EOPNOTSUPP"},
		{95, "EOPNOTSUPP"},
		{kernel.ENOTSUPP, "ENOTSUPP"},
		{524, "ENOTSUPP"},
		{kernel.ENOPROTOOPT, "ENOPROTOOPT"},
		{3, "errno 3"},
		{200, "errno 200"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.e.String(), "errno %d", uint16(tt.e))
	}
}

func TestUnionStrings(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"msg none", kernel.MsgFlags(0).String(), "0"},
		{"msg one", kernel.MSG_ZEROCOPY.String(), "MSG_ZEROCOPY"},
		{"msg low to high", (kernel.MSG_ZEROCOPY | kernel.MSG_MORE | kernel.MSG_DONTWAIT).String(), "MSG_DONTWAIT|MSG_MORE|MSG_ZEROCOPY"},
		{"msg unknown bits", (kernel.MSG_DONTWAIT | 0x10 | 0x200).String(), "MSG_DONTWAIT|0x210"},
		{"msg only unknown", kernel.MsgFlags(0x10).String(), "0x10"},
		{"sock type", kernel.SOCK_STREAM.String(), "SOCK_STREAM"},
		{"sock type flags", (kernel.SOCK_DGRAM | kernel.SOCK_NONBLOCK).String(), "SOCK_DGRAM|SOCK_NONBLOCK"},
		{"sock type two flags", (kernel.SOCK_STREAM | kernel.SOCK_CLOEXEC | kernel.SOCK_NONBLOCK).String(), "SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC"},
		{"sock type unknown base", kernel.SockType(0xb).String(), "0xb"},
		{"sock type unknown flag", (kernel.SOCK_RAW | 0x100).String(), "SOCK_RAW|0x100"},
		{"timestamping none", kernel.Timestamping(0).String(), "0"},
		{"timestamping", (kernel.SOF_TIMESTAMPING_OPT_ID | kernel.SOF_TIMESTAMPING_TX_SOFTWARE).String(), "SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_OPT_ID"},
		{"timestamping unknown", (kernel.SOF_TIMESTAMPING_SOFTWARE | 1<<5).String(), "SOF_TIMESTAMPING_SOFTWARE|0x20"},
		{"skbfl zerocopy frag", (kernel.SKBFL_ZEROCOPY_FRAG | kernel.SKBFL_DONT_ORPHAN).String(), "SKBFL_ZEROCOPY_ENABLE|SKBFL_SHARED_FRAG|SKBFL_DONT_ORPHAN"},
		{"skbfl all", kernel.SKBFL_ALL_ZEROCOPY.String(), "SKBFL_ZEROCOPY_ENABLE|SKBFL_SHARED_FRAG|SKBFL_PURE_ZEROCOPY|SKBFL_DONT_ORPHAN|SKBFL_MANAGED_FRAG_REFS"},
		{"skbfl unknown", kernel.SkbFlags(0x80).String(), "0x80"},
		{"skbfl none", kernel.SkbFlags(0).String(), "0"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.got, tt.name)
	}
	require.Equal(t, kernel.SkbFlags(0x1f), kernel.SKBFL_ALL_ZEROCOPY)
	require.Equal(t, kernel.SOCK_DGRAM, (kernel.SOCK_DGRAM | kernel.SOCK_CLOEXEC).Base())
}

func TestParseMsgFlags(t *testing.T) {
	tests := []struct {
		text    string
		want    kernel.MsgFlags
		wantErr string
	}{
		{"MSG_ZEROCOPY|MSG_MORE", kernel.MSG_ZEROCOPY | kernel.MSG_MORE, ""},
		{" MSG_MORE | MSG_DONTWAIT ", kernel.MSG_MORE | kernel.MSG_DONTWAIT, ""},
		{"0", 0, ""},
		{"16", 16, ""},
		{"0x4000000", kernel.MSG_ZEROCOPY, ""},
		{"MSG_DONTWAIT|0x10", kernel.MSG_DONTWAIT | 0x10, ""},
		{"MSG_BOGUS", 0, `unknown flag "MSG_BOGUS"`},
		{"", 0, `unknown flag ""`},
		{"MSG_MORE|", 0, `unknown flag ""`},
		{"12abc", 0, `unknown flag "12abc"`},
		{"-1", 0, `unknown flag "-1"`},
		{"0x100000000", 0, `unknown flag "0x100000000"`},
	}
	for _, tt := range tests {
		got, err := kernel.ParseMsgFlags(tt.text)
		if tt.wantErr != "" {
			require.EqualError(t, err, tt.wantErr, "%q", tt.text)
			require.Zero(t, got)
			continue
		}
		require.NoError(t, err, "%q", tt.text)
		require.Equal(t, tt.want, got, "%q", tt.text)
	}
}

func TestParseTimestamping(t *testing.T) {
	got, err := kernel.ParseTimestamping("SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_OPT_ID")
	require.NoError(t, err)
	require.Equal(t, kernel.Timestamping(0x82), got)
	got, err = kernel.ParseTimestamping("0x82")
	require.NoError(t, err)
	require.Equal(t, kernel.Timestamping(0x82), got)
	_, err = kernel.ParseTimestamping("SOF_TIMESTAMPING_TX_SOFTWAR")
	require.EqualError(t, err, `unknown flag "SOF_TIMESTAMPING_TX_SOFTWAR"`)
	// String and Parse agree on every named flag union.
	all := kernel.Timestamping(0)
	for _, n := range kernel.TimestampingNames.Names() {
		v, _ := kernel.TimestampingNames.ByName(n)
		all |= v
	}
	back, err := kernel.ParseTimestamping(all.String())
	require.NoError(t, err)
	require.Equal(t, all, back)
	require.Equal(t, kernel.Timestamping(0x11fdf), all)
}

func TestClassify(t *testing.T) {
	const udplite, mptcp, sctp kernel.Protocol = 136, 262, 132
	tests := []struct {
		family kernel.Family
		typ    kernel.SockType
		proto  kernel.Protocol
		want   kernel.SocketClass
	}{
		{kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP, kernel.ClassTCP},
		{kernel.AF_INET6, kernel.SOCK_STREAM, kernel.IPPROTO_TCP, kernel.ClassTCP},
		{kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_IP, kernel.ClassTCP},
		{kernel.AF_INET, kernel.SOCK_STREAM | kernel.SOCK_NONBLOCK, kernel.IPPROTO_TCP, kernel.ClassTCP},
		{kernel.AF_INET, kernel.SOCK_STREAM, mptcp, kernel.ClassOther},
		{kernel.AF_INET, kernel.SOCK_STREAM, sctp, kernel.ClassOther},
		{kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP, kernel.ClassUDP},
		{kernel.AF_INET6, kernel.SOCK_DGRAM, kernel.IPPROTO_IP, kernel.ClassUDP},
		{kernel.AF_INET, kernel.SOCK_DGRAM | kernel.SOCK_CLOEXEC, kernel.IPPROTO_UDP, kernel.ClassUDP},
		{kernel.AF_INET, kernel.SOCK_DGRAM, udplite, kernel.ClassOther},
		{kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_ICMP, kernel.ClassOther},
		{kernel.AF_INET6, kernel.SOCK_DGRAM, kernel.IPPROTO_ICMPV6, kernel.ClassOther},
		{kernel.AF_INET, kernel.SOCK_RAW, kernel.IPPROTO_RAW, kernel.ClassRAW},
		{kernel.AF_INET, kernel.SOCK_RAW, kernel.IPPROTO_TCP, kernel.ClassRAW},
		{kernel.AF_INET6, kernel.SOCK_RAW, kernel.IPPROTO_UDP, kernel.ClassRAW},
		{kernel.AF_INET, kernel.SOCK_SEQPACKET, kernel.IPPROTO_IP, kernel.ClassOther},
		{kernel.AF_PACKET, kernel.SOCK_RAW, 0, kernel.ClassPacket},
		{kernel.AF_PACKET, kernel.SOCK_DGRAM, 0, kernel.ClassPacket},
		{kernel.AF_RDS, kernel.SOCK_SEQPACKET, 0, kernel.ClassRDS},
		{kernel.AF_UNIX, kernel.SOCK_STREAM, 0, kernel.ClassOther},
		{kernel.AF_UNIX, kernel.SOCK_DGRAM, 0, kernel.ClassOther},
		{kernel.AF_UNSPEC, kernel.SOCK_STREAM, kernel.IPPROTO_TCP, kernel.ClassOther},
		{kernel.AF_VSOCK, kernel.SOCK_STREAM, 0, kernel.ClassVsock},
		{kernel.AF_VSOCK, kernel.SOCK_SEQPACKET, 0, kernel.ClassVsock},
		{kernel.AF_VSOCK, kernel.SOCK_DGRAM, 0, kernel.ClassOther},
	}
	for _, tt := range tests {
		got := kernel.Classify(tt.family, tt.typ, tt.proto)
		require.Equal(t, tt.want, got, "socket(%v, %v, %d)", kernel.FamilyNames.Name(tt.family), tt.typ, tt.proto)
	}
}

func TestClassAndEndStrings(t *testing.T) {
	want := []string{"other", "tcp", "udp", "raw", "packet", "rds", "vsock", "class 7"}
	var got []string
	for c := kernel.ClassOther; c <= kernel.ClassVsock+1; c++ {
		got = append(got, c.String())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("class names (-want +got):\n%s", d)
	}
	require.Equal(t, "tail", kernel.QueueTail.String())
	require.Equal(t, "head", kernel.QueueHead.String())
}
