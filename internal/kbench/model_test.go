package kbench

import (
	"runtime"
	"testing"

	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
)

// discard is a Sink that renders nothing: the benchmarks measure the
// model, invariants included, not the output.
type discard struct{}

func (discard) Put(*sim.Record) error { return nil }

// runModel runs src streaming its trace to nowhere and fails on a
// mismatch or violation.
func runModel(tb testing.TB, src []byte) {
	tb.Helper()
	tr, err := interp.Run("bench.zcs", src, interp.Options{Seed: 1, Sink: discard{}})
	if err != nil || !tr.OK() {
		tb.Fatalf("scenario fails: %v ok=%t", err, tr != nil && tr.OK())
	}
}

// benchmarkScenario runs src b.N times and reports simulated sends per
// second, allocations per send, and wall and CPU time per send (the CPU
// time of the whole process, garbage collection included, which other
// programs on a shared machine inflate less than the wall time).
func benchmarkScenario(b *testing.B, src []byte, sends int) {
	runModel(b, src)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		runModel(b, src)
	}
	b.StopTimer()
	cpu = cpuTime() - cpu
	runtime.ReadMemStats(&after)
	total := float64(b.N) * float64(sends)
	b.ReportMetric(total/b.Elapsed().Seconds(), "sends/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/send")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/send")
	b.ReportMetric(float64(cpu)/total, "cpu-ns/send")
}

// BenchmarkModel runs each workload's scenario of 2048 sends.
func BenchmarkModel(b *testing.B) {
	const sends = 2048
	for _, w := range Workloads() {
		b.Run(w.Name, func(b *testing.B) { benchmarkScenario(b, w.Scenario(sends), sends) })
	}
}

// BenchmarkScale compares the cost per send with 64 sends in flight on
// one socket and on each of 100 sockets.
func BenchmarkScale(b *testing.B) {
	const inFlight, rounds, size = 64, 4, 1000
	for _, n := range []int{1, 100} {
		b.Run(map[int]string{1: "sockets=1", 100: "sockets=100"}[n], func(b *testing.B) {
			benchmarkScenario(b, ScaleScenario(n, inFlight, rounds, size), n*inFlight*rounds)
		})
	}
}
