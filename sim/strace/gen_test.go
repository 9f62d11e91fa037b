package strace_test

import (
	"testing"

	"github.com/zcsim/zcsim/sim/strace"
	"github.com/zcsim/zcsim/sim/strace/stracetest"
)

// TestGeneratedLogs: every log the generator writes is one strace could
// have printed, so it parses and decodes without an error, with one call
// per generated call.
func TestGeneratedLogs(t *testing.T) {
	for seed := range uint64(300) {
		src, opts := stracetest.Log(seed, 40)
		log, err := strace.Parse("gen.log", []byte(src))
		if err != nil {
			t.Fatalf("seed %d (%+v): %v\n%s", seed, opts, err, src)
		}
		if len(log.Calls) < 40 {
			t.Fatalf("seed %d: %d calls, want at least 40", seed, len(log.Calls))
		}
		if _, err := strace.Decode(log); err != nil {
			t.Fatalf("seed %d (%+v): %v\n%s", seed, opts, err, src)
		}
	}
}
