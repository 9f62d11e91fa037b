package probe

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/scenario"
)

// planned renders a plan one statement a line: "run", "-" (nothing to
// compare) or "skip: why" / "stop: why".
func planned(t *testing.T, src string) ([]string, plan) {
	t.Helper()
	stmts, err := scenario.Parse("p.zcs", []byte(src))
	require.NoError(t, err)
	pl := makePlan(stmts, kernel.DefaultProfile)
	require.Len(t, pl.steps, len(stmts))
	var out []string
	for i, s := range pl.steps {
		verdict := "-"
		switch {
		case s.run:
			verdict = "run"
		case s.stops:
			verdict = "stop: " + s.why
		case s.why != "":
			verdict = "skip: " + s.why
		}
		out = append(out, fmt.Sprintf("%d %s", stmts[i].Pos().Line, verdict))
	}
	return out, pl
}

// requirePlan checks each line's verdict against a prefix.
func requirePlan(t *testing.T, got []string, want ...string) {
	t.Helper()
	require.Len(t, got, len(want), strings.Join(got, "\n"))
	for i := range want {
		require.True(t, strings.HasPrefix(got[i], want[i]), "statement %d: got %q, want %q…", i+1, got[i], want[i])
	}
}

// What the live kernel cannot do is skipped, and a skip that spoils a
// socket's later results skips them too, while other sockets run.
func TestPlanTaintsSockets(t *testing.T) {
	got, pl := planned(t, `# a lesson
profile linux-4.14
bug udp-more-refcnt
device lo loopback
device eth0 nic
socket n AF_INET SOCK_STREAM via=eth0
setsockopt n SOL_SOCKET SO_ZEROCOPY 1
socket s AF_INET SOCK_STREAM via=lo
socket u AF_INET SOCK_DGRAM peer_read=manual
connect s
hold s ack
send s 100 MSG_ZEROCOPY
recv s.peer 100
connect u
send u 100 0
expect u zckey=0
zckey u 5
send u 1 0
close n
user a uid=7
task p user=a
socket q AF_INET SOCK_DGRAM task=p
setrlimit p RLIMIT_MEMLOCK 4K
settle
`)
	requirePlan(t, got,
		"1 -",
		"2 skip: the model runs linux-6.18, as the live kernel is, not linux-4.14",
		"3 skip: the live kernel has this bug fixed",
		"4 -",
		"5 skip: the host has no nic eth0",
		"6 skip: it goes through eth0, a nic the host does not have (line 5): nothing on n is compared",
		"7 skip: not compared: n: it goes through eth0",
		"8 run",
		"9 run",
		"10 run",
		"11 skip: the live kernel's loopback cannot hold or drop segments: nothing on s is compared from here on",
		"12 skip: not compared: s: its path was steered at line 11",
		"13 skip: not compared: s: its path was steered at line 11",
		"14 run",
		"15 run",
		"16 skip: state checks read the model's internals",
		"17 skip: no program can set sk_zckey",
		"18 skip: not compared: u: its sk_zckey was set by hand at line 17",
		"19 skip: not compared: n:",
		"20 skip: the live run has one user",
		"21 skip: the live run has one task, main",
		"22 skip: the live run's sockets have no task option: nothing on q is compared",
		"23 skip: the live run has one task, main; task p's sockets are not compared",
		"24 run",
	)
	require.True(t, pl.noExpectations)
	require.Equal(t, []kernel.Bug{kernel.BugUDPMoreRefcnt}, pl.off)
	require.False(t, pl.child)
	require.Empty(t, pl.sysctls)
}

// A statement whose effect reaches every socket stops the comparison.
func TestPlanStops(t *testing.T) {
	for _, c := range []struct{ stmt, why string }{
		{"fault alloc_skb always", "fault sites exist only in the model"},
		{"sysctl net.core.wmem_default 8192", "only net.core.optmem_max, net.core.somaxconn, net.ipv4.ping_group_range, net.ipv4.tcp_abort_on_overflow, net.ipv4.tcp_congestion_control, net.ipv4.tcp_early_retrans, net.ipv4.tcp_fastopen, net.ipv4.tcp_invalid_ratelimit, net.ipv4.tcp_moderate_rcvbuf, net.ipv4.tcp_notsent_lowat, net.ipv4.tcp_orphan_retries, net.ipv4.tcp_retries2, net.ipv4.tcp_rmem, net.ipv4.tcp_rto_max_ms, net.ipv4.tcp_sack, net.ipv4.tcp_syn_retries, net.ipv4.tcp_timestamps, net.ipv4.tcp_wmem, net.mptcp.enabled (ping_group_range empty, or from 0 to at least 65534)"},
		{"sysctl net.ipv4.ping_group_range 1000 1000", "only net.core.optmem_max, net.core.somaxconn, net.ipv4.ping_group_range, net.ipv4.tcp_abort_on_overflow, net.ipv4.tcp_congestion_control, net.ipv4.tcp_early_retrans, net.ipv4.tcp_fastopen, net.ipv4.tcp_invalid_ratelimit, net.ipv4.tcp_moderate_rcvbuf, net.ipv4.tcp_notsent_lowat, net.ipv4.tcp_orphan_retries, net.ipv4.tcp_retries2, net.ipv4.tcp_rmem, net.ipv4.tcp_rto_max_ms, net.ipv4.tcp_sack, net.ipv4.tcp_syn_retries, net.ipv4.tcp_timestamps, net.ipv4.tcp_wmem, net.mptcp.enabled (ping_group_range empty, or from 0 to at least 65534)"},
		{"sysctl net.core.optmem_max 4096", "net.core.optmem_max is set when the namespace is made"},
		{"sysctl net.ipv4.tcp_fastopen 0", "net.ipv4.tcp_fastopen is set when the namespace is made"},
		{"capset main CAP_IPC_LOCK", "the live run cannot grant a capability"},
		{"repeat 2 { send s 1 0 }", "the live run does not run repeat loops"},
	} {
		got, _ := planned(t, "socket s AF_INET SOCK_STREAM\n"+c.stmt+"\n# still a comment\nsend s 1 0\nsocket t AF_INET SOCK_DGRAM\n")
		requirePlan(t, got, "1 run", "2 stop: "+c.why, "3 -", "4 skip: not compared: after line 2 nothing is", "5 skip: not compared: after line 2")
	}
}

// A run as root has CAP_NET_ADMIN already: granting it to main runs as a
// no-op, unless the run is the unprivileged child, even because of a
// capdrop further down.
func TestPlanCapsetNetAdmin(t *testing.T) {
	got, _ := planned(t, "capset main CAP_NET_ADMIN\nsocket s AF_INET SOCK_DGRAM\n")
	requirePlan(t, got, "1 run", "2 run")
	got, _ = planned(t, "capset main CAP_NET_ADMIN\nsocket s AF_INET SOCK_DGRAM\ncapdrop main CAP_IPC_LOCK\n")
	requirePlan(t, got, "1 stop: the live run cannot grant a capability", "2 skip: not compared: after line 1", "3 skip: not compared: after line 1")
}

// accept runs, and its child is compared like any socket; on a socket
// the run does not compare it stops everything, since the model's new
// descriptor renumbers every later socket. bind still spoils a socket.
func TestPlanAccept(t *testing.T) {
	got, _ := planned(t, "socket l AF_INET SOCK_STREAM\nlisten l\nconnect l.peer\naccept l c\nsend c 1 0\nbind l\naccept l d\nsend c 1 0\n")
	requirePlan(t, got, "1 run", "2 run", "3 run", "4 run", "5 run",
		"6 skip: the live run's sockets only connect to their implicit peer", "7 stop: the live run does not accept on a socket it does not compare",
		"8 skip: not compared: after line 7")
}

// A client made with to= runs, but its blocking connect, which the live
// run's SO_SNDTIMEO would cut short, spoils it; a client of a listener
// the run does not compare is not compared either.
func TestPlanClients(t *testing.T) {
	got, _ := planned(t, "socket l AF_INET SOCK_STREAM\nlisten l backlog=0\nsocket a AF_INET SOCK_STREAM|SOCK_NONBLOCK to=l\nconnect a\n"+
		"socket b AF_INET SOCK_STREAM to=l\nconnect b\nsend b 1 0\nbind l\nsocket c AF_INET SOCK_STREAM to=l\n")
	requirePlan(t, got, "1 run", "2 run", "3 run", "4 run", "5 run",
		"6 skip: the live run's SO_SNDTIMEO (1s) ends a blocking connect's wait", "7 skip: not compared: b: its blocking connect at line 6",
		"8 skip: the live run's sockets only connect to their implicit peer", "9 skip: not compared: its listener l: it was bound at line 8")
}

// Taps and hand-driven drivers spoil the sockets through their device,
// those that exist and those made later.
func TestPlanTaintsDevices(t *testing.T) {
	got, _ := planned(t, "device lo2 loopback\nsocket a AF_INET SOCK_DGRAM\nsocket c AF_INET SOCK_DGRAM via=lo2\ntap d on=lo\nsend a 1 0\nsocket b AF_INET SOCK_DGRAM\nsend c 1 0\ncomplete lo2\nsend c 1 0\n")
	requirePlan(t, got,
		"1 -",
		"2 run",
		"3 run",
		"4 skip: the live run attaches no packet tap: nothing through lo is compared from here on",
		"5 skip: not compared: a: a tap on lo clones what it sends (line 4)",
		"6 skip: a tap on lo clones what it sends (line 4): nothing on b is compared",
		"7 run",
		"8 skip: the live kernel's drivers complete transmits on their own: nothing through lo2",
		"9 skip: not compared: c: the model's driver of lo2 was driven by hand (line 8)",
	)
}

// The namespace sysctls before the first socket, RLIMIT_MEMLOCK and capdrop
// of main run, the last two in the unprivileged child.
func TestPlanRuns(t *testing.T) {
	got, pl := planned(t, "profile linux-6.18\nsysctl net.core.optmem_max 20K\nsysctl net.ipv4.tcp_fastopen 1027\nsysctl net.ipv4.ping_group_range 0 2147483647\nsetrlimit main RLIMIT_MEMLOCK 64K\ncapdrop main CAP_IPC_LOCK\nsysctl net.ipv4.tcp_congestion_control reno\nsysctl net.ipv4.tcp_wmem 4K 16K 64K\nsocket s AF_INET SOCK_STREAM\nwait 1ms\nsettle\n")
	requirePlan(t, got, "1 -", "2 run", "3 run", "4 run", "5 run", "6 run", "7 run", "8 run", "9 run", "10 run", "11 run")
	require.Equal(t, []sysctl{{"net/core/optmem_max", "20480"}, {"net/ipv4/tcp_fastopen", "1027"}, {"net/ipv4/ping_group_range", "0 2147483647"},
		{"net/ipv4/tcp_congestion_control", "reno"}, {"net/ipv4/tcp_wmem", "4096 16384 65536"}}, pl.sysctls)
	require.True(t, pl.child)
	require.False(t, pl.noExpectations)
}

// compare lists what was not compared, and does not hold the kernel to
// expectations written for another profile.
func TestCompareSkipsAndExpectations(t *testing.T) {
	src := "profile rfc-v2\nsocket s AF_INET SOCK_DGRAM => 3\nexpect s zckey=0\n"
	stmts, err := scenario.Parse("c.zcs", []byte(src))
	require.NoError(t, err)
	pl := makePlan(stmts, kernel.DefaultProfile)
	res := compare("c.zcs", kernel.DefaultProfile, stmts, pl, []Obs{{Line: 2, Stmt: "socket s AF_INET SOCK_DGRAM", Result: "4"}}, answers{res: map[int]string{2: "4"}})
	require.True(t, res.OK(), "the rfc-v2 expectation => 3 is not the live kernel's")
	require.Equal(t, []int{1, 3}, []int{res.Skipped[0].Line, res.Skipped[1].Line})
	require.Empty(t, res.Stmts[0].Expected)

	pl.noExpectations = false
	res = compare("c.zcs", kernel.DefaultProfile, stmts, pl, []Obs{{Line: 2, Stmt: "socket s AF_INET SOCK_DGRAM", Result: "4"}}, answers{res: map[int]string{2: "4"}})
	require.False(t, res.OK())
	require.Equal(t, "3", res.Stmts[0].Expected)
}

// A statement whose result the model could not predict is not compared:
// it is listed with the others not compared, in file order, and why; a
// send's leaves what it did unknown, so nothing later on its socket is
// compared either. A socket's ihl= is no reason to skip anything: the
// live run writes it.
func TestCompareUndetermined(t *testing.T) {
	src := "socket r AF_INET SOCK_RAW IPPROTO_RAW ihl=5\nexpect r zckey=0\nsend r 40 0\nsend r 10 0\n"
	stmts, err := scenario.Parse("u.zcs", []byte(src))
	require.NoError(t, err)
	pl := makePlan(stmts, kernel.DefaultProfile)
	require.Empty(t, pl.steps[0].why)
	kern := []Obs{{Line: 1, Stmt: "socket r", Result: "3"}, {Line: 3, Stmt: "send r 40 0", Result: "-1 EINVAL"}, {Line: 4, Stmt: "send r 10 0", Result: "-1 EINVAL"}}
	res := compare("u.zcs", kernel.DefaultProfile, stmts, pl, kern,
		answers{res: map[int]string{1: "3", 3: "40", 4: "-1 EINVAL"}, undetermined: map[int]string{3: "the header"}})
	require.True(t, res.OK())
	require.Equal(t, 1, res.Agree)
	require.Equal(t, []int{2, 3, 4}, []int{res.Skipped[0].Line, res.Skipped[1].Line, res.Skipped[2].Line})
	require.Equal(t, "the model cannot predict it: the header", res.Skipped[1].Why)
	require.Equal(t, "not compared: the send at line 3 was undetermined, and r's later answers depend on what it did", res.Skipped[2].Why)
}

// After the model says a pair's receive buffer may have grown on the
// kernel (undetermined), what depends on it is not compared; the rest is,
// and so is everything before.
func TestCompareRcvbufUndetermined(t *testing.T) {
	src := "socket s AF_INET SOCK_STREAM\nconnect s\nrecv s.peer 1M MSG_DONTWAIT\nrecv s.peer 1M MSG_DONTWAIT\n" +
		"getsockopt s.peer SOL_SOCKET SO_RCVBUF\ngetsockopt s SOL_SOCKET SO_SNDBUF\nsend s 10 0\nsend s 10 MSG_DONTWAIT\n"
	stmts, err := scenario.Parse("u.zcs", []byte(src))
	require.NoError(t, err)
	pl := makePlan(stmts, kernel.DefaultProfile)
	var kern []Obs
	results := map[int]string{}
	for i, st := range stmts {
		kern = append(kern, Obs{Line: i + 1, Stmt: scenario.FormatCall(st), Result: "1"})
		results[i+1] = "1"
	}
	res := compare("u.zcs", kernel.DefaultProfile, stmts, pl, kern, answers{res: results, rcvbuf: map[string]pairUndetermined{"s": {3, "why"}}})
	require.True(t, res.OK())
	var compared, skipped []int
	for _, s := range res.Stmts {
		compared = append(compared, s.Line)
	}
	for _, s := range res.Skipped {
		require.True(t, s.Undetermined)
		require.Contains(t, s.Why, "after line 3 (why)")
		skipped = append(skipped, s.Line)
	}
	require.Equal(t, []int{1, 2, 3, 6, 7}, compared)
	require.Equal(t, []int{4, 5, 8}, skipped)
}

// Plan lists, without running anything, what Run would leave out.
func TestPlanExported(t *testing.T) {
	src := []byte("socket s AF_INET SOCK_DGRAM\nexpect s zckey=0\nfault alloc_skb always\nsend s 1 0\n")
	got, err := Plan("p.zcs", src, "")
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, []int{2, 3, 4}, []int{got[0].Line, got[1].Line, got[2].Line})
	require.False(t, got[0].Stops)
	require.True(t, got[1].Stops)
	require.Equal(t, "send s 1 0", got[2].Text)
	_, err = Plan("p.zcs", []byte("socket\n"), "")
	require.Error(t, err)
}

// The TX ring's statements run on the kernel, but txskew sets counters no
// program can and spoils its socket; migrate is skipped without
// consequence.
func TestPlanTxRing(t *testing.T) {
	got, _ := planned(t, `socket p AF_PACKET SOCK_RAW
setsockopt p SOL_PACKET PACKET_TX_RING [4096, 1, 2048, 2]
mmap p
txframe p 0 100
txstatus p 0
migrate main 1
txskew p 4 0
txstatus p 0
munmap p
`)
	requirePlan(t, got, "1 run", "2 run", "3 run", "4 run", "5 run", "6 skip: the live run does not move",
		"7 skip: no program can set the per-CPU pending counters", "8 skip: not compared: p: its TX ring counters", "9 skip: not compared")
}

// A loopback device with mtu= alone, before any socket, sets lo's MTU in
// the namespace; sockets on the default lo are then not compared, and a
// second such device is not the host's.
func TestPlanLoopbackMTU(t *testing.T) {
	got, pl := planned(t, "device lo0 loopback mtu=49204\ndevice lo1 loopback mtu=9000\nsocket a AF_INET SOCK_STREAM via=lo0\nsocket b AF_INET SOCK_STREAM\nsocket c AF_INET SOCK_STREAM via=lo1\n")
	requirePlan(t, got,
		"1 -",
		"2 skip: the host's lo has none of these options",
		"3 run",
		"4 skip: it goes through lo, while the host's lo has the mtu of lo0 (line 1)",
		"5 skip: it goes through lo1",
	)
	require.Equal(t, 49204, pl.loMTU)
	// a client goes through its listener's device, which the host's lo is
	got, _ = planned(t, "device lo0 loopback mtu=49204\nsocket l AF_INET SOCK_STREAM via=lo0\nlisten l\nsocket c AF_INET SOCK_STREAM|SOCK_NONBLOCK to=l\nconnect c\n")
	requirePlan(t, got, "1 -", "2 run", "3 run", "4 run", "5 run")
	_, pl = planned(t, "socket a AF_INET SOCK_STREAM\ndevice lo0 loopback mtu=9000\n")
	require.Zero(t, pl.loMTU, "after a socket it is too late")
}

// A settle that lets the model's network run past the live run's 500ms
// (a dropped SYN sent again for two minutes) makes the answers on that
// pair undetermined from then on, and only on that pair.
func TestLateNetworkUndetermined(t *testing.T) {
	src := "socket l AF_INET SOCK_STREAM\nlisten l backlog=0\nsocket a AF_INET SOCK_STREAM|SOCK_NONBLOCK to=l\nconnect a\n" +
		"socket b AF_INET SOCK_STREAM|SOCK_NONBLOCK to=l\nconnect b\nsettle\nsend b 0 0\nsend a 0 0\n"
	stmts, err := scenario.Parse("late.zcs", []byte(src))
	require.NoError(t, err)
	model, err := modelRun("late.zcs", []byte(src), stmts, kernel.DefaultProfile, nil, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]pairUndetermined{"b": {7, "the model's settle at line 7 ran the network 1s on (syn on b), the live run's 500ms at most"}}, model.late)
	kern := []Obs{{Line: 8, Stmt: "send b 0 0", Result: "-1 EAGAIN"}, {Line: 9, Stmt: "send a 0 0", Result: model.res[9]}}
	res := compare("late.zcs", kernel.DefaultProfile, stmts, makePlan(stmts, kernel.DefaultProfile), kern, model)
	require.Equal(t, []Skip{{Line: 8, Text: "send b 0 0", Why: "not compared: " + model.late["b"].why, Undetermined: true}}, res.Skipped)
	require.Len(t, res.Stmts, 1)
	require.True(t, res.OK())
}

// A call that sleeps in the model past the live run's SO_SNDTIMEO (a
// blocking read of a connection nothing comes on, while another client's
// SYN goes unanswered until its connect times out) makes that other
// pair undetermined too: the kernel's call returned after a second.
func TestLateNetworkAfterSleepingCall(t *testing.T) {
	src := "socket l AF_INET SOCK_STREAM\nlisten l backlog=0\nsocket a AF_INET SOCK_STREAM|SOCK_NONBLOCK to=l\nconnect a\n" +
		"socket b AF_INET SOCK_STREAM|SOCK_NONBLOCK to=l\nconnect b\nsocket s AF_INET SOCK_STREAM\nconnect s\nrecv s 10\n" +
		"recv b 10 MSG_DONTWAIT\nsend a 0 0\n"
	stmts, err := scenario.Parse("sleep.zcs", []byte(src))
	require.NoError(t, err)
	model, err := modelRun("sleep.zcs", []byte(src), stmts, kernel.DefaultProfile, nil, nil)
	require.NoError(t, err)
	require.Equal(t, "-1 ETIMEDOUT", model.res[10], "the model's clock ran past b's connect timeout")
	require.Equal(t, map[string]pairUndetermined{"b": {8, "the model ran the network 2s on after line 8 (syn on b), past the live run's 1s SO_SNDTIMEO of a call that may sleep"}}, model.late)
	kern := []Obs{{Line: 9, Stmt: "recv s 10", Result: model.res[9]}, {Line: 10, Stmt: "recv b 10 MSG_DONTWAIT", Result: "-1 EAGAIN"}, {Line: 11, Stmt: "send a 0 0", Result: model.res[11]}}
	res := compare("sleep.zcs", kernel.DefaultProfile, stmts, makePlan(stmts, kernel.DefaultProfile), kern, model)
	require.Equal(t, []Skip{{Line: 10, Text: "recv b 10 MSG_DONTWAIT", Why: "not compared: " + model.late["b"].why, Undetermined: true}}, res.Skipped)
	require.True(t, res.OK())
}

// A file with a message of several iovecs says where they lie; one
// without says nothing.
func TestLayoutAssumption(t *testing.T) {
	for src, want := range map[string]string{
		"socket s AF_INET SOCK_STREAM\nsend s 10 0\nsendmsg s [10] 0\nsendmmsg s [1] [2] 0\n": "",
		"socket s AF_INET SOCK_STREAM\nsendmsg s [10, 10] 0\n":                                layoutText,
		"socket s AF_INET SOCK_STREAM\nsendmmsg s [1] [2, 3] 0\n":                             layoutText,
	} {
		stmts, err := scenario.Parse("p.zcs", []byte(src))
		require.NoError(t, err)
		require.Equal(t, want, layoutAssumption(stmts), src)
		res := compare("p.zcs", "linux-6.18", stmts, makePlan(stmts, kernel.DefaultProfile), nil, answers{})
		require.Equal(t, want != "", len(res.Assumptions) == 1, src)
		var b strings.Builder
		require.NoError(t, res.WriteText(&b))
		require.Equal(t, want != "", strings.Contains(b.String(), "\nassuming "+layoutText+"\n"), b.String())
	}
}

// A statement the model answers just after one of its connection's TCP
// timers fired, within the wheel's slack, is compared under that
// assumption: it is listed at the top, marked ok~ where it agrees, and
// counted in the summary; the one after the window is not.
func TestTimerAssumption(t *testing.T) {
	src := "socket s AF_INET SOCK_STREAM\nsetsockopt s SOL_TCP TCP_CORK 1\nconnect s\nsend s 1 0\nwait 204ms\n" +
		"recv s.peer 10 MSG_DONTWAIT\nwait 10ms\nrecv s.peer 10 MSG_DONTWAIT\n"
	stmts, err := scenario.Parse("t.zcs", []byte(src))
	require.NoError(t, err)
	model, err := modelRun("t.zcs", []byte(src), stmts, kernel.DefaultProfile, nil, nil)
	require.NoError(t, err)
	require.Contains(t, model.assumes[6], "the zero-window probe timer of s fired at 204ms")
	require.NotContains(t, model.assumes, 8)
	var kern []Obs
	for _, l := range []int{1, 2, 3, 4, 6, 8} {
		kern = append(kern, Obs{Line: l, Stmt: scenario.FormatCall(stmts[l-1]), Result: model.res[l]})
	}
	res := compare("t.zcs", kernel.DefaultProfile, stmts, makePlan(stmts, kernel.DefaultProfile), kern, model)
	require.True(t, res.OK())
	require.Equal(t, []string{"line 6 (recv s.peer 10 MSG_DONTWAIT): " + model.assumes[6]}, res.Assumptions)
	var b strings.Builder
	require.NoError(t, res.WriteText(&b))
	require.Contains(t, b.String(), "\nassuming line 6 (recv s.peer 10 MSG_DONTWAIT): the zero-window probe timer")
	require.Contains(t, b.String(), "\nok~  t.zcs:6  ")
	require.Contains(t, b.String(), "\nok   t.zcs:8  ")
	require.Contains(t, b.String(), "6 statements compared, 6 agree (1 under an assumption), 0 diverge")
}

// A send the model cannot predict (IP_HDRINCL without ihl=) leaves what
// it did unknown: nothing later on its socket is compared, while other
// sockets are.
func TestUndeterminedSendCutsItsSocket(t *testing.T) {
	src := "socket r AF_INET SOCK_RAW IPPROTO_UDP\nsocket u AF_INET SOCK_DGRAM\nsetsockopt r IPPROTO_IP IP_HDRINCL 1\n" +
		"setsockopt r SOL_SOCKET SO_TIMESTAMPING 0x382\nsendto r 240 0\nrecvmsg r MSG_ERRQUEUE\nrecvmsg u MSG_ERRQUEUE\n"
	stmts, err := scenario.Parse("u.zcs", []byte(src))
	require.NoError(t, err)
	model, err := modelRun("u.zcs", []byte(src), stmts, kernel.DefaultProfile, nil, nil)
	require.NoError(t, err)
	require.Contains(t, model.undetermined, 5)
	var kern []Obs
	for l := 1; l <= 7; l++ {
		kern = append(kern, Obs{Line: l, Stmt: scenario.FormatCall(stmts[l-1]), Result: model.res[l]})
	}
	kern[5].Result = "-1 EAGAIN" // the kernel's buffer had no valid header
	res := compare("u.zcs", kernel.DefaultProfile, stmts, makePlan(stmts, kernel.DefaultProfile), kern, model)
	require.True(t, res.OK())
	require.Len(t, res.Skipped, 2)
	require.Equal(t, Skip{Line: 6, Text: "recvmsg r MSG_ERRQUEUE", Why: "not compared: the send at line 5 was undetermined, and r's later answers depend on what it did", Undetermined: true}, res.Skipped[1])
	require.Equal(t, 7, res.Stmts[len(res.Stmts)-1].Line)
}

// An epoll_wait reports the readiness of every socket in its interest
// list: once an undetermined send cut one of them, the wait is not
// compared either (zcsim diff seed 100079: a raw socket's TX_SCHED
// timestamp the model queued for a header the kernel found no IP
// header in), while a wait on an epoll that never watched it is.
func TestUndeterminedSendCutsItsEpoll(t *testing.T) {
	src := "socket r AF_INET SOCK_RAW IPPROTO_RAW\nepoll_create e\nepoll_create f\nepoll_ctl e EPOLL_CTL_ADD r EPOLLOUT\n" +
		"setsockopt r SOL_SOCKET SO_TIMESTAMPING 449\nsendto r 128 0\nepoll_wait e 1\nepoll_wait f 1 0ms\n"
	stmts, err := scenario.Parse("e.zcs", []byte(src))
	require.NoError(t, err)
	model, err := modelRun("e.zcs", []byte(src), stmts, kernel.DefaultProfile, nil, nil)
	require.NoError(t, err)
	require.Contains(t, model.undetermined, 6)
	var kern []Obs
	for l := 1; l <= 8; l++ {
		kern = append(kern, Obs{Line: l, Stmt: scenario.FormatCall(stmts[l-1]), Result: model.res[l]})
	}
	kern[6].Result = "1 [r EPOLLOUT]" // no timestamp: the kernel's buffer had no valid header
	res := compare("e.zcs", kernel.DefaultProfile, stmts, makePlan(stmts, kernel.DefaultProfile), kern, model)
	require.True(t, res.OK())
	require.Len(t, res.Skipped, 2)
	require.Equal(t, Skip{Line: 7, Text: "epoll_wait e 1", Why: "not compared: the send at line 6 was undetermined, and r's later answers depend on what it did (e watches it)", Undetermined: true}, res.Skipped[1])
	require.Equal(t, 8, res.Stmts[len(res.Stmts)-1].Line)
}

// Two timestamped ACKs whose merge on the sender's backlog the kernel may
// not make run the model both ways: the read that hangs on it is
// undetermined and says both answers; what both runs answer alike is
// compared.
func TestBacklogMergeRunsBothWays(t *testing.T) {
	src := "socket t AF_INET SOCK_STREAM\nconnect t\nsend t 7 0\nsend t 69632 0\nrecvmsg t.peer 0\nsend t 65508 0\nrecv t.peer 64K\n"
	stmts, err := scenario.Parse("ts.zcs", []byte(src))
	require.NoError(t, err)
	model, err := modelRun("ts.zcs", []byte(src), stmts, kernel.DefaultProfile, nil, nil)
	require.NoError(t, err)
	require.Len(t, model.undetermined, 1)
	require.Contains(t, model.undetermined[7], "tcp_add_backlog: undetermined")
	require.Contains(t, model.undetermined[7], "the model answers 36871 with the ACKs merged, 51719 with them apart")
	require.Equal(t, "65536", model.res[5])

	src = "sysctl net.ipv4.tcp_timestamps 0\n" + src
	stmts, err = scenario.Parse("nots.zcs", []byte(src))
	require.NoError(t, err)
	model, err = modelRun("nots.zcs", []byte(src), stmts, kernel.DefaultProfile, nil, nil)
	require.NoError(t, err)
	require.Empty(t, model.undetermined, "without timestamps the merge is certain")
}
