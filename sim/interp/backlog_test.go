package interp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// handshake is the far side's SYN and ACK of one connection to the
// scripted listener s, and the SYN-ACK between them.
const handshake = `
inject s SYN win=32792 mss=1000
packet tun0 SYN|ACK ack=1 mss=1460
inject s ACK ack=1 win=257
`

// A backlog of N lets N+1 handshakes complete (sk_acceptq_is_full is
// sk_ack_backlog > sk_max_ack_backlog); the next SYN is dropped and
// answered by nothing, and once accept made room the far side's
// retransmission of it is answered. Without backlog= the listen passes 1.
func TestAcceptQueueFull(t *testing.T) {
	for _, tc := range []struct {
		listen string
		fit    int
	}{
		{"listen s backlog=0 => 0", 1},
		{"listen s => 0", 2},
		{"listen s backlog=3 => 0", 4},
		// __sys_listen: a negative backlog, taken unsigned, is somaxconn.
		{"sysctl net.core.somaxconn 2\nlisten s backlog=-1 => 0", 3},
		{"sysctl net.core.somaxconn 2\nlisten s backlog=100 => 0", 3},
	} {
		t.Run(tc.listen, func(t *testing.T) {
			src := "device tun0 tun peer=script\nsocket s AF_INET SOCK_STREAM via=tun0\n" + tc.listen + "\n" +
				strings.Repeat(handshake, tc.fit) + `
inject s SYN win=32792 mss=1000
packet tun0 none
accept s c => 4
inject s SYN win=32792 mss=1000
packet tun0 SYN|ACK ack=1 mss=1460
`
			requireClean(t, src)
		})
	}
}

// A second listen changes the backlog of a listener. The ACK that would
// complete a handshake once the accept queue is full is dropped, the
// request kept for a later ACK; under net.ipv4.tcp_abort_on_overflow it
// is answered with a RST at its acknowledgment number and the request
// is gone.
func TestListenOverflow(t *testing.T) {
	const setup = `
device tun0 tun peer=script
socket s AF_INET SOCK_STREAM|SOCK_NONBLOCK via=tun0
listen s backlog=1 => 0
` + handshake + `
inject s SYN win=32792 mss=1000
packet tun0 SYN|ACK ack=1 mss=1460
listen s backlog=0 => 0
`
	requireClean(t, setup+`
inject s ACK ack=1 win=257
packet tun0 none
accept s c => 4
inject s ACK ack=1 win=257
accept s d => 5
send d 100 0 => 100
packet tun0 PSH|ACK seq=1 len=100 ack=1
`)
	requireClean(t, "sysctl net.ipv4.tcp_abort_on_overflow 1\n"+setup+`
inject s ACK ack=1 win=257
packet tun0 RST seq=1
packet tun0 none
accept s c => 4
accept s d => -1 EAGAIN
`)
}

// A blocking connect whose SYN finds the accept queue full sleeps while
// its SYN timer runs: with nothing to accept, the SYNs at 1, 2, 3, 4, 5,
// 7, 11, 19, 35 and 67 s go unanswered and the connect fails with
// ETIMEDOUT at 131 s (tcp_syn_retries 6: a budget of 127 s). Closing a
// client that waits in SYN_SENT stops its timer.
func TestClientSynTimeout(t *testing.T) {
	requireSynTimers(t, "", 1, 2, 3, 4, 5, 7, 11, 19, 35, 67, 131)
	// Before v6.5 the timeout doubles from the first retransmission.
	requireSynTimers(t, "profile linux-5.0\n", 1, 3, 7, 15, 31, 63, 127)
	// tcp_syn_retries 8: 127 s of doublings, then TCP_RTO_MAX twice (tcp_model_timeout), the timeout capped at it.
	requireSynTimers(t, "profile linux-5.0\nsysctl net.ipv4.tcp_syn_retries 8\n", 1, 3, 7, 15, 31, 63, 127, 247, 367)
}

// requireSynTimers runs a blocking client whose SYN finds the accept
// queue full and checks when its SYN timer fired, in seconds.
func requireSynTimers(t *testing.T, head string, want ...int64) {
	t.Helper()
	tr := runSrc(t, head+`
socket l AF_INET SOCK_STREAM
listen l backlog=0 => 0
socket a AF_INET SOCK_STREAM to=l
connect a => 0
socket b AF_INET SOCK_STREAM to=l
connect b => -1 ETIMEDOUT
socket c AF_INET SOCK_STREAM|SOCK_NONBLOCK to=l
connect c => -1 EINPROGRESS
close c => 0
settle
`)
	requireOK(t, tr)
	var fired []int64
	for _, r := range tr.Records {
		if r.Event != nil && strings.Contains(r.Event.Text, "SYN timer fires") {
			fired = append(fired, r.Event.Time/1e9)
		}
	}
	require.Equal(t, want, fired)
}

// A client's to= names a TCP socket of its family defined before, and
// takes no via=.
func TestClientResolve(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"socket a AF_INET SOCK_STREAM to=l", `to= names no TCP socket defined before`},
		{"socket l AF_INET6 SOCK_STREAM\nsocket a AF_INET SOCK_STREAM to=l", `to= names a socket of another family`},
		{"socket l AF_INET SOCK_STREAM\nsocket a AF_INET SOCK_DGRAM to=l", `to= needs a TCP socket`},
		{"socket l AF_INET SOCK_STREAM\nsocket a AF_INET SOCK_STREAM via=lo to=l", `to= and via= together`},
	} {
		_, err := Load("t.zcs", []byte(tc.src+"\n"), Options{})
		require.ErrorContains(t, err, tc.want, tc.src)
	}
}

// Closing a listener, or SHUT_RD, resets each connection still in its
// accept queue (inet_csk_listen_stop, inet_child_forget): the far side
// sees a RST|ACK from each queued child, none from one accepted before.
func TestListenStopResetsQueued(t *testing.T) {
	for _, stop := range []string{"close s => 0", "shutdown s SHUT_RD => 0"} {
		t.Run(stop, func(t *testing.T) {
			requireClean(t, "device tun0 tun peer=script\nsocket s AF_INET SOCK_STREAM via=tun0\nlisten s backlog=2 => 0\n"+
				strings.Repeat(handshake, 2)+`
accept s c => 4
`+stop+`
packet tun0 RST|ACK seq=1 ack=1
packet tun0 none
send c 10 0 => 10
packet tun0 PSH|ACK seq=1 len=10 ack=1
`)
		})
	}
}

// A queued child that a reset ended (tcp_done) keeps the data it had
// received for its accept; the listener's close then forgets it, and
// tcp_disconnect purges that data with the child, so the child is not
// destroyed still charged for it (found by zcsim check, seed 847).
func TestListenStopPurgesResetChild(t *testing.T) {
	requireClean(t, `socket s1 AF_INET6 SOCK_STREAM
listen s1
socket s2 AF_INET6 SOCK_STREAM to=s1
connect s2
hold s2 data
sendmsg s2 [1] 0
recv s2 0 => -1 ETIMEDOUT
release s2 data
close s1 => 0
`)
}

// The ACKs of a send wait on the sender's backlog and reach tcp_ack
// merged (tcp_add_backlog), so the first one's larger window never
// raises max_window and the MSS stays half the first ACK's 65536 bytes;
// a packet tap that reads its copies later holds a clone of each ACK,
// skb_try_coalesce refuses the cloned tail, and the sender sees both.
func TestBacklogMergesAcks(t *testing.T) {
	for _, tc := range []struct {
		tap string
		mss int
	}{
		{"", 32768},
		{"tap dump on=lo", 32768},
		{"tap dump on=lo delay=1ms", 47104},
	} {
		t.Run(tc.tap, func(t *testing.T) {
			requireClean(t, tc.tap+`
socket s AF_INET SOCK_STREAM
connect s => 0
send s 7 0 => 7
send s 69632 0 => 69632
getsockopt s IPPROTO_TCP TCP_INFO => 0 tcpi_snd_mss=`+strconv.Itoa(tc.mss)+"\n")
		})
	}
}

// Two ACKs merge only with the same options, and their timestamps count
// milliseconds, one of which may begin between them: a merge on a
// connection that uses timestamps that drops the window that would have
// moved the MSS is noted undetermined, one without them is not; with
// AcksApart the two are processed one by one, and the sender's MSS
// becomes half the first one's 95232 bytes, as in the kernel's runs that
// did not merge them.
func TestBacklogMergeUndetermined(t *testing.T) {
	const src = `socket s AF_INET SOCK_STREAM
connect s => 0
send s 7 0 => 7
send s 69632 0 => 69632
recvmsg s.peer 0 => 65536
send s 65508 0 => 65508
`
	for _, tc := range []struct {
		sysctl string
		noted  bool
	}{{"", true}, {"sysctl net.ipv4.tcp_timestamps 0\n", false}} {
		tr := runSrc(t, tc.sysctl+src+"getsockopt s IPPROTO_TCP TCP_INFO => 0 tcpi_snd_mss=32768\n")
		requireOK(t, tr)
		noted := false
		for _, e := range events(tr) {
			for _, tc := range e.Touched {
				noted = noted || tc.Entry.Op == kernel.OpBacklogUndetermined && strings.HasPrefix(tc.Text(), "tcp_add_backlog: undetermined: the kernel merges two pure ACKs")
			}
		}
		require.Equal(t, tc.noted, noted, "%q", tc.sysctl)
	}
	requireOK(t, runSrc(t, src+"getsockopt s IPPROTO_TCP TCP_INFO => 0 tcpi_snd_mss=47616\nrecv s.peer 64K => 51719\n", Options{AcksApart: true}))
}

// getsockopt(TCP_ZEROCOPY_RECEIVE) writes inq after release_sock: the
// data its own window update let the peer send, which waited on the
// backlog meanwhile, is counted (measured on Linux 6.18: 92160 and 63488
// bytes, where counting before the backlog runs gives 59392 and 32768).
func TestZerocopyReceiveInqAfterBacklog(t *testing.T) {
	requireClean(t, `
device lo0 loopback mtu=61492
socket s AF_INET SOCK_STREAM via=lo0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
mmap s.peer 1M PROT_READ => 0
send s 200000 MSG_ZEROCOPY => 200000
settle
getsockopt s.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE copybuf=8192 => 28672
expect s.peer inq=90112
getsockopt s.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE copybuf=8192 => 28672
expect s.peer inq=92160
getsockopt s.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE => 28672
recv s.peer 2048 MSG_DONTWAIT => 2048
getsockopt s.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE => 28672
expect s.peer inq=63488
`)
}
