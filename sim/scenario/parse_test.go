package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignorePos compares statements without their positions.
var ignorePos = cmpopts.IgnoreTypes(Pos{})

// mustParse parses src as file t.zcs and fails the test on an error.
func mustParse(t *testing.T, src string) []Stmt {
	t.Helper()
	stmts, err := Parse("t.zcs", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return stmts
}

// goodLines maps a line to its canonical form.
var goodLines = []struct{ in, want string }{
	{"profile linux-6.18", "profile linux-6.18"},
	{"  profile\trfc-v2   # the seed patch set", "profile rfc-v2 # the seed patch set"},
	{"bug udp-more-refcnt", "bug udp-more-refcnt"},
	{"sysctl net.core.optmem_max 20480", "sysctl net.core.optmem_max 20480"},
	{"sysctl net.ipv4.tcp_wmem 4K 16K 4M", "sysctl net.ipv4.tcp_wmem 4K 16K 4M"},
	{"sysctl net.ipv4.tcp_congestion_control  reno", "sysctl net.ipv4.tcp_congestion_control reno"},
	{`setsockopt s IPPROTO_TCP TCP_CONGESTION "cubic" optlen=3 => -1 ENOENT`, `setsockopt s IPPROTO_TCP TCP_CONGESTION "cubic" optlen=3 => -1 ENOENT`},
	{`getsockopt s SOL_TCP TCP_CONGESTION =>  "bbr"`, `getsockopt s SOL_TCP TCP_CONGESTION => "bbr"`},
	{`getsockopt s SOL_TCP TCP_CONGESTION optlen=0 => ""`, `getsockopt s SOL_TCP TCP_CONGESTION optlen=0 => ""`},
	{"getsockopt s SOL_TCP TCP_INFO => 0 tcpi_state = 1 tcpi_bytes_received=4G", "getsockopt s SOL_TCP TCP_INFO => 0 tcpi_state=1 tcpi_bytes_received=4G"},
	{"user alice uid=1000", "user alice uid=1000"},
	{"user alice uid = 1000", "user alice uid=1000"},
	{"task p1 user=alice memlock=64K cap_ipc_lock", "task p1 user=alice memlock=64K cap_ipc_lock"},
	{"task p1 user=alice memlock=unlimited", "task p1 user=alice memlock=unlimited"},
	{"device lo loopback", "device lo loopback"},
	{"device eth0 nic sg=off csum=on gso=on tso=off mtu=1500 delay=10us loss=0.01 txcomplete=manual",
		"device eth0 nic sg=off csum=on gso=on tso=off mtu=1500 delay=10us loss=0.01 txcomplete=manual"},
	{"device t0 tun txcomplete=1ms loss=1", "device t0 tun txcomplete=1ms loss=1"},
	{"tap dump on=eth0", "tap dump on=eth0"},
	{"device lo loopback gso_max_size=512K", "device lo loopback gso_max_size=512K"},
	{"task big user=alice hugepages", "task big user=alice hugepages"},
	{"txerror eth0", "txerror eth0"},
	{"txerror eth0 2", "txerror eth0 2"},
	{"vhost_send t0 64K gso_size=1448 => 65536", "vhost_send t0 64K gso_size=1448 => 65536"},
	{"vhost_send t0 4K => -1 EIO", "vhost_send t0 4K => -1 EIO"},
	{"socket s AF_INET SOCK_STREAM", "socket s AF_INET SOCK_STREAM"},
	{"socket s AF_INET6 SOCK_DGRAM | SOCK_NONBLOCK IPPROTO_UDP via=lo task=p1 peer_ack=delayed peer_rcvbuf=1M",
		"socket s AF_INET6 SOCK_DGRAM|SOCK_NONBLOCK IPPROTO_UDP via=lo task=p1 peer_ack=delayed peer_rcvbuf=1M"},
	{"socket r AF_PACKET SOCK_RAW 0x0300", "socket r AF_PACKET SOCK_RAW 0x0300"},
	{"setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0", "setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0"},
	{"setsockopt s IPPROTO_TCP TCP_CORK 1", "setsockopt s IPPROTO_TCP TCP_CORK 1"},
	{"setsockopt s SOL_SOCKET SO_SNDBUF 64K", "setsockopt s SOL_SOCKET SO_SNDBUF 64K"},
	{"setsockopt s SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_OPT_ID",
		"setsockopt s SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_OPT_ID"},
	{"setsockopt s SOL_SOCKET SO_TIMESTAMPING 0x82", "setsockopt s SOL_SOCKET SO_TIMESTAMPING 0x82"},
	{"getsockopt s SOL_SOCKET SO_ZEROCOPY => 1", "getsockopt s SOL_SOCKET SO_ZEROCOPY => 1"},
	{"connect s", "connect s"},
	{"listen s.peer", "listen s.peer"},
	{"listen s backlog=0 => 0", "listen s backlog=0 => 0"},
	{"socket c AF_INET SOCK_STREAM|SOCK_NONBLOCK to=s", "socket c AF_INET SOCK_STREAM|SOCK_NONBLOCK to=s"},
	{"listen s  backlog = -1", "listen s backlog=-1"},
	{"bind s", "bind s"},
	{"accept s.peer c", "accept s.peer c"},
	{"shutdown s SHUT_WR", "shutdown s SHUT_WR"},
	{"close s => 0", "close s => 0"},
	{"send s 64K MSG_ZEROCOPY => 65536", "send s 64K MSG_ZEROCOPY => 65536"},
	{"send s 1 0", "send s 1 0"},
	{"send s 100 MSG_ZEROCOPY | MSG_DONTWAIT => 64K", "send s 100 MSG_ZEROCOPY|MSG_DONTWAIT => 65536"},
	{"sendto s 1472 MSG_ZEROCOPY|MSG_MORE", "sendto s 1472 MSG_ZEROCOPY|MSG_MORE"},
	{"sendmsg s [4K,4K , 100] MSG_ZEROCOPY", "sendmsg s [4K, 4K, 100] MSG_ZEROCOPY"},
	{"sendmsg s [] 0", "sendmsg s [] 0"},
	{"sendmsg u [3000] 0 cmsg SOL_UDP UDP_SEGMENT 1000", "sendmsg u [3000] 0 cmsg SOL_UDP UDP_SEGMENT 1000"},
	{"sendmsg u [3000] 0 cmsg IPPROTO_UDP 103 0x3e8 len = 4 cmsg 1234 5 0", "sendmsg u [3000] 0 cmsg IPPROTO_UDP 103 0x3e8 len=4 cmsg 1234 5 0"},
	{"sendmsg u [1] MSG_ZEROCOPY cmsg SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SCHED | SOF_TIMESTAMPING_TX_SOFTWARE zc_info=2",
		"sendmsg u [1] MSG_ZEROCOPY cmsg SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SCHED|SOF_TIMESTAMPING_TX_SOFTWARE zc_info=2"},
	{"sendmsg u [1] 0 cmsg SOL_SOCKET SO_TIMESTAMPING 0x2 cmsg SOL_SOCKET SO_MARK 7", "sendmsg u [1] 0 cmsg SOL_SOCKET SO_TIMESTAMPING 0x2 cmsg SOL_SOCKET SO_MARK 7"},
	{"sendmsg s [10, 10] MSG_ZEROCOPY iov = apart => 20", "sendmsg s [10, 10] MSG_ZEROCOPY iov=apart => 20"},
	{"sendmsg s [10] 0 zc_info=1 iov=packed", "sendmsg s [10] 0 zc_info=1 iov=packed"},
	{"sendmmsg s [1K] [2K,3K] MSG_ZEROCOPY => 2", "sendmmsg s [1K] [2K, 3K] MSG_ZEROCOPY => 2"},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [0,4]", "recvmsg s MSG_ERRQUEUE => zerocopy [0,4]"},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [ 0xfffffffe , 0 ] copied", "recvmsg s MSG_ERRQUEUE => zerocopy [0xfffffffe,0] copied"},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [0x10,70000]", "recvmsg s MSG_ERRQUEUE => zerocopy [16,0x11170]"},
	{"recvmsg s MSG_ERRQUEUE => EAGAIN", "recvmsg s MSG_ERRQUEUE => -1 EAGAIN"},
	{"recvmsg s MSG_ERRQUEUE => -1 EAGAIN", "recvmsg s MSG_ERRQUEUE => -1 EAGAIN"},
	{"recvmsg s MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND", "recvmsg s MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND"},
	{"recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type = 3 code=0x3", "recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3"},
	{"recvmsg s MSG_ERRQUEUE => icmp6 ECONNREFUSED type=1 code=4", "recvmsg s MSG_ERRQUEUE => icmp6 ECONNREFUSED type=1 code=4"},
	{"socket r AF_INET SOCK_RAW IPPROTO_RAW ihl = 5", "socket r AF_INET SOCK_RAW IPPROTO_RAW ihl=5"},
	{"recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 quoted = 0x208", "recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 quoted=520"},
	{"recvmsg s MSG_ERRQUEUE => icmp6 ECONNREFUSED type=1 code=4 quoted=0 cmsg_level=SOL_IPV6", "recvmsg s MSG_ERRQUEUE => icmp6 ECONNREFUSED type=1 code=4 quoted=0 cmsg_level=SOL_IPV6"},
	{"recvmsg s MSG_ERRQUEUE control = 48 => ctrunc", "recvmsg s MSG_ERRQUEUE control=48 => ctrunc"},
	{"recvmsg s MSG_ERRQUEUE => timestamp SCM_TSTAMP_ACK key = 0x3", "recvmsg s MSG_ERRQUEUE => timestamp SCM_TSTAMP_ACK key=3"},
	{"recvmsg s 0 => -1", "recvmsg s 0 => -1"},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [0,2] copied msg_flags = MSG_ERRQUEUE cmsg_level=SOL_IPV6 cmsg_type=IPV6_RECVERR",
		"recvmsg s MSG_ERRQUEUE => zerocopy [0,2] copied msg_flags=MSG_ERRQUEUE cmsg_level=SOL_IPV6 cmsg_type=IPV6_RECVERR"},
	{"recvmsg s MSG_ERRQUEUE control=0 => 0 msg_flags=MSG_ERRQUEUE | MSG_CTRUNC", "recvmsg s MSG_ERRQUEUE control=0 => 0 msg_flags=MSG_ERRQUEUE|MSG_CTRUNC"},
	{"recvmsg s MSG_ERRQUEUE => 0 ee_errno=0 ee_origin=SO_EE_ORIGIN_ZEROCOPY ee_type=0 ee_code=SO_EE_CODE_ZEROCOPY_COPIED ee_info=0 ee_data=0xffffffff",
		"recvmsg s MSG_ERRQUEUE => 0 ee_errno=0 ee_origin=SO_EE_ORIGIN_ZEROCOPY ee_type=0 ee_code=SO_EE_CODE_ZEROCOPY_COPIED ee_info=0 ee_data=0xffffffff"},
	{"recvmsg s MSG_ERRQUEUE => 0 ee_errno=ECONNREFUSED ee_origin=2 ee_code=3", "recvmsg s MSG_ERRQUEUE => 0 ee_errno=ECONNREFUSED ee_origin=2 ee_code=3"},
	{"recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 cmsg_level=SOL_IP", "recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 cmsg_level=SOL_IP"},
	{"recvmsg s MSG_ERRQUEUE control=32 => ctrunc msg_flags=MSG_ERRQUEUE|MSG_CTRUNC", "recvmsg s MSG_ERRQUEUE control=32 => ctrunc msg_flags=MSG_ERRQUEUE|MSG_CTRUNC"},
	{"recv s.peer 64K", "recv s.peer 64K"},
	{"epoll_create ep => 4", "epoll_create ep => 4"},
	{"epoll_ctl ep EPOLL_CTL_ADD s EPOLLIN | EPOLLET => 0", "epoll_ctl ep EPOLL_CTL_ADD s EPOLLIN|EPOLLET => 0"},
	{"epoll_ctl ep EPOLL_CTL_DEL s.peer", "epoll_ctl ep EPOLL_CTL_DEL s.peer"},
	{"epoll_ctl ep EPOLL_CTL_MOD s 0", "epoll_ctl ep EPOLL_CTL_MOD s 0"},
	{"epoll_wait ep 8 => 2 [s EPOLLERR|EPOLLOUT , s.peer EPOLLIN]", "epoll_wait ep 8 => 2 [s EPOLLERR|EPOLLOUT, s.peer EPOLLIN]"},
	{"epoll_wait ep 8 -1 => 0 []", "epoll_wait ep 8 -1 => 0 []"},
	{"epoll_wait ep 0 10ms => -1 EINVAL", "epoll_wait ep 0 10ms => -1 EINVAL"},
	{"fcntl s F_GETFL => 2050", "fcntl s F_GETFL => 2050"},
	{"fcntl s F_SETFL O_NONBLOCK|O_RDWR => 0", "fcntl s F_SETFL O_NONBLOCK|O_RDWR => 0"},
	{"recv s.peer 64K 0", "recv s.peer 64K"},
	{"recv s.peer 64K MSG_PEEK|MSG_TRUNC => 0", "recv s.peer 64K MSG_PEEK|MSG_TRUNC => 0"},
	{"poll s.peer POLLIN => 0", "poll s.peer POLLIN => 0"},
	{"mmap p", "mmap p"},
	{"mmap s.peer 1M PROT_READ => 0", "mmap s.peer 1M PROT_READ => 0"},
	{"mmap s PROT_READ|PROT_WRITE", "mmap s PROT_READ|PROT_WRITE"},
	{"getsockopt s.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE copybuf=4K length=64K offset=4096 => 61440",
		"getsockopt s.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE copybuf=4K length=64K offset=4096 => 61440"},
	{"getsockopt s.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE control=128 flags=1 msg_flags=2 reserved=0 => 0",
		"getsockopt s.peer IPPROTO_TCP TCP_ZEROCOPY_RECEIVE control=128 flags=1 msg_flags=2 reserved=0 => 0"},
	{"setsockopt s.peer SOL_SOCKET SO_TIMESTAMPNS_NEW 1", "setsockopt s.peer SOL_SOCKET SO_TIMESTAMPNS_NEW 1"},
	{"getsockopt s.peer IPPROTO_TCP TCP_INQ => 0", "getsockopt s.peer IPPROTO_TCP TCP_INQ => 0"},
	{"poll  s POLLIN|POLLOUT   100ms => 1", "poll s POLLIN|POLLOUT 100ms => 1"},
	{"poll s POLLIN|POLLERR 0ms => 1 revents = POLLERR", "poll s POLLIN|POLLERR 0ms => 1 revents=POLLERR"},
	{"poll s POLLIN => 0 revents=0", "poll s POLLIN => 0 revents=0"},
	{"setrlimit p1 RLIMIT_MEMLOCK 64K", "setrlimit p1 RLIMIT_MEMLOCK 64K"},
	{"setrlimit p1 RLIMIT_MEMLOCK unlimited", "setrlimit p1 RLIMIT_MEMLOCK unlimited"},
	{"capdrop p1 CAP_IPC_LOCK", "capdrop p1 CAP_IPC_LOCK"},
	{"capset p1 CAP_IPC_LOCK", "capset p1 CAP_IPC_LOCK"},
	{"wait 10ms", "wait 10ms"},
	{"wait 0ns", "wait 0ns"},
	{"settle", "settle"},
	{"hold s ack", "hold s ack"},
	{"release s data", "release s data"},
	{"drop s data", "drop s data"},
	{"drop s.peer ack 3", "drop s.peer ack 3"},
	{"complete eth0", "complete eth0"},
	{"complete eth0 2", "complete eth0 2"},
	{"fault sock_omalloc always", "fault sock_omalloc always"},
	{"fault skb_copy_ubufs nth = 2", "fault skb_copy_ubufs nth=2"},
	{"fault sock_omalloc p=0.25", "fault sock_omalloc p=0.25"},
	{"expect s zckey=2 optmem=0 errqueue=1 state=ESTABLISHED", "expect s zckey=2 optmem=0 errqueue=1 state=ESTABLISHED"},
	{"expect s.peer refcnt=0x1 locked_vm=16K", "expect s.peer refcnt=0x1 locked_vm=16K"},
	{"expect s notified = [ 0 , 31 ]", "expect s notified=[0,31]"},
	{"expect s notified=[0xfffffffe,1] errqueue=0 notified_x=1", "expect s errqueue=0 notified_x=1 notified=[0xfffffffe,1]"},
	{"expect s zckey=2 notified=[65536,0x10001]", "expect s zckey=2 notified=[65536,0x10001]"},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [0,3] any", "recvmsg s MSG_ERRQUEUE => zerocopy [0,3] any"},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [0,3] any msg_flags=MSG_ERRQUEUE", "recvmsg s MSG_ERRQUEUE => zerocopy [0,3] any msg_flags=MSG_ERRQUEUE"},
	{"send s 1 MSG_ZEROCOPY => -1 any", "send s 1 MSG_ZEROCOPY => -1 any"},
	{"note the first send gets id 0 => see below", "note the first send gets id 0 => see below"},
	{"note   ", "note"},
	{"note# nothing to say", "note # nothing to say"},
	{"#comment", "# comment"},
	{"#", "#"},
	{"send s 1 0 => -1 EWOULDBLOCK#x", "send s 1 0 => -1 EWOULDBLOCK # x"},
	{"send s 1 0\r", "send s 1 0"},
}

func TestParseGoodLines(t *testing.T) {
	for _, tc := range goodLines {
		t.Run(tc.in, func(t *testing.T) {
			stmts := mustParse(t, tc.in)
			if len(stmts) != 1 {
				t.Fatalf("Parse(%q) gave %d statements, want 1", tc.in, len(stmts))
			}
			if got := FormatStmt(stmts[0]); got != tc.want {
				t.Errorf("FormatStmt(Parse(%q)) = %q, want %q", tc.in, got, tc.want)
			}
			again := mustParse(t, tc.want)
			if diff := cmp.Diff(stmts, again, ignorePos); diff != "" {
				t.Errorf("reparsing the canonical form changed the AST (-first +again):\n%s", diff)
			}
		})
	}
}

// badLines maps a line to the exact error Parse reports for it.
var badLines = []struct{ in, want string }{
	{"getsockopt s IPPROTO_TCP TCP_ZEROCOPY_RECEIVE controls=8", "t.zcs:1:47: unknown option, did you mean control?, want length, copybuf, offset, flags, msg_flags, reserved, control, optlen, null (at \"controls\")"},
	{"frobnicate s", "t.zcs:1:1: unknown statement (at \"frobnicate\")"},
	{"sned s 1 0", "t.zcs:1:1: unknown statement, did you mean send? (at \"sned\")"},
	{"[ s", "t.zcs:1:1: expected a statement keyword (at \"[\")"},
	{"profile", "t.zcs:1:8: missing profile name"},
	{"profile linux 6.18", "t.zcs:1:15: unexpected word (at \"6.18\")"},
	{"profile 6.18", "t.zcs:1:9: bad profile name, want a letter or _ then letters, digits, _, - or . (at \"6.18\")"},
	{"bug", "t.zcs:1:4: missing bug name"},
	{"sysctl net.core.optmem_max", "t.zcs:1:27: missing sysctl value"},
	{"sysctl net.ipv4.tcp_congestion_control", "t.zcs:1:39: missing a congestion control's name"},
	{"setsockopt s IPPROTO_TCP TCP_CONGESTION cubic", `t.zcs:1:41: expected a name in double quotes, such as "cubic" (at "cubic")`},
	{`setsockopt s IPPROTO_TCP TCP_CONGESTION "cu"bic"`, `t.zcs:1:41: expected a name in double quotes, such as "cubic" (at "\"cu\"bic\"")`},
	{`getsockopt s IPPROTO_TCP TCP_CONGESTION => "bbr`, `t.zcs:1:44: expected a name in double quotes, such as "cubic" (at "\"bbr")`},
	{"sysctl net.core.optmem_max 20k", "t.zcs:1:28: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at \"20k\")"},
	{"sysctl net.core.optmem_max 1 2 3 4", "t.zcs:1:34: unexpected word (at \"4\")"},
	{"sysctl net.core.optmem_max 99999999999999999999", "t.zcs:1:28: number out of range (at \"99999999999999999999\")"},
	{"sysctl net.core.optmem_max 0x", "t.zcs:1:28: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at \"0x\")"},
	{"sysctl net.core.optmem_max 0xfffffffffffffffff", "t.zcs:1:28: number out of range (at \"0xfffffffffffffffff\")"},
	{"sysctl net.core.optmem_max 17179869184G", "t.zcs:1:28: number out of range (at \"17179869184G\")"},
	{"user alice", "t.zcs:1:11: missing option uid="},
	{"user alice uid", "t.zcs:1:15: missing \"=\""},
	{"user alice uid=", "t.zcs:1:16: missing value of uid"},
	{"user alice uid=1 uid=2", "t.zcs:1:18: duplicate option (at \"uid\")"},
	{"user alice gid=1", "t.zcs:1:12: unknown option, want uid (at \"gid\")"},
	{"listen s backlg=4", "t.zcs:1:10: unknown option, did you mean backlog?, want backlog (at \"backlg\")"},
	{"listen s backlog", `t.zcs:1:17: missing "="`},
	{"user 1alice uid=1", "t.zcs:1:6: bad user name, want a letter or _ then letters, digits, _ or - (at \"1alice\")"},
	{"task p user=alice memlock=lots", "t.zcs:1:27: bad value of memlock, want a number or unlimited (at \"lots\")"},
	{"task p user=alice cap_ipc_lock=1", "t.zcs:1:19: option takes no value (at \"cap_ipc_lock\")"},
	{"task p memlock=1K", "t.zcs:1:18: missing option user="},
	{"device eth0", "t.zcs:1:12: missing device kind"},
	{"device eth0 wifi", "t.zcs:1:13: bad device kind, want nic or loopback or tun (at \"wifi\")"},
	{"device eth0 nic sg=maybe", "t.zcs:1:20: bad value of sg, want on or off (at \"maybe\")"},
	{"device eth0 nic delay=10", "t.zcs:1:23: bad duration, want an integer with unit ns, us, ms or s (at \"10\")"},
	{"device eth0 nic delay=1.5ms", "t.zcs:1:23: bad duration, want an integer with unit ns, us, ms or s (at \"1.5ms\")"},
	{"device eth0 nic delay=99999999999999s", "t.zcs:1:23: duration out of range (at \"99999999999999s\")"},
	{"device eth0 nic loss=1.5", "t.zcs:1:22: bad probability, want a decimal between 0 and 1 such as 0.25 (at \"1.5\")"},
	{"device eth0 nic txcomplete=soon", "t.zcs:1:28: bad value of txcomplete, want a duration or manual (at \"soon\")"},
	{"device eth0 nic mtu=1500 sg=on =", "t.zcs:1:32: unexpected \"=\" (at \"=\")"},
	{"tap t", "t.zcs:1:6: missing option on="},
	{"tap t on=eth0.x", "t.zcs:1:10: bad name, want a letter or _ then letters, digits, _ or - (at \"eth0.x\")"},
	{"socket s AF_INET", "t.zcs:1:17: missing socket type"},
	{"socket s AF_INTE SOCK_STREAM", "t.zcs:1:10: unknown family, did you mean AF_INET? (at \"AF_INTE\")"},
	{"socket s AF_INET SOCK_STREAM|", "t.zcs:1:30: missing socket type"},
	{"socket s AF_INET SOCK_STREAM|SOCK_STREAM", "t.zcs:1:30: duplicate socket type (at \"SOCK_STREAM\")"},
	{"socket s AF_INET sock_stream", "t.zcs:1:18: unknown socket type, did you mean SOCK_STREAM? (at \"sock_stream\")"},
	{"socket s AF_INET SOCK_DGRAM IPPROTO_UPD", "t.zcs:1:29: unknown protocol, did you mean IPPROTO_UDP? (at \"IPPROTO_UPD\")"},
	{"socket s AF_INET SOCK_DGRAM 17x", "t.zcs:1:29: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at \"17x\")"},
	{"socket s AF_INET SOCK_DGRAM peer_ack=slow", "t.zcs:1:38: bad value of peer_ack, want kernel or immediate or delayed or quickack (at \"slow\")"},
	{"socket s.peer AF_INET SOCK_DGRAM", "t.zcs:1:8: bad socket name, want a letter or _ then letters, digits, _ or - (at \"s.peer\")"},
	{"setsockopt s SOL_SOCKET SO_ZEROCOPY", "t.zcs:1:36: missing option value"},
	{"setsockopt s IPPROTO_TCP SO_ZEROCOPY 1", "t.zcs:1:26: option is not at level IPPROTO_TCP (at \"SO_ZEROCOPY\")"},
	{"setsockopt s SOL_SOCKET SO_ZEROCPY 1", "t.zcs:1:25: unknown socket option, did you mean SO_ZEROCOPY? (at \"SO_ZEROCPY\")"},
	{"setsockopt s SOL_SOKET SO_ZEROCOPY 1", "t.zcs:1:14: unknown level, did you mean SOL_SOCKET? (at \"SOL_SOKET\")"},
	{"setsockopt s SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWAR", "t.zcs:1:41: unknown timestamping flag, did you mean SOF_TIMESTAMPING_TX_SOFTWARE? (at \"SOF_TIMESTAMPING_TX_SOFTWAR\")"},
	{"setsockopt s SOL_SOCKET SO_ZEROCOPY on", "t.zcs:1:37: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at \"on\")"},
	{"getsockopt s SOL_UDP TCP_CORK", "t.zcs:1:22: option is not at level SOL_UDP (at \"TCP_CORK\")"},
	{"connect", "t.zcs:1:8: missing socket name"},
	{"connect s t", "t.zcs:1:11: unexpected word (at \"t\")"},
	{"connect s.pear", "t.zcs:1:9: bad socket name, want a name or name.peer (at \"s.pear\")"},
	{"connect .peer", "t.zcs:1:9: bad socket name, want a name or name.peer (at \".peer\")"},
	{"accept s", "t.zcs:1:9: missing new socket name"},
	{"accept s t.peer", "t.zcs:1:10: bad new socket name, want a letter or _ then letters, digits, _ or - (at \"t.peer\")"},
	{"shutdown s SHUT_BOTH", "t.zcs:1:12: unknown shutdown mode (at \"SHUT_BOTH\")"},
	{"send s", "t.zcs:1:7: missing length"},
	{"send s 1", "t.zcs:1:9: missing flags, or 0 for none"},
	{"send s 1 MSG_ZEROCOPY|", "t.zcs:1:23: missing flag"},
	{"send s 1 MSG_ZEROCOPY|MSG_ZEROCOPY", "t.zcs:1:23: duplicate flag (at \"MSG_ZEROCOPY\")"},
	{"send s 1 msg_zerocopy", "t.zcs:1:10: unknown flag, did you mean MSG_ZEROCOPY? (at \"msg_zerocopy\")"},
	{"send s 1 0|MSG_MORE", "t.zcs:1:11: unexpected \"|\" (at \"|\")"},
	{"send s 64KB MSG_ZEROCOPY", "t.zcs:1:8: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at \"64KB\")"},
	{"send s 64 K MSG_ZEROCOPY", "t.zcs:1:11: a size suffix goes right after its number, as in 64K (at \"K\")"},
	{"send s -1 0", "t.zcs:1:8: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at \"-1\")"},
	{"sendmsg s 1 0", "t.zcs:1:11: expected \"[\" (at \"1\")"},
	{"sendmsg u [1] 0 cmsg SOL_UDP SO_MARK 7", "t.zcs:1:30: control message type is not at level SOL_UDP (at \"SO_MARK\")"},
	{"sendmsg u [1] 0 cmsg SOL_UPD 103 7", "t.zcs:1:22: unknown level, did you mean SOL_UDP? (at \"SOL_UPD\")"},
	{"sendmsg u [1] 0 cmsg SOL_UDP UDP_SEGMENT", "t.zcs:1:41: missing control message value"},
	{"sendmsg u [1] 0 cmsg SOL_UDP UDP_SEGMENT 1 len", "t.zcs:1:47: missing \"=\""},
	{"sendmsg u [1] 0 cmsg SOL_UDP UDP_SEGMENT SOF_TIMESTAMPING_TX_SCHED", "t.zcs:1:42: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at \"SOF_TIMESTAMPING_TX_SCHED\")"},
	{"sendmsg u [1] 0 zc_info=1 cmsg SOL_UDP UDP_SEGMENT 1", "t.zcs:1:27: unknown option, want zc_info, zc_len, iov (at \"cmsg\")"},
	{"sendmsg s [1, 2] 0 iov=apar", "t.zcs:1:24: bad value of iov, want packed or apart (at \"apar\")"},
	{"sendmsg s [1 2] 0", "t.zcs:1:14: expected \",\" (at \"2\")"},
	{"sendmsg s [1, 0", "t.zcs:1:16: missing \"]\""},
	{"sendmsg s [1,, 2] 0", "t.zcs:1:14: expected iovec length (at \",\")"},
	{"sendmmsg s 0", "t.zcs:1:12: expected \"[\" (at \"0\")"},
	{"recvmsg s", "t.zcs:1:10: missing flags, or 0 for none"},
	{"recv s", "t.zcs:1:7: missing length"},
	{"recv s 10 MSG_PEEK extra", "t.zcs:1:20: unexpected word (at \"extra\")"},
	{"poll s", "t.zcs:1:7: missing poll event"},
	{"mmap s 4K PROT_READ|MSG_PEEK", "t.zcs:1:21: unknown protection (at \"MSG_PEEK\")"},
	{"getsockopt s SOL_SOCKET SO_RCVBUF copybuf=4K", "t.zcs:1:35: unknown option, want optlen, null (at \"copybuf\")"},
	{"poll s POLLIN|MSG_PEEK", "t.zcs:1:15: unknown poll event (at \"MSG_PEEK\")"},
	{"poll s POLLIN 10", "t.zcs:1:15: bad duration, want an integer with unit ns, us, ms or s (at \"10\")"},
	{"setrlimit p RLIMIT_NOFILE 1", "t.zcs:1:13: unknown resource (at \"RLIMIT_NOFILE\")"},
	{"setrlimit p RLIMIT_MEMLOCK infinity", "t.zcs:1:28: bad limit, want a size or unlimited (at \"infinity\")"},
	{"capset p CAP_SYS_ADMIN", "t.zcs:1:10: unknown capability (at \"CAP_SYS_ADMIN\")"},
	{"capdrop p", "t.zcs:1:10: missing capability"},
	{"wait 10", "t.zcs:1:6: bad duration, want an integer with unit ns, us, ms or s (at \"10\")"},
	{"wait 10 ms", "t.zcs:1:6: bad duration, want an integer with unit ns, us, ms or s (at \"10\")"},
	{"settle now", "t.zcs:1:8: unexpected word (at \"now\")"},
	{"hold s both", "t.zcs:1:8: bad direction, want data or ack (at \"both\")"},
	{"release s", "t.zcs:1:10: missing direction"},
	{"drop s data x", "t.zcs:1:13: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at \"x\")"},
	{"complete eth0 all", "t.zcs:1:15: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at \"all\")"},
	{"fault sock_omalloc", "t.zcs:1:19: missing fault rule"},
	{"fault sock_omalloc nth=", "t.zcs:1:24: missing value of nth"},
	{"fault sock_omalloc 3", "t.zcs:1:20: bad fault rule, want always, never, nth=N, from=N, next=N or p=P (at \"3\")"},
	{"fault sock_omalloc p=0.2=3", "t.zcs:1:25: unexpected \"=\" (at \"=\")"},
	{"expect s", "t.zcs:1:9: missing check such as zckey=1"},
	{"expect s notified=[0,1] notified=[0,1]", "t.zcs:1:25: duplicate option (at \"notified\")"},
	{"expect s notified=2 notified=[0,1]", "t.zcs:1:10: duplicate option (at \"notified\")"},
	{"expect s notified=[0,0x100000000]", "t.zcs:1:22: id out of range, want at most 0xffffffff (at \"0x100000000\")"},
	{"expect s notified=[0 1]", "t.zcs:1:22: expected \",\" (at \"1\")"},
	{"expect s notified=[0,1", "t.zcs:1:23: missing \"]\""},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [0,3] any copied", "t.zcs:1:46: unexpected word (at \"copied\")"},
	{"send s 1 0 => 0 any", "t.zcs:1:17: unexpected word (at \"any\")"},
	{"expect s zckey", "t.zcs:1:15: missing \"=\""},
	{"expect s zckey=@", "t.zcs:1:16: bad value, want a number or a word (at \"@\")"},
	{"expect s 1=2", "t.zcs:1:10: bad check name, want a letter or _ then letters, digits, _ or - (at \"1\")"},
	{"send s 1 0 =>", "t.zcs:1:14: missing expectation after =>"},
	{"send s 1 0 => 1 2", "t.zcs:1:17: unexpected word (at \"2\")"},
	{"send s 1 0 => 1 EAGAIN", "t.zcs:1:17: an errno follows -1, not 1 (at \"EAGAIN\")"},
	{"send s 1 0 => -1 EFOO", "t.zcs:1:18: unknown errno (at \"EFOO\")"},
	{"send s 1 0 => ENOBUF", "t.zcs:1:15: unknown errno, did you mean ENOBUFS? (at \"ENOBUF\")"},
	{"send s 1 0 => ok", "t.zcs:1:15: bad expectation, want a return value, an errno, zerocopy [LO,HI], timestamp KIND, icmp ERRNO or ctrunc (at \"ok\")"},
	{"send s 1 0 => -", "t.zcs:1:15: bad expectation, want a return value, an errno, zerocopy [LO,HI], timestamp KIND, icmp ERRNO or ctrunc (at \"-\")"},
	{"send s 1 0 => 99999999999999999999", "t.zcs:1:15: number out of range (at \"99999999999999999999\")"},
	{"send s 1 0 => => 1", "t.zcs:1:15: expected expectation after => (at \"=>\")"},
	{"recvmsg s MSG_ERRQUEUE => zerocopy", "t.zcs:1:35: missing \"[\""},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [1]", "t.zcs:1:38: expected \",\" (at \"]\")"},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [1,2", "t.zcs:1:40: missing \"]\""},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [1,0x100000000]", "t.zcs:1:39: id out of range, want at most 0xffffffff (at \"0x100000000\")"},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [1,2] copy", "t.zcs:1:42: unexpected word (at \"copy\")"},
	{"recvmsg s MSG_ERRQUEUE => timestamp SCM_TSTAMP_SEND", "t.zcs:1:37: unknown timestamp kind, did you mean SCM_TSTAMP_SND? (at \"SCM_TSTAMP_SEND\")"},
	{"recvmsg s MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND key", "t.zcs:1:55: missing \"=\""},
	{"recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSD type=3 code=3", "t.zcs:1:32: unknown errno, did you mean ECONNREFUSED? (at \"ECONNREFUSD\")"},
	{"recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED code=3 type=3", "t.zcs:1:45: want type=N in an icmp expectation (at \"code\")"},
	{"recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=256 code=3", "t.zcs:1:50: type out of range, want 0 to 255 (at \"256\")"},
	{"recvmsg s MSG_ERRQUEUE => icmp", "t.zcs:1:31: missing errno of the ICMP error"},
	{"recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 quoted=65536", "t.zcs:1:66: quoted length out of range, want 0 to 65535 (at \"65536\")"},
	{"recvmsg s MSG_ERRQUEUE => icmp ECONNREFUSED type=3 code=3 quoted", "t.zcs:1:65: missing \"=\""},
	{"recvmsg s MSG_ERRQUEUE => zerocopy [0,0] ee_info=0", "t.zcs:1:42: ee_info checks the record after a return value or ctrunc, as in 0 ee_origin=SO_EE_ORIGIN_ZEROCOPY; this form says it already (at \"ee_info\")"},
	{"recvmsg s MSG_ERRQUEUE => 0 msg_flag=0", "t.zcs:1:29: unknown field, did you mean msg_flags?, want msg_flags, cmsg_level, cmsg_type, revents, ee_errno, ee_origin, ee_type, ee_code, ee_info, ee_data, tcpi_state, tcpi_probes, tcpi_backoff, tcpi_options, tcpi_rcv_wscale, tcpi_rto, tcpi_snd_mss, tcpi_unacked, tcpi_snd_cwnd, tcpi_total_retrans, tcpi_bytes_received, tcpi_notsent_bytes, tcpi_delivered (at \"msg_flag\")"},
	{"recvmsg s MSG_ERRQUEUE => 0 ee_type=1 ee_type=2", "t.zcs:1:39: duplicate field (at \"ee_type\")"},
	{"recvmsg s MSG_ERRQUEUE => 0 ee_type=256", "t.zcs:1:37: value out of range (at \"256\")"},
	{"recvmsg s MSG_ERRQUEUE => 0 ee_origin=SO_EE_ORIGIN_ZC", "t.zcs:1:39: unknown ee_origin (at \"SO_EE_ORIGIN_ZC\")"},
	{"recvmsg s MSG_ERRQUEUE => 0 cmsg_type=IP_TOS", "t.zcs:1:39: unknown cmsg_type (at \"IP_TOS\")"},
	{"recvmsg s MSG_ERRQUEUE => 0 cmsg_level", "t.zcs:1:29: unexpected word (at \"cmsg_level\")"},
	{"epoll_ctl ep EPOLL_CTL_ADD s", "t.zcs:1:29: missing epoll events, or 0 for none"},
	{"epoll_ctl ep EPOLL_CTL_ADDD s EPOLLIN", "t.zcs:1:14: unknown epoll_ctl operation, did you mean EPOLL_CTL_ADD? (at \"EPOLL_CTL_ADDD\")"},
	{"epoll_ctl ep EPOLL_CTL_ADD s EPOLLET|POLLIN", "t.zcs:1:38: unknown epoll event, did you mean EPOLLIN? (at \"POLLIN\")"},
	{"epoll_wait ep", "t.zcs:1:14: missing maxevents"},
	{"epoll_wait ep 8 forever", "t.zcs:1:17: bad duration, want an integer with unit ns, us, ms or s (at \"forever\")"},
	{"epoll_wait ep 8 => 1 [s EPOLLERR", "t.zcs:1:33: missing \"]\""},
	{"fcntl s F_SETFD 1", "t.zcs:1:9: unknown fcntl command, did you mean F_SETFL? (at \"F_SETFD\")"},
	{"fcntl s F_SETFL O_NDELAY", "t.zcs:1:17: unknown file status flag (at \"O_NDELAY\")"},
	{"recvmsg s MSG_ERRQUEUE contrl=4", "t.zcs:1:24: unknown option, did you mean control?, want control (at \"contrl\")"},
}

func TestParseBadLines(t *testing.T) {
	for _, tc := range badLines {
		t.Run(tc.in, func(t *testing.T) {
			stmts, err := Parse("t.zcs", []byte(tc.in))
			if err == nil {
				t.Fatalf("Parse(%q) = %s, want error %q", tc.in, Format(stmts), tc.want)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("Parse(%q) error\n got: %s\nwant: %s", tc.in, got, tc.want)
			}
			if len(stmts) != 0 {
				t.Errorf("Parse(%q) returned %d statements, want none", tc.in, len(stmts))
			}
		})
	}
}

func TestParseReportsEveryBadLine(t *testing.T) {
	src := "profile linux-6.18\n" +
		"socket s AF_INET SOCK_STREAM\n" +
		"send s 64K MSG_ZERCOPY\n" +
		"\n" +
		"wait 10\n" +
		"send s 64K MSG_ZEROCOPY => 65536\n" +
		"profile linux-4.14\n"
	stmts, err := Parse("lecture.zcs", []byte(src))
	want := `lecture.zcs:3:12: unknown flag, did you mean MSG_ZEROCOPY? (at "MSG_ZERCOPY")
lecture.zcs:5:6: bad duration, want an integer with unit ns, us, ms or s (at "10")
lecture.zcs:7:1: duplicate profile, the first is at lecture.zcs:1:1 (at "profile")`
	if err == nil || err.Error() != want {
		t.Fatalf("Parse error\n got: %v\nwant: %s", err, want)
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("Parse error is %T with %v, want an ErrorList of 3", err, err)
	}
	var first *Error
	if !errors.As(err, &first) || first.Pos != (Pos{"lecture.zcs", 3, 12}) || first.Near != "MSG_ZERCOPY" {
		t.Errorf("errors.As(err, *Error) = %+v, want the first error at lecture.zcs:3:12", first)
	}
	if got := Format(stmts); got != "profile linux-6.18\nsocket s AF_INET SOCK_STREAM\n\nsend s 64K MSG_ZEROCOPY => 65536\n" {
		t.Errorf("statements of the good lines:\n%s", got)
	}
}

func TestParseBoundsErrors(t *testing.T) {
	src := strings.Repeat("bogus\n", 100)
	_, err := Parse("x", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("Parse error = %v, want an ErrorList", err)
	}
	if len(list) != MaxErrors+1 {
		t.Fatalf("got %d errors, want %d", len(list), MaxErrors+1)
	}
	if got, want := list[MaxErrors].Error(), "x:21:1: too many errors"; got != want {
		t.Errorf("last error = %q, want %q", got, want)
	}
}

func TestProfileComesFirst(t *testing.T) {
	_, err := Parse("p", []byte("# intro\nprofile linux-6.18\n"))
	if err != nil {
		t.Errorf("a comment before the profile: %v", err)
	}
	_, err = Parse("p", []byte("bug b\nprofile linux-6.18\n"))
	want := `p:2:1: profile must come before every other statement (at "profile")`
	if err == nil || err.Error() != want {
		t.Errorf("profile after bug: error %v, want %s", err, want)
	}
}

func TestParseAST(t *testing.T) {
	stmts := mustParse(t, "# setup\nsocket s AF_INET SOCK_DGRAM IPPROTO_UDP via=lo\n\n"+
		"sendmsg s.peer [4K, 0x10] MSG_ZEROCOPY|MSG_MORE => -1 ENOBUFS # optmem\n"+
		"recvmsg s MSG_ERRQUEUE => zerocopy [3,4] copied\n")
	p := func(line, col int) Pos { return Pos{"t.zcs", line, col} }
	want := []Stmt{
		&Comment{Line: Line{At: p(1, 1)}, Text: "setup"},
		&Socket{
			Line:     Line{At: p(2, 1)},
			Name:     Ident{p(2, 8), "s"},
			Family:   Ident{p(2, 10), "AF_INET"},
			Type:     Flags{p(2, 18), []Ident{{p(2, 18), "SOCK_DGRAM"}}},
			Protocol: Value{p(2, 29), ValueWord, 0, "IPPROTO_UDP", nil},
			Options:  Options{{p(2, 41), "via", Value{p(2, 45), ValueWord, 0, "lo", nil}}},
		},
		&Sendmsg{
			Line: Line{At: p(4, 1), Gap: true, Comment: "optmem",
				Want: Outcome{Pos: p(4, 52), Kind: OutcomeErrno, Errno: "ENOBUFS"}},
			Sock:  Sock{p(4, 9), "s", true},
			Iov:   []Value{{p(4, 17), ValueNumber, 4096, "4K", nil}, {p(4, 21), ValueNumber, 16, "0x10", nil}},
			Flags: Flags{p(4, 27), []Ident{{p(4, 27), "MSG_ZEROCOPY"}, {p(4, 40), "MSG_MORE"}}},
		},
		&Recvmsg{
			Line: Line{At: p(5, 1),
				Want: Outcome{Pos: p(5, 27), Kind: OutcomeZerocopy, Range: Range{3, 4}, Copied: true}},
			Sock:  Sock{p(5, 9), "s", false},
			Flags: Flags{p(5, 11), []Ident{{p(5, 11), "MSG_ERRQUEUE"}}},
		},
	}
	if diff := cmp.Diff(want, stmts); diff != "" {
		t.Errorf("Parse AST (-want +got):\n%s", diff)
	}
	if got := stmts[2].Pos(); got != p(4, 1) {
		t.Errorf("Pos() = %v, want t.zcs:4:1", got)
	}
	if got := stmts[2].Expectation().String(); got != "-1 ENOBUFS" {
		t.Errorf("Expectation() = %q, want -1 ENOBUFS", got)
	}
}

func TestAccessors(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Pos{}.String(), ""},
		{Pos{"f", 0, 0}.String(), "f"},
		{Pos{"", 2, 3}.String(), "2:3"},
		{Pos{"f", 2, 3}.String(), "f:2:3"},
		{Ident{Name: "eth0"}.String(), "eth0"},
		{Value{Kind: ValueDuration, N: 1e7, Text: "10ms"}.String(), "10ms"},
		{Flags{}.String(), "0"},
		{Outcome{}.String(), ""},
		{Outcome{Kind: OutcomeReturn, Ret: -4}.String(), "-4"},
		{Outcome{Kind: OutcomeTimestamp, Tstamp: "SCM_TSTAMP_SCHED"}.String(), "timestamp SCM_TSTAMP_SCHED"},
		{Range{0xffffffff, 0}.String(), "[0xffffffff,0]"},
		{parseErr("wait " + strings.Repeat("x", 50)),
			`t.zcs:1:6: bad duration, want an integer with unit ns, us, ms or s (at "` + strings.Repeat("x", 40) + `…")`},
		{FormatStmt(&Comment{Text: ""}), "#"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	var o Options = Options{{Key: "sg", Value: Value{Kind: ValueWord, Text: "on"}}, {Key: "cap_ipc_lock"}}
	if got, ok := o.Lookup("sg"); !ok || got.String() != "sg=on" {
		t.Errorf("Lookup(sg) = %v, %v", got, ok)
	}
	if _, ok := o.Lookup("mtu"); ok {
		t.Errorf("Lookup(mtu) found an option that is not there")
	}
	if got := o[1].String(); got != "cap_ipc_lock" {
		t.Errorf("bare option = %q", got)
	}
	if !(Outcome{}).IsZero() || (Value{}).IsZero() != true || !(Pos{Line: 1}).IsValid() {
		t.Errorf("zero values misreport themselves")
	}
	if Format([]Stmt{nil, &Settle{}}) != "settle\n" {
		t.Errorf("Format skips nil statements")
	}
}

// parseErr returns the text of Parse's error for src, or "".
func parseErr(src string) string {
	if _, err := Parse("t.zcs", []byte(src)); err != nil {
		return err.Error()
	}
	return ""
}

// SockOf names the socket of the statements that act on one, the peer
// included, and of no others.
func TestSockOf(t *testing.T) {
	stmts, err := Parse("t.zcs", []byte("socket s AF_INET SOCK_STREAM\naccept s c\nsend s.peer 1 0\nsettle\nhold s ack\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range stmts {
		if ss, ok := SockOf(st); ok {
			got = append(got, ss.String())
		} else {
			got = append(got, "-")
		}
	}
	if diff := cmp.Diff([]string{"-", "s", "s.peer", "-", "s"}, got); diff != "" {
		t.Errorf("SockOf (-want +got):\n%s", diff)
	}
}
