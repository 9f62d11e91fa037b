package strace

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// FuzzParse feeds arbitrary text to Parse and Decode. They must never
// panic, every error must point inside the input, and every call must
// name lines that exist.
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
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := bytes.Count(src, []byte{'\n'}) + 1
		log, err := Parse("fuzz", src)
		checkErrors(t, err, lines)
		for _, c := range log.Calls {
			for _, l := range c.Lines {
				if l < 1 || l > lines {
					t.Fatalf("call %s names line %d of %d", c.Name, l, lines)
				}
			}
		}
		_, err = Decode(log)
		checkErrors(t, err, lines)
	})
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
	}
}
