package interp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/zcsim/zcsim/sim/gen"
	"github.com/zcsim/zcsim/sim/scenario"
)

// FuzzRun runs arbitrary scenario text. Its seeds are the hand-written
// scenarios of the repository and, so that mutation starts from deep
// states rather than from the parser's error paths, generated ones.
func FuzzRun(f *testing.F) {
	for _, pattern := range []string{"../../examples/*.zcs", "../bugs/*.zcs", "../../probe/testdata/*.zcs"} {
		files, err := filepath.Glob(filepath.FromSlash(pattern))
		if err != nil || len(files) == 0 {
			f.Fatalf("no seed files %s: %v", pattern, err)
		}
		for _, name := range files {
			src, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	// Virtual time at its end (TestEndOfTime).
	f.Add([]byte("device e nic delay=9223372036s\nsocket s AF_INET SOCK_STREAM via=e\nconnect s\nwait 9223372036s\nwait 854ms\nsend s 1 0\n"))
	for seed := range uint64(48) {
		f.Add(gen.Scenario(seed, gen.Config{Stmts: 30}))
	}
	f.Add([]byte("socket s AF_INET SOCK_DGRAM\nconnect s\nrepeat i 3 {\n  repeat j 2 { sendmsg s [i*j, 2K-i] MSG_ZEROCOPY => 2K+i*j-i }\n  recvmsg s MSG_ERRQUEUE => zerocopy [2*i,2*i+1]\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if n := executions(src); n > maxFuzzExecutions {
			t.Skipf("%d statement executions: too long a run for one fuzz input", n)
		}
		checkRun(t, src)
	})
}

// maxFuzzExecutions bounds the statements one fuzz input may run, so that
// a mutated repeat count cannot make one input run for hours.
const maxFuzzExecutions = 20000

// executions counts the statements src runs, each repeat's body counted
// once an iteration; it is 0 for a file that does not parse.
func executions(src []byte) uint64 {
	stmts, err := scenario.Parse("fuzz.zcs", src)
	if err != nil {
		return 0
	}
	var count func([]scenario.Stmt) uint64
	count = func(body []scenario.Stmt) uint64 {
		n := uint64(0)
		for _, st := range body {
			r, ok := st.(*scenario.Repeat)
			if !ok {
				n++
				continue
			}
			inner := count(r.Body)
			if inner > 0 && r.Count.N > maxFuzzExecutions/inner {
				return maxFuzzExecutions + 1
			}
			n += r.Count.N * inner
			if n > maxFuzzExecutions {
				return n
			}
		}
		return n
	}
	return count(stmts)
}

// FuzzGenerated runs the generator's scenario of a seed, a feature set and
// a statement bound: every input is a valid scenario, so all of the
// fuzzer's effort goes into the model. Besides checkRun's properties, a
// generated file never has input errors.
func FuzzGenerated(f *testing.F) {
	f.Add(uint64(0), uint64(0), uint8(40))
	f.Add(uint64(1), uint64(gen.TCP|gen.NIC|gen.Hold|gen.Drop|gen.Faults), uint8(80))
	f.Add(uint64(2), uint64(gen.UDP|gen.Cork|gen.Iovecs), uint8(60))
	f.Add(uint64(3), uint64(gen.Raw|gen.Packet|gen.Tap|gen.ManualTX|gen.Vhost), uint8(60))
	f.Add(uint64(4), uint64(gen.Memlock|gen.Sysctl|gen.Buffers|gen.TCP|gen.UDP), uint8(50))
	f.Add(uint64(5), uint64(gen.TCP|gen.NIC|gen.ZcRecv|gen.Poll|gen.Epoll|gen.Peer|gen.Inet6|gen.Mapped), uint8(60))
	f.Fuzz(func(t *testing.T, seed uint64, allow uint64, stmts uint8) {
		src := gen.Scenario(seed, gen.Config{Allow: gen.Features(allow) & gen.AllFeatures, Stmts: 1 + int(stmts)%120})
		if _, err := Run("fuzz.zcs", src, Options{Seed: seed}); err != nil {
			t.Fatalf("generated scenario has input errors:\n%v\n%s", err, src)
		}
		checkRun(t, src)
	})
}

// checkRun runs src twice and checks what any input must give: either
// input errors, all of them scenario errors naming fuzz.zcs:line:col, and
// no trace; or a trace whose text and JSON renderings are the same bytes
// both times. A panic fails the fuzz target by itself.
func checkRun(t *testing.T, src []byte) {
	text1, json1, err1 := render(t, src)
	text2, json2, err2 := render(t, src)
	if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
		t.Fatalf("two runs disagree on the input errors:\n%v\n---\n%v", err1, err2)
	}
	if err1 != nil {
		var list scenario.ErrorList
		if !errors.As(err1, &list) || len(list) == 0 {
			t.Fatalf("input error %T is not a scenario.ErrorList: %v", err1, err1)
		}
		for _, e := range list {
			if e.Pos.File != "fuzz.zcs" || !e.Pos.IsValid() || e.Pos.Col < 1 {
				t.Fatalf("error without file:line:col: %q", e.Error())
			}
		}
		return
	}
	if !bytes.Equal(text1, text2) {
		t.Fatalf("two runs print different timelines:\n%s\n---\n%s", text1, text2)
	}
	if !bytes.Equal(json1, json2) {
		t.Fatalf("two runs print different JSON:\n%s\n---\n%s", json1, json2)
	}
}

// render runs src and renders its trace as text and as JSON.
func render(t *testing.T, src []byte) (text, json []byte, err error) {
	trace, err := Run("fuzz.zcs", src, Options{Seed: 1})
	if err != nil {
		if trace != nil {
			t.Fatalf("both a trace and an error: %v", err)
		}
		return nil, nil, err
	}
	var tb, jb bytes.Buffer
	if err := trace.WriteText(&tb, true); err != nil {
		t.Fatal(err)
	}
	if err := trace.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	return tb.Bytes(), jb.Bytes(), nil
}
