package interp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const scriptedClient = `
device tun0 tun peer=script
socket a AF_INET SOCK_STREAM|SOCK_NONBLOCK via=tun0
setsockopt a SOL_SOCKET SO_ZEROCOPY 1 => 0
`

// A MSG_FASTOPEN send on a scripted device with no cookie cached asks
// for one in its SYN (the option layout the live kernel sends:
// mss, sackOK, TS, wscale, then FO); the SYN-ACK's cookie is cached and
// the next socket's SYN carries data and the cookie, as much as the
// cached MSS less 40 bytes.
func TestFastOpenScriptedClient(t *testing.T) {
	requireClean(t, scriptedClient+`
sendto a 2000 MSG_FASTOPEN|MSG_ZEROCOPY => -1 EINPROGRESS
packet tun0 SYN seq=0 len=0 mss=1460 sackok ts wscale=10 fo
inject a SYN|ACK ack=1 win=32000 mss=1200 sackok wscale=7 fo=8BADF00D
packet tun0 ACK seq=1 len=0 ack=1
recvmsg a MSG_ERRQUEUE => -1 EAGAIN
socket b AF_INET SOCK_STREAM|SOCK_NONBLOCK via=tun0
sendto b 2000 MSG_FASTOPEN|MSG_ZEROCOPY => 1160
packet tun0 SYN seq=0 len=1160 mss=1460 sackok ts wscale=10 fo=8badf00d
inject b SYN|ACK ack=1161 win=32000 mss=1200 sackok wscale=7
packet tun0 ACK seq=1161 len=0 ack=1
`)
	// An unanswered RFC 7413 request makes the next one experimental,
	// and an unanswered experimental one sends the next back to RFC 7413.
	requireClean(t, scriptedClient+`
sendto a 10 MSG_FASTOPEN => -1 EINPROGRESS
packet tun0 SYN seq=0 len=0 mss=1460 sackok ts wscale=10 fo
inject a SYN|ACK ack=1 win=32000 mss=1000
socket b AF_INET SOCK_STREAM|SOCK_NONBLOCK via=tun0
sendto b 10 MSG_FASTOPEN => -1 EINPROGRESS
packet tun0 ACK seq=1 len=0 ack=1
packet tun0 SYN seq=0 len=0 mss=1460 sackok ts wscale=10 foexp
inject b SYN|ACK ack=1 win=32000 mss=1000
socket c AF_INET SOCK_STREAM|SOCK_NONBLOCK via=tun0
sendto c 10 MSG_FASTOPEN => -1 EINPROGRESS
packet tun0 ACK seq=1 len=0 ack=1
packet tun0 SYN seq=0 len=0 mss=1460 sackok ts wscale=10 fo
`)
	// An experimental cookie is kept as one and sent back so; a cookie
	// too short to be one (2 bytes) is not kept.
	requireClean(t, scriptedClient+`
sendto a 10 MSG_FASTOPEN => -1 EINPROGRESS
inject a SYN|ACK ack=1 win=32000 mss=1000 foexp=0102
socket b AF_INET SOCK_STREAM|SOCK_NONBLOCK via=tun0
sendto b 10 MSG_FASTOPEN => -1 EINPROGRESS
inject b SYN|ACK ack=1 win=32000 mss=1000 foexp=0102030405060708
socket c AF_INET SOCK_STREAM|SOCK_NONBLOCK via=tun0
sendto c 10 MSG_FASTOPEN => 10
packet tun0 SYN seq=0 len=0 mss=1460 sackok ts wscale=10 fo
packet tun0 ACK seq=1 len=0 ack=1
packet tun0 SYN seq=0 len=0 mss=1460 sackok ts wscale=10 foexp
packet tun0 ACK seq=1 len=0 ack=1
packet tun0 SYN seq=0 len=10 mss=1460 sackok ts wscale=10 foexp=0102030405060708
`)
}

// The SYN's data waits in the retransmit queue for the SYN-ACK: one
// that acknowledges only the SYN has it sent again at once (with the
// ACK), and the notification comes when the data is acknowledged. A
// blocking MSG_FASTOPEN send sleeps for the handshake.
func TestFastOpenScriptedSynData(t *testing.T) {
	requireClean(t, `
sysctl net.ipv4.tcp_fastopen 5
`+scriptedClient+`
sendto a 300 MSG_FASTOPEN|MSG_ZEROCOPY => 300
packet tun0 SYN seq=0 len=300
recvmsg a MSG_ERRQUEUE => -1 EAGAIN
inject a SYN|ACK ack=1 win=32000 mss=1000
packet tun0 PSH|ACK seq=1 len=300 ack=1
packet tun0 none
inject a ACK ack=301 win=257
recvmsg a MSG_ERRQUEUE => zerocopy [0,0] copied
`)
	tr := runSrc(t, `
sysctl net.ipv4.tcp_fastopen 5
device tun0 tun peer=script
socket a AF_INET SOCK_STREAM via=tun0
sendto a 300 MSG_FASTOPEN => 300
`)
	require.Len(t, mismatches(tr), 1, timeline(t, tr))
	require.Contains(t, mismatches(tr)[0].Got, "blocks", timeline(t, tr))
	tr = runSrc(t, `
sysctl net.ipv4.tcp_fastopen 5
`+scriptedClient+`
sendto a 300 MSG_FASTOPEN => 300
inject a SYN|ACK ack=101 win=32000
`)
	require.Len(t, mismatches(tr), 1, timeline(t, tr))
	require.Contains(t, event(t, tr, "a receives SYN|ACK").Text, "all the data it carried (ack 301)")
}

const fastOpenServer = `
device tun0 tun peer=script
socket s AF_INET SOCK_STREAM|SOCK_NONBLOCK via=tun0
listen s => 0
`

// A Fast Open listener under TFO_SERVER_COOKIE_NOT_REQD makes the child
// at the SYN: the SYN-ACK acknowledges its data, accept returns at once
// and the data is queued without an ACK of its own. Without
// TCP_FASTOPEN (and without TFO_SERVER_WO_SOCKOPT1) the data is
// dropped; without the cookie-not-required bit a granted cookie's bytes,
// and a cookie's validity, are undetermined.
func TestFastOpenScriptedServer(t *testing.T) {
	requireClean(t, "sysctl net.ipv4.tcp_fastopen 0x203\n"+fastOpenServer+`
setsockopt s SOL_TCP TCP_FASTOPEN 1 => 0
getsockopt s SOL_TCP TCP_FASTOPEN => 1
inject s SYN len=500 win=32792 mss=1000 fo=0011223344556677
packet tun0 SYN|ACK seq=0 len=0 ack=501 mss=1460
packet tun0 none
accept s c => 4
recv c 1000 0 => 500
send c 100 0 => 100
packet tun0 PSH|ACK seq=1 len=100 ack=501
inject c ACK seq=501 ack=101 win=257
inject s SYN len=10 win=32792 mss=1000
packet tun0 SYN|ACK seq=0 len=0 ack=11 mss=1460
`)
	// The queue holds one child that waits for its handshake's ACK.
	requireClean(t, "sysctl net.ipv4.tcp_fastopen 0x203\n"+fastOpenServer+`
setsockopt s SOL_TCP TCP_FASTOPEN 1 => 0
inject s SYN len=500 win=32792 mss=1000
packet tun0 SYN|ACK seq=0 len=0 ack=501 mss=1460
inject s SYN len=10 win=32792 mss=1000
packet tun0 SYN|ACK seq=0 len=0 ack=1 mss=1460
`)
	requireClean(t, "sysctl net.ipv4.tcp_fastopen 0x203\n"+fastOpenServer+`
inject s SYN len=500 win=32792 mss=1000
packet tun0 SYN|ACK seq=0 len=0 ack=1 mss=1460
accept s c => -1 EAGAIN
`)
	requireClean(t, "sysctl net.ipv4.tcp_fastopen 0x3\n"+fastOpenServer+`
setsockopt s SOL_TCP TCP_FASTOPEN 5 => 0
inject s SYN len=500 win=32792 mss=1000
packet tun0 SYN|ACK seq=0 len=0 ack=1 mss=1460
`)
	// A cookie request gets a cookie whose bytes are undetermined; the
	// data waits for the handshake and is dropped.
	tr := runSrc(t, "sysctl net.ipv4.tcp_fastopen 0x3\n"+fastOpenServer+`
setsockopt s SOL_TCP TCP_FASTOPEN 5 => 0
inject s SYN len=500 win=32792 mss=1000 foexp
packet tun0 SYN|ACK seq=0 len=0 ack=1 mss=1460 foexp
accept s none => -1 EAGAIN
inject s ACK ack=1 win=257
accept s c => 4
recv c 1000 0 => -1 EAGAIN
`)
	require.Len(t, mismatches(tr), 1, timeline(t, tr))
	require.Contains(t, mismatches(tr)[0].Got, "foexp=(8 bytes, undetermined)", timeline(t, tr))
	require.Contains(t, mismatches(tr)[0].Got, "the Fast Open cookie's bytes are undetermined", timeline(t, tr))
	tr = runSrc(t, "sysctl net.ipv4.tcp_fastopen 0x3\n"+fastOpenServer+`
setsockopt s SOL_TCP TCP_FASTOPEN 5 => 0
inject s SYN len=500 win=32792 mss=1000 fo=0011223344556677
inject s SYN win=32792 mss=1000
packet tun0 SYN|ACK seq=0 len=0 ack=1
packet tun0 none
`)
	require.Len(t, mismatches(tr), 1, timeline(t, tr))
	require.True(t, strings.Contains(event(t, tr, "s receives SYN").Text, "undetermined"), timeline(t, tr))
}

// TCP_FASTOPEN takes a queue length on a closed or listening socket.
func TestFastOpenSockopt(t *testing.T) {
	requireClean(t, scriptedServer+`
setsockopt s SOL_TCP TCP_FASTOPEN -1 => -1 EINVAL
setsockopt s SOL_TCP TCP_FASTOPEN 100000 => 0
getsockopt s SOL_TCP TCP_FASTOPEN => 4096
socket n AF_INET SOCK_STREAM
connect n => 0
setsockopt n SOL_TCP TCP_FASTOPEN 1 => -1 EINVAL
`)
}

func TestFastOpenOptionErrors(t *testing.T) {
	_, err := Run("t.zcs", []byte(scriptedServer+"inject s SYN fo foexp=01020304\n"), Options{})
	require.EqualError(t, err, `t.zcs:6:17: fo and foexp together: a segment here has one Fast Open option (at "foexp")`)
}
