package interp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const udpSetup = `
socket s AF_INET SOCK_DGRAM
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
`

// A repeat runs its body once an iteration, and the loop variable lets the
// expectations follow the ids.
func TestRepeatRuns(t *testing.T) {
	tr := runSrc(t, udpSetup+`
repeat i 5 {
  send s 1000 MSG_ZEROCOPY => 1000
  repeat 3 { send s (i+1)*100 MSG_ZEROCOPY => (i+1)*100 }
  settle
  recvmsg s MSG_ERRQUEUE => zerocopy [4*i,4*i+3] copied
  recv s.peer 2000 => 1000
  repeat j 3 { recv s.peer 2000 => 100*i+100 }
}
expect s zckey=20
repeat 0 { send s 1 0 => 2 }
`)
	requireOK(t, tr)
	sends := 0
	for _, e := range events(tr) {
		if e.Op == "send" {
			sends++
		}
	}
	require.Equal(t, 20, sends)
	e := event(t, tr, "zerocopy [16,19]")
	require.Equal(t, "test.zcs:9 [i=4]", e.Source)
	require.True(t, strings.HasPrefix(e.Text, "[i=4] recvmsg s MSG_ERRQUEUE"), e.Text)
	e = event(t, tr, "[i=2 j=1] recv s.peer 2000")
	require.Equal(t, "test.zcs:11 [i=2 j=1]", e.Source)
	// A repeat without a variable adds nothing to the source.
	tr = runSrc(t, udpSetup+"repeat 2 { send s 1 0 }\n")
	requireOK(t, tr)
	require.Equal(t, "test.zcs:4", event(t, tr, "send s 1 0").Source)
}

// An unmet expectation in a body names the line and the iteration, with
// the expression evaluated.
func TestRepeatMismatch(t *testing.T) {
	tr := runSrc(t, udpSetup+`
repeat i 3 {
  send s 10 MSG_ZEROCOPY => 10
  settle
  recvmsg s MSG_ERRQUEUE => zerocopy [2*i,2*i] copied
}
`)
	requireMismatches(t, tr,
		"test.zcs:8 [i=1]: zerocopy [2,2] copied | zerocopy [1,1] COPIED",
		"test.zcs:8 [i=2]: zerocopy [4,4] copied | zerocopy [2,2] COPIED")
}

// Bad values an iteration makes are input errors, found before anything
// runs, naming the expression and the iteration.
func TestRepeatInputErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{udpSetup + "repeat i 100 {\n  send s 10-4*i 0\n  send s 10-4*i 0\n}\n",
			`test.zcs:5:10: a length or count must not be negative, this one is -2 in iteration [i=3] (at "10-4*i")`},
		{udpSetup + "repeat i 3 {\n  repeat j 4 { sendmsg s [10-4*i-j] 0 }\n}\n",
			`test.zcs:5:27: a length or count must not be negative, this one is -1 in iteration [i=2 j=3] (at "10-4*i-j")`},
		{udpSetup + "repeat 3 {\n  sendmsg s [9223372036854775808] 0\n}\n",
			`test.zcs:5:14: an iovec's length must be between 0 and 9223372036854775807 (at "9223372036854775808")`},
		{"sendmsg s [9223372036854775808] 0\n",
			"test.zcs:1:12: an iovec's length must be between 0 and 9223372036854775807 (at \"9223372036854775808\")\ntest.zcs:1:9: undefined socket (at \"s\")"},
		{"repeat 2 {\n  socket s AF_INET SOCK_DGRAM\n}\n",
			`test.zcs:2:10: socket s is defined inside a repeat, so every iteration would define it again: define it before the repeat (at "s")`},
		{udpSetup + "repeat 2 { accept s t }\n",
			`test.zcs:4:21: socket t is defined inside a repeat, so every iteration would define it again: define it before the repeat (at "t")`},
		{"repeat 2 { device eth1 nic }\nrepeat 1 { send u 1 0 }\n",
			"test.zcs:1:19: device eth1 is defined inside a repeat, so every iteration would define it again: define it before the repeat (at \"eth1\")\ntest.zcs:2:17: undefined socket (at \"u\")"},
		{udpSetup + "repeat i 4000M {\n  recv s 1G-i*512M\n}\n",
			`test.zcs:5:10: a length or count must not be negative, this one is -536870912 in iteration [i=3] (at "1G-i*512M")`},
	} {
		_, err := Run("test.zcs", []byte(strings.TrimLeft(tc.src, "\n")), Options{})
		require.Error(t, err, tc.src)
		require.Equal(t, tc.want, err.Error(), tc.src)
	}
}

// A repeat whose body uses its variable only where a value cannot fail
// still runs every iteration, with the right value each time.
func TestRepeatWrapsIDs(t *testing.T) {
	tr := runSrc(t, udpSetup+`
zckey s 0xfffffffe
repeat i 4 {
  send s 1 MSG_ZEROCOPY => 1
  settle
  recvmsg s MSG_ERRQUEUE => zerocopy [0xfffffffe+i,i-2] copied
}
`)
	requireOK(t, tr)
}

// The run stops inside a repeat when virtual time runs out, naming the
// iteration.
func TestRepeatOutOfTime(t *testing.T) {
	tr := runSrc(t, "repeat i 1000 {\n  wait 9223372036s\n}\n")
	ms := mismatches(tr)
	require.NotEmpty(t, ms)
	require.Equal(t, "test.zcs:2 [i=1]", ms[0].Source)
	require.False(t, tr.OK())
}
