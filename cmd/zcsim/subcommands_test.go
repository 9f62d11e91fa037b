package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/probe"
)

// zcsim bugs lists the catalog; an entry replays with its bug on and finds
// what it names (exit 1); --verify runs every entry both ways (exit 0).
func TestBugsCommand(t *testing.T) {
	list := runCLI("bugs")
	list.requireStatus(t, exitOK, "bugs")
	entries := strings.Count(list.stdout, "\n") - 1
	require.GreaterOrEqual(t, entries, 15, list.stdout)
	require.Contains(t, list.stdout, "abort-gap")

	one := runCLI("bugs", "R1")
	one.requireStatus(t, exitFindings, "bugs", "R1")
	require.Contains(t, one.stdout, "VIOLATION")
	require.Contains(t, one.stdout, "invariant ids")
	require.Equal(t, one.stdout, runCLI("bugs", "abort-gap").stdout, "an entry is named by id or switch")

	check := runCLI("bugs", "--verify")
	check.requireStatus(t, exitOK, "bugs", "--verify")
	require.Contains(t, check.stdout, "entries with a scenario behave")
	require.NotContains(t, check.stdout, "FAIL")

	bad := runCLI("bugs", "nope")
	bad.requireStatus(t, exitUsage, "bugs", "nope")
	require.Empty(t, bad.stdout)
	require.Contains(t, bad.stderr, `unknown bug "nope"`)
}

// zcsim profiles --diff names the knobs that differ, with both values.
func TestProfilesDiff(t *testing.T) {
	d := runCLI("profiles", "--diff", "linux-5.0", "linux-6.18")
	d.requireStatus(t, exitOK, "profiles", "--diff")
	require.Regexp(t, `OptmemMax\s+20480\s+131072`, d.stdout)
	require.NotContains(t, d.stdout, "UargByteLimit", "equal knobs are not listed")

	same := runCLI("profiles", "--diff", "linux-6.18", "linux-6.18")
	same.requireStatus(t, exitOK, "profiles", "--diff")
	require.NotContains(t, same.stdout, "OptmemMax")

	bad := runCLI("profiles", "--diff", "nope", "linux-6.18")
	bad.requireStatus(t, exitUsage, "profiles", "--diff", "nope")
	require.Empty(t, bad.stdout)
	require.Contains(t, bad.stderr, `unknown profile "nope"`)
}

// zcsim replay --strace agrees with a recorded log (exit 0), reports a
// divergence with line, observed and predicted (exit 1), and refuses a
// malformed log with file:line:col and nothing on stdout (exit 2).
func TestReplayCommand(t *testing.T) {
	atRoot(t)
	log := filepath.Join("sim", "replay", "testdata", "probe_udp.log")
	// The probe that made the log ran as root: SO_RCVBUFFORCE succeeded,
	// so the replay infers CAP_NET_ADMIN, unless the flag says otherwise.
	inferred := runCLI("replay", "--strace", log)
	inferred.requireStatus(t, exitOK, "replay", log)
	require.Regexp(t, `inferred CAP_NET_ADMIN from line \d+: SO_RCVBUFFORCE succeeded`, inferred.stdout)
	unprivileged := runCLI("replay", "--strace", log, "--cap-net-admin=false")
	unprivileged.requireStatus(t, exitFindings, "replay", log, "--cap-net-admin=false")
	require.Regexp(t, `SO_RCVBUFFORCE.*observed 0 +predicted -1 EPERM`, unprivileged.stdout)
	require.NotContains(t, unprivileged.stdout, "inferred CAP_NET_ADMIN")
	ok := runCLI("replay", "--strace", log, "--cap-net-admin")
	ok.requireStatus(t, exitOK, "replay", log, "--cap-net-admin")
	// Line 28, a zerocopy sendmsg of two iovecs, rests on their layout.
	require.Contains(t, ok.stdout, "40 agree, 1 agree under an assumption, 0 undetermined, 0 diverge")

	js := runCLI("replay", "--strace", log, "--json", "--cap-net-admin")
	js.requireStatus(t, exitOK, "replay", log, "--json")
	lines := strings.Split(strings.TrimSpace(js.stdout), "\n")
	var first, last map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last))
	require.Equal(t, "config", first["kind"])
	require.Equal(t, "summary", last["kind"])

	// The same log, with one observed result the model cannot predict.
	src, err := os.ReadFile(log)
	require.NoError(t, err)
	text := string(src)
	i := strings.Index(text, "sendmsg(")
	require.Positive(t, i)
	j := i + strings.Index(text[i:], ") = ")
	end := j + strings.Index(text[j:], "\n")
	doctored := text[:j] + ") = -1 ENOBUFS (No buffer space available)" + text[end:]
	bad := filepath.Join(t.TempDir(), "diverge.log")
	require.NoError(t, os.WriteFile(bad, []byte(doctored), 0o644))
	div := runCLI("replay", "--strace", bad, "--cap-net-admin")
	div.requireStatus(t, exitFindings, "replay", bad)
	require.Contains(t, div.stdout, "-1 ENOBUFS")

	junk := filepath.Join(t.TempDir(), "junk.log")
	require.NoError(t, os.WriteFile(junk, []byte("this is not strace output(\n"), 0o644))
	in := runCLI("replay", "--strace", junk)
	in.requireStatus(t, exitUsage, "replay", junk)
	require.Empty(t, in.stdout)
	require.Contains(t, in.stderr, "junk.log:1:")

	missing := runCLI("replay", "--strace", filepath.Join(t.TempDir(), "nope.log"))
	missing.requireStatus(t, exitUsage, "replay", "nope.log")
	require.Empty(t, missing.stdout)
}

// zcsim probe runs every example: what the live kernel can do is
// compared, the rest is skipped with a reason, and the loopback examples
// agree with the model. Without root it is an error, not a finding.
func TestProbeExamples(t *testing.T) {
	atRoot(t)
	files := examples(t)
	args := append([]string{"probe"}, files...)
	if os.Geteuid() != 0 {
		z := runCLI(args...)
		z.requireStatus(t, exitUsage, args...)
		require.Contains(t, z.stderr, "run as root")
		return
	}
	if err := probe.Supported(); err != nil {
		t.Skipf("this kernel cannot be probed: %v", err)
	}
	z := runCLI(args...)
	z.requireStatus(t, exitOK, args...)
	require.Empty(t, z.stderr)
	for _, f := range files {
		require.Contains(t, z.stdout, "probe "+f+": kernel (")
	}
	require.NotContains(t, z.stdout, "DIFF")
	require.Regexp(t, `(?m)^skip examples/tcp-nic\.zcs:3  device eth0 nic +the host has no nic eth0`, z.stdout)
	require.Regexp(t, `(?m)^ok   examples/tcp-loopback\.zcs:15  recvmsg s MSG_ERRQUEUE +kernel zerocopy \[0,0\] copied +model zerocopy \[0,0\] copied$`, z.stdout)
	require.Regexp(t, `(?m)^skip examples/tcp-loopback\.zcs:18  expect s.peer queued=4000 +state checks`, z.stdout)

	one := filepath.Join("examples", "udp-loopback.zcs")
	js := runCLI("probe", "--json", one)
	js.requireStatus(t, exitOK, "probe", "--json", one)
	recs := requireReport(t, js.stdout, "stmt", "skip")
	require.NotEmpty(t, recs)
	for _, r := range recs {
		if r["kind"] == "stmt" {
			require.Equal(t, true, r["agree"], "%v", r)
		}
	}
}
