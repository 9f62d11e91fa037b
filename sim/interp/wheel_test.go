package interp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim"
)

// assumes returns the Assumes of the call event whose source is line of
// test.zcs.
func assumes(t *testing.T, tr *sim.Trace, line string) string {
	t.Helper()
	for _, e := range events(tr) {
		if e.Source == "test.zcs:"+line && e.Ret != nil {
			return e.Assumes
		}
	}
	t.Fatalf("no call at line %s in:\n%s", line, timeline(t, tr))
	return ""
}

// A call made after the model fired a TCP timer of its connection, but
// before the latest time the kernel's timer wheel may fire it, holds
// under the assumption that it fired on time, and says so; one made
// after that, or after a settle, does not; a call on another connection
// is not concerned.
func TestTimerAssumption(t *testing.T) {
	tr := runSrc(t, `
device eth0 nic delay=50us
socket s AF_INET SOCK_STREAM via=eth0 peer_ack=delayed
socket u AF_INET SOCK_STREAM via=eth0
connect s
connect u
send s 1000 0
wait 41ms
recvmsg s MSG_ERRQUEUE
recvmsg u MSG_ERRQUEUE
wait 10ms
recvmsg s MSG_ERRQUEUE
send s 1000 0
wait 41ms
settle
recvmsg s MSG_ERRQUEUE
`)
	requireOK(t, tr)
	// TCP_DELACK_MIN is 10 jiffies at HZ 250, filed at the wheel's level
	// 0: up to a jiffy late, and the ACK a round trip of 100us later.
	require.Equal(t, "the delayed-ACK timer of s.peer fired at 40.05ms, before this call, as the model has it; the kernel's timer wheel may run it later, what it sends arriving as late as 44.15ms",
		assumes(t, tr, "8"))
	require.Empty(t, assumes(t, tr, "9"), "u's connection has no timer")
	require.Empty(t, assumes(t, tr, "11"), "51ms is past the window")
	require.Empty(t, assumes(t, tr, "15"), "a settle lets every timer fire")
	require.Contains(t, event(t, tr, "recvmsg s MSG_ERRQUEUE = -1 EAGAIN  assuming").Text, "  assuming the delayed-ACK timer of s.peer")
}

// A blocking call woken by what a timer's firing did returns after it on
// the kernel too, and so does every call after it: only a call that
// began after the model's firing is under the assumption (the zero-window
// probe of a corked byte, tcp-cork-probe.zcs).
func TestTimerAssumptionAfterSleep(t *testing.T) {
	src := `
socket s AF_INET SOCK_STREAM
setsockopt s SOL_TCP TCP_CORK 1
connect s
send s 1 0
%s
recv s.peer 10 MSG_DONTWAIT
`
	tr := runSrc(t, strings.Replace(src, "%s", "recv s.peer 0", 1))
	requireOK(t, tr)
	require.Empty(t, assumes(t, tr, "5"))
	require.Empty(t, assumes(t, tr, "6"))
	tr = runSrc(t, strings.Replace(src, "%s", "wait 204ms", 1))
	require.Contains(t, assumes(t, tr, "6"), "the zero-window probe timer of s fired at 204ms, before this call")
}

// A timer armed by another's firing is as late as that one was, and its
// own rounding more: the zero-window probes' backoff chain widens the
// window probe by probe (tcp-invalid-ratelimit.zcs).
func TestTimerAssumptionChained(t *testing.T) {
	tr := runSrc(t, `
socket s AF_INET SOCK_STREAM
connect s
setsockopt s.peer SOL_SOCKET SO_RCVBUF 4096
send s 200000 MSG_DONTWAIT
wait 1800ms
getsockopt s IPPROTO_TCP TCP_INFO
`)
	a := assumes(t, tr, "6")
	require.Contains(t, a, "the zero-window probe timer of s fired at")
	require.Contains(t, a, "of it from the timer whose firing armed it")
}
