package pktdrill

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/scenario"
)

// The time-wait socket's ACK offers tw_rcv_wnd, the window left when it
// took over (tcp_v4_timewait_ack, tcp_v6_timewait_ack), not the window a
// live socket would select: win 63 over IPv4, 64 over IPv6. Measured on
// Linux 6.18 with packetdrill on simultaneous-close.pkt, its last ACK
// checked for the window.
func TestTimeWaitWindow(t *testing.T) {
	file := "../../examples/packetdrill/simultaneous-close.pkt"
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	last := "   +0 > . 1002:1002(0) ack 2\n"
	i := strings.LastIndex(string(src), last)
	require.Positive(t, i)
	for fam, win := range map[scenario.Family]string{scenario.Inet: "63", scenario.Inet6: "64", scenario.Mapped: "63"} {
		edited := string(src[:i]) + strings.TrimSuffix(last, "\n") + " win " + win + "\n" + string(src[i+len(last):])
		r, err := Import(file, []byte(edited))
		require.NoError(t, err)
		tr, err := interp.Run(file+".zcs", r.Scenario, interp.Options{Family: fam})
		require.NoError(t, err)
		for _, rec := range tr.Records {
			require.Nil(t, rec.Mismatch, "%s: %+v", fam, rec.Mismatch)
		}
		require.True(t, tr.OK(), "%s", fam)
	}
}
