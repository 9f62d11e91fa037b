package pktdrill

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/scenario"
)

// exported imports a script and exports the scenario again.
func exported(t *testing.T, file string, fam scenario.Family) []byte {
	t.Helper()
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	r, err := Import(file, src)
	require.NoError(t, err)
	out, err := Export(file+".zcs", r.Scenario, fam)
	require.NoError(t, err)
	return out
}

// TestExportRoundTrip exports every script and imports the export: it
// runs clean in the model too.
func TestExportRoundTrip(t *testing.T) {
	for _, file := range scripts(t) {
		for _, fam := range []scenario.Family{scenario.Inet, scenario.Inet6, scenario.Mapped} {
			out := exported(t, file, fam)
			r, err := Import(file+".exported", out)
			require.NoError(t, err, "%s", out)
			tr, err := interp.Run(file+".exported.zcs", r.Scenario, interp.Options{})
			require.NoError(t, err)
			require.True(t, tr.OK(), "%s in %v:\n%s", file, fam, out)
		}
	}
}

func TestExport(t *testing.T) {
	src := `device t0 tun peer=script
socket s AF_INET SOCK_STREAM|SOCK_NONBLOCK via=t0 => 3
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => -1 EINPROGRESS
packet t0 SYN seq=0 len=0
wait 1500us
inject s SYN|ACK ack=1 win=100 mss=1000 sackok ts wscale=7
packet t0 ACK seq=1 len=0 ack=1 win=63
send s 10 MSG_ZEROCOPY => 10
packet t0 none
inject s ACK seq=1 ack=11 win=5
recvmsg s MSG_ERRQUEUE => zerocopy [0,0] copied
recvmsg s MSG_ERRQUEUE => -1 EAGAIN
close s => 0
`
	out, err := Export("x.zcs", []byte(src), scenario.Inet6)
	require.NoError(t, err)
	require.Equal(t, `// exported from x.zcs by zcsim export --packetdrill
--ip_version="ipv6"
    +0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
    +0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0
    +0 setsockopt(3, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = 0
    +0 connect(3, ..., ...) = -1 EINPROGRESS (EINPROGRESS)
    +0 > S 0:0(0) <...>
+.0015 < S. 0:0(0) ack 1 win 100 <mss 1000,sackOK,TS val 0 ecr 0,nop,wscale 7>
    +0 > . 1:1(0) ack 1 win 63 <...>
    +0 send(3, ..., 10, MSG_ZEROCOPY) = 10
// no packet more here
    +0 < . 1:1(0) ack 11 win 5
    +0 recvmsg(3, {msg_name(...)=..., msg_iov(1)=[{...,0}], msg_flags=MSG_ERRQUEUE,
                msg_control=[{cmsg_level=SOL_IPV6, cmsg_type=IPV6_RECVERR,
                              cmsg_data={ee_errno=0, ee_origin=SO_EE_ORIGIN_ZEROCOPY, ee_type=0,
                                         ee_code=SO_EE_CODE_ZEROCOPY_COPIED, ee_info=0, ee_data=0}}]}, MSG_ERRQUEUE) = 0
    +0 recvmsg(3, {msg_name(...)=..., msg_iov(1)=[{...,0}], msg_flags=0}, MSG_ERRQUEUE) = -1 EAGAIN (EAGAIN)
    +0 close(3) = 0
`, string(out))
}

func TestExportErrors(t *testing.T) {
	src := `device e nic
device t tun peer=script
socket u AF_INET SOCK_DGRAM via=t => 3
socket s AF_INET SOCK_STREAM via=t => 4
send s 10 0
settle
inject s ACK win=1
packet t ACK
recv s.peer 10 => 0
sendmsg s [10, 10] MSG_ZEROCOPY => 20
`
	_, err := Export("x.zcs", []byte(src), scenario.Inet)
	require.EqualError(t, err, strings.Join([]string{
		`x.zcs:1:1: packetdrill has one device, its tun: the scenario's one device, with peer=script and no other option (at "device e nic")`,
		`x.zcs:3:1: the script's sockets are TCP sockets with no option but via= (and mapped) (at "socket u AF_INET SOCK_DGRAM via=t")`,
		`x.zcs:4:1: the kernel gives this socket descriptor 3, not 4 (at "socket s AF_INET SOCK_STREAM via=t")`,
		`x.zcs:5:1: packetdrill checks every call's result: write it after => (at "send s 10 0")`,
		`x.zcs:6:1: packetdrill has no form for settle (at "settle")`,
		`x.zcs:7:1: packetdrill needs the segment's seq= (at "inject s ACK win=1")`,
		`x.zcs:8:1: packetdrill needs an outbound packet's seq= and len= (at "packet t ACK")`,
		`x.zcs:9:1: s.peer is not a socket of the script (a scripted device has no implicit peer) (at "recv s.peer 10")`,
		`x.zcs:10:1: packetdrill allocates each iovec apart, so their zerocopy frags differ from iovecs back to back: write iov=apart (at "sendmsg s [10, 10] MSG_ZEROCOPY")`,
	}, "\n"))
}

// TestExportReadiness writes epoll, fcntl and a read without a control
// buffer (testdata/readiness.zcs as testdata/readiness.pkt), and refuses
// what packetdrill cannot check.
func TestExportReadiness(t *testing.T) {
	src, err := os.ReadFile("testdata/readiness.zcs")
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/readiness.pkt")
	require.NoError(t, err)
	out, err := Export("x.zcs", src, scenario.Inet)
	require.NoError(t, err)
	require.Equal(t, string(want), string(out))

	bad := `device t0 tun peer=script
socket s AF_INET SOCK_STREAM via=t0 => 3
epoll_create ep => 4
epoll_wait ep 8 1500us => 0
epoll_wait ep 8 => 2
recvmsg s MSG_ERRQUEUE control=48 => ctrunc
recvmsg s MSG_ERRQUEUE => ctrunc
`
	_, err = Export("x.zcs", []byte(bad), scenario.Inet)
	require.EqualError(t, err, strings.Join([]string{
		`x.zcs:4:1: packetdrill's epoll_wait timeout is in whole milliseconds (at "epoll_wait ep 8 1500us")`,
		`x.zcs:5:1: packetdrill checks the first event a wait returns: list the events after the count (at "epoll_wait ep 8")`,
		`x.zcs:6:1: packetdrill sizes the control buffer to the control messages it expects: the exporter writes control=0 => ctrunc, control=48 or more => zerocopy on this socket, or a failed read (at "recvmsg s MSG_ERRQUEUE control=48")`,
		`x.zcs:7:1: a read that loses its record to MSG_CTRUNC says its control buffer: control=0 (at "recvmsg s MSG_ERRQUEUE")`,
	}, "\n"))
}

// TestExportFastOpen writes the sysctl as a shell command before the
// first event (the --ip_version line still first), sendto, and the Fast
// Open option last, padded to a 32-bit word as tcp_options_write pads
// it (the layout measured on Linux 6.18 under packetdrill).
func TestExportFastOpen(t *testing.T) {
	src := `sysctl net.ipv4.tcp_fastopen 0x203
device t0 tun peer=script
socket s AF_INET SOCK_STREAM|SOCK_NONBLOCK via=t0 => 3
sendto s 100 MSG_FASTOPEN => -1 EINPROGRESS
packet t0 SYN seq=0 len=0 mss=1460 sackok ts wscale=10 fo
inject s SYN|ACK ack=1 win=100 mss=1000 fo=0011223344556677
inject s SYN|ACK ack=1 win=100 mss=1000 foexp
inject s SYN|ACK ack=1 win=100 mss=1000 foexp=00112233445566778899
`
	out, err := Export("x.zcs", []byte(src), scenario.Inet)
	require.NoError(t, err)
	require.Equal(t, `// exported from x.zcs by zcsim export --packetdrill
--ip_version="ipv4"
    +0 `+"`sysctl -q net.ipv4.tcp_fastopen=0x203`"+`
    +0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
    +0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0
    +0 sendto(3, ..., 100, MSG_FASTOPEN, ..., ...) = -1 EINPROGRESS (EINPROGRESS)
    +0 > S 0:0(0) <mss 1460,sackOK,TS val 0 ecr 0,nop,wscale 10,FO,nop,nop>
    +0 < S. 0:0(0) ack 1 win 100 <mss 1000,FO 0011223344556677,nop,nop>
    +0 < S. 0:0(0) ack 1 win 100 <mss 1000,FOEXP>
    +0 < S. 0:0(0) ack 1 win 100 <mss 1000,FOEXP 00112233445566778899,nop,nop>
`, string(out))
	r, err := Import("x.pkt", out)
	require.NoError(t, err)
	require.Contains(t, string(r.Scenario), "sysctl net.ipv4.tcp_fastopen 0x203 # from x.pkt:3\n")
	require.Contains(t, string(r.Scenario), "inject fd3 SYN|ACK seq=0 len=0 ack=1 win=100 mss=1000 foexp=00112233445566778899 # from x.pkt:10\n")

	_, err = Export("x.zcs", []byte("sysctl net.ipv4.tcp_wmem 4K 16K 4M\n"), scenario.Inet)
	require.EqualError(t, err, `x.zcs:1:1: the exporter writes a sysctl of one value only (at "sysctl net.ipv4.tcp_wmem 4K 16K 4M")`)
}

// TestExportPollAndControl writes poll with its revents, and error-queue
// reads whose control buffer packetdrill's own holds as well.
func TestExportPollAndControl(t *testing.T) {
	src := `device t0 tun peer=script
socket s AF_INET6 SOCK_STREAM via=t0 => 3
poll s POLLIN|POLLOUT 5ms => 1 revents=POLLOUT
poll s POLLIN => 0
recvmsg s MSG_ERRQUEUE control=64 => zerocopy [0,0] copied
recvmsg s MSG_ERRQUEUE control=16 => -1 EAGAIN
`
	out, err := Export("x.zcs", []byte(src), scenario.Inet)
	require.NoError(t, err)
	require.Equal(t, `// exported from x.zcs by zcsim export --packetdrill
--ip_version="ipv6"
    +0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
    +0 poll([{fd=3, events=POLLIN|POLLOUT, revents=POLLOUT}], 1, 5) = 1
    +0 poll([{fd=3, events=POLLIN, revents=0}], 1, 0) = 0
    +0 recvmsg(3, {msg_name(...)=..., msg_iov(1)=[{...,0}], msg_flags=MSG_ERRQUEUE,
                msg_control=[{cmsg_level=SOL_IPV6, cmsg_type=IPV6_RECVERR,
                              cmsg_data={ee_errno=0, ee_origin=SO_EE_ORIGIN_ZEROCOPY, ee_type=0,
                                         ee_code=SO_EE_CODE_ZEROCOPY_COPIED, ee_info=0, ee_data=0}}]}, MSG_ERRQUEUE) = 0
    +0 recvmsg(3, {msg_name(...)=..., msg_iov(1)=[{...,0}], msg_flags=0}, MSG_ERRQUEUE) = -1 EAGAIN (EAGAIN)
`, string(out))
	r, err := Import("x.pkt", out)
	require.NoError(t, err)
	require.Contains(t, string(r.Scenario), "poll fd3 POLLIN|POLLOUT 5ms => 1 revents=POLLOUT # from x.pkt:4\n")

	bad := `device t0 tun peer=script
socket s AF_INET6 SOCK_STREAM via=t0 => 3
poll s POLLIN => 1
poll s POLLIN 1500us => 0
recvmsg s MSG_ERRQUEUE control=48 => zerocopy [0,0]
recvmsg s MSG_ERRQUEUE control=64 => ctrunc
`
	_, err = Export("x.zcs", []byte(bad), scenario.Inet)
	require.EqualError(t, err, strings.Join([]string{
		`x.zcs:3:1: packetdrill checks the revents a poll returns: write revents= after the count (at "poll s POLLIN")`,
		`x.zcs:4:1: packetdrill's poll timeout is in whole milliseconds (at "poll s POLLIN 1500us")`,
		`x.zcs:5:1: packetdrill sizes the control buffer to the control messages it expects: the exporter writes control=0 => ctrunc, control=64 or more => zerocopy on this socket, or a failed read (at "recvmsg s MSG_ERRQUEUE control=48")`,
		`x.zcs:6:1: packetdrill sizes the control buffer to the control messages it expects: the exporter writes control=0 => ctrunc, control=64 or more => zerocopy on this socket, or a failed read (at "recvmsg s MSG_ERRQUEUE control=64")`,
	}, "\n"))
}

// TestExportSysctlAndGetsockopt writes a sysctl's value as the kernel's
// parser reads it (a size in decimal) and getsockopt with its expected
// value in the buffer, or its errno.
func TestExportSysctlAndGetsockopt(t *testing.T) {
	src := `sysctl net.core.optmem_max 20K
sysctl net.ipv4.tcp_timestamps 0
device t0 tun peer=script
socket s AF_INET SOCK_STREAM via=t0 => 3
setsockopt s SOL_SOCKET SO_REUSEADDR 1 => 0
getsockopt s SOL_SOCKET SO_REUSEADDR => 1
getsockopt s SOL_SOCKET SO_ZEROCOPY optlen=2 => -1 EINVAL
`
	_, err := Export("x.zcs", []byte(src), scenario.Inet)
	require.EqualError(t, err, `x.zcs:7:1: the exporter writes getsockopt into an int only (at "getsockopt s SOL_SOCKET SO_ZEROCOPY optlen=2")`)
	src = strings.Replace(src, "SO_ZEROCOPY optlen=2 => -1 EINVAL", "TCP_CORK => -1 ENOPROTOOPT", 1)
	src = strings.Replace(src, "getsockopt s SOL_SOCKET TCP_CORK", "getsockopt s SOL_UDP UDP_CORK", 1)
	out, err := Export("x.zcs", []byte(src), scenario.Inet)
	require.NoError(t, err)
	require.Equal(t, `// exported from x.zcs by zcsim export --packetdrill
--ip_version="ipv4"
    +0 `+"`sysctl -q net.core.optmem_max=20480`"+`
    +0 `+"`sysctl -q net.ipv4.tcp_timestamps=0`"+`
    +0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
    +0 setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0
    +0 getsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], [4]) = 0
    +0 getsockopt(3, SOL_UDP, UDP_CORK, [0], [4]) = -1 ENOPROTOOPT (ENOPROTOOPT)
`, string(out))
}
