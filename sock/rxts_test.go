package sock_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// Each option says which messages a receive of timestamped data writes,
// and the sockets that ask hold the host's switch on (one count each,
// whichever options, until they ask no more or are destroyed; SO_TIMESTAMP
// off keeps it).
func TestRxTimestampOptions(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.Sock(kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	u := e.Sock(kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	stamped := func() bool { return e.H.Netstamp.Stamp(1) == kernel.RxStampSet }
	types := func(s *sock.Sock) []string {
		var out []string
		for _, m := range s.RxTimestampCmsgs() {
			out = append(out, kernel.SockOptNames.Name(m.Type))
		}
		return out
	}
	require.False(t, stamped())
	require.Zero(t, s.Setsockopt(kernel.SO_TIMESTAMPNS_OLD, 1))
	require.True(t, stamped())
	require.Equal(t, []string{"SO_TIMESTAMPNS"}, types(s))
	require.Zero(t, s.Setsockopt(kernel.SO_TIMESTAMPING, int(kernel.SOF_TIMESTAMPING_RX_SOFTWARE|kernel.SOF_TIMESTAMPING_SOFTWARE)))
	require.Equal(t, []string{"SO_TIMESTAMPNS", "SO_TIMESTAMPING"}, types(s))
	v, _ := s.Getsockopt(kernel.SO_TIMESTAMPNS_OLD)
	require.Equal(t, 1, v)
	v, _ = s.Getsockopt(kernel.SO_TIMESTAMP_OLD)
	require.Equal(t, 0, v, "SO_TIMESTAMP reads back only what SO_TIMESTAMP set")
	require.Zero(t, s.Setsockopt(kernel.SO_TIMESTAMP_NEW, 1))
	require.Equal(t, []string{"SO_TIMESTAMP_NEW", "SO_TIMESTAMPING_NEW"}, types(s), "SOCK_TSTAMP_NEW for both")
	require.Zero(t, s.Setsockopt(kernel.SO_TIMESTAMP_NEW, 0))
	require.Zero(t, s.Setsockopt(kernel.SO_TIMESTAMPING, 0))
	require.Empty(t, types(s))
	require.True(t, stamped(), "SO_TIMESTAMP off keeps SOCK_TIMESTAMP")

	require.Zero(t, u.Setsockopt(kernel.SO_TIMESTAMPING_NEW, int(kernel.SOF_TIMESTAMPING_RX_SOFTWARE)))
	require.Empty(t, types(u), "generated, not reported")
	require.Zero(t, u.Setsockopt(kernel.SO_TIMESTAMPING_NEW, 0))
	s.Put() // destroyed: its count goes
	require.False(t, stamped())
}

// put_cmsg: no buffer or no room for a cmsghdr writes nothing; a message
// longer than the room is cut to it; the buffer moves on by CMSG_SPACE
// (measured on 6.18 through getsockopt(TCP_ZEROCOPY_RECEIVE)).
func TestRecvControlPut(t *testing.T) {
	ns := sock.RxCmsg{Type: kernel.SO_TIMESTAMPNS_OLD, DataLen: 16}
	ts := sock.RxCmsg{Type: kernel.SO_TIMESTAMPING, DataLen: 48}
	for _, tt := range []struct {
		in   sock.RecvControl
		want sock.RecvControl
	}{
		{sock.RecvControl{Null: true, Left: 100}, sock.RecvControl{Null: true, Left: 100, Ctrunc: true}},
		{sock.RecvControl{Left: 15}, sock.RecvControl{Left: 15, Ctrunc: true}},
		{sock.RecvControl{Left: 48}, sock.RecvControl{Left: 0, Used: 48, Ctrunc: true,
			Cmsgs: []sock.RxCmsg{{Type: ns.Type, DataLen: 16, Len: 32}, {Type: ts.Type, DataLen: 48, Len: 16}}}},
		{sock.RecvControl{Left: 127}, sock.RecvControl{Left: 31, Used: 96,
			Cmsgs: []sock.RxCmsg{{Type: ns.Type, DataLen: 16, Len: 32}, {Type: ts.Type, DataLen: 48, Len: 64}}}},
	} {
		c := tt.in
		c.Put(ns)
		c.Put(ts)
		if d := cmp.Diff(tt.want, c); d != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.in, d)
		}
	}
}

// A datagram read writes SO_TIMESTAMP's message whether or not the skb
// was stamped (__sock_recv_timestamp's false timestamp), and
// SO_TIMESTAMPING's only for a stamp, so a stamp the model cannot tell
// decides the answer only where SO_TIMESTAMP is off.
func TestDgramRxTimestampCmsgs(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	s := e.Sock(kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP)
	types := func(stamp kernel.RxStamp) ([]string, bool) {
		var out []string
		ms, und := s.DgramRxTimestampCmsgs(stamp)
		for _, m := range ms {
			out = append(out, kernel.SockOptNames.Name(m.Type))
		}
		return out, und
	}
	require.Zero(t, s.Setsockopt(kernel.SO_TIMESTAMPING, int(kernel.SOF_TIMESTAMPING_SOFTWARE)))
	got, und := types(kernel.RxStampNone)
	require.Empty(t, got)
	require.False(t, und)
	got, und = types(kernel.RxStampUndetermined)
	require.Equal(t, []string{"SO_TIMESTAMPING"}, got)
	require.True(t, und)
	require.Zero(t, s.Setsockopt(kernel.SO_TIMESTAMP_OLD, 1))
	got, und = types(kernel.RxStampNone)
	require.Equal(t, []string{"SO_TIMESTAMP", "SO_TIMESTAMPING"}, got)
	require.False(t, und)
	got, und = types(kernel.RxStampUndetermined)
	require.Equal(t, []string{"SO_TIMESTAMP", "SO_TIMESTAMPING"}, got)
	require.False(t, und)
}

// An accepted socket copies its listener's receive timestamp flags and
// holds the host's switch on by a count of its own (sk_clone_lock).
func TestInheritFlagsTakesRxTimestamps(t *testing.T) {
	e := skbtest.NewEnv(t, "linux-6.18")
	l := e.Sock(kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	c := e.Sock(kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	require.Zero(t, l.Setsockopt(kernel.SO_TIMESTAMPING_NEW, int(kernel.SOF_TIMESTAMPING_RX_SOFTWARE|kernel.SOF_TIMESTAMPING_SOFTWARE)))
	c.InheritFlags(l)
	require.Equal(t, []kernel.CmsgType{kernel.SO_TIMESTAMPING_NEW}, []kernel.CmsgType{c.RxTimestampCmsgs()[0].Type})
	require.Zero(t, l.Setsockopt(kernel.SO_TIMESTAMPING_NEW, 0))
	require.Equal(t, kernel.RxStampSet, e.H.Netstamp.Stamp(1), "the child holds the switch on after the listener let it go")
	require.Zero(t, c.Setsockopt(kernel.SO_TIMESTAMPING_NEW, 0))
	require.Equal(t, kernel.RxStampNone, e.H.Netstamp.Stamp(1))
}
