package strace

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the current decoder")

// goldenOp is one modelled call as stored in a golden file: the operation's
// type name and its fields.
type goldenOp struct {
	Op   string `json:"op"`
	Data Op     `json:"data"`
}

// golden is the stored form of a whole log; ignored calls appear only as
// counts, to keep the files reviewable.
type golden struct {
	Ops     []goldenOp     `json:"ops"`
	Notes   []Note         `json:"notes"`
	Ignored []IgnoredCount `json:"ignored"`
}

func fixtures(t testing.TB) []string {
	logs, err := filepath.Glob("testdata/*.log")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return logs
}

// TestGolden parses and decodes every recorded log and compares the typed
// calls with testdata/golden/NAME.json. Every fixture must parse and decode
// without error: they are real strace output.
func TestGolden(t *testing.T) {
	for _, path := range fixtures(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".log")
		t.Run(name, func(t *testing.T) {
			log, err := ParseFile(path)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			ops, err := Decode(log)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			g := golden{Notes: log.Notes, Ignored: IgnoredNames(ops)}
			for _, op := range ops {
				if _, ok := op.(*Ignored); ok {
					continue
				}
				g.Ops = append(g.Ops, goldenOp{reflect.TypeOf(op).Elem().Name(), op})
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			file := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("%s differs from the decoder's output (-want +got):\n%s", file, cmp.Diff(string(want), string(got)))
			}
		})
	}
}

// TestFixtureCommands checks that each log names the command that
// recorded it.
func TestFixtureCommands(t *testing.T) {
	for _, path := range fixtures(t) {
		cmd, err := os.ReadFile(strings.TrimSuffix(path, ".log") + ".cmd")
		if err != nil || !strings.HasPrefix(string(cmd), "strace ") {
			t.Errorf("%s: no .cmd sidecar with the strace command: %v", path, err)
		}
	}
}
