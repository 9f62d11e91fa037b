package kbench

import (
	"testing"
)

// maxAllocsPerSend bounds each workload's allocations per send in steady
// state, invariants on: the goal of at most 8 for every workload. The
// model's objects come from the Host's slabs, what a path brings a socket
// is a typed arrival, and a protocol timer's event is made once per socket,
// so what is left is the slabs' chunks and the error queue's records.
const maxAllocsPerSend = 8

// sendAllocs returns the allocations a run of w's scenario of sends makes.
func sendAllocs(t *testing.T, w Workload, sends int) float64 {
	src := w.Scenario(sends)
	return testing.AllocsPerRun(1, func() { runModel(t, src) })
}

// TestAllocsPerSend guards the allocations per send: the difference
// between runs of 2048 and 1024 sends, so that setting up the world and
// parsing the scenario do not count. Allocation counts are exact, so the
// bound is not a timing.
func TestAllocsPerSend(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 12288 sends")
	}
	for _, w := range Workloads() {
		t.Run(w.Name, func(t *testing.T) {
			per := (sendAllocs(t, w, 2048) - sendAllocs(t, w, 1024)) / 1024
			t.Logf("%.2f allocations per send", per)
			if per > maxAllocsPerSend {
				t.Errorf("%.2f allocations per send, want at most %v", per, maxAllocsPerSend)
			}
		})
	}
}
