//go:build linux

package kbench

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zcsim/zcsim/internal/netns"
)

var (
	rounds      = flag.Int("kbench.rounds", 0, "rounds of TestKernelRatio (0: skip it)")
	kernelSends = flag.Int("kbench.kernel-sends", 20000, "sends per kernel run")
	modelSends  = flag.Int("kbench.model-sends", 4096, "sends per model run")
)

// TestKernelRatio runs every workload on the live kernel and on the model,
// interleaved, -kbench.rounds times, and prints each one's send rates and
// the ratio model ÷ kernel with its min, median and max: once in sends
// per second of wall time, once in sends per second of the process's CPU
// time (the kernel side's system time is its sender's and reader's
// syscalls with the loopback softirqs they run; the model's is the model
// and its garbage collection), which other programs on a loaded machine
// disturb much less.
func TestKernelRatio(t *testing.T) {
	if *rounds == 0 {
		t.Skip("pass -kbench.rounds N to compare the model with the live kernel")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: the kernel side runs in a private network namespace")
	}
	type series struct{ kernel, model, ratio, kernelCPU, modelCPU, ratioCPU []float64 }
	all := make([]series, len(Workloads()))
	err := netns.Run(func() error {
		for range *rounds {
			for i, w := range Workloads() {
				cpu := cpuTime()
				kd, err := Kernel(w, *kernelSends)
				if err != nil {
					return err
				}
				kcpu := cpuTime() - cpu
				src := w.Scenario(*modelSends)
				cpu, start := cpuTime(), time.Now()
				runModel(t, src)
				md, mcpu := time.Since(start), cpuTime()-cpu
				s := &all[i]
				k := float64(*kernelSends) / kd.Seconds()
				m := float64(*modelSends) / md.Seconds()
				s.kernel, s.model, s.ratio = append(s.kernel, k), append(s.model, m), append(s.ratio, m/k)
				kc := float64(*kernelSends) / time.Duration(kcpu).Seconds()
				mc := float64(*modelSends) / time.Duration(mcpu).Seconds()
				s.kernelCPU, s.modelCPU, s.ratioCPU = append(s.kernelCPU, kc), append(s.modelCPU, mc), append(s.ratioCPU, mc/kc)
			}
		}
		return nil
	})
	if errors.Is(err, ErrNoZerocopy) {
		t.Skipf("no MSG_ZEROCOPY: %v", err)
	}
	if err != nil {
		t.Skipf("cannot run the kernel side: %v", err)
	}
	var b strings.Builder
	table := func(unit string, kernel, model, ratio func(series) []float64) {
		fmt.Fprintf(&b, "%-9s %18s %18s   %s (%d rounds)\n", "workload", "kernel "+unit, "model "+unit, "model ÷ kernel min/median/max", *rounds)
		for i, w := range Workloads() {
			s, r := all[i], ratio(all[i])
			fmt.Fprintf(&b, "%-9s %18.0f %18.0f   %.3f / %.3f / %.3f\n", w.Name, median(kernel(s)), median(model(s)),
				slices.Min(r), median(r), slices.Max(r))
		}
	}
	table("send/s", func(s series) []float64 { return s.kernel }, func(s series) []float64 { return s.model }, func(s series) []float64 { return s.ratio })
	b.WriteString("\n")
	table("send/cpu-s", func(s series) []float64 { return s.kernelCPU }, func(s series) []float64 { return s.modelCPU }, func(s series) []float64 { return s.ratioCPU })
	t.Log("\n" + b.String())
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
