package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/scenario"
)

// docBlock is one fenced code block of a Markdown file.
type docBlock struct {
	file string
	line int    // of the opening fence
	info string // the fence's info string: "zcs", "sh", …
	mark string // the HTML comment on the line before the fence, if any
	text string
}

// A block's mark says how the test treats a scenario block: run it whole
// (no mark), only parse it ("zcsim: fragment", for the snippets that show
// one statement), or run it and require a mismatch ("zcsim: fails", for a
// block that shows what a failing run reports).
const (
	markFragment = "zcsim: fragment"
	markFails    = "zcsim: fails"
)

var markComment = regexp.MustCompile(`^<!--\s*(.*?)\s*-->$`)

// docBlocks returns the fenced blocks of a Markdown file.
func docBlocks(t *testing.T, file string) []docBlock {
	t.Helper()
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(string(src), "\n")
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		b := docBlock{file: file, line: i + 1, info: strings.TrimSpace(info)}
		if i > 0 {
			if m := markComment.FindStringSubmatch(strings.TrimSpace(lines[i-1])); m != nil {
				b.mark = m[1]
			}
		}
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		require.Less(t, i, len(lines), "%s:%d: the fence is never closed", file, b.line)
		b.text = strings.Join(body, "\n") + "\n"
		out = append(out, b)
	}
	return out
}

// docFiles are the user docs: README.md and docs/*.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "run from the repository root")
	return append([]string{"README.md"}, files...)
}

// Every scenario block of the docs runs as written: whole blocks run clean
// (every expectation holds, no invariant breaks), "fails" blocks run and
// report a mismatch, fragments parse. Every fenced block says what it is.
func TestDocScenarios(t *testing.T) {
	atRoot(t)
	scenarios := 0
	for _, f := range docFiles(t) {
		for _, b := range docBlocks(t, f) {
			where := fmt.Sprintf("%s:%d", b.file, b.line)
			require.NotEmpty(t, b.info, "%s: a fenced block needs an info string (zcs for a scenario)", where)
			if b.info != "zcs" {
				continue
			}
			scenarios++
			t.Run(where, func(t *testing.T) {
				switch b.mark {
				case markFragment:
					_, err := scenario.Parse(where, []byte(b.text))
					require.NoError(t, err, "%s: the fragment does not parse:\n%s", where, b.text)
					return
				case "", markFails:
				default:
					t.Fatalf("%s: unknown mark %q (want %q or %q)", where, b.mark, markFragment, markFails)
				}
				tr, err := interp.Run(where, []byte(b.text), interp.Options{Seed: 1})
				require.NoError(t, err, "%s: the block does not run; fix it, or mark it <!-- %s -->:\n%s", where, markFragment, b.text)
				var out bytes.Buffer
				require.NoError(t, tr.WriteText(&out, false))
				require.Equal(t, b.mark == "", tr.OK(), "%s (%s):\n%s", where, map[bool]string{true: "must run clean", false: "must fail"}[b.mark == ""], out.String())
			})
		}
	}
	require.GreaterOrEqual(t, scenarios, 30, "the scenario language doc's blocks are tagged zcs")
}

// The docs name every word the timeline uses: each invariant has its
// section in docs/invariants.md, each history op its row in
// docs/json-schema.md, each copy reason and merge outcome its row in
// docs/glossary.md.
func TestDocsNameEveryRuleOpAndReason(t *testing.T) {
	atRoot(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("docs", name))
		require.NoError(t, err)
		return string(b)
	}
	inv, schema, gloss := read("invariants.md"), read("json-schema.md"), read("glossary.md")
	for _, r := range kernel.Rules() {
		require.Contains(t, inv, "\n## "+r.String()+"\n", "docs/invariants.md states invariant %v", r)
	}
	for _, op := range kernel.Ops() {
		require.Contains(t, schema, "| `"+op.String()+"` | `"+op.Func()+"` |", "docs/json-schema.md has a row for op %v", op)
	}
	for _, w := range kernel.CopyWhys()[1:] {
		require.Contains(t, gloss, "| `"+w.Name()+"` |", "docs/glossary.md explains copied_by %s", w.Name())
		require.Contains(t, schema, "`"+w.Name()+"`", "docs/json-schema.md lists copied_by %s", w.Name())
	}
	for _, m := range kernel.Merges() {
		require.Contains(t, gloss, "| `"+m.Name()+"` |", "docs/glossary.md explains merge %s", m.Name())
	}
}
