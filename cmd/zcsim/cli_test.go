package main

import (
	"bytes"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// panicWriter is a standard output whose every write panics: a stand-in
// for any bug below the command line.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("write to a broken stdout") }

// A panic is an internal error (exit 3), never an input error: the message
// says so, asks for the command line, the seed and the files, and carries
// the panic value and the stack.
func TestPanicIsInternalError(t *testing.T) {
	var errb bytes.Buffer
	args := []string{"run", "--seed", "7", filepath.Join("testdata", "good.zcs")}
	status := run(args, panicWriter{}, &errb)
	require.Equal(t, exitInternal, status, errb.String())
	msg := errb.String()
	for _, want := range []string{
		"zcsim: internal error: this is a bug in zcsim, not in your input.",
		"the command line: zcsim run --seed 7 testdata/good.zcs\n",
		"the seed:",
		"files it names, attached",
		"this version: ",
		"panic: write to a broken stdout\n",
		"goroutine ",
		"cmd/zcsim.run(",
	} {
		require.Contains(t, msg, want)
	}
}

// The help says what exit status 3 means.
func TestHelpNamesInternalError(t *testing.T) {
	z := runCLI("--help")
	z.requireStatus(t, exitOK, "--help")
	require.Contains(t, z.stdout, "3 for\nan internal error: a bug in zcsim")
}

// The command line in a panic report can be pasted back into a shell.
func TestPanicReportQuotes(t *testing.T) {
	var b bytes.Buffer
	reportPanic(&b, []string{"run", "my file.zcs", ""}, "boom", []byte("stack\n"))
	require.Contains(t, b.String(), `zcsim run "my file.zcs" ""`+"\n")
	require.True(t, strings.HasSuffix(b.String(), "panic: boom\n\nstack\n"), b.String())
}

func TestVersion(t *testing.T) {
	z := runCLI("--version")
	z.requireStatus(t, exitOK, "--version")
	require.Regexp(t, `^zcsim \S.*\n$`, z.stdout)
	require.Empty(t, z.stderr)

	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0d5119e6"},
		{Key: "vcs.time", Value: "2026-12-01T07:43:29Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	require.Equal(t, "v0.3.0, git revision 0d5119e6 (2026-12-01T07:43:29Z), modified, go1.26.8", versionLine(stamped, true))
	stamped.Settings[3].Value = "false"
	require.Equal(t, "v0.3.0, git revision 0d5119e6 (2026-12-01T07:43:29Z), go1.26.8", versionLine(stamped, true))
	goRun := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	require.Equal(t, "(devel), no VCS revision (built by go run, go test or with -buildvcs=false), go1.26.8", versionLine(goRun, true))
	require.Equal(t, "(devel), no VCS revision (built by go run, go test or with -buildvcs=false)", versionLine(&debug.BuildInfo{}, true))
	require.Equal(t, "unknown (no build information)", versionLine(nil, false))
}

// zcsim replay FILE is zcsim replay --strace FILE.
func TestReplayPositional(t *testing.T) {
	atRoot(t)
	log := filepath.Join("sim", "replay", "testdata", "probe_udp.log")
	flag := runCLI("replay", "--strace", log, "--cap-net-admin")
	flag.requireStatus(t, exitOK, "replay", "--strace", log)
	pos := runCLI("replay", log, "--cap-net-admin")
	pos.requireStatus(t, exitOK, "replay", log)
	require.Equal(t, flag, pos)

	both := runCLI("replay", "--strace", log, log)
	both.requireStatus(t, exitUsage, "replay", "--strace", log, log)
	require.Contains(t, both.stderr, "not both")
	none := runCLI("replay")
	none.requireStatus(t, exitUsage, "replay")
	require.Contains(t, none.stderr, "no strace log")
	two := runCLI("replay", log, log)
	two.requireStatus(t, exitUsage, "replay", log, log)
	require.Empty(t, two.stdout)
}

// complete asks cobra's hidden completion command what the shell should
// offer after args, and returns the candidates without descriptions.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	z := runCLI(append([]string{"__complete"}, args...)...)
	z.requireStatus(t, exitOK, append([]string{"__complete"}, args...)...)
	lines := strings.Split(strings.TrimSpace(z.stdout), "\n")
	require.Regexp(t, `^:\d+$`, lines[len(lines)-1], "the last line is the directive")
	var out []string
	for _, l := range lines[:len(lines)-1] {
		name, _, _ := strings.Cut(l, "\t")
		out = append(out, name)
	}
	return out
}

func TestCompletion(t *testing.T) {
	profiles := []string{"rfc-v2", "linux-4.14", "tcp-mmap-rfc", "linux-5.0", "linux-6.18", "zc-cmsg-v7"}
	for _, cmd := range []string{"run", "replay", "probe"} {
		require.Equal(t, profiles, complete(t, cmd, "--profile", ""), cmd)
	}
	require.Equal(t, []string{"linux-4.14", "linux-5.0", "linux-6.18"}, complete(t, "run", "--profile", "linux"))
	require.Equal(t, profiles, complete(t, "profiles", "--diff", "linux-5.0", ""))
	require.Empty(t, complete(t, "profiles", "--diff", "linux-5.0", "linux-6.18", ""))
	require.Empty(t, complete(t, "profiles", ""), "profiles takes no argument without --diff")

	all := complete(t, "bugs", "")
	require.Contains(t, all, "R1")
	require.Contains(t, all, "B3")
	require.Contains(t, all, "B22")
	require.Equal(t, []string{"B10", "B11", "B14", "B15", "B16", "B18"}, complete(t, "bugs", "b1"))
	require.Equal(t, []string{"udp-more-refcnt", "udp-append-refcnt"}, complete(t, "bugs", "udp-"))
	require.Empty(t, complete(t, "bugs", "B6", ""), "bugs takes one ID")
}
