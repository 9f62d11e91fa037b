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
// the ratio model ÷ kernel with its min, median and max.
func TestKernelRatio(t *testing.T) {
	if *rounds == 0 {
		t.Skip("pass -kbench.rounds N to compare the model with the live kernel")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: the kernel side runs in a private network namespace")
	}
	type series struct{ kernel, model, ratio []float64 }
	all := make([]series, len(Workloads()))
	err := netns.Run(func() error {
		for range *rounds {
			for i, w := range Workloads() {
				kd, err := Kernel(w, *kernelSends)
				if err != nil {
					return err
				}
				src := w.Scenario(*modelSends)
				start := time.Now()
				runModel(t, src)
				md := time.Since(start)
				k := float64(*kernelSends) / kd.Seconds()
				m := float64(*modelSends) / md.Seconds()
				all[i].kernel = append(all[i].kernel, k)
				all[i].model = append(all[i].model, m)
				all[i].ratio = append(all[i].ratio, m/k)
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
	fmt.Fprintf(&b, "%-9s %14s %14s   %s (%d rounds)\n", "workload", "kernel send/s", "model send/s", "model ÷ kernel min/median/max", *rounds)
	for i, w := range Workloads() {
		s := all[i]
		fmt.Fprintf(&b, "%-9s %14.0f %14.0f   %.3f / %.3f / %.3f\n", w.Name, median(s.kernel), median(s.model),
			slices.Min(s.ratio), median(s.ratio), slices.Max(s.ratio))
	}
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
