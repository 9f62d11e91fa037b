package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim"
)

// Every example carries its expectations; each must hold.
func TestExamplesPass(t *testing.T) {
	atRoot(t)
	for _, f := range examples(t) {
		t.Run(name(f), func(t *testing.T) {
			z := runCLI("run", f)
			z.requireStatus(t, exitOK, "run", f)
			require.Empty(t, z.stderr)
			require.Contains(t, z.stdout, "# ok: ")
		})
	}
}

// All examples at once, as "zcsim run examples/*" runs them.
func TestExamplesPassTogether(t *testing.T) {
	atRoot(t)
	args := append([]string{"run"}, examples(t)...)
	runCLI(args...).requireStatus(t, exitOK, args...)
}

// The timeline and the JSON Lines of every example are golden.
func TestExamplesGolden(t *testing.T) {
	testdata := atRoot(t)
	for _, f := range examples(t) {
		t.Run(name(f), func(t *testing.T) {
			text := runCLI("run", f)
			text.requireStatus(t, exitOK, "run", f)
			golden(t, filepath.Join(testdata, "golden", name(f)+".txt"), []byte(text.stdout))
			js := runCLI("run", "--json", f)
			js.requireStatus(t, exitOK, "run", "--json", f)
			golden(t, filepath.Join(testdata, "golden", name(f)+".jsonl"), []byte(js.stdout))
		})
	}
}

// The same run twice gives the same bytes, in every output format.
func TestDeterministic(t *testing.T) {
	testdata := atRoot(t)
	files := append(examples(t), filepath.Join(testdata, "lossy.zcs"), filepath.Join(testdata, "wrong.zcs"))
	for _, f := range files {
		for _, mode := range [][]string{{"--brief"}, {"--json"}, {"--seed", "42"}} {
			args := append(append([]string{"run"}, mode...), f)
			first, second := runCLI(args...), runCLI(args...)
			if first != second {
				t.Errorf("zcsim %s: two runs differ:\n%s", strings.Join(args, " "),
					unifiedDiff("first", "second", first.stdout, second.stdout))
			}
		}
	}
}

// withoutConfig drops the first line, the only one that names the seed.
func withoutConfig(out string) string {
	_, rest, _ := strings.Cut(out, "\n")
	return rest
}

// A scenario without randomness runs the same under every seed; only the
// config line says which seed it was.
func TestSeedChangesNothingWithoutRandomness(t *testing.T) {
	atRoot(t)
	for _, f := range examples(t) {
		for _, mode := range []string{"--brief", "--json"} {
			one := runCLI("run", mode, "--seed", "1", f)
			other := runCLI("run", mode, "--seed", "987654321", f)
			require.Equal(t, one.status, other.status, f)
			if withoutConfig(one.stdout) != withoutConfig(other.stdout) {
				t.Errorf("%s %s: seeds 1 and 987654321 differ:\n%s", f, mode,
					unifiedDiff("seed 1", "seed 987654321", one.stdout, other.stdout))
			}
			require.Contains(t, other.stdout, "987654321")
		}
	}
}

// A lossy link draws from the seed: different seeds lose different frames,
// the same seed the same ones.
func TestSeedDrivesLoss(t *testing.T) {
	lossy := filepath.Join("testdata", "lossy.zcs")
	outputs := map[string]bool{}
	for _, seed := range []string{"1", "2", "3", "4", "5"} {
		a := runCLI("run", "--seed", seed, lossy)
		a.requireStatus(t, exitOK, "run", "--seed", seed, lossy)
		b := runCLI("run", "--seed", seed, lossy)
		require.Equal(t, a, b, "seed %s: two runs differ", seed)
		require.Contains(t, a.stdout, "seed="+seed)
		outputs[withoutConfig(a.stdout)] = true
	}
	require.Greater(t, len(outputs), 1, "five seeds, one outcome: loss=0.3 is not drawn from the seed")
	// Seed 1 loses some frames but not all: the test exercises both branches.
	out := runCLI("run", "--seed", "1", lossy).stdout
	arrived := strings.Count(out, "u.peer receives a datagram")
	require.Greater(t, arrived, 0, out)
	require.Less(t, arrived, 8, out)
}

// A wrong expectation fails the run with status 1 and says what was
// expected and what happened, at the statement's position.
func TestWrongExpectation(t *testing.T) {
	wrong := filepath.Join("testdata", "wrong.zcs")
	z := runCLI("run", wrong)
	z.requireStatus(t, exitFindings, "run", wrong)
	require.Empty(t, z.stderr)
	for _, want := range []string{
		"MISMATCH at step 5 (testdata/wrong.zcs:6):\n  expected: 4095\n       got: 4096\n",
		"(testdata/wrong.zcs:8):\n  expected: zerocopy [0,0] copied\n       got: zerocopy [0,0]\n",
		"(testdata/wrong.zcs:9):\n  expected: zckey=7\n       got: zckey=1\n",
		"# FAILED: ",
		" 0 violations, 3 mismatches\n",
	} {
		require.Contains(t, z.stdout, want)
	}

	js := runCLI("run", "--json", wrong)
	js.requireStatus(t, exitFindings, "run", "--json", wrong)
	var got []map[string]any
	for _, r := range jsonLines(t, js.stdout) {
		if r["kind"] == "mismatch" {
			got = append(got, map[string]any{"source": r["source"], "expected": r["expected"], "got": r["got"]})
		}
	}
	require.Equal(t, []map[string]any{
		{"source": "testdata/wrong.zcs:6", "expected": "4095", "got": "4096"},
		{"source": "testdata/wrong.zcs:8", "expected": "zerocopy [0,0] copied", "got": "zerocopy [0,0]"},
		{"source": "testdata/wrong.zcs:9", "expected": "zckey=7", "got": "zckey=1"},
	}, got)
}

// A run with a mismatch in one file fails even when another passes.
func TestWorstStatusWins(t *testing.T) {
	good, wrong := filepath.Join("testdata", "good.zcs"), filepath.Join("testdata", "wrong.zcs")
	runCLI("run", wrong, good).requireStatus(t, exitFindings, "run", wrong, good)
	runCLI("run", good, wrong).requireStatus(t, exitFindings, "run", good, wrong)
	runCLI("run", good, good).requireStatus(t, exitOK, "run", good, good)
}

var position = regexp.MustCompile(`^testdata/bad/[a-z-]+\.zcs:\d+:\d+: `)

// Malformed scenarios exit 2 with file:line:col on stderr and print
// nothing on stdout, not even the files that came before them.
func TestMalformed(t *testing.T) {
	for _, c := range []struct {
		file, where, what string
	}{
		{"syntax", ":2:12: ", `unknown flag (at "MSG_BOGUS")`},
		{"undefined-socket", ":3:6: ", `undefined socket (at "t")`},
		{"unknown-profile", ":2:9: ", `unknown profile "linux-9.99"`},
		{"unknown-bug", ":1:5: ", `unknown bug`},
		{"bad-fault", ":2:20: ", `bad fault rule`},
		{"bad-sysctl", ":2:8: ", `unknown sysctl`},
	} {
		t.Run(c.file, func(t *testing.T) {
			f := filepath.Join("testdata", "bad", c.file+".zcs")
			for _, args := range [][]string{
				{"run", f},
				{"run", "--json", f},
				{"run", filepath.Join("testdata", "good.zcs"), f},
			} {
				z := runCLI(args...)
				z.requireStatus(t, exitUsage, args...)
				require.Empty(t, z.stdout, "stdout of zcsim %v", args)
				require.Regexp(t, position, z.stderr)
				require.Contains(t, z.stderr, f+c.where+c.what)
				require.NotContains(t, z.stderr, "panic")
			}
		})
	}
}

// A file that cannot be read is an input error.
func TestUnreadableFile(t *testing.T) {
	for _, f := range []string{filepath.Join("testdata", "no-such-file.zcs"), "testdata"} {
		z := runCLI("run", f)
		z.requireStatus(t, exitUsage, "run", f)
		require.Empty(t, z.stdout)
		require.Contains(t, z.stderr, f)
	}
}

// Usage errors exit 2 and say what is wrong on stderr.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "Usage:"},
		{[]string{"run"}, "requires at least 1 arg"},
		{[]string{"run", "--no-such-flag", "testdata/good.zcs"}, "unknown flag: --no-such-flag"},
		{[]string{"run", "--seed", "minus-one", "testdata/good.zcs"}, "invalid argument"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"profiles", "extra"}, "unknown command"},
		{[]string{"run", "--profile", "linux-9.99", "testdata/good.zcs"}, `unknown profile "linux-9.99"`},
	} {
		z := runCLI(c.args...)
		z.requireStatus(t, exitUsage, c.args...)
		require.Empty(t, z.stdout, "zcsim %v", c.args)
		require.Contains(t, z.stderr, c.want, "zcsim %v", c.args)
	}
}

func TestHelp(t *testing.T) {
	z := runCLI("help", "run")
	z.requireStatus(t, exitOK, "help", "run")
	require.Contains(t, z.stdout, "--profile")
	require.Contains(t, z.stdout, "--json")
}

// zcsim profiles lists the four profiles with their knobs.
func TestProfiles(t *testing.T) {
	z := runCLI("profiles")
	z.requireStatus(t, exitOK, "profiles")
	var names []string
	for _, line := range strings.Split(z.stdout, "\n") {
		if line != "" && !strings.HasPrefix(line, " ") {
			n, _, _ := strings.Cut(line, ":")
			names = append(names, n)
		}
	}
	require.Equal(t, []string{"rfc-v2", "linux-4.14", "tcp-mmap-rfc", "linux-5.0", "linux-6.18", "zc-cmsg-v7"}, names)
	require.Contains(t, z.stdout, "  OptmemMax ")
	require.Equal(t, z, runCLI("profiles"))
}

// jsonLines decodes every line of out as one JSON object.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	require.True(t, strings.HasSuffix(out, "\n"), "output does not end in a newline")
	var recs []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &r), "line %d: %s", i+1, line)
		recs = append(recs, r)
	}
	return recs
}

// --json prints JSON Lines: a config record first, a summary last, and a
// kind on every record.
func TestJSONShape(t *testing.T) {
	atRoot(t)
	kinds := map[string]bool{"config": true, "event": true, "violation": true, "mismatch": true, "summary": true}
	for _, f := range examples(t) {
		recs := jsonLines(t, runCLI("run", "--json", "--seed", "7", f).stdout)
		require.GreaterOrEqual(t, len(recs), 3, f)
		for i, r := range recs {
			kind, ok := r["kind"].(string)
			require.True(t, ok && kinds[kind], "%s line %d: kind %v", f, i+1, r["kind"])
			switch {
			case i == 0:
				require.Equal(t, "config", kind, f)
			case i == len(recs)-1:
				require.Equal(t, "summary", kind, f)
			default:
				require.NotContains(t, []string{"config", "summary"}, kind, "%s line %d", f, i+1)
			}
		}
		config := recs[0]
		require.EqualValues(t, sim.SchemaVersion, config["schema"], f)
		require.EqualValues(t, 7, config["seed"], f)
		require.NotEmpty(t, config["profile"], f)
		require.Equal(t, f, config["file"])
		require.Equal(t, true, recs[len(recs)-1]["ok"], f)
		// Steps are numbered from 1 and never go back.
		last := 0.0
		for _, r := range recs {
			if r["kind"] == "event" {
				step := r["step"].(float64)
				require.Greater(t, step, last, f)
				last = step
			}
		}
		require.Equal(t, last, recs[len(recs)-1]["steps"], f)
	}
}

// --profile overrides the file's profile line.
func TestProfileFlagOverrides(t *testing.T) {
	atRoot(t)
	rfc := filepath.Join("examples", "rfc-raw.zcs")
	z := runCLI("run", rfc)
	z.requireStatus(t, exitOK, "run", rfc)
	require.Contains(t, z.stdout, "profile=rfc-v2 ")

	// The file says so: under today's kernel its expectations fail.
	z = runCLI("run", "--profile", "linux-6.18", rfc)
	z.requireStatus(t, exitFindings, "run", "--profile", "linux-6.18", rfc)
	require.Contains(t, z.stdout, "profile=linux-6.18 ")
	require.Contains(t, z.stdout, "expected: -1 ENOPROTOOPT\n       got: -1 EOPNOTSUPP")

	js := jsonLines(t, runCLI("run", "--json", "--profile", "linux-4.14", filepath.Join("examples", "ids.zcs")).stdout)
	require.Equal(t, "linux-4.14", js[0]["profile"])
}

// The golden directory holds a text and a JSON file per example and
// nothing stale.
func TestGoldenFilesComplete(t *testing.T) {
	testdata := atRoot(t)
	if *update {
		t.Skip("-update rewrites the golden files")
	}
	want := map[string]bool{}
	for _, f := range examples(t) {
		want[name(f)+".txt"], want[name(f)+".jsonl"] = true, true
	}
	entries, err := os.ReadDir(filepath.Join(testdata, "golden"))
	require.NoError(t, err)
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("testdata/golden/%s belongs to no example: remove it", e.Name())
		}
		delete(want, e.Name())
	}
	require.Empty(t, want, "missing golden files: run go test ./cmd/zcsim -update")
}

// --html, --mermaid and --perfetto draw the run into files and leave the
// timeline on standard output as it is; they take one FILE.
func TestRunPictures(t *testing.T) {
	atRoot(t)
	dir := t.TempDir()
	f := "examples/tcp-loopback.zcs"
	html, mmd, trace := filepath.Join(dir, "l.html"), filepath.Join(dir, "l.mmd"), filepath.Join(dir, "l.json")
	z := runCLI("run", "--brief", "--html", html, "--mermaid", mmd, "--perfetto", trace, f)
	z.requireStatus(t, exitOK, "run", f)
	require.Equal(t, runCLI("run", "--brief", f).stdout, z.stdout, "the timeline is unchanged")
	read := func(p string) string {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return string(b)
	}
	require.True(t, strings.HasPrefix(read(html), "<!DOCTYPE html>"))
	require.Contains(t, read(html), `<li data-step="4">`)
	require.True(t, strings.HasPrefix(read(mmd), "sequenceDiagram\n"))
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(read(trace)), &doc))
	require.Contains(t, doc, "traceEvents")

	js := runCLI("run", "--json", "--mermaid", mmd, f)
	require.Equal(t, runCLI("run", "--json", f).stdout, js.stdout, "with --json too")

	two := runCLI("run", "--html", html, f, f)
	two.requireStatus(t, exitUsage, "run", "--html", html, f, f)
	require.Contains(t, two.stderr, "draw one FILE, not 2")
	bad := runCLI("run", "--html", filepath.Join(dir, "no", "such", "dir.html"), f)
	bad.requireStatus(t, exitUsage, "run", "--html")
	require.Contains(t, bad.stderr, "no such file or directory")
}

// ipv4Only are the examples that say what only IPv4 does, and why.
var ipv4Only = map[string]string{
	"udp-loopback":              "IPv6 takes a 65508-byte UDP datagram that IPv4 refuses with EMSGSIZE (ip6_append_data bounds the payload, not 65507)",
	"gso-segments":              "the IPv6 header is 20 bytes longer, so the MSS and with it the segments and their ACKs move",
	"zerocopy-receive-fallback": "the IPv6 header is 20 bytes longer: the segments' whole pages and stragglers move",
	"zerocopy-receive-nic":      "the IPv6 header is 20 bytes longer: with the same MTU the MSS is no longer one page",
	"lock-order":                "the IPv6 header is 20 bytes longer: with the same MTU the MSS is no longer one page",
}

// Every example runs in all three address families (run --family), but
// for those that are about IPv4, which must then fail in inet6.
func TestExamplesInEveryFamily(t *testing.T) {
	atRoot(t)
	for _, f := range examples(t) {
		for _, fam := range []string{"inet", "inet6", "mapped"} {
			t.Run(name(f)+"/"+fam, func(t *testing.T) {
				z := runCLI("run", "--brief", "--family", fam, f)
				if _, only := ipv4Only[name(f)]; only && fam == "inet6" {
					z.requireStatus(t, exitFindings, "run", "--family", fam, f)
					return
				}
				z.requireStatus(t, exitOK, "run", "--family", fam, f)
			})
		}
	}
}

// run --family moves IPv4 sockets to IPv6 and refuses a family it does
// not know.
func TestRunFamily(t *testing.T) {
	atRoot(t)
	src := filepath.Join(t.TempDir(), "f.zcs")
	require.NoError(t, os.WriteFile(src, []byte("socket u AF_INET SOCK_DGRAM\nrecvmsg u MSG_ERRQUEUE => -1 EAGAIN\n"), 0o644))
	z := runCLI("run", "--brief", "--family", "mapped", src)
	z.requireStatus(t, exitOK, "run", "--family", "mapped", src)
	require.Contains(t, z.stdout, "socket u AF_INET6 SOCK_DGRAM mapped = 3")
	bad := runCLI("run", "--family", "ipx", src)
	bad.requireStatus(t, exitUsage, "run", "--family", "ipx", src)
	require.Contains(t, bad.stderr, `unknown family "ipx"`)
}

// TestPacketdrill imports a script and runs it, directly and through the
// translation import prints; a bad script is exit status 2.
func TestPacketdrill(t *testing.T) {
	atRoot(t)
	script := filepath.Join("examples", "packetdrill", "basic.pkt")
	imp := runCLI("import", "--packetdrill", script)
	imp.requireStatus(t, 0, "import")
	require.Contains(t, imp.stdout, "device tun0 tun peer=script\n")
	require.Contains(t, imp.stdout, "packet tun0 PSH|ACK seq=1 len=4000 ack=1 # from "+script+":17\n")
	run := runCLI("run", "--brief", script)
	run.requireStatus(t, 0, "run", script)
	require.Contains(t, run.stdout, "# zcsim "+script+".zcs ")

	bad := filepath.Join(t.TempDir(), "bad.pkt")
	require.NoError(t, os.WriteFile(bad, []byte("0 select(...) = 0\n"), 0o644))
	for _, args := range [][]string{{"import", "--packetdrill", bad}, {"run", bad}} {
		z := runCLI(args...)
		z.requireStatus(t, 2, args...)
		require.Equal(t, bad+":1:3: system call select is not one the importer translates (at \"select\")\n", z.stderr)
	}
	runCLI("import", bad).requireStatus(t, 2, "import without --packetdrill")

	// A translation the parser takes but loading refuses (a value out of
	// the sysctl's range) is reported at the script's line, by run and
	// by run with a picture alike.
	bad = filepath.Join(t.TempDir(), "range.pkt")
	require.NoError(t, os.WriteFile(bad, []byte("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n`sysctl -q net.ipv4.tcp_timestamps=999`\n"), 0o644))
	for _, args := range [][]string{{"run", bad}, {"run", "--html", filepath.Join(t.TempDir(), "p"), bad}} {
		z := runCLI(args...)
		z.requireStatus(t, 2, args...)
		require.Equal(t, bad+":2:1: net.ipv4.tcp_timestamps's value must be between 0 and 255 (translated as \"sysctl net.ipv4.tcp_timestamps 999\") (at \"999\")\n", z.stderr)
	}
}

// zcsim run --bug ID switches a catalogued bug on, by catalog id or
// switch name, repeatable: B6's corked UDP sends run clean under
// linux-5.0 and, with --bug B6, break the refcount invariant (exit 1), as
// zcsim check and the property tests print a finding's command. An
// unknown id is a usage error with nothing printed.
func TestRunBug(t *testing.T) {
	f := filepath.Join(t.TempDir(), "b6.zcs")
	require.NoError(t, os.WriteFile(f, []byte(`profile linux-5.0
device eth0 nic mtu=9000
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_ZEROCOPY 1
connect u
send u 1000 MSG_ZEROCOPY|MSG_MORE
send u 1000 MSG_ZEROCOPY
settle
`), 0o644))
	runCLI("run", f).requireStatus(t, exitOK, "run", f)
	for _, id := range []string{"B6", "udp-more-refcnt"} {
		z := runCLI("run", "--bug", id, "--bug", "R1", f)
		z.requireStatus(t, exitFindings, "run", "--bug", id, f)
		require.Contains(t, z.stdout, "invariant refcount")
		require.Contains(t, z.stdout, "udp-more-refcnt")
	}
	bad := runCLI("run", "--bug", "nope", f)
	bad.requireStatus(t, exitUsage, "run", "--bug", "nope", f)
	require.Empty(t, bad.stdout)
	require.Contains(t, bad.stderr, `--bug "nope": unknown bug`)
}
