package scenario

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden parses each testdata/*.zcs and compares a dump of its
// statements, its canonical form and its errors with testdata/*.golden.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.zcs")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.zcs: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := dump(file, src)
			golden := strings.TrimSuffix(file, ".zcs") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s (run go test -update to accept):\n%s", file, golden, got)
			}
		})
	}
}

// dump renders what Parse makes of src: one line per statement with its
// position and type, the canonical form, and the errors.
func dump(file string, src []byte) string {
	stmts, err := Parse(filepath.Base(file), src)
	var b strings.Builder
	b.WriteString("== statements\n")
	dumpStmts(&b, stmts, "")
	b.WriteString("== format\n")
	b.WriteString(Format(stmts))
	b.WriteString("== errors\n")
	if err != nil {
		b.WriteString(err.Error() + "\n")
	}
	return b.String()
}

// dumpStmts writes one line per statement, a repeat's body indented under
// it.
func dumpStmts(b *strings.Builder, stmts []Stmt, indent string) {
	for _, st := range stmts {
		typ := strings.TrimPrefix(fmt.Sprintf("%T", st), "*scenario.")
		fmt.Fprintf(b, "%-6s %s%-10s %s\n", fmt.Sprintf("%d:%d", st.Pos().Line, st.Pos().Col), indent, typ, FormatStmt(st))
		if r, ok := st.(*Repeat); ok {
			dumpStmts(b, r.Body, indent+"  ")
		}
	}
}
