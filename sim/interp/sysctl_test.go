package interp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// net.ipv4.tcp_timestamps 0 and tcp_sack 0 take the timestamp option
// and SACK permitted out of a scripted client's SYN (tcp_syn_options)
// and a listener's SYN-ACK, whatever the peer's SYN offered
// (tcp_parse_options ignores them, tcp_synack_options then sends
// neither); no segment loses 12 bytes to timestamps.
func TestScriptedHandshakeSysctls(t *testing.T) {
	requireClean(t, `
sysctl net.ipv4.tcp_timestamps 0
sysctl net.ipv4.tcp_sack 0
device tun0 tun peer=script tso=off
socket s AF_INET SOCK_STREAM|SOCK_NONBLOCK via=tun0
connect s => -1 EINPROGRESS
packet tun0 SYN seq=0 win=64240 mss=1460 wscale=10
inject s SYN|ACK ack=1 win=32000 mss=1460 sackok ts wscale=7
packet tun0 ACK seq=1 ack=1
send s 2000 0 => 2000
packet tun0 ACK seq=1 len=1460
packet tun0 PSH|ACK seq=1461 len=540
`)
	requireClean(t, `
sysctl net.ipv4.tcp_timestamps 0
`+scriptedServer+`
inject s SYN seq=0 win=65535 mss=1460 sackok ts wscale=7
packet tun0 SYN|ACK seq=0 ack=1 win=64240 mss=1460 sackok wscale=10
inject s ACK ack=1 win=257
accept s c => 4
send c 4000 0 => 4000
packet tun0 PSH|ACK seq=1 len=4000 gso=1460
`)
	requireClean(t, `
sysctl net.ipv4.tcp_sack 0
`+scriptedServer+`
inject s SYN seq=0 win=65535 mss=1460 sackok ts wscale=7
packet tun0 SYN|ACK seq=0 ack=1 win=65160 mss=1460 ts wscale=10
`)
}

// tcp_timestamps and tcp_sack are u8s (proc_dou8vec_minmax): any value
// up to 255, 2 meaning timestamps without a random offset; 256 is
// refused (probed on Linux 6.18).
func TestTimestampsSackBounds(t *testing.T) {
	for _, key := range []string{"net.ipv4.tcp_timestamps", "net.ipv4.tcp_sack"} {
		_, err := Load("test.zcs", []byte("sysctl "+key+" 256\n"), Options{})
		require.ErrorContains(t, err, key+"'s value must be between 0 and 255 (at \"256\")")
		_, err = Load("test.zcs", []byte("sysctl "+key+" 255\n"), Options{})
		require.NoError(t, err)
	}
}
