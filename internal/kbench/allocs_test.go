package kbench

import (
	"testing"
)

// maxAllocsPerSend bounds each workload's allocations per send in steady
// state, invariants on: the goal of at most 8, and for TCP 64 KiB what it
// reaches today (the network's delivery and ACK events, docs/performance.md):
// over loopback a segment is at most 65483 bytes and half the peer's
// largest window (tcp_bound_to_half_wnd), so each 64 KiB send is two
// segments, each with its skb, clone, copied pages and delivery.
var maxAllocsPerSend = map[string]float64{
	"udp-1000": 8,
	"tcp-1000": 8,
	"udp-60k":  8,
	"tcp-64k":  34,
}

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
			if limit := maxAllocsPerSend[w.Name]; per > limit {
				t.Errorf("%.2f allocations per send, want at most %v", per, limit)
			}
		})
	}
}
