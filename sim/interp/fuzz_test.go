package interp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRunScenario runs arbitrary scenario text: whatever the input, the
// simulator either reports input errors or runs it to the end and renders
// its trace, and never panics.
func FuzzRun(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "examples", "*.zcs"))
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	// Virtual time at its end (TestEndOfTime).
	f.Add([]byte("device e nic delay=9223372036s\nsocket s AF_INET SOCK_STREAM via=e\nconnect s\nwait 9223372036s\nwait 854ms\nsend s 1 0\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		trace, err := Run("fuzz.zcs", src, Options{Seed: 1})
		if err != nil {
			if trace != nil {
				t.Fatalf("both a trace and an error: %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := trace.WriteText(&out, true); err != nil {
			t.Fatal(err)
		}
		if err := trace.WriteJSON(&out); err != nil {
			t.Fatal(err)
		}
	})
}
