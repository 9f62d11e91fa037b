package interp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireClean runs src and fails on any mismatch or violation.
func requireClean(t *testing.T, src string) {
	t.Helper()
	tr := runSrc(t, src)
	require.Empty(t, mismatches(tr), timeline(t, tr))
	require.Empty(t, violations(tr), timeline(t, tr))
}

const scriptedServer = `
device tun0 tun peer=script
socket s AF_INET SOCK_STREAM via=tun0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
listen s => 0
`

func TestScriptedServerHandshake(t *testing.T) {
	// No timestamps: the SYN-ACK's window is whole MSS of 1460 and the
	// peer's MSS clamps the segments to 1000.
	requireClean(t, scriptedServer+`
inject s SYN seq=0 win=32792 mss=1000 sackok wscale=7
packet tun0 SYN|ACK seq=0 ack=1 win=64240 mss=1460 sackok wscale=10
packet tun0 none
inject s ACK ack=1 win=257
accept s c => 4
send c 4000 MSG_ZEROCOPY => 4000
packet tun0 PSH|ACK seq=1 len=4000 ack=1 win=63 gso=1000
inject c ACK ack=4001 win=257
recvmsg c MSG_ERRQUEUE => zerocopy [0,0] copied
expect c zerocopy=1 state=TCP_ESTABLISHED
`)
	// Timestamps: the window rounds to 1448, and each segment loses 12 bytes.
	requireClean(t, scriptedServer+`
inject s SYN win=65535 mss=1000 ts wscale=7
packet tun0 SYN|ACK win=65160 mss=1460 ts wscale=10
inject s ACK ack=1 win=257
accept s c => 4
send c 4000 0 => 4000
packet tun0 PSH|ACK seq=1 len=4000 gso=988
`)
	// A SYN without a window scale: neither end scales.
	requireClean(t, scriptedServer+`
inject s SYN win=65535 mss=1460
packet tun0 SYN|ACK win=64240 mss=1460
inject s ACK ack=1 win=3000
accept s c => 4
send c 4000 0 => 4000
packet tun0 ACK seq=1 len=1460
packet tun0 PSH|ACK seq=1461 len=1460
packet tun0 none
inject c ACK ack=2921 win=3000
packet tun0 PSH|ACK seq=2921 len=1080
`)
}

func TestScriptedClient(t *testing.T) {
	requireClean(t, `
device tun0 tun peer=script tso=off
socket s AF_INET SOCK_STREAM|SOCK_NONBLOCK via=tun0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => -1 EINPROGRESS
expect s state=TCP_SYN_SENT
packet tun0 SYN seq=0 win=64240 mss=1460 sackok ts wscale=10
inject s SYN|ACK ack=1 win=32000 mss=1000 wscale=7
packet tun0 ACK seq=1 ack=1
expect s state=TCP_ESTABLISHED
send s 2500 MSG_ZEROCOPY => 2500
packet tun0 ACK seq=1 len=1000
packet tun0 ACK seq=1001 len=1000
packet tun0 PSH|ACK seq=2001 len=500
inject s ACK ack=2501 win=257
recvmsg s MSG_ERRQUEUE => zerocopy [0,0] copied
`)
}

func TestScriptedPeerData(t *testing.T) {
	requireClean(t, scriptedServer+`
inject s SYN win=65535 mss=1460 wscale=7
inject s ACK ack=1 win=257
accept s c => 4
packet tun0 SYN|ACK
inject c PSH|ACK seq=1 len=100 ack=1 win=257
packet tun0 ACK seq=1 ack=101
recv c 1000 => 100
inject c FIN|ACK seq=101 ack=1 win=257
packet tun0 none
wait 40ms
packet tun0 ACK ack=102
recv c 1000 => 0
close c => 0
packet tun0 FIN|ACK seq=1 ack=102
`)
	requireClean(t, scriptedServer+`
inject s SYN win=65535 mss=1460 wscale=7
inject s ACK ack=1 win=257
accept s c => 4
inject c RST seq=1
send c 100 0 => -1 ECONNRESET
expect c state=TCP_CLOSE
`)
}

func TestPacketMismatches(t *testing.T) {
	tr := runSrc(t, scriptedServer+`
packet tun0 SYN|ACK
inject s SYN win=65535 mss=1000 wscale=7
packet tun0 SYN|ACK seq=0 mss=1000
inject s ACK ack=1 win=257
accept s c => 4
send c 1000 0 => 1000
packet tun0 none
packet tun0 PSH|ACK len=999
inject c SYN
`)
	got := []string{}
	for _, m := range mismatches(tr) {
		got = append(got, m.Expected+" / "+m.Got)
	}
	require.Equal(t, []string{
		"packet tun0 SYN|ACK / no packet was sent",
		"packet tun0 SYN|ACK seq=0 mss=1000 / SYN|ACK seq=0 len=0 ack=1 win=64240 mss=1460 wscale=10 (options differ)",
		"no packet sent / 1 packets, the first PSH|ACK seq=1 len=1000 ack=1 win=63",
		"packet tun0 PSH|ACK len=999 / PSH|ACK seq=1 len=1000 ack=1 win=63 (len=1000)",
		"a segment c takes / the model has no answer to it (see the step)",
	}, got, timeline(t, tr))
	require.True(t, strings.Contains(event(t, tr, "c receives SYN").Text, "a SYN on a synchronized connection"))
}

func TestScriptedPeerInputErrors(t *testing.T) {
	_, err := Run("t.zcs", []byte("device l loopback peer=script\npacket e none\ninject x ACK win=70000\n"), Options{})
	require.EqualError(t, err, strings.Join([]string{
		`t.zcs:1:19: peer=script needs a nic or tun device: loopback's far side is this host (at "peer")`,
		`t.zcs:2:8: undefined device (at "e")`,
		`t.zcs:3:18: win must be between 0 and 65535 (at "70000")`,
		`t.zcs:3:8: undefined socket (at "x")`,
	}, "\n"))
}
