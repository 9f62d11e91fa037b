package pktdrill

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/scenario"
)

// scripts are the repository's packetdrill scripts.
func scripts(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.FromSlash("../../examples/packetdrill/*.pkt"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 7)
	return files
}

// TestScripts imports every script and runs it in each address family,
// as packetdrill runs the kernel's scripts: each expectation and
// invariant holds.
func TestScripts(t *testing.T) {
	for _, file := range scripts(t) {
		for _, fam := range []scenario.Family{scenario.Inet, scenario.Inet6, scenario.Mapped} {
			t.Run(filepath.Base(file)+"/"+fam.String(), func(t *testing.T) { runScript(t, file, fam) })
		}
	}
}

func runScript(t *testing.T, file string, fam scenario.Family) {
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	r, err := Import(file, src)
	require.NoError(t, err)
	tr, err := interp.Run(file+".zcs", r.Scenario, interp.Options{Family: fam})
	require.NoError(t, err)
	var bad []string
	for _, rec := range tr.Records {
		switch {
		case rec.Mismatch != nil:
			bad = append(bad, rec.Mismatch.Source+": expected "+rec.Mismatch.Expected+", got "+rec.Mismatch.Got)
		case rec.Violation != nil:
			bad = append(bad, rec.Violation.Message)
		}
	}
	require.Empty(t, bad, "%s", r.Scenario)
	require.True(t, tr.OK())
}

const header = "# imported from t.pkt by zcsim import --packetdrill\ndevice tun0 tun peer=script\n"

func TestImport(t *testing.T) {
	src := `--tolerance_usecs=5000
/* a server */
0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3 // fd 3
+0 setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0
+0 setsockopt(3, SOL_SOCKET, SO_ZEROCOPY, [1], 2) = -1 EINVAL (Invalid argument)
+0 listen(3, 1) = 0
+0 < S 0:0(0) win 1000 <mss 1000,sackOK,TS val 1 ecr 0,nop,wscale 7>
0.250 > S. 0:0(0) ack 1 <mss 1460,sackOK,TS val 5 ecr 1,nop,wscale 10>
+.1 < . 1:1(0) ack 1 win 257
* accept(3, ..., ...) = 4
+1.5 ` + "`echo hi`" + `
+0 sendmsg(4, {msg_name(...)=..., msg_iov(2)=[{..., 10}, {iov_base=..., iov_len=20}], msg_flags=0}, MSG_ZEROCOPY) = 30
+0 write(4, ..., 5) = 5
+0 < P. 1:11(10) ack 36 win 257
+0 read(4, ..., 100) = 10
+0 recvmsg(4, {msg_control=[{cmsg_level=SOL_IPV6, cmsg_type=IPV6_RECVERR, cmsg_data={ee_errno=0, ee_origin=SO_EE_ORIGIN_ZEROCOPY, ee_type=0, ee_code=0, ee_info=0, ee_data=1}}]}, MSG_ERRQUEUE) = 0
+0 shutdown(4, SHUT_WR) = 0
+0 close(4) = 0
`
	r, err := Import("t.pkt", []byte(src))
	require.NoError(t, err)
	want := header + `note not run: --tolerance_usecs: the model's times are exact # from t.pkt:1
socket fd3 AF_INET SOCK_STREAM IPPROTO_TCP via=tun0 => 3 # from t.pkt:3
setsockopt fd3 SOL_SOCKET SO_REUSEADDR 1 => 0 # from t.pkt:4
setsockopt fd3 SOL_SOCKET SO_ZEROCOPY 1 optlen=2 => -1 EINVAL # from t.pkt:5
listen fd3 => 0 # from t.pkt:6
inject fd3 SYN seq=0 len=0 win=1000 mss=1000 sackok ts wscale=7 # from t.pkt:7
wait 250ms # from t.pkt:8
packet tun0 SYN|ACK seq=0 len=0 ack=1 mss=1460 sackok ts wscale=10 # from t.pkt:8
wait 100ms # from t.pkt:9
inject fd3 ACK seq=1 len=0 ack=1 win=257 # from t.pkt:9
accept fd3 fd4 => 4 # from t.pkt:10
wait 1500ms # from t.pkt:11
note not run: shell command ` + "`echo hi`" + ` # from t.pkt:11
sendmsg fd4 [10, 20] MSG_ZEROCOPY iov=apart => 30 # from t.pkt:12
send fd4 5 0 => 5 # from t.pkt:13
inject fd4 PSH|ACK seq=1 len=10 ack=36 win=257 # from t.pkt:14
recv fd4 100 0 => 10 # from t.pkt:15
recvmsg fd4 MSG_ERRQUEUE => zerocopy [0,1] cmsg_level=SOL_IPV6 cmsg_type=IPV6_RECVERR # from t.pkt:16
shutdown fd4 SHUT_WR => 0 # from t.pkt:17
close fd4 => 0 # from t.pkt:18
`
	require.Equal(t, want, string(r.Scenario))
	require.Equal(t, []string{
		"t.pkt:1:1: --tolerance_usecs: the model's times are exact",
		"t.pkt:11:6: shell command `echo hi`",
	}, r.NotRun)
}

// TestImportReadiness translates fcntl, epoll and the checks of an
// error-queue read's msghdr.
func TestImportReadiness(t *testing.T) {
	src := `--ip_version=ipv4-mapped-ipv6
0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0
+0 fcntl(3, F_GETFL) = 0x802
+0 epoll_create(1) = 4
+0 epoll_ctl(4, EPOLL_CTL_ADD, 3, {events=EPOLLOUT|EPOLLET, fd=3}) = 0
+0 epoll_wait(4, {events=EPOLLOUT, fd=3}, 8, 0) = 1
+0 epoll_wait(4, {events=0, u32=0}, 8, 10) = 0
+0 epoll_wait(4, {events=0, u32=0}, 0, -1) = -1 EINVAL (Invalid argument)
+0 epoll_ctl(4, EPOLL_CTL_MOD, 3, {events=EPOLLIN|EPOLLONESHOT, fd=3}) = 0
+0 epoll_ctl(4, EPOLL_CTL_DEL, 3, {events=0, fd=3}) = 0
+0 recvmsg(3, {msg_name(...)=..., msg_iov(1)=[{...,0}], msg_flags=MSG_ERRQUEUE,
              msg_control=[{cmsg_level=CMSG_LEVEL_IP, cmsg_type=CMSG_TYPE_RECVERR,
                            cmsg_data={ee_errno=0, ee_origin=SO_EE_ORIGIN_ZEROCOPY, ee_type=0, ee_code=0, ee_info=0, ee_data=1}}]}, MSG_ERRQUEUE) = 0
+0 recvmsg(3, {msg_name(...)=..., msg_iov(1)=[{...,0}], msg_flags=MSG_ERRQUEUE|MSG_CTRUNC}, MSG_ERRQUEUE) = 0
+0 recvmsg(3, {msg_name(...)=..., msg_iov(1)=[{...,0}], msg_flags=MSG_ERRQUEUE|MSG_CTRUNC,
              msg_control=[{cmsg_level=SOL_IP, cmsg_type=IP_RECVERR,
                            cmsg_data={ee_errno=0, ee_origin=SO_EE_ORIGIN_ZEROCOPY, ee_type=0, ee_code=0, ee_info=2, ee_data=2}}]}, MSG_ERRQUEUE) = 0
+0 close(4) = 0
`
	r, err := Import("t.pkt", []byte(src))
	require.NoError(t, err)
	require.Equal(t, header+`socket fd3 AF_INET6 SOCK_STREAM IPPROTO_TCP via=tun0 mapped => 3 # from t.pkt:2
fcntl fd3 F_SETFL O_RDWR|O_NONBLOCK => 0 # from t.pkt:3
fcntl fd3 F_GETFL => 2050 # from t.pkt:4
epoll_create fd4 => 4 # from t.pkt:5
epoll_ctl fd4 EPOLL_CTL_ADD fd3 EPOLLOUT|EPOLLET => 0 # from t.pkt:6
epoll_wait fd4 8 => 1 [fd3 EPOLLOUT] # from t.pkt:7
epoll_wait fd4 8 10ms => 0 # from t.pkt:8
epoll_wait fd4 0 -1 => -1 EINVAL # from t.pkt:9
epoll_ctl fd4 EPOLL_CTL_MOD fd3 EPOLLIN|EPOLLONESHOT => 0 # from t.pkt:10
epoll_ctl fd4 EPOLL_CTL_DEL fd3 => 0 # from t.pkt:11
recvmsg fd3 MSG_ERRQUEUE => zerocopy [0,1] msg_flags=MSG_ERRQUEUE cmsg_level=SOL_IPV6 cmsg_type=IPV6_RECVERR # from t.pkt:12
recvmsg fd3 MSG_ERRQUEUE control=0 => ctrunc msg_flags=MSG_ERRQUEUE|MSG_CTRUNC # from t.pkt:15
recvmsg fd3 MSG_ERRQUEUE control=48 => ctrunc msg_flags=MSG_ERRQUEUE|MSG_CTRUNC cmsg_level=SOL_IP cmsg_type=IP_RECVERR ee_errno=0 ee_origin=SO_EE_ORIGIN_ZEROCOPY ee_type=0 ee_code=0 ee_info=2 ee_data=2 # from t.pkt:16
close fd4 => 0 # from t.pkt:19
`, string(r.Scenario))
}

func TestImportErrors(t *testing.T) {
	sock := "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n"
	for _, tc := range []struct{ src, want string }{
		{"0 select(1) = 4\n", `t.pkt:1:3: system call select is not one the importer translates (at "select")`},
		{sock + "+0 poll([{fd=3, events=POLLIN}, {fd=3, events=POLLOUT}], 2, 0) = 1\n", `t.pkt:2:9: the importer takes a poll of one descriptor: [{fd=FD, events=EVENTS, revents=REVENTS}]`},
		{sock + "+0 poll([{fd=3, events=POLLIN}], 2, 0) = 1\n", `t.pkt:2:34: poll's nfds 2 does not match its one pollfd`},
		{sock + "+0 poll([{fd=3, events=POLLIN}], 1, -1) = 1\n", `t.pkt:2:37: the scenario's poll waits a duration: a negative timeout is not translated`},
		{sock + "+0 poll([{fd=7, events=POLLIN}], 1, 0) = 1\n", `t.pkt:2:9: no socket has descriptor 7 (at "fd")`},
		{sock + "+0 poll([{fd=3, revents=POLLIN}], 1, 0) = 1\n", `t.pkt:2:9: the pollfd needs its events=`},
		{sock + "+0 poll([{fd=3, events=POLLIN, x=1}], 1, 0) = 1\n", `t.pkt:2:32: a struct pollfd has fd=, events= and revents= (at "x")`},
		{sock + "+0 epoll_create(1) = 4\n+0 epoll_ctl(4, EPOLL_CTL_ADD, 3, {events=EPOLLIN, u32=7}) = 0\n+0 epoll_wait(4, {events=EPOLLIN, u32=8}, 8, 0) = 1\n", `t.pkt:4:18: the event names no socket of the script: data 8`},
		{sock + "+0 epoll_create(1) = 4\n+0 epoll_wait(4, {events=EPOLLIN, fd=3}, 8, 0) = 2\n", `t.pkt:3:4: packetdrill checks the first event of a wait only: the importer takes waits that return 0 or 1 (at "epoll_wait")`},
		{sock + "+0 epoll_create(1) = 4\n+0 epoll_wait(4, {events=EPOLLIN, fd=3}, 8, 0) = 0\n", `t.pkt:3:18: an epoll_wait that returns 0 reports no event: write {events=0, u32=0} (at "events")`},
		{sock + "+0 epoll_create(1) = 4\n+0 epoll_ctl(4, EPOLL_CTL_ADD, 3, {events=EPOLLIN, fd=5}) = 0\n", `t.pkt:3:35: the event's fd=5 is not the socket's, 3 (at "fd")`},
		{sock + "+0 epoll_create(1) = 4\n+0 epoll_ctl(4, EPOLL_CTL_ADD, 3, {fd=3, events=EPOLLIN}) = 0\n", `t.pkt:3:35: expected an epoll_event {events=EVENTS, fd=FD}`},
		{sock + "+0 epoll_ctl(3, EPOLL_CTL_ADD, 3, {events=EPOLLIN, fd=3}) = 0\n", `t.pkt:2:14: epoll_ctl needs an epoll instance's descriptor as its argument 1`},
		{sock + "+0 fcntl(3, F_SETFD, FD_CLOEXEC) = 0\n", `t.pkt:2:13: the importer translates fcntl F_GETFL and F_SETFL (at "F_SETFD")`},
		{sock + "+0 recvmsg(3, {msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0\n", `t.pkt:2:15: the importer needs the msg_control of a recvmsg that returns a record, or msg_flags with MSG_CTRUNC`},
		{sock + "+0 recvmsg(3, {msg_control=[{cmsg_level=SOL_TCP, cmsg_type=IP_RECVERR, cmsg_data=1}]}, MSG_ERRQUEUE) = 0\n", `t.pkt:2:30: the importer translates IP and IPv6 error-queue control messages (at "cmsg_level")`},
		{"x socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n", `t.pkt:1:1: expected the time of an event (0, +0, +.1, 0.250, *) (at "x")`},
		{"--frobnicate\n", `t.pkt:1:1: unknown option (at "--frobnicate")`},
		{sock + "+0 send(4, ..., 10, 0) = 10\n", `t.pkt:2:9: no socket has descriptor 4 (at "4")`},
		{sock + "+0 < S 0:0(0) win 10\n", `t.pkt:2:1: an inbound packet needs a listening or connecting socket to go to (at "<")`},
		{sock + "+0 listen(3, 1) = 0\n+0 < SE 0:0(0) win 10\n", `t.pkt:3:6: unknown TCP flag 'E' (the importer knows S, ., P, F, R) (at "SE")`},
		{sock + "+0 listen(3, 1) = 0\n+0 < S 0:0(0) win 10 <sack 1:2>\n", `t.pkt:3:23: TCP option the importer does not translate (it knows mss, sackOK, nop, eol, wscale, TS, FO, FOEXP) (at "sack")`},
		{sock + "+0 listen(3, 1) = 0\n+0 < S 0:5(0) win 10\n", `t.pkt:3:6: the packet's range 0:5 does not hold 0 bytes (at "S")`},
		{sock + "+1 send(3, ..., 10, 0) = 10\n0.5 send(3, ..., 10, 0) = 10\n", `t.pkt:3:1: time goes backwards: 500ms is before the previous event`},
		{sock + "+0 setsockopt(3, SOL_SOCKET, SO_FROB, [1], 4) = 0\n", `t.pkt:2:4: unknown socket option (translated as "setsockopt fd3 SOL_SOCKET SO_FROB 1 => 0") (at "SO_FROB")`},
		{sock + "+0 send(3, ..., 10, 0) = 10 junk\n", `t.pkt:2:29: unexpected text after the call's result (at "junk")`},
		{sock + "+0 send(3, ..., 10, 0\n", `t.pkt:2:22: missing ")"`},
		{sock + "+0 recvmsg(3, {msg_control=[{cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=SO_EE_ORIGIN_ICMP, ee_type=0, ee_code=0, ee_info=0, ee_data=0}}]}, MSG_ERRQUEUE) = 0\n",
			`t.pkt:2:104: the importer translates zerocopy notifications (ee_origin=SO_EE_ORIGIN_ZEROCOPY)`},
	} {
		_, err := Import("t.pkt", []byte(tc.src))
		require.Error(t, err, tc.src)
		require.Equal(t, tc.want, err.Error(), tc.src)
		var list scenario.ErrorList
		require.True(t, errors.As(err, &list))
	}
}

// TestRunFromImport runs an imported script that fails its expectation:
// the mismatch names the statement whose comment names the script line.
func TestRunFromImport(t *testing.T) {
	src := "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 send(3, ..., 10, 0) = 10\n"
	r, err := Import("t.pkt", []byte(src))
	require.NoError(t, err)
	tr, err := interp.Run("t.pkt.zcs", r.Scenario, interp.Options{})
	require.NoError(t, err)
	var ms []*sim.Mismatch
	for _, rec := range tr.Records {
		if rec.Mismatch != nil {
			ms = append(ms, rec.Mismatch)
		}
	}
	require.Len(t, ms, 1)
	require.Equal(t, "t.pkt.zcs:4", ms[0].Source)
	require.True(t, strings.HasSuffix(strings.Split(string(r.Scenario), "\n")[3], "# from t.pkt:2"))
}

// A shell command setting a per-namespace sysctl the language has runs
// as the sysctl statement; one reading a sysctl, setting another (a
// global one, such as net.core.wmem_max, or one of three values) and any
// other shell command is a note.
func TestImportShellSysctl(t *testing.T) {
	src := "`sysctl -q -w net.ipv4.tcp_fastopen=0x603`\n" +
		"`sysctl -q net.ipv4.tcp_timestamps=0`\n" +
		"`sysctl -w net.ipv4.tcp_sack=0`\n" +
		"`sysctl net.ipv4.tcp_fastopen`\n" +
		"`sysctl -q net.core.wmem_max=1000000`\n" +
		"`sysctl -q net.ipv4.tcp_congestion_control=reno`\n" +
		"`sysctl -q net.ipv4.tcp_early_retrans=0`\n" +
		"`sysctl -q net.ipv4.tcp_wmem=4096`\n"
	r, err := Import("t.pkt", []byte(src))
	require.NoError(t, err)
	require.Equal(t, header+
		"sysctl net.ipv4.tcp_fastopen 0x603 # from t.pkt:1\n"+
		"sysctl net.ipv4.tcp_timestamps 0 # from t.pkt:2\n"+
		"sysctl net.ipv4.tcp_sack 0 # from t.pkt:3\n"+
		"note not run: shell command `sysctl net.ipv4.tcp_fastopen` # from t.pkt:4\n"+
		"note not run: shell command `sysctl -q net.core.wmem_max=1000000` # from t.pkt:5\n"+
		"sysctl net.ipv4.tcp_congestion_control reno # from t.pkt:6\n"+
		"sysctl net.ipv4.tcp_early_retrans 0 # from t.pkt:7\n"+
		"note not run: shell command `sysctl -q net.ipv4.tcp_wmem=4096` # from t.pkt:8\n", string(r.Scenario))
	require.Len(t, r.NotRun, 3)
}

// A poll of one descriptor becomes the poll statement with its revents
// checked (0 when the script leaves them out); epoll data given as a
// value names the socket epoll_ctl gave it.
func TestImportPollAndEpollData(t *testing.T) {
	src := `0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 poll([{fd=3, events=POLLIN|POLLERR, revents=POLLERR}], 1, 0) = 1
+0 poll([{fd=3, events=POLLIN}], 1, 10) = 0
+0 epoll_create(1) = 4
+0 epoll_ctl(4, EPOLL_CTL_ADD, 3, {events=EPOLLOUT, u32=77}) = 0
+0 epoll_wait(4, {events=EPOLLOUT, u32=77}, 8, 0) = 1
+0 epoll_ctl(4, EPOLL_CTL_MOD, 3, {events=EPOLLOUT, ptr=5}) = 0
+0 epoll_wait(4, {events=EPOLLOUT, ptr=5}, 8, 0) = 1
`
	r, err := Import("t.pkt", []byte(src))
	require.NoError(t, err)
	require.Equal(t, header+`socket fd3 AF_INET SOCK_STREAM IPPROTO_TCP via=tun0 => 3 # from t.pkt:1
poll fd3 POLLIN|POLLERR => 1 revents=POLLERR # from t.pkt:2
poll fd3 POLLIN 10ms => 0 revents=0 # from t.pkt:3
epoll_create fd4 => 4 # from t.pkt:4
epoll_ctl fd4 EPOLL_CTL_ADD fd3 EPOLLOUT => 0 # from t.pkt:5
epoll_wait fd4 8 => 1 [fd3 EPOLLOUT] # from t.pkt:6
epoll_ctl fd4 EPOLL_CTL_MOD fd3 EPOLLOUT => 0 # from t.pkt:7
epoll_wait fd4 8 => 1 [fd3 EPOLLOUT] # from t.pkt:8
`, string(r.Scenario))
	_, err = Import("t.pkt", []byte(`0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 4
+0 epoll_create(1) = 5
+0 epoll_ctl(5, EPOLL_CTL_ADD, 3, {events=EPOLLOUT, u32=1}) = 0
+0 epoll_ctl(5, EPOLL_CTL_ADD, 4, {events=EPOLLOUT, u32=1}) = 0
`))
	require.EqualError(t, err, "t.pkt:5:35: socket 3 has the event data 1 on this instance already: a wait could not say which socket is ready")
}

// listen's backlog carries over as backlog=, but for the statement's
// default, 1; the export writes it back.
func TestImportListenBacklog(t *testing.T) {
	src := "`sysctl -q net.ipv4.tcp_abort_on_overflow=1`\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n" +
		"+0 listen(3, 0) = 0\n+0 listen(3, -1) = 0\n+0 listen(3, 1) = 0\n"
	r, err := Import("t.pkt", []byte(src))
	require.NoError(t, err)
	require.Equal(t, header+
		"sysctl net.ipv4.tcp_abort_on_overflow 1 # from t.pkt:1\n"+
		"socket fd3 AF_INET SOCK_STREAM IPPROTO_TCP via=tun0 => 3 # from t.pkt:2\n"+
		"listen fd3 backlog=0 => 0 # from t.pkt:3\n"+
		"listen fd3 backlog=-1 => 0 # from t.pkt:4\n"+
		"listen fd3 => 0 # from t.pkt:5\n", string(r.Scenario))
	out, err := Export("t.pkt.zcs", r.Scenario, scenario.Inet)
	require.NoError(t, err)
	for _, call := range []string{"`sysctl -q net.ipv4.tcp_abort_on_overflow=1`", "listen(3, 0) = 0", "listen(3, -1) = 0", "listen(3, 1) = 0"} {
		require.Contains(t, string(out), call)
	}
	for _, tc := range []struct{ src, want string }{
		{"+0 listen(3) = 0\n", `t.pkt:2:4: listen takes a descriptor and a backlog (at "listen")`},
		{"+0 listen(3, 4294967296) = 0\n", `t.pkt:2:14: the backlog is an int, between -2147483648 and 2147483647 (at "4294967296")`},
	} {
		_, err := Import("t.pkt", []byte("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n"+tc.src))
		require.EqualError(t, err, tc.want)
	}
}
