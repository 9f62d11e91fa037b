package replay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/replay"
)

// sends4 sends n zerocopy buffers of 4096 bytes on fd 4: ids 0..n-1,
// which the model completes and merges into one notification [0,n-1].
func sends4(n int) string {
	return strings.Repeat(`sendto(4, "zz"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096`+"\n", n)
}

const errqEAGAIN = "recvmsg(4, {msg_namelen=16}, MSG_ERRQUEUE) = -1 EAGAIN (Resource temporarily unavailable)\n"

// tcpHead is 7 lines; the sends follow from line 8.
const firstRead = 8 + 3

// A read of the first ids of the model's notification agrees under the
// assumption that the rest completed after it; the rest is what the next
// read sees, and the model's queue is then empty.
func TestPrefixReadHoldsTheRestBack(t *testing.T) {
	rep := replayText(t, tcpHead+sends4(3)+errq(0, 1)+errq(2, 2)+errqEAGAIN)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, firstRead)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Equal(t, "0 zerocopy [0,1] COPIED", c.Predicted)
	require.Contains(t, c.Assumption, "ids 2..2 of the model's notification [0,2] had not completed yet")
	require.Equal(t, replay.Agree, callAt(t, rep, firstRead+1).Verdict)
	require.Equal(t, "0 zerocopy [2,2] COPIED", callAt(t, rep, firstRead+1).Predicted)
	require.Equal(t, replay.Agree, callAt(t, rep, firstRead+2).Verdict)
	require.Equal(t, 1, rep.Summary.Assumed)
}

// EAGAIN while the model holds a notification: it had not been queued
// yet; it stays for the next read, which later completions extend.
func TestEmptyReadHoldsTheNotificationBack(t *testing.T) {
	rep := replayText(t, tcpHead+sends4(2)+errqEAGAIN+sends4(1)+errq(0, 2))
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 10)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Equal(t, "-1 EAGAIN", c.Predicted)
	require.Contains(t, c.Assumption, "zerocopy [0,1] COPIED had not been queued yet")
	require.Equal(t, replay.Agree, callAt(t, rep, 12).Verdict)
}

// Observations no schedule produces diverge, each with its reason.
func TestNoScheduleDiverges(t *testing.T) {
	tests := []struct {
		name, log, why string
	}{
		{"gap", tcpHead + sends4(3) + errq(1, 2), "the next id to report is 0 (the last read ended before it, or the model's first notification starts there), so a range from 1 leaves a gap"},
		{"gap after a read", tcpHead + sends4(3) + errq(0, 0) + errq(2, 2), "the next id to report is 1 (the last read ended before it, or the model's first notification starts there), so a range from 2"},
		{"repeat", tcpHead + sends4(3) + errq(0, 2) + errq(2, 2), "the next id to report is 3 (the last read ended before it, or the model's first notification starts there), so a range from 2 leaves a gap or repeats ids"},
		{"beyond the ids handed out", tcpHead + sends4(3) + errq(0, 5), "past the ids handed out (sk_zckey 3)"},
		{"code", tcpHead + sends4(1) + strings.Replace(errq(0, 0), "ee_code=1", "ee_code=0", 1), "has code 1, the log's 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := replayText(t, tt.log)
			require.False(t, rep.OK())
			d := rep.Divergences()
			require.Len(t, d, 1)
			require.Contains(t, d[0].Why, tt.why)
		})
	}
}

// udp6Head: a connected IPv6 UDP socket with SO_ZEROCOPY, fd 4; strace
// 6.1 prints its notifications without their range.
const udp6Head = `socket(AF_INET6, SOCK_DGRAM|SOCK_CLOEXEC, IPPROTO_IP) = 4
setsockopt(4, SOL_SOCKET, SO_ZEROCOPY, [1], 4) = 0
connect(4, {sa_family=AF_INET6, sin6_port=htons(9000), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0
`

const errq6 = `recvmsg(4, {msg_name=0x7ffef2f20170, msg_namelen=28 => 0, msg_iov=[{iov_base="", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=60, cmsg_level=SOL_IPV6, cmsg_type=0x19}], msg_controllen=64, msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0` + "\n"

// A read whose range strace did not print takes the model's whole
// record; when a later one finds the model's queue empty, the first may
// have taken fewer ids: agree under that assumption, once per id it may
// have left, then diverge.
func TestUnprintedReadsLeaveSlack(t *testing.T) {
	send := `sendto(4, "zz"..., 100, MSG_ZEROCOPY, NULL, 0) = 100` + "\n"
	rep := replayText(t, udp6Head+send+send+errq6+errq6)
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 7)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Contains(t, c.Assumption, "(line 6) took fewer ids")
	require.Equal(t, "return value only: strace printed no cmsg data", c.Compared)

	rep = replayText(t, udp6Head+send+send+errq6+errq6+errq6)
	require.False(t, rep.OK())
	require.Equal(t, 8, rep.Divergences()[0].Line)
}

// Reads of data are guided too: a read of the first segments the model
// has queued agrees under the assumption that only those had arrived, an
// EAGAIN while data is queued under the assumption that none had; a size
// that is no arrival of whole segments diverges.
func TestDataReadsAreGuided(t *testing.T) {
	read := func(ret string) string {
		return `recvfrom(5, "zz"..., 65536, MSG_DONTWAIT, NULL, NULL) = ` + ret + "\n"
	}
	rep := replayText(t, tcpHead+sends4(2)+read("-1 EAGAIN (Resource temporarily unavailable)")+read("4096")+read("4096")+read("-1 EAGAIN (Resource temporarily unavailable)"))
	require.True(t, rep.OK(), "%+v", rep.Divergences())
	c := callAt(t, rep, 10)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Contains(t, c.Assumption, "the 8192 bytes the model had queued had not arrived yet")
	c = callAt(t, rep, 11)
	require.Equal(t, replay.Assumed, c.Verdict)
	require.Contains(t, c.Assumption, "only 4096 of the 8192 bytes the model had queued had arrived")
	require.Equal(t, replay.Agree, callAt(t, rep, 12).Verdict)
	require.Equal(t, replay.Agree, callAt(t, rep, 13).Verdict)

	rep = replayText(t, tcpHead+sends4(2)+read("5000"))
	require.False(t, rep.OK())
	require.Equal(t, "8192", rep.Divergences()[0].Predicted)
}
