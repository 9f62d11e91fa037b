package scenario

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks that Parse never panics, that its errors point into the
// input, and that whatever parses is a fixed point of Format and Parse.
func FuzzParse(f *testing.F) {
	for _, tc := range goodLines {
		f.Add([]byte(tc.in))
	}
	for _, tc := range badLines {
		f.Add([]byte(tc.in))
	}
	for _, tc := range goodLoops {
		f.Add([]byte(tc.in))
	}
	for _, tc := range badLoops {
		f.Add([]byte(tc.in))
	}
	files, _ := filepath.Glob("testdata/*.zcs")
	for _, file := range files {
		if src, err := os.ReadFile(file); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		stmts, err := Parse("fuzz", src)
		lines := bytes.Count(src, []byte("\n")) + 1
		var list ErrorList
		if err != nil && !errors.As(err, &list) {
			t.Fatalf("Parse error is %T, want ErrorList", err)
		}
		for _, e := range list {
			if e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 {
				t.Fatalf("error outside the input (%d lines): %v", lines, e)
			}
		}
		if err != nil {
			return
		}
		text := Format(stmts)
		back, err := Parse("fuzz", []byte(text))
		if err != nil {
			t.Fatalf("Parse(Format(Parse(src))) failed: %v\ntext:\n%s", err, text)
		}
		if diff := cmp.Diff(stmts, back, sameAST...); diff != "" {
			t.Fatalf("reparse changed the AST (-first +again):\n%s\ntext:\n%s", diff, text)
		}
		if again := Format(back); again != text {
			t.Fatalf("Format is not a fixed point:\n%q\n%q", text, again)
		}
	})
}
