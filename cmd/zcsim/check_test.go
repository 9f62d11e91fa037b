package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// zcsim check --bug finds the bug, writes a shrunk file that zcsim run
// replays to the same violation, and exits 1; the same flags make the same
// output and the same file.
func TestCheckFindsBug(t *testing.T) {
	dir := t.TempDir()
	args := []string{"check", "--bug", "B6", "--profile", "linux-6.18", "--seed", "1", "--runs", "400", "--out", dir}
	z := runCLI(args...)
	z.requireStatus(t, exitFindings, args...)
	lines := strings.Split(z.stdout, "\n")
	require.Equal(t, "# zcsim check: root seed 1; profile linux-6.18; bugs on: udp-more-refcnt; switched off: none carried by the profile", lines[0])
	m := regexp.MustCompile(`shrunk from \d+ to \d+ lines: (\S+)`).FindStringSubmatch(z.stdout)
	require.NotNil(t, m, z.stdout)
	seed := regexp.MustCompile(`refcount-(\d+)\.zcs$`).FindStringSubmatch(m[1])
	require.NotNil(t, seed, m[1])
	body, err := os.ReadFile(m[1])
	require.NoError(t, err)
	require.Contains(t, string(body), "# profile: linux-6.18; bugs on: udp-more-refcnt; switched off: none")
	require.Contains(t, string(body), "# seed: "+seed[1])

	replay := runCLI("run", "--brief", "--seed", seed[1], m[1])
	replay.requireStatus(t, exitFindings, "run", m[1])
	require.Contains(t, replay.stdout, "VIOLATION")
	require.Contains(t, replay.stdout, "invariant refcount")

	again := runCLI(args...)
	require.Equal(t, z.stdout, again.stdout)
	body2, err := os.ReadFile(m[1])
	require.NoError(t, err)
	require.Equal(t, body, body2)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

// A budget that runs out with nothing found exits 0 and writes nothing;
// under linux-4.14 the first line says that B18 is switched off.
func TestCheckCleanBudget(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	z := runCLI("check", "--profile", "linux-4.14", "--seed", "2", "--runs", "20", "--out", dir)
	z.requireStatus(t, exitOK, "check")
	require.Equal(t, "# zcsim check: root seed 2; profile linux-4.14; bugs on: none; switched off: tcp-linear (the profile's default)\n# 20 runs, 0 distinct failures\n", z.stdout)
	_, err := os.Stat(dir)
	require.True(t, os.IsNotExist(err), "no findings directory")
}

// --for bounds the search by wall time, and the summary says how long it
// took.
func TestCheckFor(t *testing.T) {
	z := runCLI("check", "--for", "1ns", "--seed", "3", "--out", t.TempDir())
	z.requireStatus(t, exitOK, "check", "--for", "1ns")
	require.Regexp(t, `^# zcsim check: root seed 3; profile drawn per seed; bugs on: none; switched off: legacy-unaccount, tcp-linear, tcp-mmap-lock-order, zc-cmsg-loss \(the profile's default\)\n# 0 runs, 0 distinct failures in \S+\n$`, z.stdout)
}

// --json prints a config record, one finding per distinct failure, and a
// summary; with --shard every finding's seed is in the shard. Under
// linux-5.0 B14's leak cycle closes on TCP sockets too: their error
// queue waits for sk_destruct as a UDP socket's does (before v6.1's
// sk_stream_kill_queues purge).
func TestCheckJSONShard(t *testing.T) {
	dir := t.TempDir()
	args := []string{"check", "--json", "--profile", "linux-5.0", "--bug", "tstamp-leak", "--seed", "3100", "--runs", "300", "--shard", "1/3", "--keep-going", "--out", dir}
	z := runCLI(args...)
	z.requireStatus(t, exitFindings, args...)
	var kinds []string
	findings := 0
	for _, line := range strings.Split(strings.TrimSpace(z.stdout), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		kinds = append(kinds, rec["kind"].(string))
		if rec["kind"] == "finding" {
			findings++
			require.Equal(t, 1, int(rec["seed"].(float64))%3, line)
			require.FileExists(t, rec["file"].(string))
		}
		if rec["kind"] == "config" {
			require.Equal(t, "1/3", rec["shard"])
			require.Equal(t, "check", rec["command"])
		}
	}
	require.Equal(t, "config", kinds[0])
	require.Equal(t, "summary", kinds[len(kinds)-1])
	require.NotZero(t, findings)
	require.Contains(t, z.stdout, `"runs":300,"findings":`)
}

// Bad usage exits 2 with a message and no output.
func TestCheckUsage(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--runs", "3", "--for", "1s"},
		{"check", "--runs", "0"},
		{"check", "--for", "-1s"},
		{"check", "--shard", "3/3"},
		{"check", "--shard", "x"},
		{"check", "--bug", "nope"},
		{"check", "--profile", "linux-9", "--runs", "1"},
		{"check", "extra"},
		{"check", "--out", "", "--runs", "1"},
	} {
		z := runCLI(args...)
		z.requireStatus(t, exitUsage, args...)
		require.Empty(t, z.stdout, args)
		require.NotEmpty(t, z.stderr, args)
	}
}
