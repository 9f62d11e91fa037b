package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/sock"
)

// sendTo makes one MSG_FASTOPEN sendmsg of n bytes addressed to dest (nil:
// no msg_name) and returns its result.
func (p *pair) sendTo(flags kernel.MsgFlags, n int, dest *Dest) sock.SendResult {
	p.t.Helper()
	p.calls++
	iov := []mm.Iovec{{Buf: mm.NewBuffer(p.h, max(n, 1)), Len: n}}
	call := p.c.SendmsgTo(iov, flags|kernel.MSG_FASTOPEN, kernel.ObjectID{Kind: "sendmsg", Serial: p.calls}, dest)
	require.True(p.t, call.Done(), "call blocked")
	return call.Result()
}

// dest is the peer as a Fast Open destination; the cookie requests its
// connects made are appended to reqs.
func (p *pair) dest(cookie bool, reqs *[]bool) *Dest {
	return &Dest{Cookie: cookie, Connect: func(req bool) kernel.Errno {
		*reqs = append(*reqs, req)
		return p.handshake()
	}}
}

// tcp_sendmsg_fastopen's refusals come after the uarg, so each gives its
// id back: EOPNOTSUPP with client Fast Open off, EINVAL without a
// msg_name, EISCONN once connected (probed on Linux 6.18,
// probe/testdata/tcp-fastopen*.zcs).
func TestFastOpenRefusals(t *testing.T) {
	var reqs []bool
	p := unconnectedPair(t, "linux-6.18", true)
	p.c.Sk.Net.TCPFastOpen = 0
	zc := kernel.MSG_ZEROCOPY | kernel.MSG_DONTWAIT
	require.Equal(t, kernel.EOPNOTSUPP, p.sendTo(zc, 100, p.dest(false, &reqs)).Err)
	p.c.Sk.Net.TCPFastOpen = sock.TFOClientEnable
	require.Equal(t, kernel.EINVAL, p.sendTo(zc, 100, nil).Err)
	require.Empty(t, reqs, "no connect was tried")
	require.Equal(t, uint32(0), p.c.Sk.ZCKey(), "every id given back")

	require.Equal(t, kernel.EINPROGRESS, p.sendTo(zc, 100, p.dest(false, &reqs)).Err, "no cookie: the SYN asks for one")
	require.Equal(t, []bool{true}, reqs)
	require.Equal(t, uint32(0), p.c.Sk.ZCKey())
	require.Equal(t, sock.ESTABLISHED, p.c.Sk.State, "the handshake completed")
	r := p.sendTo(zc, 100, p.dest(false, &reqs))
	require.Equal(t, 100, r.N, "SS_CONNECTING: the next Fast Open send sends")
	require.False(t, r.Copied, "the socket has its route now")
	require.Equal(t, kernel.EISCONN, p.sendTo(zc, 100, p.dest(false, &reqs)).Err)
	require.Len(t, reqs, 1, "one connect")
}

// A non-blocking connect whose SYN a full accept queue dropped is still
// SS_CONNECTING in SYN_SENT: a MSG_FASTOPEN call that does not wait gets
// __inet_stream_connect's EALREADY, every time, its id given back, and
// connects nothing (probed on Linux 6.18,
// probe/testdata/tcp-fastopen-connecting.zcs).
func TestFastOpenWhileConnecting(t *testing.T) {
	var reqs []bool
	p := unconnectedPair(t, "linux-6.18", true)
	p.c.SynDropped(func() bool { return false })
	p.c.InProgress()
	zc := kernel.MSG_ZEROCOPY | kernel.MSG_DONTWAIT
	for range 2 {
		require.Equal(t, kernel.EALREADY, p.sendTo(zc, 100, p.dest(false, &reqs)).Err)
	}
	require.Empty(t, reqs, "no connect was tried")
	require.Equal(t, uint32(0), p.c.Sk.ZCKey(), "every id given back")
	require.Equal(t, sock.SYN_SENT, p.c.Sk.State)
	require.True(t, p.c.FinishConnect(), "sock->state stays SS_CONNECTING")
}

// With a cookie the SYN carries the data a page frag takes: a
// non-blocking call returns it, a blocking one sends the rest after the
// handshake; data in the SYN goes out whatever SEND_SHUTDOWN says. The
// older profiles copy at most SKB_MAX_HEAD(MAX_TCP_HEADER) into the SYN
// (and refuse MSG_ZEROCOPY before the connection is established).
func TestFastOpenSynData(t *testing.T) {
	for _, c := range []struct {
		profile string
		flags   kernel.MsgFlags
		size    int
		shut    bool
		want    int
	}{
		{"linux-6.18", kernel.MSG_ZEROCOPY | kernel.MSG_DONTWAIT, 200000, false, 32768},
		{"linux-6.18", kernel.MSG_ZEROCOPY | kernel.MSG_DONTWAIT, 100, false, 100},
		{"linux-6.18", kernel.MSG_ZEROCOPY, 65536, false, 65536},
		{"linux-6.18", kernel.MSG_ZEROCOPY, 65536, true, 32768},
		{"linux-5.0", kernel.MSG_DONTWAIT, 200000, false, 3456},
	} {
		var reqs []bool
		p := unconnectedPair(t, c.profile, true)
		if c.shut {
			p.c.Sk.Shutdown |= sock.SendShutdown
		}
		r := p.sendTo(c.flags, c.size, p.dest(true, &reqs))
		require.Equal(t, c.want, r.N, "%+v", c)
		require.Equal(t, c.flags&kernel.MSG_ZEROCOPY != 0, r.Copied, "no route when the call began")
		require.Equal(t, []bool{false}, reqs, "a cookie is cached: no request")
	}

	var reqs []bool
	p := unconnectedPair(t, "linux-6.18", true)
	p.c.Sk.Net.TCPFastOpen = sock.TFOClientEnable | sock.TFOClientNoCookie
	require.Equal(t, 4000, p.sendTo(kernel.MSG_DONTWAIT, 4000, p.dest(false, &reqs)).N)
	require.Equal(t, []bool{false}, reqs, "TFO_CLIENT_NO_COOKIE asks for none")
}

// A listener a shutdown stopped refuses MSG_FASTOPEN as it refuses
// connect, EINVAL, its id given back, and connects nothing (measured on
// Linux 6.18, probe/testdata/tcp-fastopen-listen-stopped.zcs); the 6.1
// source, linux-5.0's profile here, connects it.
func TestFastOpenListenStopped(t *testing.T) {
	var reqs []bool
	p := unconnectedPair(t, "linux-6.18", true)
	require.Equal(t, kernel.Errno(0), p.c.Listen(1))
	p.c.StopListening()
	zc := kernel.MSG_ZEROCOPY | kernel.MSG_DONTWAIT
	for range 2 {
		require.Equal(t, kernel.EINVAL, p.sendTo(zc, 100, p.dest(false, &reqs)).Err)
	}
	require.Empty(t, reqs, "no connect was tried")
	require.Equal(t, uint32(0), p.c.Sk.ZCKey(), "every id given back")
	require.Equal(t, sock.CLOSE, p.c.Sk.State)

	p = unconnectedPair(t, "linux-5.0", true)
	require.Equal(t, kernel.Errno(0), p.c.Listen(1))
	p.c.StopListening()
	require.Equal(t, kernel.EINPROGRESS, p.sendTo(kernel.MSG_DONTWAIT, 100, p.dest(false, &reqs)).Err)
	require.Equal(t, []bool{true}, reqs)
}
