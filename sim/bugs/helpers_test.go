package bugs_test

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
)

func simOptions(off bool) sim.Options {
	if off {
		return sim.Options{Seed: 1, Off: []kernel.Bug{kernel.BugTCPLinear}}
	}
	return sim.Options{Seed: 1}
}

func runSource(src string, opts sim.Options) (*sim.Trace, error) {
	return sim.RunScenario("b18.zcs", []byte(src), opts)
}
