package engine_test

import (
	"testing"

	"github.com/zcsim/zcsim/sim/engine"
)

// backlog is the number of events kept pending while measuring, so the heap has depth.
const backlog = 1024

func BenchmarkScheduleStep(b *testing.B) {
	var l engine.Loop
	for i := range backlog {
		l.After(engine.Duration(i), "bench", nop)
	}
	b.ReportAllocs()
	for b.Loop() {
		l.After(backlog, "bench", nop)
		l.Step()
	}
}

func BenchmarkScheduleCancel(b *testing.B) {
	var q engine.Queue
	for i := range backlog {
		q.Schedule(engine.Time(i), "bench", nop)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		q.Cancel(q.Schedule(engine.Time(i%backlog), "bench", nop))
	}
}

func BenchmarkFail(b *testing.B) {
	f := engine.NewFaults(engine.NewStreams(1))
	f.Arm("loss", engine.Rule{Kind: engine.Prob, PPM: 10_000})
	b.ReportAllocs()
	for b.Loop() {
		f.Fail("loss")
	}
}
