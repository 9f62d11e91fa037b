package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim"
)

// Regression tests for inputs a grammar-based generator found to panic,
// blow up or report the model's own mistakes as kernel behaviour.

// A frame held on its way off the host carries no skb: the leak check at
// quiescence must not follow it (it used to dereference nil). The held
// segment is a black hole: TCP retransmits until tcp_retries2 gives up.
func TestHeldFrameOffHost(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
hold s data
send s 4096 MSG_ZEROCOPY => 4096
`)
	requireOK(t, tr)
	event(t, tr, "retransmissions for tcp_model_timeout of 15 retries (924.6s) unanswered, connection aborted (ETIMEDOUT); s: notification [0,0] queued")
}

// A statement on the implicit peer of a socket that has none (AF_UNIX)
// gets EBADF, as on an fd of -1, instead of dereferencing nil.
func TestCallOnMissingPeer(t *testing.T) {
	tr := runSrc(t, `
socket u AF_UNIX SOCK_STREAM => 3
accept u.peer x => EBADF
listen u.peer => EBADF
`)
	requireOK(t, tr)
}

// After close(2) the descriptor names nothing: every call on it is EBADF
// (fdget), nothing is sent, no id is taken and no reference is touched.
func TestCallsAfterClose(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
close s => 0
send s 100 MSG_ZEROCOPY => EBADF
sendmsg s [10, 10] MSG_ZEROCOPY => EBADF
recvmsg s MSG_ERRQUEUE => EBADF
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => EBADF
close s => EBADF
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
connect u => 0
close u => 0
send u 100 MSG_ZEROCOPY => EBADF
sendmmsg u [100] [100] MSG_ZEROCOPY => EBADF
recv u 100 => EBADF
recv u.peer 1000 MSG_DONTWAIT => EAGAIN
`)
	requireOK(t, tr)
	require.NotContains(t, timeline(t, tr), "msg_zerocopy_alloc")
}

// A frame written after the packet socket was closed, through a mapping
// that outlived its ring, is no frame of the kernel's: a mismatch, no
// violation, and no nil ring dereferenced (zcsim check found the panic).
func TestTxFrameAfterClose(t *testing.T) {
	tr := runSrc(t, `
socket p AF_PACKET SOCK_DGRAM
setsockopt p SOL_PACKET PACKET_TX_RING [4096, 2, 2048, 4] => 0
mmap p => 0
close p => 0
txframe p 0 0
`)
	mismatches := 0
	for _, r := range tr.Records {
		require.Nil(t, r.Violation)
		if r.Mismatch != nil {
			mismatches++
		}
	}
	require.Equal(t, 1, mismatches, "the frame was not the program's to write")
}

// An orphaned connection whose FIN was acknowledged becomes a time-wait
// socket, which acknowledges the peer's FIN: the peer does not retransmit
// it to a socket that is gone.
func TestFinToTimeWait(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0 peer_read=auto
connect s => 0
send s 100 0 => 100
close s => 0
settle
`)
	requireOK(t, tr)
	event(t, tr, "s: FIN acknowledged by the time-wait socket")
	require.NotContains(t, timeline(t, tr), "retransmission timeout")
	// The peer delays the FIN's ACK (tcp_fin: pingpong mode), but not
	// as long as TCP_RTO_MIN.
	require.Less(t, tr.Records[len(tr.Records)-1].Summary.Time, int64(200e6))
}

// A corked datagram (MSG_MORE or UDP_CORK) left pending at the end is the
// socket's, not a leak; the exit's close flushes it.
func TestCorkedDatagramAtTheEnd(t *testing.T) {
	for _, src := range []string{
		"socket u AF_INET SOCK_DGRAM\nconnect u\nsend u 100 MSG_MORE => 100\n",
		"socket u AF_INET SOCK_DGRAM\nsetsockopt u SOL_UDP UDP_CORK 1\nconnect u\nsend u 100 MSG_ZEROCOPY => 100\n",
	} {
		requireOK(t, runSrc(t, src))
	}
}

// When skb_orphan_frags_rx cannot copy (skb_copy_ubufs fails) the
// receive path drops the skb (__netif_receive_skb_core, tun_net_xmit):
// user pages never reach a receive queue.
func TestOrphanFailureDropsTheFrame(t *testing.T) {
	for _, dev := range []string{"loopback", "tun"} {
		tr := runSrc(t, fmt.Sprintf(`
device d %s
socket s AF_INET SOCK_STREAM via=d
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
fault skb_copy_ubufs always
send s 4096 MSG_ZEROCOPY => 4096
recv s.peer 10000 MSG_DONTWAIT => EAGAIN
`, dev))
		requireOK(t, tr)
		event(t, tr, "s: a frame of 4096 bytes is dropped: ")
	}
}

// IP fragments are reassembled per datagram (ip_defrag keys on the IP
// id): a datagram that lost a fragment is never delivered, nor mixed with
// the next one, and ip_expire frees its fragments after ipfrag_time.
func TestReassemblyWithLoss(t *testing.T) {
	var b strings.Builder
	b.WriteString("device eth0 nic loss=0.3\nsocket u AF_INET SOCK_DGRAM via=eth0\nconnect u\n")
	for range 20 {
		b.WriteString("send u 2000 0 => 2000\n")
	}
	b.WriteString("settle\n")
	for range 20 {
		b.WriteString("recv u.peer 10000 MSG_DONTWAIT\n")
	}
	tr := runSrc(t, b.String())
	requireOK(t, tr)
	delivered := 0
	for _, e := range events(tr) {
		if e.Op == "recv" && e.Errno == "" {
			require.EqualValues(t, 2000, *e.Ret, e.Text)
			delivered++
		}
	}
	require.Positive(t, delivered)
	require.Less(t, delivered, 20, "with 30% loss some datagram lost a fragment")
	event(t, tr, "timed out (ip_expire)")
}

// "drop S data 0" drops nothing; the count left out drops one frame.
func TestDropCount(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
connect s => 0
drop s data 0
send s 100 0 => 100
settle
recv s.peer 1000 => 100
drop s data
send s 100 0 => 100
wait 1ms
recv s.peer 1000 MSG_DONTWAIT => EAGAIN
`)
	requireOK(t, tr)
	require.Equal(t, 1, strings.Count(timeline(t, tr), "s: a frame of 100 bytes is dropped by the scenario"))
}

// A name defined twice is an input error: the second definition would
// silently rebind it. The implicit task main and device lo may be
// redefined once.
func TestDuplicateNames(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"device eth0 nic\ndevice eth0 loopback\n", `test.zcs:2:8: device eth0 is already defined at line 1`},
		{"socket s AF_INET SOCK_STREAM\nsocket s AF_INET SOCK_DGRAM\n", `test.zcs:2:8: socket s is already defined at line 1`},
		{"socket s AF_INET SOCK_STREAM\nlisten s\naccept s s\n", `test.zcs:3:10: socket s is already defined at line 1`},
		{"user a uid=1\nuser a uid=2\n", `test.zcs:2:6: user a is already defined at line 1`},
		{"user a uid=1\ntask t user=a\ntask t user=a\n", `test.zcs:3:6: task t is already defined at line 2`},
		{"tap t on=lo\ntap t on=lo\n", `test.zcs:2:5: tap t is already defined at line 1`},
		{"device lo loopback\ndevice lo loopback\n", `test.zcs:2:8: device lo is already defined at line 1`},
	} {
		_, err := Run("test.zcs", []byte(c.src), Options{})
		require.ErrorContains(t, err, c.want, c.src)
	}
	requireOK(t, runSrc(t, "device lo loopback mtu=9000\nuser a uid=1\ntask main user=a memlock=1M\n"))
}

// sendmmsg takes at most UIO_MAXIOV messages (__sys_sendmmsg caps vlen).
func TestSendmmsgCap(t *testing.T) {
	src := "socket u AF_INET SOCK_DGRAM\nconnect u\nsendmmsg u" + strings.Repeat(" [1]", 1500) + " 0 => 1024\n"
	tr := runSrc(t, src)
	requireOK(t, tr)
	require.Equal(t, 1024, countOp(tr, "send"))
}

// countOp counts the events of one operation.
func countOp(tr *sim.Trace, op string) int {
	n := 0
	for _, e := range events(tr) {
		if e.Op == op {
			n++
		}
	}
	return n
}

// udp_send_skb refuses a datagram beyond UDP_MAX_SEGMENTS segments with
// EINVAL after __ip_append_data gave its skb the id: the failing call
// consumes the id and its notification follows (measured on Linux 6.18:
// the next send gets id 1 and the record reads [0,1], code 0).
func TestUDPSegmentFailureConsumesTheID(t *testing.T) {
	tr := runSrc(t, `
socket u AF_INET SOCK_DGRAM
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
setsockopt u SOL_UDP UDP_SEGMENT 1 => 0
sendto u 255 MSG_ZEROCOPY => EINVAL
setsockopt u SOL_UDP UDP_SEGMENT 0 => 0
sendto u 10 MSG_ZEROCOPY => 10
settle
recvmsg u MSG_ERRQUEUE => zerocopy [0,1]
`)
	requireOK(t, tr)
}

// zckey renumbers only a socket with no id in flight: renumbering under
// outstanding ids would hand an id out twice, which no kernel does.
func TestZckeyNeedsAnIdleSocket(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic txcomplete=manual
socket s AF_INET SOCK_DGRAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 100 MSG_ZEROCOPY => 100
zckey s 0
complete eth0
zckey s 7
send s 100 MSG_ZEROCOPY => 100
complete eth0
recvmsg s MSG_ERRQUEUE => zerocopy [0,0]
recvmsg s MSG_ERRQUEUE => zerocopy [7,7]
`)
	requireMismatches(t, tr, "test.zcs:6: a socket with no id in flight | 1 ids of s are not notified yet")
	require.Empty(t, violations(tr))
}

// What the network keeps below the sockets is no leak at quiescence, even
// after its socket is gone: frames held on a path, transmissions a device
// never completed (a vhost guest's legacy ubuf among them).
func TestPathSkbsAreRoots(t *testing.T) {
	for _, src := range []string{
		"socket s AF_INET SOCK_STREAM\nconnect s\nhold s data\nsend s 1 MSG_ZEROCOPY\n",
		"device eth1 nic txcomplete=manual\nvhost_send eth1 100\n",
	} {
		requireOK(t, runSrc(t, src))
	}
}

// A closed datagram socket was unhashed: a datagram for it is dropped,
// not charged to the dead socket's receive buffer.
func TestDatagramToAClosedSocket(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic txcomplete=manual
socket s AF_INET SOCK_DGRAM via=eth0
connect s => 0
send s 0 0 => 0
sendto s.peer 0 0 => 0
close s => 0
settle
complete eth0
`)
	requireOK(t, tr)
	event(t, tr, "s: closed, frame dropped")
}

// Load finds every input error Run would, and a loaded scenario runs the
// same every time.
func TestLoadThenRun(t *testing.T) {
	_, err := Load("test.zcs", []byte("send s 100 0\n"), Options{})
	require.ErrorContains(t, err, `test.zcs:1:6: undefined socket (at "s")`)
	sc, err := Load("test.zcs", []byte("socket u AF_INET SOCK_DGRAM\nconnect u\nsend u 100 0 => 100\n"), Options{Seed: 3})
	require.NoError(t, err)
	first, second := timeline(t, sc.Run()), timeline(t, sc.Run())
	require.Equal(t, first, second)
	require.Contains(t, first, "seed=3")
}

// A peer's receive buffer is at least SOCK_MIN_RCVBUF, as sock_setsockopt
// has it: a 4-byte buffer would offer windows of a byte or two and make a
// 192 KiB send a hundred thousand segments.
func TestPeerRcvbufFloor(t *testing.T) {
	tr := runSrc(t, `
socket s AF_INET SOCK_STREAM peer_rcvbuf=4 peer_read=auto
connect s => 0
expect s.peer rcvbuf=2304
send s 192K 0 => 196608
`)
	requireOK(t, tr)
	require.Less(t, countOp(tr, "deliver"), 1000)
}

// loopback_xmit gives a TX ring frame back (skb_orphan) before the receive
// softirq copies its frags, all inside the send call: no single-threaded
// program can see the frame early, so that is no violation. Without the
// nouarg mark (bug B3) the receiver keeps the ring pages, and it is.
func TestTxRingOverLoopback(t *testing.T) {
	const src = `
socket p AF_PACKET SOCK_RAW 0x0300
setsockopt p SOL_PACKET PACKET_TX_RING [4096, 1, 1024, 4] => 0
mmap p => 0
txframe p 0 600
send p 0 MSG_DONTWAIT => 600
txstatus p 0 => 0
`
	tr := runSrc(t, src)
	requireOK(t, tr)
	require.Contains(t, timeline(t, tr), "skb_copy_ubufs (loopback)")
	tr = runSrc(t, "bug packet-ring-no-copy\n"+strings.TrimLeft(src, "\n"))
	require.Contains(t, timeline(t, tr),
		"invariant notify-after-pages: skb#6: TX ring frame 0 returned to the user while ring pages are still referenced")
}

// A packet_snd that sleeps for send buffer says where: it has no ring, so
// not tpacket_snd.
func TestPacketSndBlocksInAllocSendPskb(t *testing.T) {
	tr := runSrc(t, `
profile rfc-v2
sysctl net.core.wmem_default 4608
device eth0 nic
socket p AF_PACKET SOCK_DGRAM via=eth0
send p 1500 MSG_ZEROCOPY => 1500
send p 1500 MSG_ZEROCOPY => 1500
`)
	requireOK(t, tr)
	require.Contains(t, timeline(t, tr), "send p 1500 MSG_ZEROCOPY blocks in sock_alloc_send_pskb")
}
