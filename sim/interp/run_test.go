package interp

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sock"
)

// runSrc runs a scenario given as text and returns its trace.
func runSrc(t *testing.T, src string, opts ...Options) *sim.Trace {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	tr, err := Run("test.zcs", []byte(strings.TrimLeft(src, "\n")), o)
	require.NoError(t, err)
	return tr
}

// pick returns the records' field that get selects, where set.
func pick[T any](tr *sim.Trace, get func(sim.Record) *T) []*T {
	var out []*T
	for _, r := range tr.Records {
		if v := get(r); v != nil {
			out = append(out, v)
		}
	}
	return out
}

func mismatches(tr *sim.Trace) []*sim.Mismatch {
	return pick(tr, func(r sim.Record) *sim.Mismatch { return r.Mismatch })
}

func violations(tr *sim.Trace) []*sim.Violation {
	return pick(tr, func(r sim.Record) *sim.Violation { return r.Violation })
}

func events(tr *sim.Trace) []*sim.Event {
	return pick(tr, func(r sim.Record) *sim.Event { return r.Event })
}

// event returns the first event whose text contains text.
func event(t *testing.T, tr *sim.Trace, text string) *sim.Event {
	t.Helper()
	for _, e := range events(tr) {
		if strings.Contains(e.Text, text) {
			return e
		}
	}
	t.Fatalf("no event says %q in:\n%s", text, timeline(t, tr))
	return nil
}

func timeline(t *testing.T, tr *sim.Trace) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, tr.WriteText(&b, true))
	return b.String()
}

// requireOK fails unless every expectation and invariant held.
func requireOK(t *testing.T, tr *sim.Trace) {
	t.Helper()
	if !tr.OK() {
		t.Fatalf("run failed:\n%s", timeline(t, tr))
	}
}

// requireMismatches fails unless the run's mismatches are exactly want,
// each as "line: expected | got".
func requireMismatches(t *testing.T, tr *sim.Trace, want ...string) {
	t.Helper()
	var got []string
	for _, m := range mismatches(tr) {
		got = append(got, m.Source+": "+m.Expected+" | "+m.Got)
	}
	require.Equal(t, want, got, timeline(t, tr))
}

func TestHoldAndReleaseData(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
hold s data
send s 4096 MSG_ZEROCOPY => 4096
wait 1ms
expect s.peer queued=0
expect s unacked=1 locked_vm=3
recvmsg s MSG_ERRQUEUE => EAGAIN     # the pages wait on the held path
release s data
wait 100us
expect s.peer queued=4096
recvmsg s MSG_ERRQUEUE => zerocopy [0,0]
`)
	requireOK(t, tr)
	// Released at 1ms: delivered 50us later, ACKed 50us after that.
	require.EqualValues(t, 1050*engine.Microsecond, event(t, tr, "s.peer receives seq 0..4096").Time)
	require.EqualValues(t, 1100*engine.Microsecond, event(t, tr, "notification [0,0] queued").Time)
}

func TestHoldAndReleaseAcks(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
hold s ack
send s 4096 MSG_ZEROCOPY => 4096
wait 100ms
expect s.peer queued=4096
recvmsg s MSG_ERRQUEUE => EAGAIN
release s ack
wait 50us
recvmsg s MSG_ERRQUEUE => zerocopy [0,0]
`)
	requireOK(t, tr)
}

// A dropped ACK leaves the data unacknowledged until the tail loss probe
// resends its last MSS (2·srtt + 2ms, a jiffy at HZ 250) and the
// duplicate is acknowledged.
func TestDropAck(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
drop s ack
send s 4096 MSG_ZEROCOPY => 4096
wait 1ms
expect s.peer queued=4096
expect s unacked=1
recvmsg s MSG_ERRQUEUE => EAGAIN
settle
recvmsg s MSG_ERRQUEUE => zerocopy [0,0]
`)
	requireOK(t, tr)
	probe := event(t, tr, "tcp_send_loss_probe sent a probe")
	require.EqualValues(t, 4*engine.Millisecond, probe.Time)
	require.Equal(t, "loss_probe", probe.Op)
	require.Greater(t, event(t, tr, "notification [0,0] queued").Time, probe.Time)
}

// Segments lost for good: after tcp_retries2 timeouts the connection is
// aborted, and the uarg is released with the write queue.
func TestRetransmissionsExhausted(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
drop s data 100
send s 4096 MSG_ZEROCOPY => 4096
settle
recvmsg s MSG_ERRQUEUE => zerocopy [0,0]
expect s locked_vm=0
`)
	requireOK(t, tr)
	require.Contains(t, timeline(t, tr), "retransmission timeout 15,")
	require.Equal(t, "rto", event(t, tr, "retransmissions for tcp_model_timeout of 15 retries (924.6s) unanswered, connection aborted (ETIMEDOUT)").Op)
}

// A later segment that arrives before a lost one is dropped as out of
// order and re-sent after the timeout. Without GRO each segment goes up
// alone and is acknowledged again.
func TestOutOfOrder(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic tso=off gro=off
socket s AF_INET SOCK_STREAM via=eth0
connect s => 0
drop s data 1
send s 4000 0 => 4000                # three segments, the first lost
settle
expect s.peer queued=4000
`)
	requireOK(t, tr)
	require.Contains(t, timeline(t, tr), "s.peer receives seq 1448..2896 (not the next expected: dropped, to be acknowledged)")
}

// A device with manual TX completion holds every frame until complete.
func TestManualTxCompletion(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic txcomplete=manual
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
connect u => 0
send u 1000 MSG_ZEROCOPY => 1000
send u 1000 MSG_ZEROCOPY => 1000
send u 1000 MSG_ZEROCOPY => 1000
settle
recvmsg u MSG_ERRQUEUE => EAGAIN
complete eth0 1
recvmsg u MSG_ERRQUEUE => zerocopy [0,0]
complete eth0                        # all the rest
recvmsg u MSG_ERRQUEUE => zerocopy [1,2]
complete eth0                        # nothing left: a no-op
recv u.peer 2000 => 1000
`)
	requireOK(t, tr)

	p, err := kernel.Lookup("linux-6.18")
	require.NoError(t, err)
	w := sim.New(p, 1)
	dev := sim.DefaultDevice("eth0", sim.NIC)
	dev.ManualTx = true
	w.AddDevice(dev)
	require.Same(t, dev, w.Device("eth0"))
	require.Equal(t, 0, w.Complete(dev, 0))
}

// Fault sites are armed from a scenario: the rule counts the site's calls
// from the start of the run (nth) or from arming (next).
func TestFaultSites(t *testing.T) {
	tr := runSrc(t, `
fault sock_omalloc nth=1
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 4096 MSG_ZEROCOPY => ENOBUFS    # sock_omalloc's first call fails
send s 4096 MSG_ZEROCOPY => 4096       # id 0: the failed call took none
fault sock_omalloc next=1
send s 4096 MSG_ZEROCOPY => -1 ENOBUFS
fault sock_omalloc never
send s 4096 MSG_ZEROCOPY => 4096
settle
recvmsg s MSG_ERRQUEUE => zerocopy [0,1]
`)
	requireOK(t, tr)
	require.Equal(t, "sock_omalloc failed: the scenario's fault site", event(t, tr, "-1 ENOBUFS").Why)
}

// A datagram larger than the MTU leaves in IP fragments, which the
// receiver reassembles before queueing it.
func TestUDPFragmentation(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic mtu=1500
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
connect u => 0
send u 4000 MSG_ZEROCOPY => 4000
settle
expect u.peer queued=1
recv u.peer 5000 => 4000
recv u.peer 5000 MSG_DONTWAIT => EAGAIN
recvmsg u MSG_ERRQUEUE => zerocopy [0,0] copied   # no checksum offload beyond the MTU
`)
	requireOK(t, tr)
	text := timeline(t, tr)
	require.Equal(t, 2, strings.Count(text, "u.peer receives an IP fragment of"), text)
	require.Contains(t, text, "u.peer receives a datagram of 4000 bytes")
}

// A full receive buffer drops a datagram; an auto-reading peer never fills.
func TestUDPReceiveBuffer(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket u AF_INET SOCK_DGRAM via=eth0 peer_rcvbuf=2K
socket v AF_INET SOCK_DGRAM via=eth0 peer_read=auto
connect u => 0
connect v => 0
send u 1000 0 => 1000
send u 1000 0 => 1000
send u 1000 0 => 1000
send v 1000 0 => 1000
send v 1000 0 => 1000
settle
expect v.peer queued=0
recv u.peer 100 => 100             # truncated
recv u.peer 100 MSG_DONTWAIT => EAGAIN
`)
	requireOK(t, tr)
	require.Contains(t, timeline(t, tr), "u.peer: receive buffer full, datagram of 1000 bytes dropped")
}

// A child socket of accept inherits the listener's SO_ZEROCOPY.
func TestAcceptInheritsZerocopy(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket l AF_INET SOCK_STREAM via=eth0 peer_read=auto
setsockopt l SOL_SOCKET SO_ZEROCOPY 1 => 0
accept l early => EINVAL              # not listening yet
listen l => 0
accept l c => 4
expect c zerocopy=1 state=TCP_ESTABLISHED
expect c.peer zerocopy=0
send c 4096 MSG_ZEROCOPY => 4096
settle
recvmsg c MSG_ERRQUEUE => zerocopy [0,0]
expect c.peer queued=0                # the peer reads as it arrives
`)
	requireOK(t, tr)

	tr = runSrc(t, `
socket l AF_INET SOCK_STREAM
listen l => 0
accept l c => 4
expect c zerocopy=0
send c 4096 MSG_ZEROCOPY => 4096
settle
recvmsg c MSG_ERRQUEUE => EAGAIN
`)
	requireOK(t, tr)
}

func TestShutdown(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
socket u AF_INET SOCK_DGRAM via=eth0
connect s => 0
shutdown s SHUT_RD => 0
send s 100 0 => 100
shutdown s SHUT_WR => 0
send s 100 0 => EPIPE
shutdown u SHUT_RDWR => ENOTCONN
settle
recv s.peer 1000 => 100
recv s.peer 1000 => 0                 # FIN: end of stream
`)
	requireOK(t, tr)
	require.Contains(t, timeline(t, tr), "s.peer receives seq 100..100 FIN")
}

func TestGetsockopt(t *testing.T) {
	tr := runSrc(t, `
socket s AF_INET SOCK_STREAM
socket u AF_INET SOCK_DGRAM
getsockopt s SOL_SOCKET SO_ZEROCOPY => 0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
getsockopt s SOL_SOCKET SO_ZEROCOPY => 1
setsockopt s IPPROTO_TCP TCP_CORK 1 => 0
getsockopt s IPPROTO_TCP TCP_CORK => 1
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
getsockopt u SOL_SOCKET SO_ZEROCOPY => 1
`)
	requireOK(t, tr)
	e := event(t, tr, "getsockopt s IPPROTO_TCP TCP_CORK")
	require.Equal(t, "getsockopt", e.Op)
	require.Equal(t, "s", e.Socket)
	require.EqualValues(t, 1, *e.Ret)
}

// Every state key an expect statement can check, and the mismatches a
// wrong one reports.
func TestExpect(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
hold s ack
send s 4096 MSG_ZEROCOPY => 4096
wait 1ms
expect s zckey=1 zerocopy=1 optmem=832 errqueue=0 locked_vm=3 unsent=0 unacked=1 state=TCP_ESTABLISHED
expect s.peer queued=4096 zerocopy=0
expect s zckey=2
expect s state=TCP_CLOSE
expect s wmem=1 wmem_queued=0 sndbuf=0 rcvbuf=0 refcnt=0
`)
	requireMismatches(t, tr,
		"test.zcs:10: zckey=2 | zckey=1",
		"test.zcs:11: state=TCP_CLOSE | state=TCP_ESTABLISHED",
		"test.zcs:12: wmem=1 | wmem=0",
		"test.zcs:12: wmem_queued=0 | wmem_queued=4928",
		"test.zcs:12: sndbuf=0 | sndbuf=130560",
		"test.zcs:12: rcvbuf=0 | rcvbuf=131072",
		"test.zcs:12: refcnt=0 | refcnt=3",
	)
	require.Empty(t, violations(tr))
	sum := tr.Records[len(tr.Records)-1].Summary
	require.NotNil(t, sum)
	require.Equal(t, sim.Summary{Steps: sum.Steps, Time: sum.Time, Mismatches: 7}, *sum)
}

// Every wrong call expectation says what was expected and what came.
func TestCallMismatches(t *testing.T) {
	tr := runSrc(t, `
socket s AF_INET SOCK_STREAM
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
setsockopt s SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_SOFTWARE|SOF_TIMESTAMPING_OPT_TSONLY => 0
connect s => 0
send s 100 MSG_ZEROCOPY => 99
send s 100 MSG_ZEROCOPY => EPIPE
settle
recvmsg s MSG_ERRQUEUE => zerocopy [0,1]
recvmsg s MSG_ERRQUEUE => timestamp SCM_TSTAMP_ACK
recvmsg s MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND key=0
recvmsg s MSG_ERRQUEUE => 0
recvmsg s MSG_ERRQUEUE => EAGAIN
recvmsg s MSG_ERRQUEUE => 0
`)
	requireMismatches(t, tr,
		"test.zcs:5: 99 | 100",
		"test.zcs:6: -1 EPIPE | 100",
		"test.zcs:8: zerocopy [0,1] | timestamp SCM_TSTAMP_SND key=0",
		"test.zcs:9: timestamp SCM_TSTAMP_ACK | zerocopy [0,0] COPIED",
		"test.zcs:13: 0 | -1 EAGAIN",
	)
}

// A blocking send the network can never wake: the peer's window is shut
// and nothing is in flight, so only the probe timer runs, and the peer
// answers its probes with the same window (tcp.Conn.Persisting).
func TestBlockedSend(t *testing.T) {
	src := `
sysctl net.ipv4.tcp_wmem 4096 16384 16384
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0 peer_rcvbuf=4K
connect s => 0
send s 1M 0
`
	tr := runSrc(t, src)
	require.False(t, tr.OK())
	ms := mismatches(tr)
	require.Len(t, ms, 1, timeline(t, tr))
	require.Equal(t, "test.zcs:5", ms[0].Source)
	require.Equal(t, "the call to return", ms[0].Expected)
	require.Contains(t, ms[0].Got, "blocks forever")
	require.Contains(t, timeline(t, tr), "send s 1M 0 blocks in sk_stream_wait_memory")

	// The same on the sim.World: sim.Result.Blocked, the bytes queued so far.
	p, err := kernel.Lookup("linux-6.18")
	require.NoError(t, err)
	w := sim.New(p, 1)
	w.Net.TCPWmem = [3]int{4096, 16384, 16384}
	dev := sim.DefaultDevice("eth0", sim.NIC)
	w.AddDevice(dev)
	s, r := w.NewSocket(sim.Call{}, "s", w.Task("main"), kernel.AF_INET, kernel.SOCK_STREAM, 0, dev, sim.PeerOptions{Rcvbuf: 4096})
	require.Zero(t, r.Errno)
	require.Zero(t, w.Connect(sim.Call{}, s).Errno)
	r = w.Send(sim.Call{Text: "send"}, s, []int{1 << 20}, 0)
	require.True(t, r.Blocked)
	require.Positive(t, r.Ret)
	require.Less(t, r.Ret, int64(1<<20))
}

// Over loopback the peer answers the zero-window probes of a blocked
// send for ever, as Linux's does, with the same window: the send ends
// blocked once only those probes are left (sim.World.RunNext). A settle
// leaves them pending too, and a wait lets them go, each doubling the
// next (tcpi_backoff). persist-blocked-send.zcs is the generated
// scenario whose blocking sendmmsg once waited for ever on such probes.
func TestBlockedSendPersisting(t *testing.T) {
	tr := runSrc(t, `
socket s AF_INET SOCK_STREAM
connect s => 0
send s 8M 0
`)
	ms := mismatches(tr)
	require.Len(t, ms, 1, timeline(t, tr))
	require.Equal(t, "test.zcs:3", ms[0].Source)
	require.Contains(t, ms[0].Got, "blocks forever")
	require.Contains(t, timeline(t, tr), "window 0")

	tr = runSrc(t, `
socket s AF_INET SOCK_STREAM
connect s => 0
send s 8M MSG_DONTWAIT
settle
getsockopt s IPPROTO_TCP TCP_INFO => 0 tcpi_unacked=0 tcpi_backoff=0
wait 1s
getsockopt s IPPROTO_TCP TCP_INFO => 0 tcpi_unacked=0 tcpi_backoff=2
`)
	requireOK(t, tr)
	require.Contains(t, timeline(t, tr), "zero-window probe (tcp_xmit_probe_skb)")

	src, err := os.ReadFile("testdata/persist-blocked-send.zcs")
	require.NoError(t, err)
	tr, err = Run("persist-blocked-send.zcs", src, Options{Seed: 19})
	require.NoError(t, err)
	require.Contains(t, timeline(t, tr), "blocks in sk_stream_wait_memory")
}

// A blocking receive lets the network run until data arrives.
func TestBlockingRecv(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic delay=1ms
socket s AF_INET SOCK_STREAM via=eth0
socket u AF_INET SOCK_DGRAM via=eth0
connect s => 0
connect u => 0
send s 100 0 => 100
recv s.peer 1000 MSG_DONTWAIT => EAGAIN
recv s.peer 1000 => 100
send u 200 0 => 200
recv u.peer 1000 => 200
recv s 1000 MSG_DONTWAIT => EAGAIN
`)
	requireOK(t, tr)
	require.EqualValues(t, engine.Millisecond, event(t, tr, "recv s.peer 1000 = 100").Time)
	require.EqualValues(t, 2*engine.Millisecond, event(t, tr, "recv u.peer 1000 = 200").Time)
}

// On a tun device the frames go to user space: tun_net_xmit copies the
// frags and the notification says COPIED.
func TestTunCopies(t *testing.T) {
	tr := runSrc(t, `
device tun0 tun
socket s AF_INET SOCK_STREAM via=tun0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 8192 MSG_ZEROCOPY => 8192
settle
recvmsg s MSG_ERRQUEUE => zerocopy [0,0] copied
expect s locked_vm=0 optmem=0
`)
	requireOK(t, tr)
	require.Equal(t, "tun", sim.Tun.String())
}

// RLIMIT_MEMLOCK and CAP_IPC_LOCK, set by calls.
func TestMemlockCalls(t *testing.T) {
	tr := runSrc(t, `
user app uid=2000
task t user=app memlock=8K
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0 task=t
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 4096 MSG_ZEROCOPY => ENOBUFS     # 3 pages > 2
capset t CAP_IPC_LOCK => 0
send s 4096 MSG_ZEROCOPY => 4096
capdrop t CAP_IPC_LOCK => 0
setrlimit t RLIMIT_MEMLOCK 0 => 0
send s 4096 MSG_ZEROCOPY => ENOBUFS
setrlimit t RLIMIT_MEMLOCK unlimited => EINVAL   # above the hard limit, 8K
setrlimit t RLIMIT_MEMLOCK 8K 4K => EINVAL       # soft above hard
setrlimit t RLIMIT_MEMLOCK 4K 16K => EPERM       # raising the hard limit
setrlimit t RLIMIT_MEMLOCK 0 4K => 0
setrlimit t RLIMIT_MEMLOCK 8K => EINVAL          # the hard limit is 4K now
capset t CAP_IPC_LOCK => 0
send s 4096 MSG_ZEROCOPY => 4096
settle
recvmsg s MSG_ERRQUEUE => zerocopy [0,1]
`)
	requireOK(t, tr)
	require.Equal(t, "mm_account_pinned_pages refused: locked_vm 0 + 3 pages > RLIMIT_MEMLOCK 2 pages", event(t, tr, "ENOBUFS").Why)
}

// sendmsg, sendmmsg and sendto take the same path as send.
func TestSendVariants(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
connect u => 0
sendto u 100 MSG_ZEROCOPY => 100
sendmsg u [100, 200] MSG_ZEROCOPY => 300
sendmmsg u [100] [200, 300] MSG_ZEROCOPY => 2
sendmmsg u [70000] [1] MSG_ZEROCOPY => EMSGSIZE
bind u => 0
settle
recvmsg u MSG_ERRQUEUE => zerocopy [0,3]
`)
	requireOK(t, tr)
	require.Contains(t, timeline(t, tr), "sendmmsg u [100] [200, 300] MSG_ZEROCOPY (message 1) = 500")
}

// Sysctls change the defaults of sockets created after them.
func TestSysctls(t *testing.T) {
	tr := runSrc(t, `
sysctl net.core.optmem_max 1000
sysctl net.core.wmem_max 1M
sysctl net.core.rmem_max 1M
sysctl net.core.wmem_default 8192
sysctl net.core.rmem_default 4096
sysctl net.ipv4.tcp_wmem 4096 32768 65536
sysctl net.ipv4.tcp_rmem 4096 65536 131072
socket u AF_INET SOCK_DGRAM
expect u sndbuf=8192 rcvbuf=4096
socket s AF_INET SOCK_STREAM
expect s sndbuf=32768 rcvbuf=65536
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 100 MSG_ZEROCOPY => 100
send s 100 MSG_ZEROCOPY => ENOBUFS     # 832 + 576 > 1000
`)
	requireOK(t, tr)
	p, err := kernel.Lookup("linux-6.18")
	require.NoError(t, err)
	w := sim.New(p, 1)
	require.Equal(t, "linux-6.18", w.Profile().Name)
}

// socket(2) refuses what inet_create, packet_create and friends refuse.
func TestSocketCreation(t *testing.T) {
	tr := runSrc(t, `
socket a AF_INET SOCK_STREAM IPPROTO_UDP => EPROTONOSUPPORT
socket b AF_INET SOCK_DGRAM IPPROTO_TCP => EPROTONOSUPPORT
socket c AF_INET SOCK_RAW => EPROTONOSUPPORT
socket d AF_INET SOCK_SEQPACKET => ESOCKTNOSUPPORT
socket e AF_PACKET SOCK_STREAM => ESOCKTNOSUPPORT
socket e2 AF_UNIX SOCK_RAW 1 => 3      # a SOCK_DGRAM socket
close e2
socket f AF_UNIX SOCK_STREAM 2 => EPROTONOSUPPORT
socket g AF_RDS SOCK_STREAM => ESOCKTNOSUPPORT
socket h AF_INET6 SOCK_DGRAM IPPROTO_UDP => 3
socket i AF_PACKET SOCK_RAW => 4     # the lowest free descriptor
socket j AF_UNIX SOCK_STREAM => 5
socket k AF_RDS SOCK_SEQPACKET => 6
socket l AF_INET SOCK_RAW IPPROTO_UDP => 7
socket m AF_INET SOCK_DGRAM|SOCK_NONBLOCK => 8
recv m.peer 100 => EAGAIN          # non-blocking: no wait
`)
	requireOK(t, tr)
}

// Calls a socket kind does not support fail with the kernel's errno.
func TestUnsupportedCalls(t *testing.T) {
	tr := runSrc(t, `
socket p AF_PACKET SOCK_RAW
socket x AF_UNIX SOCK_STREAM
socket u AF_INET SOCK_DGRAM
connect p => EOPNOTSUPP
listen u => EOPNOTSUPP
send x 100 0 => ENOTCONN
recv x 100 MSG_DONTWAIT => EINVAL
shutdown p SHUT_WR => EOPNOTSUPP
shutdown x SHUT_RDWR => 0
setsockopt x SOL_SOCKET SO_ZEROCOPY 1 => EOPNOTSUPP
setsockopt p SOL_SOCKET SO_ZEROCOPY 1 => EOPNOTSUPP
getsockopt p SOL_SOCKET SO_ZEROCOPY => 0
close x => 0
close x => EBADF
recv p 100 MSG_DONTWAIT => EAGAIN
`)
	requireOK(t, tr)
}

// The program's exit closes every open socket, the network settles, and
// nothing is left.
func TestExitClosesOpenSockets(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic txcomplete=manual
socket s AF_INET SOCK_STREAM via=eth0
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 4096 MSG_ZEROCOPY => 4096
close u => 0
`)
	requireOK(t, tr)
	exit := event(t, tr, "exit: ")
	require.Equal(t, "exit", exit.Op)
	require.Equal(t, "exit: the program's 3 open sockets are closed", exit.Text)
	var dead []string
	for _, tc := range exit.Touched {
		if tc.Text() == "sock_orphan: SOCK_DEAD" {
			dead = append(dead, tc.Object.String())
		}
	}
	require.Len(t, dead, 3, timeline(t, tr))
}

// A leak found at quiescence is a violation of rule 4 naming the object
// and who holds it.
func TestLeakAtQuiescence(t *testing.T) {
	tr := runSrc(t, `
bug udp-append-refcnt
device eth0 nic
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
connect u => 0
send u 100 MSG_MORE => 100
send u 100 MSG_ZEROCOPY => 100
`)
	require.False(t, tr.OK())
	vs := violations(tr)
	require.NotEmpty(t, vs)
	found := false
	for _, v := range vs {
		if strings.Contains(v.Message, "leaked at quiescence") {
			found = true
			require.Equal(t, "refcount", v.Rule)
			require.Contains(t, v.Message, "leaked at quiescence")
			require.Contains(t, v.Message, "holders [sendmsg#")
			require.NotEmpty(t, v.History)
		}
	}
	require.True(t, found, "no leak reported at quiescence:\n%s", timeline(t, tr))
}

// A bug switch re-introduces a historical bug; the checker catches it at
// the step it happens, with the object's history.
func TestViolationAbortGap(t *testing.T) {
	src := `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
send s 4096 MSG_ZEROCOPY => -1 EPIPE
connect s => 0
send s 4096 MSG_ZEROCOPY => 4096
`
	requireOK(t, runSrc(t, src))

	for _, tr := range []*sim.Trace{
		runSrc(t, "bug abort-gap\n"+src),
		runSrc(t, src, Options{Bugs: []kernel.Bug{kernel.BugAbortGap}}),
	} {
		require.Equal(t, []string{"abort-gap"}, tr.Records[0].Config.Bugs)
		vs := violations(tr)
		require.Len(t, vs, 1, timeline(t, tr))
		v := vs[0]
		send := event(t, tr, "send s 4096 MSG_ZEROCOPY = -1 EPIPE")
		require.Equal(t, send.Step, v.Step)
		require.Equal(t, "ids", v.Rule)
		require.Equal(t, "sock#1", v.Object)
		require.Contains(t, v.Message, "took no id")
		require.Contains(t, v.Message, "moved sk_zckey from 0 to 1")
		require.Equal(t, []string{"step 2: socket(AF_INET, SOCK_STREAM, 6)", "step 3: SO_ZEROCOPY = 1",
			"step 4: tcp_sendmsg_locked: EPIPE, sk_stream_wait_connect: state TCP_CLOSE is neither established nor connecting"}, v.History)
		require.Equal(t, "tcp_sendmsg_locked: EPIPE, sk_stream_wait_connect: state TCP_CLOSE is neither established nor connecting", send.Why)
		require.Contains(t, timeline(t, tr), "VIOLATION at step 4: invariant ids: sock#1: ")
	}
}

// Without its socket reference a uarg's completion outlives the socket.
func TestViolationNoSockRef(t *testing.T) {
	src := `
device eth0 nic txcomplete=manual
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
connect u => 0
send u 1000 MSG_ZEROCOPY => 1000
close u => 0
complete eth0
`
	requireOK(t, runSrc(t, src))
	tr := runSrc(t, "bug no-sock-ref\n"+src)
	vs := violations(tr)
	require.NotEmpty(t, vs, timeline(t, tr))
	complete := event(t, tr, "complete eth0")
	require.Equal(t, complete.Step, vs[0].Step)
	require.Equal(t, "sock#1", vs[0].Object)
	require.NotEmpty(t, vs[0].History)
}

// The --profile option overrides the profile line; unknown names are
// input errors.
func TestProfileOption(t *testing.T) {
	src := "profile rfc-v2\nsocket s AF_INET SOCK_STREAM\n"
	require.Equal(t, "rfc-v2", runSrc(t, src).Records[0].Config.Profile)
	require.Equal(t, "linux-5.0", runSrc(t, src, Options{Profile: "linux-5.0"}).Records[0].Config.Profile)
	_, err := Run("test.zcs", []byte(src), Options{Profile: "linux-1.0"})
	require.ErrorContains(t, err, `unknown profile "linux-1.0"`)
}

// A sysctl the profile's kernel does not have yet is an input error at
// its line, on that profile alone: tcp_rto_max_ms (v6.15) on linux-5.0,
// and on linux-6.18 not; each key on each profile as its Since says.
func TestSysctlPerProfile(t *testing.T) {
	src := "sysctl net.ipv4.tcp_sack 0\nsysctl net.ipv4.tcp_rto_max_ms 1000\nsocket s AF_INET SOCK_STREAM\n"
	_, err := Run("test.zcs", []byte("profile linux-5.0\n"+src), Options{})
	require.EqualError(t, err, `test.zcs:3:8: profile linux-5.0 (Linux 5.0) has no sysctl net.ipv4.tcp_rto_max_ms: it is new in 6.15 (its /proc/sys file does not exist, ENOENT) (at "net.ipv4.tcp_rto_max_ms")`)
	requireOK(t, runSrc(t, "profile linux-6.18\n"+src))
	// The profile option decides, and the errors stay in line order.
	_, err = Run("test.zcs", []byte(src+"send t 1 0\n"), Options{Profile: "rfc-v2"})
	require.ErrorContains(t, err, "test.zcs:2:8: profile rfc-v2 (Linux 4.10) has no sysctl net.ipv4.tcp_rto_max_ms")
	require.ErrorContains(t, err, "ENOENT) (at \"net.ipv4.tcp_rto_max_ms\")\ntest.zcs:4:6: undefined socket")
	for _, p := range kernel.Profiles() {
		for _, k := range sock.SysctlKeys {
			values := strings.Repeat(" "+strconv.FormatUint(k.Least, 10), k.Values)
			if k.Named {
				values = " reno"
			}
			_, err := Run("test.zcs", []byte("profile "+p.Name+"\nsysctl "+k.Name+values+"\n"), Options{})
			if p.Kernel.Before(k.Since) {
				require.ErrorContains(t, err, "test.zcs:2:8: profile "+p.Name, k.Name)
			} else {
				require.NoError(t, err, "%s on %s", k.Name, p.Name)
			}
		}
	}
}

// Input errors come back before anything runs, each with file:line:col.
func TestInputErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"send s 100 0\n", `test.zcs:1:6: undefined socket (at "s")`},
		{"socket s AF_INET SOCK_STREAM\nbug abort-gap\n", "test.zcs:2:1: bug switches must come before"},
		{"bug nope\n", `test.zcs:1:5: unknown bug`},
		{"sysctl net.core.nope 1\n", `test.zcs:1:8: unknown sysctl`},
		{"sysctl net.ipv4.tcp_rmem 1\n", `test.zcs:1:8: net.ipv4.tcp_rmem takes 3 value(s)`},
		{"sysctl net.ipv4.tcp_rmem 0 1 1\n", `test.zcs:1:26: net.ipv4.tcp_rmem's value must be between 1 and 2147483647 (at "0")`},
		{"sysctl net.core.rmem_max 2303\n", `test.zcs:1:26: net.core.rmem_max's value must be between 2304 and`},
		{"sysctl net.core.wmem_default 4607\n", `test.zcs:1:30: net.core.wmem_default's value must be between 4608 and`},
		{"sysctl net.ipv4.tcp_moderate_rcvbuf 256\n", `test.zcs:1:37: net.ipv4.tcp_moderate_rcvbuf's value must be between 0 and 255 (at "256")`},
		{"sysctl net.ipv4.tcp_congestion_control vegas\n", `test.zcs:1:40: the kernel has no congestion control vegas (ENOENT): the model knows reno, cubic and bbr (at "vegas")`},
		{"sysctl net.ipv4.tcp_early_retrans 5\n", `test.zcs:1:35: net.ipv4.tcp_early_retrans's value must be between 0 and 4 (at "5")`},
		{"task t user=nobody\n", `test.zcs:1:13: undefined user (at "nobody")`},
		{"tap d on=eth9\n", `test.zcs:1:10: undefined device (at "eth9")`},
		{"socket s AF_INET SOCK_STREAM via=eth9\n", `test.zcs:1:34: undefined device (at "eth9")`},
		{"socket s AF_INET SOCK_STREAM task=t9\n", `test.zcs:1:35: undefined task (at "t9")`},
		{"setrlimit t9 RLIMIT_MEMLOCK 0\n", `test.zcs:1:11: undefined task (at "t9")`},
		{"capset t9 CAP_IPC_LOCK\n", `test.zcs:1:8: undefined task`},
		{"capdrop t9 CAP_IPC_LOCK\n", `test.zcs:1:9: undefined task`},
		{"capdrop main CAP_NET_RAW\n", `test.zcs:1:14: unknown capability`},
		{"complete eth9\n", `test.zcs:1:10: undefined device`},
		{"fault sock_omalloc p=2\n", `test.zcs:1:20: bad fault rule`},
		{"socket s AF_INET SOCK_STREAM\nexpect s colour=red\n", `test.zcs:2:10: unknown state key`},
		{"expect s zckey=0\n", `test.zcs:1:8: undefined socket`},
		{"accept l c\n", `test.zcs:1:8: undefined socket`},
		{"send s 100\n", "test.zcs:1:"},
	} {
		tr, err := Run("test.zcs", []byte(c.src), Options{})
		require.Nil(t, tr, c.src)
		require.ErrorContains(t, err, c.want, c.src)
	}
}

// The trace renders every kind of record, as text and as JSON Lines.
func TestTraceRendering(t *testing.T) {
	tr := runSrc(t, `
bug abort-gap
socket s AF_INET SOCK_STREAM
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
send s 100 MSG_ZEROCOPY => 0
note a note => is text
`, Options{Seed: 9})
	var text, js bytes.Buffer
	require.NoError(t, tr.WriteText(&text, false))
	require.NoError(t, tr.WriteJSON(&js))
	out := text.String()
	require.True(t, strings.HasPrefix(out, "# zcsim test.zcs profile=linux-6.18 seed=9 bugs=abort-gap\n"), out)
	require.Contains(t, out, "VIOLATION at step 3: invariant ids: sock#1: ")
	require.Contains(t, out, "MISMATCH at step 3 (test.zcs:4):\n  expected: 0\n       got: -1 EPIPE\n")
	require.Contains(t, out, "note: a note => is text")
	require.Contains(t, out, "# FAILED: ")
	lines := strings.Split(strings.TrimSuffix(js.String(), "\n"), "\n")
	require.Len(t, lines, len(tr.Records))
	require.True(t, strings.HasPrefix(lines[0], fmt.Sprintf(`{"kind":"config","schema":%d,"file":"test.zcs","profile":"linux-6.18","seed":9,"bugs":["abort-gap"]}`, sim.SchemaVersion)), lines[0])
	require.Contains(t, js.String(), `{"kind":"violation","step":3,"rule":"ids","object":"sock#1"`)
	require.Contains(t, js.String(), `{"kind":"mismatch","step":3,"source":"test.zcs:4","expected":"0","got":"-1 EPIPE"}`)
	require.True(t, strings.HasPrefix(lines[len(lines)-1], `{"kind":"summary",`))
	require.False(t, tr.OK())
	require.True(t, (&sim.Trace{}).OK())

	// An empty record body still makes one object.
	var empty bytes.Buffer
	require.NoError(t, (&sim.Trace{Records: []sim.Record{{Summary: &sim.Summary{}}}}).WriteJSON(&empty))
	require.Equal(t, `{"kind":"summary","steps":0,"time_ns":0,"violations":0,"mismatches":0,"ok":false}`+"\n", empty.String())
}

func TestDeviceOptions(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic sg=off csum=off gso=off tso=off mtu=9000 delay=1ms loss=0 txcomplete=20us
device lo2 loopback
tap dump on=eth0
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 4096 MSG_ZEROCOPY => 4096
settle
recvmsg s MSG_ERRQUEUE => zerocopy [0,0] copied
`)
	requireOK(t, tr)
	require.EqualValues(t, 20*engine.Microsecond, event(t, tr, "TX completion").Time)
	require.EqualValues(t, engine.Millisecond, event(t, tr, "s.peer receives seq 0..4096").Time)

	for p, want := range map[string]uint32{"0": 0, "1": 1_000_000, "1.0": 1_000_000, "0.3": 300_000, "0.000001": 1, "0.1234567": 123_456} {
		require.Equal(t, want, lossPPM(p), p)
	}
}

// Loss is drawn from the seed: the same seed loses the same frames.
func TestLossIsSeeded(t *testing.T) {
	src := `
device eth0 nic loss=0.5
socket u AF_INET SOCK_DGRAM via=eth0
connect u => 0
sendmmsg u [10] [10] [10] [10] [10] [10] [10] [10] [10] [10] [10] [10] [10] [10] [10] [10] 0 => 16
settle
`
	arrived := map[int]bool{}
	for seed := uint64(1); seed <= 4; seed++ {
		a, b := runSrc(t, src, Options{Seed: seed}), runSrc(t, src, Options{Seed: seed})
		require.Equal(t, timeline(t, a), timeline(t, b))
		n := strings.Count(timeline(t, a), "u.peer receives a datagram")
		require.Greater(t, n, 0)
		require.Less(t, n, 16)
		arrived[n] = true
	}
	require.Greater(t, len(arrived), 1)
}

// Delayed ACKs: every second full segment at once, a lone one after 40ms.
func TestDelayedAck(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0 peer_ack=delayed
connect s => 0
send s 100 0 => 100
settle
send s 2896 0 => 2896
settle
`)
	requireOK(t, tr)
	timer := event(t, tr, "s.peer: delayed-ACK timer fires")
	require.Equal(t, "delack", timer.Op)
	require.EqualValues(t, 40*engine.Millisecond+50*engine.Microsecond, timer.Time)
	require.Equal(t, 1, strings.Count(timeline(t, tr), "delayed-ACK timer fires"))
}

// Virtual time ends (at about 292 years): a wait past the end is a
// mismatch and runs nothing, and a step whose events would fall after the
// end stops the run with one mismatch, instead of firing every later event
// and timer at the last instant in the wrong order. Nothing is checked at
// quiescence then: the events left out would have freed what is still
// live.
func TestEndOfTime(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic delay=1ms
socket s AF_INET SOCK_STREAM via=eth0
connect s => 0
wait 9223372036s
wait 1000s
wait 854ms
send s 100 0 => 100
send s 100 0
`)
	requireMismatches(t, tr,
		"test.zcs:5: the network to settle | waiting 1000s from 9223372036s would pass the end of virtual time",
		"test.zcs:7: the run to go on | virtual time ran out: an event would fall after its last instant (t=9223372036.854775807s); the rest of the run is not modelled")
	require.Empty(t, violations(tr))
	require.Len(t, events(tr), 7, "the last send is not run")
	require.Equal(t, int64(9223372036854*engine.Millisecond), tr.Records[len(tr.Records)-1].Summary.Time)

	// At the very end, the exit's FIN is what cannot be queued.
	tr = runSrc(t, `
device eth0 nic delay=1ms
socket s AF_INET SOCK_STREAM via=eth0
connect s => 0
wait 9223372036s
wait 854ms
`)
	requireMismatches(t, tr, "end of scenario: the run to go on | virtual time ran out: an event would fall after its last instant (t=9223372036.854775807s); the rest of the run is not modelled")
	require.Empty(t, violations(tr))
}

// The FORCE forms of the buffer options need CAP_NET_ADMIN, which an
// ordinary task lacks; a task option or capset gives it.
func TestForceNeedsNetAdmin(t *testing.T) {
	tr := runSrc(t, `
user root uid=0
task admin user=root cap_net_admin
socket s AF_INET SOCK_DGRAM
socket a AF_INET SOCK_DGRAM task=admin
setsockopt s SOL_SOCKET SO_SNDBUFFORCE 1M => EPERM
setsockopt s SOL_SOCKET SO_SNDBUF 1M => 0
setsockopt a SOL_SOCKET SO_RCVBUFFORCE 1M => 0
capset main CAP_NET_ADMIN => 0
setsockopt s SOL_SOCKET SO_SNDBUFFORCE 1M => 0
expect s sndbuf=2097152
capdrop main CAP_NET_ADMIN => 0
setsockopt s SOL_SOCKET SO_RCVBUFFORCE 1M => EPERM
`)
	requireOK(t, tr)
}

// A UDP_SEGMENT datagram reaches the receiver as its segments: cut by the
// device's software GSO without TSO, or on receipt (udp_rcv_segment) when
// the device sent it whole, as loopback does.
func TestUDPGSOReceive(t *testing.T) {
	tr := runSrc(t, `
socket u AF_INET SOCK_DGRAM
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
setsockopt u SOL_UDP UDP_SEGMENT 1000 => 0
connect u => 0
send u 2500 MSG_ZEROCOPY => 2500
settle
expect u.peer queued=3
recv u.peer 4000 => 1000
recv u.peer 4000 => 1000
recv u.peer 4000 => 500
recvmsg u MSG_ERRQUEUE => zerocopy [0,0] copied
`)
	requireOK(t, tr)
}

// A blocking UDP send with a full send buffer sleeps in
// sock_alloc_send_pskb while the network runs, and goes on once TX
// completions free sk_wmem_alloc; with MSG_DONTWAIT it fails with EAGAIN,
// and when nothing in the network can free memory it never returns.
func TestUDPBlockingSend(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic txcomplete=1ms
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_SNDBUF 4608 => 0
connect u => 0
send u 8000 0 => 8000
send u 8000 0 => 8000
send u 8000 MSG_DONTWAIT => EAGAIN
`)
	requireOK(t, tr)
	blocked := event(t, tr, "blocks in sock_alloc_send_pskb")
	require.Equal(t, int64(0), blocked.Time)
	done := event(t, tr, "send u 8000 0 = 8000")
	require.Equal(t, "send", done.Op)

	stuck := runSrc(t, `
device eth0 nic txcomplete=manual
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_SNDBUF 4608 => 0
connect u => 0
send u 8000 0 => 8000
send u 8000 0
`)
	require.False(t, stuck.OK())
	require.Len(t, mismatches(stuck), 1)
	require.Contains(t, mismatches(stuck)[0].Got, "blocks forever")
}

// A failed send says why, with the numbers: the send buffer of a stream
// socket that cannot wait, a fault site, a connection shut down.
func TestFailedSendsSayWhy(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_SNDBUF 4096 => 0
connect s => 0
send s 100000 MSG_DONTWAIT
send s 100000 MSG_DONTWAIT => EAGAIN
socket u AF_INET SOCK_DGRAM via=eth0
connect u => 0
fault alloc_skb next=1
send u 100 0 => ENOBUFS
fault alloc_skb never
shutdown s SHUT_WR => 0
send s 100 0 => EPIPE
`)
	requireOK(t, tr)
	require.Equal(t, "sk_stream_memory_free: wmem_queued 48832 >= sndbuf 8192", event(t, tr, "EAGAIN").Why)
	require.Contains(t, event(t, tr, "EAGAIN").Text, "= -1 EAGAIN  (sk_stream_memory_free: wmem_queued 48832 >= sndbuf 8192)")
	require.Equal(t, "alloc_skb failed: the scenario's fault site", event(t, tr, "ENOBUFS").Why)
	require.Equal(t, "tcp_sendmsg_locked: EPIPE, sk_stream_wait_connect: state TCP_FIN_WAIT1 is neither established nor connecting", event(t, tr, "EPIPE").Why)
}

// The probe timer gives up after tcp_retries2 unanswered probes
// (tcp_probe_timer), so a send that can never split its skb into the
// window returns (found by zcsim check as a run that never settled).
func TestProbeTimerGivesUp(t *testing.T) {
	tr := runSrc(t, `socket s2 AF_INET SOCK_STREAM
connect s2 => 0
sendmsg s2 [43496] 0 => 43496
fault alloc_skb from=3
send s2 129534 0 => 95232
`)
	require.Contains(t, event(t, tr, "probes exhausted").Text, "connection aborted (ETIMEDOUT)")
}

// GRO at the far host (on by default on a NIC) merges the segments one
// NAPI poll brings up to a PSH, so the far host receives and acknowledges
// each of the two GSO packets the first window goes in (half the window
// each, tcp_cwnd_test, with the PSH __tcp_transmit_skb forces on a GSO
// packet) once; without it it receives each wire segment and
// acknowledges them in quickack mode one by one.
func TestGROAcksPerMergedPacket(t *testing.T) {
	src := `
device eth0 nic tso=off%s
socket s AF_INET SOCK_STREAM via=eth0 peer_read=auto
connect s => 0
send s 14480 0 => 14480              # ten segments, two GSO packets
settle
`
	on := timeline(t, runSrc(t, fmt.Sprintf(src, "")))
	require.Contains(t, on, "s.peer receives seq 0..7240; s.peer receives seq 7240..14480\n")
	require.Contains(t, on, "s receives ACK 7240 ")
	require.Contains(t, on, "s receives ACK 14480 ")
	require.NotContains(t, on, "s receives ACK 1448 ")
	off := timeline(t, runSrc(t, fmt.Sprintf(src, " gro=off")))
	require.Contains(t, off, "s.peer receives seq 0..1448;")
	require.Contains(t, off, "s receives ACK 1448 ")
}

// An ICMP outcome's quoted= checks the length the read returned, the
// payload the error quotes; without it the length is not checked.
func TestICMPQuoted(t *testing.T) {
	tr := runSrc(t, `
socket u AF_INET SOCK_DGRAM
setsockopt u SOL_IP IP_RECVERR 1 => 0
sendto u 1 0 => 1
close u.peer => 0
sendto u 2000 0 => 2000
sendto u 1 0 => -1 ECONNREFUSED
sendto u 60 0 => 60
sendto u 1 0 => -1 ECONNREFUSED
sendto u 70 0 => 70
recvmsg u MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 quoted=2000
recvmsg u MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 quoted=60
recvmsg u MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3
`)
	requireMismatches(t, tr,
		"test.zcs:10: icmp ECONNREFUSED type=3 code=3 quoted=2000 | icmp ECONNREFUSED type=3 code=3 quoted=520",
	)
	require.Equal(t, int64(60), *event(t, tr, "recvmsg u MSG_ERRQUEUE = 60").Ret)
}

// With IP_HDRINCL the kernel reads the IP header's ihl from the buffer:
// ihl= states it, and without it the result is undetermined, so an
// expectation of it fails.
func TestHdrinclIHL(t *testing.T) {
	tr := runSrc(t, `
socket a AF_INET SOCK_RAW IPPROTO_RAW ihl=5
connect a => 0
send a 20 0 => 20
send a 19 0 => -1 EINVAL
socket b AF_INET SOCK_RAW IPPROTO_RAW ihl=15
connect b => 0
send b 59 0 => -1 EINVAL
send b 60 0 => 60
socket c AF_INET SOCK_RAW IPPROTO_RAW ihl=4
connect c => 0
send c 40 0 => -1 EINVAL
socket r AF_INET SOCK_RAW IPPROTO_RAW
connect r => 0
send r 10 0 => -1 EINVAL
send r 40 0 => 40
send r 40 0
`)
	requireMismatches(t, tr,
		"test.zcs:15: 40 | undetermined: raw_send_hdrinc reads ihl from the IP header in the program's buffer, which the scenario does not state (socket ... ihl=N); assumed 5")
	require.Contains(t, event(t, tr, "send r 40 0 = 40").Undetermined, "ihl")
	old := runSrc(t, "profile linux-4.14\nsocket c AF_INET SOCK_RAW IPPROTO_RAW ihl=4\nconnect c => 0\nsend c 40 0 => 40\n")
	requireOK(t, old)
}
