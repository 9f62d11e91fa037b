package strace

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// decodeOne parses and decodes one call line, failing on any error.
func decodeOne(t *testing.T, line string) Op {
	t.Helper()
	log := parseOne(t, line)
	ops, err := Decode(log)
	if err != nil {
		t.Fatalf("Decode(%q): %v", line, err)
	}
	wantLen(t, "ops", len(ops), 1)
	return ops[0]
}

func u64(n uint64) *uint64 { return &n }
func u32(n uint32) *uint32 { return &n }
func i32(n int32) *int32   { return &n }

var decodeOpts = cmp.Options{cmpopts.IgnoreTypes(Header{}), cmpopts.EquateComparable(netip.AddrPort{})}

func TestDecode(t *testing.T) {
	lo := func(port uint16) netip.AddrPort { return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port) }
	lo6 := func(port uint16) netip.AddrPort { return netip.AddrPortFrom(netip.MustParseAddr("::1"), port) }
	copied := func(lo, hi uint32) *ExtErr { return &ExtErr{Origin: 5, Code: 1, Info: lo, Data: hi} }
	tests := []struct {
		name string
		line string
		want Op
	}{
		{"socket", "socket(AF_INET6, SOCK_DGRAM|SOCK_CLOEXEC, IPPROTO_IP) = 3",
			&Socket{Domain: "AF_INET6", Type: []string{"SOCK_DGRAM", "SOCK_CLOEXEC"}, Protocol: "IPPROTO_IP", CloExec: true}},
		{"socket raw", "socket(0xa, 0x80002, 0) = 3", &Socket{Domain: "0xa", Type: []string{"0x80002"}, Protocol: "0", CloExec: true}},
		{"socketpair", "socketpair(AF_UNIX, SOCK_STREAM, 0, [5, 6]) = 0",
			&SocketPair{Socket: Socket{Domain: "AF_UNIX", Type: []string{"SOCK_STREAM"}, Protocol: "0"}, Fds: [2]int{5, 6}}},
		{"bind v4", `bind(3<socket:[1]>, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0`,
			&Bind{Fd: 3, Addr: SockAddr{Family: "AF_INET", Addr: lo(8000)}}},
		{"connect v6", `connect(4, {sa_family=AF_INET6, sin6_port=htons(8000), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0`,
			&Connect{Fd: 4, Addr: SockAddr{Family: "AF_INET6", Addr: lo6(8000)}}},
		{"connect raw", `connect(4, {sa_family=0x2, sin_port="\x1f\x40", sin_addr="\x7f\x00\x00\x01"}, 16) = 0`,
			&Connect{Fd: 4, Addr: SockAddr{Family: "AF_INET", Addr: lo(8000)}}},
		{"connect unix", `connect(4, {sa_family=AF_UNIX, sun_path=@"zc"}, 5) = 0`,
			&Connect{Fd: 4, Addr: SockAddr{Family: "AF_UNIX", Path: "@zc"}}},
		{"listen", "listen(3, 128) = 0", &Listen{Fd: 3, Backlog: 128}},
		{"dup", "dup(4<TCP:[1]>) = 6<TCP:[1]>", &Dup{Fd: 4}},
		{"dup2", "dup2(4, 20) = 20", &Dup{Fd: 4}},
		{"dup3", "dup3(4, 21, O_CLOEXEC) = 21", &Dup{Fd: 4, CloExec: true}},
		{"dup3 raw", "dup3(4, 21, 0x80000) = 21", &Dup{Fd: 4, CloExec: true}},
		{"dup3 0", "dup3(4, 21, 0) = 21", &Dup{Fd: 4}},
		{"F_DUPFD", "fcntl(4, F_DUPFD, 30) = 30", &Dup{Fd: 4}},
		{"F_DUPFD_CLOEXEC raw", "fcntl(4, 0x406, 40) = 40", &Dup{Fd: 4, CloExec: true}},
		{"F_SETFD", "fcntl(4, F_SETFD, FD_CLOEXEC) = 0", &SetFd{Fd: 4, CloExec: true}},
		{"F_SETFD raw", "fcntl(4, 0x2, 0x1) = 0", &SetFd{Fd: 4, CloExec: true}},
		{"F_SETFD 0", "fcntl(4, F_SETFD, 0) = 0", &SetFd{Fd: 4}},
		{"execve", `execve("/bin/true", ["true"], 0x7ffc /* 3 vars */) = 0`, &Exec{}},
		{"execveat", `execveat(AT_FDCWD, "/bin/true", ["true"], 0x7ffc /* 3 vars */, 0) = 0`, &Exec{}},
		{"fcntl other", "fcntl(4, F_GETFL) = 0x2 (flags O_RDWR)", &Ignored{Name: "fcntl"}},
		{"clone fork", "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 19487", &Fork{}},
		{"clone thread", "clone(child_stack=0x7f, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, parent_tid=[5], tls=0x7f, child_tidptr=0x7f) = 5", &Fork{SharesFiles: true}},
		{"clone3 thread", "clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_THREAD, child_tid=0x7f, exit_signal=0, stack=0x7f, stack_size=0x7fff00, tls=0x7f} => {parent_tid=[19486]}, 88) = 19486", &Fork{SharesFiles: true}},
		{"vfork", "vfork() = 7", &Fork{}},
		{"close_range", "close_range(21, 4294967295, 0) = 0", &CloseRange{First: 21, Last: 4294967295}},
		{"getrlimit", "getrlimit(RLIMIT_MEMLOCK, {rlim_cur=64*1024, rlim_max=64*1024}) = 0",
			&Rlimit{Resource: "RLIMIT_MEMLOCK", Old: &Rlimits{Cur: Limit{Value: 65536}, Max: Limit{Value: 65536}}}},
		{"close_range cloexec", "close_range(3, 4294967295, CLOSE_RANGE_CLOEXEC) = 0", &CloseRange{First: 3, Last: 4294967295, CloExec: true, Flags: []string{"CLOSE_RANGE_CLOEXEC"}}},
		{"writev", `writev(20, [{iov_base="\0", iov_len=10}, {iov_base="\0", iov_len=20}], 2) = 30`, &Send{Fd: 20, Iov: []uint64{10, 20}, Len: 30}},
		{"writev short", `writev(20, [{iov_base="\0", iov_len=10}], 2) = 30`, &Send{Fd: 20, Iov: []uint64{10}, Len: 10, Abbrev: "strace printed 1 of 2 iovecs"}},
		{"sendfile", "sendfile(21, 7</etc/hostname>, NULL, 5) = 3", &Send{Fd: 21, Iov: []uint64{5}, Len: 5}},
		{"accept NULL", "accept(3, NULL, NULL) = 5", &Accept{Fd: 3}},
		{"accept4", `accept4(3, {sa_family=AF_INET, sin_port=htons(5), sin_addr=inet_addr("127.0.0.1")}, [16], SOCK_CLOEXEC) = 5`,
			&Accept{Fd: 3, Peer: SockAddr{Family: "AF_INET", Addr: lo(5)}, Flags: []string{"SOCK_CLOEXEC"}, CloExec: true}},
		{"accept failed", "accept4(3, 0x7ffc, [16], 0) = -1 EAGAIN (Resource temporarily unavailable)", &Accept{Fd: 3}},
		{"SO_ZEROCOPY", "setsockopt(4, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = 0",
			&SockOpt{Fd: 4, Level: "SOL_SOCKET", Name: "SO_ZEROCOPY", Value: OptValue{Int: 1, HasInt: true, Text: "[1]"}, Len: 4, BufLen: 4}},
		{"SO_SNDBUFFORCE", "setsockopt(4, SOL_SOCKET, SO_SNDBUFFORCE, [1048576], 4) = 0",
			&SockOpt{Fd: 4, Level: "SOL_SOCKET", Name: "SO_SNDBUFFORCE", Value: OptValue{Int: 1048576, HasInt: true, Text: "[1048576]"}, Len: 4, BufLen: 4}},
		{"SO_TIMESTAMPING flags", "setsockopt(4, SOL_SOCKET, SO_TIMESTAMPING_OLD, [SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_SOFTWARE], 4) = 0",
			&SockOpt{Fd: 4, Level: "SOL_SOCKET", Name: "SO_TIMESTAMPING_OLD", Value: OptValue{Flags: []string{"SOF_TIMESTAMPING_TX_SOFTWARE", "SOF_TIMESTAMPING_SOFTWARE"}, Text: "[SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_SOFTWARE]"}, Len: 4, BufLen: 4}},
		{"SO_TIMESTAMPING struct", "setsockopt(4, SOL_SOCKET, SO_TIMESTAMPING_NEW, {flags=SOF_TIMESTAMPING_OPT_ID, bind_phc=0}, 8) = 0",
			&SockOpt{Fd: 4, Level: "SOL_SOCKET", Name: "SO_TIMESTAMPING_NEW", Value: OptValue{Flags: []string{"SOF_TIMESTAMPING_OPT_ID"}, Text: "{flags=SOF_TIMESTAMPING_OPT_ID, bind_phc=0}"}, Len: 8, BufLen: 8}},
		{"TCP_CORK verbose", "setsockopt(4, 0x6 /* SOL_TCP */, 0x3 /* TCP_CORK */, [1], 4) = 0",
			&SockOpt{Fd: 4, Level: "SOL_TCP", Name: "TCP_CORK", Value: OptValue{Int: 1, HasInt: true, Text: "[1]"}, Len: 4, BufLen: 4}},
		{"PACKET_TX_RING", "setsockopt(3, SOL_PACKET, PACKET_TX_RING, {tp_block_size=4096, tp_block_nr=1, tp_frame_size=2048, tp_frame_nr=2}, 16) = 0",
			&SockOpt{Fd: 3, Level: "SOL_PACKET", Name: "PACKET_TX_RING", Value: OptValue{Text: "{tp_block_size=4096, tp_block_nr=1, tp_frame_size=2048, tp_frame_nr=2}",
				Req: &TpacketReq{BlockSize: 4096, BlockNr: 1, FrameSize: 2048, FrameNr: 2}}, Len: 16, BufLen: 16}},
		{"PACKET_TX_RING cut", "setsockopt(3, SOL_PACKET, PACKET_TX_RING, {tp_block_size=4096, ...}, 16) = 0",
			&SockOpt{Fd: 3, Level: "SOL_PACKET", Name: "PACKET_TX_RING", Value: OptValue{Text: "{tp_block_size=4096, ...}"}, Len: 16, BufLen: 16}},
		{"getsockopt", "getsockopt(4, SOL_SOCKET, SO_ZEROCOPY, [1], [4]) = 0",
			&SockOpt{Get: true, Fd: 4, Level: "SOL_SOCKET", Name: "SO_ZEROCOPY", Value: OptValue{Int: 1, HasInt: true, Text: "[1]"}, Len: 4, BufLen: 4}},
		{"TCP_CONGESTION name", `setsockopt(4, SOL_TCP, TCP_CONGESTION, "reno\0", 5) = 0`,
			&SockOpt{Fd: 4, Level: "SOL_TCP", Name: "TCP_CONGESTION", Value: OptValue{Str: "reno\x00", HasStr: true, Text: `"reno\0"`}, Len: 5, BufLen: 5}},
		{"TCP_CONGESTION int", "setsockopt(4, SOL_TCP, TCP_CONGESTION, [1869505906], 4) = 0",
			&SockOpt{Fd: 4, Level: "SOL_TCP", Name: "TCP_CONGESTION", Value: OptValue{Int: 1869505906, HasInt: true, Text: "[1869505906]"}, Len: 4, BufLen: 4}},
		{"TCP_CONGESTION address", "getsockopt(4, SOL_TCP, TCP_CONGESTION, 0x180b6e598b94, [0]) = 0",
			&SockOpt{Get: true, Fd: 4, Level: "SOL_TCP", Name: "TCP_CONGESTION", Value: OptValue{Addr: true, Text: "0x180b6e598b94"}}},
		{"TCP_INFO cut", `getsockopt(4, SOL_TCP, TCP_INFO, "\1\0\0\0\0\7\252\1"..., [300 => 280]) = 0`,
			&SockOpt{Get: true, Fd: 4, Level: "SOL_TCP", Name: "TCP_INFO", Value: OptValue{Str: "\x01\x00\x00\x00\x00\x07\xaa\x01", HasStr: true, Cut: true, Text: `"\1\0\0\0\0\7\252\1"...`}, Len: 280, BufLen: 300}},
		{"getsockopt NULL", "getsockopt(4, SOL_SOCKET, SO_LINGER, NULL, NULL) = -1 EFAULT (Bad address)",
			&SockOpt{Get: true, Fd: 4, Level: "SOL_SOCKET", Name: "SO_LINGER", Value: OptValue{Text: "NULL"}}},
		{"send", `send(3, "abc", 3, MSG_ZEROCOPY|MSG_DONTWAIT) = 3`,
			&Send{Fd: 3, Iov: []uint64{3}, Len: 3, Flags: []string{"MSG_ZEROCOPY", "MSG_DONTWAIT"}, ZeroCopy: true}},
		{"sendto raw flags", `sendto(3, "a"..., 4096, 0x4000000, NULL, 0) = 4096`,
			&Send{Fd: 3, Iov: []uint64{4096}, Len: 4096, Flags: []string{"0x4000000"}, ZeroCopy: true}},
		{"sendto addr", `sendto(3, "a", 1, 0, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = 1`,
			&Send{Fd: 3, Iov: []uint64{1}, Len: 1, To: SockAddr{Family: "AF_INET", Addr: lo(9)}}},
		{"sendmsg", `sendmsg(3, {msg_name={sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, msg_namelen=16, msg_iov=[{iov_base="a"..., iov_len=4096}, {iov_base="b"..., iov_len=1000}, ...], msg_iovlen=3, msg_controllen=0, msg_flags=0}, MSG_ZEROCOPY) = 5096`,
			&Send{Fd: 3, Iov: []uint64{4096, 1000}, Len: 5096, Flags: []string{"MSG_ZEROCOPY"}, ZeroCopy: true, To: SockAddr{Family: "AF_INET", Addr: lo(9)},
				Abbrev: "strace cut the iovec array after 2 entries (...)"}},
		{"sendmsg whole", `sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="a"..., iov_len=4096}, {iov_base="b"..., iov_len=1000}], msg_iovlen=2, msg_controllen=0, msg_flags=0}, MSG_ZEROCOPY) = 5096`,
			&Send{Fd: 3, Iov: []uint64{4096, 1000}, Len: 5096, Flags: []string{"MSG_ZEROCOPY"}, ZeroCopy: true}},
		{"sendmsg abbreviated", `sendmsg(3, {...}, MSG_ZEROCOPY) = 5096`,
			&Send{Fd: 3, Flags: []string{"MSG_ZEROCOPY"}, ZeroCopy: true, Abbrev: "strace abbreviated the struct msghdr ({...})"}},
		{"sendmsg address", `sendmsg(3, 0x1, 0) = -1 EFAULT (Bad address)`,
			&Send{Fd: 3, Abbrev: "strace printed the struct msghdr as an address"}},
		{"sendmsg iovec address", `sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=0x7ffc, msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = -1 EFAULT (Bad address)`,
			&Send{Fd: 3, Abbrev: "strace printed msg_iov as an address (it could not read the iovec array)"}},
		{"sendmsg abbreviated iovec", `sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{...}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 10`,
			&Send{Fd: 3, Iov: []uint64{}, Abbrev: "strace abbreviated an iovec ({...})"}},
		{"sendmsg iovlen mismatch", `sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="a", iov_len=1}], msg_iovlen=2, msg_controllen=0, msg_flags=0}, 0) = 1`,
			&Send{Fd: 3, Iov: []uint64{1}, Len: 1, Abbrev: "msg_iovlen is 2 but strace printed 1 iovecs"}},
		{"sendmsg empty", `sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=NULL, msg_iovlen=0, msg_controllen=0, msg_flags=0}, 0) = 0`,
			&Send{Fd: 3}},
		{"sendmsg SCM_ZC_NOTIFICATION", `sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="a"..., iov_len=4000}], msg_iovlen=1, msg_control=[{cmsg_len=116, cmsg_level=SOL_SOCKET, cmsg_type=0x4e /* SCM_??? */, cmsg_data="\x08\x00\x00\x00\x00\x00\x00\x00"...}], msg_controllen=120, msg_flags=0}, MSG_ZEROCOPY) = 4000`,
			&Send{Fd: 3, Iov: []uint64{4000}, Len: 4000, Flags: []string{"MSG_ZEROCOPY"}, ZeroCopy: true, ZcInfo: &ZcInfo{DataLen: 100, Size: 8, SizeKnown: true}}},
		{"sendmsg SCM_ZC_NOTIFICATION named, no data", `sendmsg(3, {msg_iov=[{iov_base="a", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=28, cmsg_level=SOL_SOCKET, cmsg_type=SCM_ZC_NOTIFICATION}, {cmsg_len=20, cmsg_level=SOL_IP, cmsg_type=IP_TOS, cmsg_data=[0]}]}, 0) = 1`,
			&Send{Fd: 3, Iov: []uint64{1}, Len: 1, ZcInfo: &ZcInfo{DataLen: 12}, Control: []SendCmsg{{Level: 0, Name: "IP_TOS", DataLen: 4, Data: []byte{0}}}}},
		// As strace 6.1 prints them on Linux 6.18: no data for types it has
		// no decoder for, a number for a type it cannot name.
		{"sendmsg UDP_SEGMENT, unknown level", `sendmsg(7, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="\0\0", iov_len=3000}], msg_iovlen=1, msg_control=[{cmsg_len=18, cmsg_level=SOL_UDP, cmsg_type=0x67}, {cmsg_len=20, cmsg_level=0x4d2 /* SOL_??? */, cmsg_type=0x5}], msg_controllen=48, msg_flags=0}, 0) = 3000`,
			&Send{Fd: 7, Iov: []uint64{3000}, Len: 3000, Control: []SendCmsg{{Level: 17, Type: 103, DataLen: 2}, {Level: 1234, Type: 5, DataLen: 4}}}},
		{"sendmsg SOL_SOCKET types", `sendmsg(6, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="\0", iov_len=10}], msg_iovlen=1, msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=0x24 /* SCM_??? */}, {cmsg_len=24, cmsg_level=SOL_SOCKET, cmsg_type=SO_TXTIME}, {cmsg_len=18, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data="\x01\x02"}, {cmsg_len=8, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS}, ... /* 0x7b9f122a118 */], msg_controllen=96, msg_flags=0}, 0) = -1 EINVAL (Invalid argument)`,
			&Send{Fd: 6, Iov: []uint64{10}, Len: 10, Control: []SendCmsg{{Level: 1, Type: 36, DataLen: 4}, {Level: 1, Type: 61, DataLen: 8}, {Level: 1, Type: 1, DataLen: 2, Data: []byte{1, 2}}, {Level: 1, Type: 1, DataLen: -1}}}},
		{"sendto size_t max", `sendto(3, "a"..., 18446744073709551615, 0, NULL, 0) = 4096`,
			&Send{Fd: 3, Iov: []uint64{1<<64 - 1}, Len: 1<<64 - 1}},
		{"sendto 2^63", `sendto(3, "a"..., 9223372036854775808, 0, NULL, 0) = 4096`,
			&Send{Fd: 3, Iov: []uint64{1 << 63}, Len: 1 << 63}},
		{"write -1 as size_t", `write(3, "a", -1) = -1 EFAULT (Bad address)`,
			&Send{Fd: 3, Iov: []uint64{1<<64 - 1}, Len: 1<<64 - 1}},
		{"sendmsg lengths saturate", `sendmsg(3, {msg_iov=[{iov_base="a", iov_len=18446744073709551615}, {iov_base="b", iov_len=2}], msg_iovlen=2}, 0) = -1 EINVAL (Invalid argument)`,
			&Send{Fd: 3, Iov: []uint64{1<<64 - 1, 2}, Len: 1<<64 - 1}},
		{"write", `write(3, "abc", 3) = 3`, &Send{Fd: 3, Iov: []uint64{3}, Len: 3}},
		{"sendmmsg", `sendmmsg(4, [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="m"..., iov_len=1000}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=1000}, {msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="m", iov_len=2}, {iov_base="n", iov_len=3}], msg_iovlen=2, msg_controllen=0, msg_flags=0}, msg_len=5}], 2, MSG_ZEROCOPY) = 2`,
			&SendMmsg{Fd: 4, Msgs: []Mmsg{{Iov: []uint64{1000}, MsgLen: 1000}, {Iov: []uint64{2, 3}, MsgLen: 5}}, Vlen: 2, Flags: []string{"MSG_ZEROCOPY"}, ZeroCopy: true}},
		{"sendmmsg failed", `sendmmsg(4, 0x7ffc, 2, MSG_ZEROCOPY) = -1 ENOBUFS (No buffer space available)`,
			&SendMmsg{Fd: 4, Msgs: []Mmsg{}, Vlen: 2, Flags: []string{"MSG_ZEROCOPY"}, ZeroCopy: true, Abbrev: "strace printed the mmsghdr vector as an address"}},
		{"sendmmsg cut", `sendmmsg(4, [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="m"..., iov_len=1000}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=1000}, ...], 2, 0) = 2`,
			&SendMmsg{Fd: 4, Msgs: []Mmsg{{Iov: []uint64{1000}, MsgLen: 1000}}, Vlen: 2, Abbrev: "strace cut the mmsghdr vector after 1 messages (...)"}},
		{"sendmmsg abbreviated msghdr", `sendmmsg(4, [{msg_hdr={...}, msg_len=1000}], 1, 0) = 1`,
			&SendMmsg{Fd: 4, Msgs: []Mmsg{{MsgLen: 1000}}, Vlen: 1, Abbrev: "message 0: strace abbreviated the struct msghdr ({...})"}},
		{"recv", `recv(3, "abc", 100, MSG_DONTWAIT) = 3`, &Recv{Fd: 3, Len: 100, Flags: []string{"MSG_DONTWAIT"}}},
		{"recvfrom", `recvfrom(3, "a", 65536, 0, NULL, NULL) = 1`, &Recv{Fd: 3, Len: 65536}},
		{"poll ready", `poll([{fd=3<TCP:[127.0.0.1:54304->127.0.0.1:8000]>, events=POLLOUT}], 1, 500) = 1 ([{fd=3, revents=POLLOUT|POLLERR}])`,
			&Poll{Fds: []PollFd{{Fd: 3, Events: []string{"POLLOUT"}, Revents: []string{"POLLOUT", "POLLERR"}}}, TimeoutNs: 500e6}},
		{"poll timeout", `poll([{fd=3, events=0}, {fd=4, events=POLLIN}], 2, -1) = 0 (Timeout)`,
			&Poll{Fds: []PollFd{{Fd: 3}, {Fd: 4, Events: []string{"POLLIN"}}}, TimeoutNs: -1}},
		{"poll one of two", `poll([{fd=3, events=POLLIN}, {fd=4, events=POLLIN}], 2, 0) = 1 ([{fd=4, revents=POLLIN}])`,
			&Poll{Fds: []PollFd{{Fd: 3, Events: []string{"POLLIN"}}, {Fd: 4, Events: []string{"POLLIN"}, Revents: []string{"POLLIN"}}}, TimeoutNs: 0}},
		{"ppoll", `ppoll([{fd=4, events=POLLERR}], 1, {tv_sec=0, tv_nsec=1000000}, NULL, 8) = 1 ([{fd=4, revents=POLLERR}], left {tv_sec=0, tv_nsec=998949})`,
			&Poll{Fds: []PollFd{{Fd: 4, Events: []string{"POLLERR"}, Revents: []string{"POLLERR"}}}, TimeoutNs: 1e6}},
		{"ppoll forever", `ppoll([{fd=4, events=POLLIN}], 1, NULL, [], 8) = 1 ([{fd=4, revents=POLLIN}])`,
			&Poll{Fds: []PollFd{{Fd: 4, Events: []string{"POLLIN"}, Revents: []string{"POLLIN"}}}, TimeoutNs: -1}},
		{"epoll_create1", `epoll_create1(EPOLL_CLOEXEC) = 8<anon_inode:[eventpoll]>`, &EpollCreate{CloExec: true}},
		{"epoll_create", `epoll_create(1) = 3`, &EpollCreate{}},
		{"epoll_ctl add", `epoll_ctl(8<anon_inode:[eventpoll]>, EPOLL_CTL_ADD, 5<TCP:[127.0.0.1:9131->127.0.0.1:52110]>, {events=EPOLLIN|EPOLLET, data={u32=5, u64=5}}) = 0`,
			&EpollCtl{Epfd: 8, Op: "EPOLL_CTL_ADD", Fd: 5, Events: []string{"EPOLLIN", "EPOLLET"}, Data: 5, HasEvent: true, HasData: true}},
		{"epoll_ctl del", `epoll_ctl(9, EPOLL_CTL_DEL, 4, NULL) = -1 ENOENT (No such file or directory)`,
			&EpollCtl{Epfd: 9, Op: "EPOLL_CTL_DEL", Fd: 4}},
		{"epoll_wait", `epoll_wait(9, [{events=EPOLLERR, data={u32=4, u64=4}}, {events=EPOLLIN|EPOLLRDHUP, data={u32=5, u64=5}}], 8, 1000) = 2`,
			&EpollWait{Epfd: 9, Shown: true, Max: 8, TimeoutNs: 1e9, Ready: []EpollReady{{Events: []string{"EPOLLERR"}, Data: 4, HasData: true}, {Events: []string{"EPOLLIN", "EPOLLRDHUP"}, Data: 5, HasData: true}}}},
		{"epoll_pwait interrupted", `epoll_pwait(8, 0x6d4a3f3ff20, 8, -1, NULL, 8) = -1 EINTR (Interrupted system call)`,
			&EpollWait{Epfd: 8, Max: 8, TimeoutNs: -1}},
		{"epoll_pwait2", `epoll_pwait2(9, [], 8, {tv_sec=0, tv_nsec=2000000}, NULL, 8) = 0`,
			&EpollWait{Epfd: 9, Shown: true, Max: 8, TimeoutNs: 2e6}},
		{"epoll_pwait2 forever", `epoll_pwait2(9, [{events=EPOLLOUT, data=0x7f00}], 8, NULL, NULL, 8) = 1`,
			&EpollWait{Epfd: 9, Shown: true, Max: 8, TimeoutNs: -1, Ready: []EpollReady{{Events: []string{"EPOLLOUT"}, Data: 0x7f00, HasData: true}}}},
		{"errqueue v4 numeric", `recvmsg(4, {msg_name=0x7ffc, msg_namelen=16 => 0, msg_iov=[{iov_base="", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=48, cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=5, ee_type=0, ee_code=1, ee_info=0, ee_data=5, offender={sa_family=AF_UNSPEC, sa_data="\0\0"}}}], msg_controllen=48, msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0`,
			&Recv{Fd: 4, Len: 1, Iov: []uint64{1}, Flags: []string{"MSG_ERRQUEUE"}, ErrQueue: true, Cmsgs: []Cmsg{{Level: "SOL_IP", Type: "IP_RECVERR", Ext: copied(0, 5)}}}},
		{"errqueue v4 symbolic", `recvmsg(4, {msg_iov=[{iov_base="", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=48, cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=SO_EE_ORIGIN_ZEROCOPY, ee_type=0, ee_code=SO_EE_CODE_ZEROCOPY_COPIED, ee_info=7, ee_data=9, offender={sa_family=AF_UNSPEC}}}], msg_controllen=48, msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0`,
			&Recv{Fd: 4, Len: 1, Iov: []uint64{1}, Flags: []string{"MSG_ERRQUEUE"}, ErrQueue: true, Cmsgs: []Cmsg{{Level: "SOL_IP", Type: "IP_RECVERR", Ext: copied(7, 9)}}}},
		{"errqueue timestamp errno", `recvmsg(4, {msg_control=[{cmsg_len=48, cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=ENOMSG, ee_origin=SO_EE_ORIGIN_TIMESTAMPING, ee_type=0, ee_code=0, ee_info=0, ee_data=0}}]}, MSG_ERRQUEUE) = 0`,
			&Recv{Fd: 4, Abbrev: "strace printed no msg_iov", Flags: []string{"MSG_ERRQUEUE"}, ErrQueue: true, Cmsgs: []Cmsg{{Level: "SOL_IP", Type: "IP_RECVERR", Ext: &ExtErr{Errno: 42, Origin: 4}}}}},
		{"errqueue v6 hex string", `recvmsg(4, {msg_control=[{cmsg_len=60, cmsg_level=SOL_IPV6, cmsg_type=IPV6_RECVERR, cmsg_data="\x00\x00\x00\x00\x05\x00\x01\x00\x03\x00\x00\x00\x04\x00\x00\x00\x0a\x00"}], msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0`,
			&Recv{Fd: 4, Abbrev: "strace printed no msg_iov", Flags: []string{"MSG_ERRQUEUE"}, ErrQueue: true, Cmsgs: []Cmsg{{Level: "SOL_IPV6", Type: "IPV6_RECVERR", Ext: copied(3, 4)}}}},
		{"errqueue v6 hex array", `recvmsg(4, {msg_control=[{cmsg_len=60, cmsg_level=SOL_IPV6, cmsg_type=0x19, cmsg_data=[0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00]}]}, 0x2000) = 0`,
			&Recv{Fd: 4, Abbrev: "strace printed no msg_iov", Flags: []string{"0x2000"}, ErrQueue: true, Cmsgs: []Cmsg{{Level: "SOL_IPV6", Type: "0x19", Ext: &ExtErr{Origin: 5, Info: 0xffffffff}}}}},
		{"errqueue v6 strace 6.1", `recvmsg(4, {msg_control=[{cmsg_len=60, cmsg_level=SOL_IPV6, cmsg_type=0x19}]}, MSG_ERRQUEUE) = 0`,
			&Recv{Fd: 4, Abbrev: "strace printed no msg_iov", Flags: []string{"MSG_ERRQUEUE"}, ErrQueue: true, Cmsgs: []Cmsg{{Level: "SOL_IPV6", Type: "0x19"}}}},
		{"other cmsg", `recvmsg(4, {msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[5]}, 0x1]}, 0) = 0`,
			&Recv{Fd: 4, Abbrev: "strace printed no msg_iov", Cmsgs: []Cmsg{{Level: "SOL_SOCKET", Type: "SCM_RIGHTS"}}}},
		{"recvmsg EAGAIN", `recvmsg(4, {msg_namelen=16}, MSG_ERRQUEUE) = -1 EAGAIN (Resource temporarily unavailable)`,
			&Recv{Fd: 4, Flags: []string{"MSG_ERRQUEUE"}, ErrQueue: true, Abbrev: "strace printed no msg_iov"}},
		{"recvmsg pointer", `recvmsg(4, 0x7ffc, 0) = -1 EFAULT (Bad address)`, &Recv{Fd: 4, Abbrev: "strace printed the struct msghdr as an address"}},
		{"close", "close(3<TCP:[127.0.0.1:1->127.0.0.1:2]>) = 0", &Close{Fd: 3}},
		{"shutdown", "shutdown(4, SHUT_WR) = 0", &Shutdown{Fd: 4, How: "SHUT_WR"}},
		{"prlimit64 set", "prlimit64(0, RLIMIT_MEMLOCK, {rlim_cur=64*1024, rlim_max=RLIM64_INFINITY}, {rlim_cur=8192*1024, rlim_max=8192*1024}) = 0",
			&Rlimit{Resource: "RLIMIT_MEMLOCK", New: &Rlimits{Cur: Limit{Value: 65536}, Max: Limit{Infinity: true}}, Old: &Rlimits{Cur: Limit{Value: 8 << 20}, Max: Limit{Value: 8 << 20}}}},
		{"prlimit64 get", "prlimit64(123, RLIMIT_MEMLOCK, NULL, {rlim_cur=RLIM64_INFINITY, rlim_max=18446744073709551615}) = 0",
			&Rlimit{Pid: 123, Resource: "RLIMIT_MEMLOCK", Old: &Rlimits{Cur: Limit{Infinity: true}, Max: Limit{Infinity: true}}}},
		{"setrlimit", "setrlimit(RLIMIT_MEMLOCK, {rlim_cur=RLIM_INFINITY, rlim_max=RLIM_INFINITY}) = 0",
			&Rlimit{Resource: "RLIMIT_MEMLOCK", New: &Rlimits{Cur: Limit{Infinity: true}, Max: Limit{Infinity: true}}}},
		{"zerocopy receive 16 bytes", `getsockopt(5, SOL_TCP, TCP_ZEROCOPY_RECEIVE, "\0\200\373O@\177\0\0\0\0\0\0\210\23\0\0", [16]) = 0`,
			&ZcRecv{Fd: 5, Optlen: 16, Zc: ZcFields{Address: u64(0x7f404ffb8000), Length: u32(0), RecvSkipHint: u32(5000)}}},
		{"zerocopy receive verbose 24", `getsockopt(5, 0x6 /* SOL_TCP */, 0x23 /* TCP_ZEROCOPY_RECEIVE */, "\0\200\373O@\177\0\0\0\0\0\0\210\23\0\0\210\23\0\0\377\377\377\377", [24]) = 0`,
			&ZcRecv{Fd: 5, Optlen: 24, Zc: ZcFields{Address: u64(0x7f404ffb8000), Length: u32(0), RecvSkipHint: u32(5000), Inq: u32(5000), Err: i32(-1)}}},
		{"zerocopy receive raw failed", "getsockopt(5, 0x6, 0x23, 0x7ffef5c4afd0, [8]) = -1 EINVAL (Invalid argument)", &ZcRecv{Fd: 5, Optlen: 8}},
		{"zerocopy receive hex cut", `getsockopt(5, SOL_TCP, TCP_ZEROCOPY_RECEIVE, "\x00\xd0\xb5\xdd\xec\x7f\x00\x00\x00\x70\x00\x00\xff\x0f\x00\x00\x00\x90\x07\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"..., [64]) = 0`,
			&ZcRecv{Fd: 5, Optlen: 64, Zc: ZcFields{Address: u64(0x7fecddb5d000), Length: u32(28672), RecvSkipHint: u32(4095), Inq: u32(495616), Err: i32(0), CopybufAddress: u64(0)}}},
		{"zerocopy receive whole, msg_control", `getsockopt(7, SOL_TCP, TCP_ZEROCOPY_RECEIVE, "\0\0\263G\302\177\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0 '(\302\35V\0\0\240\6\0\0\0\0\0\0\2407(\302\35V\0\0\0\0\0\0\0\0\0\0\10\0\0\0\0\0\0\0", [64]) = 0`,
			&ZcRecv{Fd: 7, Optlen: 64, Zc: ZcFields{Address: u64(0x7fc247b30000), Length: u32(0), RecvSkipHint: u32(0), Inq: u32(0), Err: i32(0),
				CopybufAddress: u64(0x561dc2282720), CopybufLen: i32(1696), Flags: u32(0), MsgControl: u64(0x561dc22837a0), MsgControllen: u64(0),
				MsgFlags: u32(8), Reserved: u32(0)}}},
		{"zerocopy receive struct", "getsockopt(5, SOL_TCP, TCP_ZEROCOPY_RECEIVE, {address=0x7f0000000000, length=4096, recv_skip_hint=0, ...}, [64]) = 0",
			&ZcRecv{Fd: 5, Optlen: 64, Zc: ZcFields{Address: u64(0x7f0000000000), Length: u32(4096), RecvSkipHint: u32(0)}}},
		{"mmap socket", "mmap(NULL, 65536, PROT_READ, MAP_SHARED, 5<TCP:[127.0.0.1:8787->127.0.0.1:4000]>, 0) = 0x7f404ffb8000",
			&Mmap{Fd: 5, Len: 65536, Prot: []string{"PROT_READ"}, Flags: []string{"MAP_SHARED"}}},
		{"mmap anonymous", "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f8116d6d000", &Ignored{Name: "mmap"}},
		{"munmap", "munmap(0x7f404ffb8000, 65536) = 0", &Munmap{Addr: 0x7f404ffb8000, Len: 65536}},
		{"ignored", "getsockname(3, {sa_family=AF_UNIX}, [128 => 2]) = 0", &Ignored{Name: "getsockname"}},
		{"unfinished at exit", "[pid 3] sendto(3, \"a\", 1, 0, NULL, 0 <unfinished ...>", &Ignored{Name: "sendto", Reason: "unfinished"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeOne(t, tt.line)
			if diff := cmp.Diff(tt.want, got, decodeOpts); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

func TestDecodeHeader(t *testing.T) {
	op := decodeOne(t, "4007  21:17:54.000001 close(3) = -1 EBADF (Bad file descriptor) <0.000002>")
	h := op.Head()
	if h.Pid != 4007 || h.Syscall != "close" || h.Result.Errno != "EBADF" || h.Duration != 2000 || h.Time.Kind != TimeOfDay || !cmp.Equal(h.Lines, []int{1}) {
		t.Errorf("header = %+v", *h)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"close(3, 4) = 0", `t.log:1:7: close takes 1 arguments, got 2 (at "close")`},
		{"fcntl(3) = 0", `t.log:1:7: fcntl: fcntl takes 2 or 3 arguments, got 1`},
		{"fcntl(3, F_SETFD) = 0", `t.log:1:10: fcntl: F_SETFD takes a flags argument`},
		{"clone3(X, 88) = 5", `t.log:1:8: clone3: expected struct clone_args`},
		{"close() = 0", `t.log:1:1: close takes 1 arguments, got 0 (at "close")`},
		{`close("x") = 0`, `t.log:1:7: close: fd is not a number (at "\"x\"")`},
		{`listen(3, X) = 0`, `t.log:1:11: listen: backlog is not a number`},
		{`send(3, "a", X, 0) = 1`, `t.log:1:14: send: length is not a number`},
		{`write(X, "a", 1) = 1`, `t.log:1:7: write: fd is not a number`},
		{`bind(3, {sin_port=htons(1)}, 16) = 0`, `t.log:1:9: bind: sockaddr without sa_family`},
		{`bind(3, {sa_family=AF_INET, sin_addr=inet_addr("127.0.0.1")}, 16) = 0`, `t.log:1:9: bind: sockaddr without sin_port`},
		{`bind(3, {sa_family=AF_INET, sin_port=htons(70000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0`, `t.log:1:38: bind: bad port`},
		{`bind(3, {sa_family=AF_INET, sin_port=htons(1)}, 16) = 0`, `t.log:1:9: bind: sockaddr without an address`},
		{`bind(3, {sa_family=AF_INET, sin_port=htons(1), sin_addr=inet_addr("300.0.0.1")}, 16) = 0`, `t.log:1:67: bind: bad address`},
		{`bind(3, {sa_family=AF_INET, sin_port=htons(1), sin_addr="\x01"}, 16) = 0`, `t.log:1:57: bind: address is not 4 or 16 bytes`},
		{`bind(3, {sa_family=AF_INET, sin_port=htons(1), sin_addr=X}, 16) = 0`, `t.log:1:57: bind: cannot read address`},
		{`connect(X, NULL, 0) = 0`, `t.log:1:9: connect: fd is not a number`},
		{`socketpair(AF_UNIX, SOCK_STREAM, 0, [5]) = 0`, `t.log:1:37: socketpair: expected [fd0, fd1]`},
		{`socketpair(AF_UNIX, SOCK_STREAM, 0, [5, X]) = 0`, `t.log:1:41: socketpair: fd is not a number`},
		{`sendmsg(3, "x", 0) = 1`, `t.log:1:12: sendmsg: expected a struct msghdr`},
		{`sendmsg(3, {msg_iov=X}, 0) = 1`, `t.log:1:21: sendmsg: msg_iov is not an array`},
		{`sendmsg(3, {msg_iov=[{iov_base=""}]}, 0) = 1`, `t.log:1:22: sendmsg: iovec without iov_len`},
		{`sendmsg(3, {msg_iov=[{iov_len=X}]}, 0) = 1`, `t.log:1:31: sendmsg: iov_len is not a number`},
		{`sendmsg(3, {msg_name={sin_port=1}}, 0) = 1`, `t.log:1:22: sendmsg: sockaddr without sa_family`},
		{`sendmmsg(3, "x", 1, 0) = 1`, `t.log:1:13: sendmmsg: expected an array of struct mmsghdr`},
		{`sendmmsg(3, [{msg_len=1}], 1, 0) = 1`, `t.log:1:14: sendmmsg: mmsghdr without msg_hdr`},
		{`sendmmsg(3, [{msg_hdr={msg_iov=X}}], 1, 0) = 1`, `t.log:1:32: sendmmsg: msg_iov is not an array`},
		{`sendmmsg(3, [{msg_hdr={}, msg_len=X}], 1, 0) = 1`, `t.log:1:35: sendmmsg: msg_len is not a number`},
		{`sendmmsg(3, [], X, 0) = 1`, `t.log:1:17: sendmmsg: vlen is not a number`},
		{`poll([{events=POLLIN}], 1, 0) = 0 (Timeout)`, `t.log:1:7: poll: pollfd without fd`},
		{`poll([{fd=3, events=POLLIN}], 1, X) = 0 (Timeout)`, `t.log:1:34: poll: timeout is not a number`},
		{`poll([{fd=3, events=POLLIN}], 1) = 0 (Timeout)`, `t.log:1:31: poll: expected fds, nfds, timeout`},
		{`ppoll([{fd=3, events=POLLIN}], 1, {tv_sec=X}, NULL, 8) = 0 (Timeout)`, `t.log:1:35: ppoll: timeout is not a struct timespec`},
		{`poll([{fd=3, events=POLLIN}], 1, 0) = 1 ([{fd=3}])`, `t.log:1:6: poll: a ready descriptor without fd or revents`},
		{`poll([{fd=3, events=POLLIN}], 1, 0) = 1 ([{fd=3, revents=POLLIN}, *])`, `t.log:1:6: poll: the ready descriptors after the result are not an array of struct pollfd`},
		{`recvmsg(3, {msg_iov=X}, 0) = 1`, `t.log:1:21: recvmsg: msg_iov is not an array`},
		{`recvmsg(3, {msg_control=[{cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0}}]}, 0) = 1`, `t.log:1:78: recvmsg: sock_extended_err without ee_origin`},
		{`sendmsg(3, {msg_iov=[], msg_control=[{cmsg_level=SOL_SOCKET, cmsg_type=0x4e}]}, 0) = 0`, `t.log:1:38: sendmsg: SCM_ZC_NOTIFICATION without cmsg_len (at "{cmsg_level=SOL_SOCKET, ")`},
		{`sendmsg(3, {msg_iov=[], msg_control=[{cmsg_len=8, cmsg_level=SOL_SOCKET, cmsg_type=0x4e}]}, 0) = 0`, `t.log:1:48: sendmsg: cmsg_len is not a length of at least sizeof(struct cmsghdr) (at "8")`},
		{`sendmsg(3, {msg_iov=[], msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=78, cmsg_data=X}]}, 0) = 0`, `t.log:1:99: sendmsg: cannot read cmsg_data (at "X")`},
		{`recvmsg(3, {msg_control=[{cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=EWHAT}}]}, 0) = 1`, `t.log:1:88: recvmsg: unknown ee_errno EWHAT`},
		{`recvmsg(3, {msg_control=[{cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=256}}]}, 0) = 1`, `t.log:1:101: recvmsg: ee_origin out of range`},
		{`recvmsg(3, {msg_control=[{cmsg_level=SOL_IPV6, cmsg_type=IPV6_RECVERR, cmsg_data="\x00"}]}, 0) = 1`, `t.log:1:82: recvmsg: cmsg_data has 1 bytes, sock_extended_err needs 16`},
		{`recvmsg(3, {msg_control=[{cmsg_level=SOL_IPV6, cmsg_type=IPV6_RECVERR, cmsg_data=[256]}]}, 0) = 1`, `t.log:1:83: recvmsg: cmsg_data element is not a byte`},
		{`recvmsg(3, {msg_control=[{cmsg_level=SOL_IPV6, cmsg_type=IPV6_RECVERR, cmsg_data=X}]}, 0) = 1`, `t.log:1:82: recvmsg: cannot read cmsg_data`},
		{`recv(X, "", 1, 0) = 1`, `t.log:1:6: recv: fd is not a number`},
		{`recvmsg(X, NULL, 0) = 1`, `t.log:1:9: recvmsg: fd is not a number`},
		{`setsockopt(X, A, B, [1], 4) = 0`, `t.log:1:12: setsockopt: fd is not a number`},
		{`shutdown(X, SHUT_WR) = 0`, `t.log:1:10: shutdown: fd is not a number`},
		{`prlimit64(X, RLIMIT_MEMLOCK, NULL, NULL) = 0`, `t.log:1:11: prlimit64: pid is not a number`},
		{`prlimit64(0, RLIMIT_MEMLOCK, {rlim_cur=1}, NULL) = 0`, `t.log:1:30: prlimit64: missing rlim_max`},
		{`setrlimit(RLIMIT_MEMLOCK, {rlim_cur=X, rlim_max=1}) = 0`, `t.log:1:37: setrlimit: limit is not a number`},
		{`accept(X, NULL, NULL) = 3`, `t.log:1:8: accept: fd is not a number`},
		{`accept(3, {sin_port=1}, NULL) = 3`, `t.log:1:11: accept: sockaddr without sa_family`},
		{`sendto(3, "", 1, 0, {sin_port=1}, 16) = 1`, `t.log:1:21: sendto: sockaddr without sa_family`},
		{`bind(X, NULL, 0) = 0`, `t.log:1:6: bind: fd is not a number`},
		{`listen(X, 1) = 0`, `t.log:1:8: listen: fd is not a number`},
		{`sendmsg(X, NULL, 0) = 0`, `t.log:1:9: sendmsg: fd is not a number`},
		{`sendmsg(4294967299, NULL, 0) = 0`, `t.log:1:9: sendmsg: fd is out of the range of an int`},
		{`sendmmsg(X, NULL, 0, 0) = 0`, `t.log:1:10: sendmmsg: fd is not a number`},
		{`sendto(X, "", 1, 0, NULL, 0) = 1`, `t.log:1:8: sendto: fd is not a number`},
	}
	for _, tt := range tests {
		log := parseOne(t, tt.line)
		ops, err := Decode(log)
		var list *ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%s: got %v, want an *ErrorList", tt.line, err)
			continue
		}
		if got := list.Errs[0].Error(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.line, got, tt.want)
		}
		if ig, ok := ops[0].(*Ignored); !ok || ig.Reason == "" {
			t.Errorf("%s: decoded to %#v, want Ignored with a reason", tt.line, ops[0])
		}
	}
}

func TestIgnoredNames(t *testing.T) {
	log := parseOne(t, "b() = 0\na() = 0\nb() = 0\nclose(3) = 0\nc() = 0")
	ops, _ := Decode(log)
	want := []IgnoredCount{{"b", 2}, {"a", 1}, {"c", 1}}
	if diff := cmp.Diff(want, IgnoredNames(ops)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Peek hands out, for a line a Scanner read before, the Op the copies
// are made from, not a copy: the same Op each time, its Header the first
// such call's; Op gives the call's own.
func TestPeekSharesARepeatedLinesOp(t *testing.T) {
	line := `sendto(4, "zz"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096` + "\n"
	sc := NewScanner("t.log", strings.NewReader("close(3) = 0\n"+strings.Repeat(line, 4)))
	dec := NewDecoder("t.log")
	var peeked []Op
	for sc.Scan() {
		c := sc.Item().Call
		if c.Name != "sendto" {
			continue
		}
		peeked = append(peeked, dec.Peek(c))
		if op := dec.Op(c); op.Head().Lines[0] != c.Line() {
			t.Errorf("line %d: Op's Header has lines %v", c.Line(), op.Head().Lines)
		}
	}
	if err := dec.Err(); err != nil || len(peeked) != 4 {
		t.Fatalf("%d sends, error %v; want 4, none", len(peeked), err)
	}
	shared := peeked[1]
	if peeked[2] != shared || peeked[3] != shared || peeked[0] == shared {
		t.Errorf("Peek of lines 2-5: %p %p %p %p; want the last three alike, the first its own", peeked[0], peeked[1], peeked[2], peeked[3])
	}
	if s, ok := shared.(*Send); !ok || s.Len != 4096 || !s.ZeroCopy || s.Lines[0] != 3 {
		t.Errorf("shared Op %+v, want the 4096-byte zerocopy send of line 3, the text's second", shared)
	}
}

// Lend hands out, for a line a Scanner read before, the Op the copies are
// made from, as Peek does, but with the call's own Header.
func TestLendSharesARepeatedLinesOpUnderItsHeader(t *testing.T) {
	line := `sendto(4, "zz"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096` + "\n"
	sc := NewScanner("t.log", strings.NewReader("close(3) = 0\n"+strings.Repeat("1 "+line, 2)+"2 "+line))
	dec := NewDecoder("t.log")
	var lent []Op
	for sc.Scan() {
		c := sc.Item().Call
		if c.Name != "sendto" {
			continue
		}
		op := dec.Lend(c)
		if h := op.Head(); !slices.Equal(h.Lines, []int{c.Line()}) || h.Pid != c.Pid {
			t.Errorf("line %d: lent Op's Header has lines %v, pid %d; want the call's, pid %d", c.Line(), h.Lines, h.Pid, c.Pid)
		}
		if s, ok := op.(*Send); !ok || s.Len != 4096 || !s.ZeroCopy {
			t.Errorf("line %d: lent %+v, want the 4096-byte zerocopy send", c.Line(), op)
		}
		lent = append(lent, op)
	}
	if err := dec.Err(); err != nil || len(lent) != 3 {
		t.Fatalf("%d sends, error %v; want 3, none", len(lent), err)
	}
	if lent[2] != lent[1] || lent[0] == lent[1] {
		t.Errorf("Lend of lines 2-4: %p %p %p; want the last two alike, the first its own", lent[0], lent[1], lent[2])
	}
}
