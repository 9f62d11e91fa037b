package interp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cwndScenario acknowledges eight one-segment sends one at a time (the
// window never used), then fills the send buffer and polls, so that the
// ACKs of what is in flight expand the buffer (tcp_new_space) to the
// window times per_mss (65792 at MTU 49204) times the congestion
// control's factor.
func cwndScenario(profile string, sndbuf0, sndbuf int) string {
	var b strings.Builder
	b.WriteString("profile " + profile + "\ndevice lo0 loopback mtu=49204\nsocket s AF_INET SOCK_STREAM via=lo0\n")
	b.WriteString("setsockopt s IPPROTO_TCP TCP_NODELAY 1 => 0\nconnect s => 0\n")
	b.WriteString("getsockopt s SOL_SOCKET SO_SNDBUF => " + strconv.Itoa(sndbuf0) + "\n")
	for range 9 {
		b.WriteString("send s 1000 0 => 1000\nsettle\n")
	}
	b.WriteString("send s 4000000 MSG_DONTWAIT\nsettle\n")
	b.WriteString("getsockopt s SOL_SOCKET SO_SNDBUF => " + strconv.Itoa(sndbuf) + "\n")
	return b.String()
}

// Under bbr (linux-6.18) the window grows by one for each segment
// acknowledged while tp->delivered is below TCP_INIT_CWND, used or not
// (bbr_set_cwnd), to 18, and the send buffer is three windows
// (bbr_sndbuf_expand); under cubic (linux-5.0) slow start needs the
// window used (tcp_is_cwnd_limited), so it stays at 10, and the buffer is
// two windows.
func TestCongestionControlWindow(t *testing.T) {
	for _, c := range []struct {
		profile         string
		sndbuf0, sndbuf int
	}{
		{"linux-6.18", 3 * 10 * 65792, 3 * 18 * 65792},
		{"linux-5.0", 2 * 10 * 65792, 2 * 10 * 65792},
	} {
		t.Run(c.profile, func(t *testing.T) {
			tr := runSrc(t, cwndScenario(c.profile, c.sndbuf0, c.sndbuf))
			require.Empty(t, mismatches(tr), timeline(t, tr))
		})
	}
}

// A socket's own congestion control rules its window and send buffer,
// whatever the profile's default: reno chosen by TCP_CONGESTION on
// linux-6.18 keeps the window at 10 and the buffer at two windows, as
// linux-5.0's cubic does; net.ipv4.tcp_congestion_control makes cubic
// the default, which later sockets take and a task without
// CAP_NET_ADMIN may then choose, also once it is the default no more
// (tcp_set_default_congestion_control makes it unrestricted for good).
func TestCongestionControlPerSocket(t *testing.T) {
	src := strings.Replace(cwndScenario("linux-6.18", 2*10*65792, 2*10*65792),
		"connect s => 0\n", "setsockopt s IPPROTO_TCP TCP_CONGESTION \"reno\" => 0\nconnect s => 0\n", 1)
	tr := runSrc(t, src)
	require.Empty(t, mismatches(tr), timeline(t, tr))

	tr = runSrc(t, `
sysctl net.ipv4.tcp_congestion_control cubic
socket s AF_INET SOCK_STREAM
getsockopt s IPPROTO_TCP TCP_CONGESTION => "cubic"
setsockopt s IPPROTO_TCP TCP_CONGESTION "bbr" => 0
setsockopt s IPPROTO_TCP TCP_CONGESTION "cubic" => 0
sysctl net.ipv4.tcp_congestion_control bbr
setsockopt s IPPROTO_TCP TCP_CONGESTION "reno" => 0
setsockopt s IPPROTO_TCP TCP_CONGESTION "cubic" => 0
`)
	require.Empty(t, mismatches(tr), timeline(t, tr))
}
