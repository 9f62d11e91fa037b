package replay_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/bugs"
	"github.com/zcsim/zcsim/sim/replay"
)

// smallSendLog is tcpHead and one 100-byte zerocopy send, read by the
// peer, whose notification says COPIED (loopback copies).
const smallSendLog = tcpHead + `sendto(4, "zz"..., 100, MSG_ZEROCOPY, NULL, 0) = 100
recvfrom(5, "zz"..., 65536, 0, NULL, NULL) = 100
` + `recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=48, cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=5, ee_type=0, ee_code=1, ee_info=0, ee_data=0}}], msg_controllen=48, msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0
`

// catalogRule is the invariant the bug catalog says a run with id's bug
// breaks.
func catalogRule(t *testing.T, id string) string {
	t.Helper()
	e, ok := bugs.Lookup(id)
	require.True(t, ok, id)
	return e.Rule.String()
}

// A replay under a historical bug that breaks an invariant reports it:
// with B18 (tcp-linear) the 100 bytes go to the skb's linear area, a copy
// no reference drop reports, so the send at line 8 is notified without
// COPIED. The violation has its line, step, rule, object and message in
// the report, the text and the JSON, and fails the replay as a
// divergence does; the header lists the bug. Without it the log replays
// clean.
func TestViolationReported(t *testing.T) {
	clean, err := replay.Replay("t.log", []byte(smallSendLog), replay.Options{})
	require.NoError(t, err)
	require.True(t, clean.OK(), "%+v", clean.Divergences())
	require.Empty(t, clean.Violations())
	require.Zero(t, clean.Summary.Violations)

	rep, err := replay.Replay("t.log", []byte(smallSendLog), replay.Options{Bugs: []kernel.Bug{kernel.BugTCPLinear}})
	require.NoError(t, err)
	require.False(t, rep.OK())
	require.Equal(t, []string{"tcp-linear"}, rep.Config.Bugs)
	vs := rep.Violations()
	require.Len(t, vs, 1, "%+v", vs)
	v := vs[0]
	require.Equal(t, 8, v.Line)
	require.Equal(t, "send", v.Op)
	require.Equal(t, "fd4", v.Socket)
	require.Equal(t, catalogRule(t, "B18"), v.Rule)
	require.Equal(t, "copied", v.Rule)
	require.Contains(t, v.Message, "t.log:8 (id 0, uarg#")
	require.Contains(t, v.Message, "copied its data but was notified without COPIED")
	require.Positive(t, v.Step)
	require.NotEmpty(t, v.History)
	s := rep.Summary
	require.Equal(t, 1, s.Violations)
	require.Equal(t, 1, s.Diverge, "the notification's read diverges too")
	require.Equal(t, "1 diverge, 1 invariant violation", s.Verdict)

	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	out := text.String()
	require.Contains(t, out, "timestamps none; bugs on: tcp-linear\n")
	require.Regexp(t, `\ninvariant violations:\n  line 8 \(step \d+, send on fd4\): invariant copied: sock#\d+: t\.log:8 \(id 0, uarg#\d+\) copied its data but was notified without COPIED\n      step \d+: `, out)
	require.Contains(t, out, "0 ignored: 1 diverge, 1 invariant violation\n")

	var js bytes.Buffer
	require.NoError(t, rep.WriteJSON(&js))
	recs := map[string][]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(js.String()), "\n") {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		recs[r["kind"].(string)] = append(recs[r["kind"].(string)], r)
	}
	require.Equal(t, 4.0, recs["config"][0]["schema"], "schema 4 reports violations")
	require.Equal(t, []any{"tcp-linear"}, recs["config"][0]["bugs"])
	require.Len(t, recs["violation"], 1)
	jv := recs["violation"][0]
	for k, want := range map[string]any{"line": 8.0, "op": "send", "socket": "fd4", "rule": "copied", "object": v.Object, "message": v.Message} {
		require.Equal(t, want, jv[k], k)
	}
	require.Equal(t, 1.0, recs["summary"][0]["violations"])
	require.Equal(t, false, recs["summary"][0]["ok"])
}

// A report with no violation and no bug has neither a "violations" count
// nor "bugs" in its JSON, nor a bugs clause or a violations list in its
// text: such reports are what they were before, but for the schema.
func TestNoViolationReportUnchanged(t *testing.T) {
	rep, err := replay.Replay("t.log", []byte(smallSendLog), replay.Options{})
	require.NoError(t, err)
	var text, js bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	require.NoError(t, rep.WriteJSON(&js))
	require.NotContains(t, text.String(), "bugs on")
	require.NotContains(t, text.String(), "invariant")
	require.NotContains(t, js.String(), `"bugs"`)
	require.NotContains(t, js.String(), `"violation`)
	require.True(t, strings.HasSuffix(js.String(), `{"kind":"summary","calls":10,"agree":10,"assumed":0,"diverge":0,"undetermined":0,"unreplayed":0,"ignored":0,"verdict":"all agree","ok":true}`+"\n"), js.String())
}

// testdata/udp_more.log (udp_more.go, recorded on Linux 6.18) corks a
// zerocopy UDP datagram with MSG_MORE. It replays clean under linux-5.0
// and linux-6.18; with B6 (udp-more-refcnt) on, as v5.0 and v5.1 had it,
// the corked appends take uarg references nobody drops: no call breaks
// an invariant, but the sweep at the end of the log finds the leak the
// catalog names, after the program closed the socket.
func TestViolationAtEnd(t *testing.T) {
	const log = "testdata/udp_more.log"
	for _, p := range []string{"linux-5.0", "linux-6.18"} {
		rep, err := replay.ReplayFile(log, replay.Options{Profile: p})
		require.NoError(t, err)
		require.True(t, rep.OK(), "%s: %+v %+v", p, rep.Divergences(), rep.Violations())
		require.Equal(t, rep.Summary.Calls, rep.Summary.Agree, p)
		require.Empty(t, rep.Violations(), p)
	}
	bug := []kernel.Bug{kernel.BugUDPMoreRefcnt}
	rep, err := replay.ReplayFile(log, replay.Options{Profile: "linux-5.0", Bugs: bug})
	require.NoError(t, err)
	require.False(t, rep.OK())
	vs := rep.Violations()
	require.Len(t, vs, 1, "%+v", vs)
	v := vs[0]
	require.Equal(t, replay.EndOfLog, v.Op)
	require.Equal(t, 21, v.Line, "the last line read: the program's exit")
	require.Equal(t, catalogRule(t, "B6"), v.Rule)
	require.Contains(t, v.Message, "leaked at quiescence")
	// The notification the kernel queued never comes in the model.
	require.Equal(t, 15, rep.Divergences()[0].Line)

	// A log cut in the middle of its last line is swept where it stops.
	src, err := os.ReadFile(log)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(src), "\n")
	cut := strings.Join(lines[:16], "") + lines[16][:30]
	rep, err = replay.Replay("cut.log", []byte(cut), replay.Options{Profile: "linux-5.0", Bugs: bug})
	require.NoError(t, err)
	require.Contains(t, rep.Notes[0], "the log ends in the middle of line 17")
	vs = rep.Violations()
	require.Len(t, vs, 1, "%+v", vs)
	require.Equal(t, replay.EndOfLog, vs[0].Op)
	require.Equal(t, 16, vs[0].Line)
	require.Equal(t, "refcount", vs[0].Rule)
}

// Options.Bugs takes only the bugs the model implements.
func TestUnknownBug(t *testing.T) {
	_, err := replay.Replay("t.log", []byte(smallSendLog), replay.Options{Bugs: []kernel.Bug{"no-such-bug"}})
	require.ErrorContains(t, err, `bug "no-such-bug"`)
}

// In the merged files of strace -ff a violation names its pid too, and
// the line is in that pid's file.
func TestViolationMergedNamesPid(t *testing.T) {
	files, err := filepath.Glob("testdata/ff/forms.*")
	require.NoError(t, err)
	rep, err := replay.ReplayFiles(files, replay.Options{Bugs: []kernel.Bug{kernel.BugTCPLinear}})
	require.NoError(t, err)
	vs := rep.Violations()
	require.NotEmpty(t, vs)
	require.Equal(t, 31066, vs[0].Pid)
	require.Equal(t, 43, vs[0].Line)
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	require.Contains(t, b.String(), "\n  line 43 (pid 31066, step ")
}
