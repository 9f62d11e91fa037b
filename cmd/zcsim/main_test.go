package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// zcsim is one run of the command line: its exit status and what it wrote.
type zcsim struct {
	status         int
	stdout, stderr string
}

// runCLI runs zcsim with args, as main would.
func runCLI(args ...string) zcsim {
	var out, errb bytes.Buffer
	status := run(args, &out, &errb)
	return zcsim{status, out.String(), errb.String()}
}

// requireStatus fails unless the run exited with want, showing its output.
func (z zcsim) requireStatus(t *testing.T, want int, args ...string) {
	t.Helper()
	if z.status != want {
		t.Fatalf("zcsim %s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), z.status, want, z.stdout, z.stderr)
	}
}

// atRoot makes the repository root the working directory, so examples are
// named as a user at the root names them ("examples/ids.zcs"), and returns
// the absolute path of this package's testdata directory.
func atRoot(t *testing.T) (testdata string) {
	t.Helper()
	testdata, err := filepath.Abs("testdata")
	require.NoError(t, err)
	t.Chdir(filepath.Join("..", ".."))
	return testdata
}

// examples returns the example scenarios, relative to the repository root.
func examples(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("examples", "*.zcs"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 15, "examples/*.zcs: too few examples (working directory must be the repository root)")
	return files
}

// name is the file's base name without its extension.
func name(file string) string { return strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)) }

// golden compares got with the golden file at path, or rewrites it with
// -update. A mismatch prints a unified diff of the two.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file: run go test ./cmd/zcsim -update")
	if !bytes.Equal(want, got) {
		t.Errorf("output differs from %s (-want +got); run with -update if the change is intended:\n%s",
			path, unifiedDiff(path, "got", string(want), string(got)))
	}
}

// unifiedDiff returns a unified diff (3 lines of context) turning a into b,
// line by line, from a longest common subsequence.
func unifiedDiff(aName, bName, a, b string) string {
	x, y := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	// lcs[i][j] is the length of the LCS of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		text string
		i, j int // line indexes in x and y before this op
	}
	var ops []op
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, op{' ', x[i], i, j})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', x[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', y[j], i, j})
			j++
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	const context = 3
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(k-context, 0)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*context || run == len(ops) {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		na, nb := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", ops[start].i+1, na, ops[start].j+1, nb)
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			if !strings.HasSuffix(o.text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		k = end
	}
	return out.String()
}

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	b := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n"
	want := "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
	if got := unifiedDiff("a", "b", a, b); got != want {
		t.Errorf("unifiedDiff:\ngot:\n%s\nwant:\n%s", got, want)
	}
	if got := unifiedDiff("a", "b", a, a); got != "--- a\n+++ b\n" {
		t.Errorf("unifiedDiff of equal texts = %q, want only the header", got)
	}
}

// The command collects at gcPercent unless GOGC chooses.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	tuneGC()
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GOGC unset: collector target %d, want %d", got, gcPercent)
	}
	t.Setenv("GOGC", "100")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=100: collector target %d, want it left alone", got)
	}
}
