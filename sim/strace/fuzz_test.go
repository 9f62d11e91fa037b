package strace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/zcsim/zcsim/sim/strace/stracetest"
)

// FuzzParse feeds arbitrary text to Parse and Decode, starting from the
// recorded fixtures and from generated logs (stracetest). They must never
// panic, every error must be "fuzz:line:col: ..." inside the input, every
// call must name lines that exist, and parsing is deterministic.
func FuzzParse(f *testing.F) {
	for _, path := range fixtures(f) {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
		for line := range bytes.SplitSeq(src, []byte{'\n'}) {
			f.Add(line)
		}
	}
	for seed := range uint64(16) {
		src, _ := stracetest.Log(seed, 12)
		f.Add([]byte(src))
	}
	f.Add([]byte("poll([{fd=3<TCP:[127.0.0.1:1->127.0.0.1:2]>, events=POLLOUT}], 1, 500) = 1 ([{fd=3, revents=POLLOUT|POLLERR}]) <0.000018>\n"))
	f.Add([]byte("ppoll([{fd=4, events=POLLERR}], 1, {tv_sec=0, tv_nsec=1000000}, NULL, 8) = 1 ([{fd=4, revents=POLLERR}], left {tv_sec=0, tv_nsec=998949})\n"))
	f.Add([]byte("select(7, [5<TCP:[127.0.0.1:1->127.0.0.1:2]> 6], [4], NULL, {tv_sec=0, tv_usec=100000}) = 2 (in [5], out [4], left {tv_sec=0, tv_usec=99997})\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := bytes.Count(src, []byte{'\n'}) + 1
		log, err := Parse("fuzz", src)
		checkErrors(t, err, lines)
		again, err2 := Parse("fuzz", src)
		if !reflect.DeepEqual(log, again) || fmt.Sprint(err) != fmt.Sprint(err2) {
			t.Fatal("parsing the same text twice gave different results")
		}
		for _, c := range log.Calls {
			for _, l := range c.Lines {
				if l < 1 || l > lines {
					t.Fatalf("call %s names line %d of %d", c.Name, l, lines)
				}
			}
		}
		_, err = Decode(log)
		checkErrors(t, err, lines)
		checkScanner(t, src, log, err2)
	})
}

// checkScanner requires a Scanner to yield what Parse returned: the same
// calls and notes in the same orders, and the same errors, whether or
// not it also yields the first halves of unfinished calls; each of those
// comes before its whole call, and decoding it never panics. A Decoder
// of the Scanner's calls gives what Decode gives of Parse's, the Ops of
// repeated lines and the errors included.
func checkScanner(t *testing.T, src []byte, want *Log, wantErr error) {
	t.Helper()
	wantOps, wantDecErr := Decode(want)
	for _, starts := range []bool{false, true} {
		gotOps, gotDecErr := checkScan(t, src, want, wantErr, starts)
		if !reflect.DeepEqual(wantOps, gotOps) && (len(wantOps) > 0 || len(gotOps) > 0) {
			t.Fatalf("the scanner's decoded calls differ from Decode's:\n%+v\n%+v", gotOps, wantOps)
		}
		if fmt.Sprint(gotDecErr) != fmt.Sprint(wantDecErr) {
			t.Fatalf("the scanner's decoding error %v, Decode's %v", gotDecErr, wantDecErr)
		}
	}
}

// checkScan scans src, checks its calls and notes against Parse's, and
// returns the calls decoded one at a time and the Decoder's error.
func checkScan(t *testing.T, src []byte, want *Log, wantErr error, starts bool) ([]Op, error) {
	t.Helper()
	sc := NewScanner("fuzz", bytes.NewReader(src))
	if starts {
		sc.ReportStarts()
	}
	dec := NewDecoder("fuzz")
	got := &Log{File: "fuzz", Calls: []Call{}}
	var ops []Op
	started := map[int]bool{}
	for sc.Scan() {
		switch it := sc.Item(); {
		case it.Start != nil:
			if it.Start.Result.Kind != ResultUnfinished {
				t.Fatalf("start of %s with result %v", it.Start.Name, it.Start.Result)
			}
			if op := dec.Start(it.Start); op != nil && !StartDecoded(it.Start.Name) {
				t.Fatalf("the start of %s decodes", it.Start.Name)
			}
			started[it.Start.Line()] = true
		case it.Call != nil:
			delete(started, it.Call.Line())
			got.Calls = append(got.Calls, it.Call.Clone())
			ops = append(ops, dec.Op(it.Call))
		default:
			got.Notes = append(got.Notes, *it.Note)
		}
	}
	if len(started) > 0 {
		t.Fatalf("starts without their call: %v", started)
	}
	if !reflect.DeepEqual(want.Calls, got.Calls) && (len(want.Calls) > 0 || len(got.Calls) > 0) {
		t.Fatalf("the scanner's calls differ from Parse's:\n%+v\n%+v", got.Calls, want.Calls)
	}
	if !reflect.DeepEqual(want.Notes, got.Notes) {
		t.Fatalf("the scanner's notes differ from Parse's:\n%+v\n%+v", got.Notes, want.Notes)
	}
	if fmt.Sprint(sc.Err()) != fmt.Sprint(wantErr) {
		t.Fatalf("the scanner's error %v, Parse's %v", sc.Err(), wantErr)
	}
	return ops, dec.Err()
}

func checkErrors(t *testing.T, err error, lines int) {
	t.Helper()
	if err == nil {
		return
	}
	var list *ErrorList
	if !errors.As(err, &list) || len(list.Errs) == 0 || len(list.Errs) > MaxErrors {
		t.Fatalf("error %v is not a bounded non-empty *ErrorList", err)
	}
	for _, e := range list.Errs {
		if e.Line < 1 || e.Line > lines || e.Col < 1 {
			t.Fatalf("error outside the input (%d lines): %v", lines, e)
		}
		if want := fmt.Sprintf("fuzz:%d:%d: ", e.Line, e.Col); !strings.HasPrefix(e.Error(), want) || e.Msg == "" {
			t.Fatalf("error %q does not start with %q and say what is wrong", e.Error(), want)
		}
	}
}
