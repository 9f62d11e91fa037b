package bugs_test

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
)

func simOptions(off bool) interp.Options {
	if off {
		return interp.Options{Seed: 1, Off: []kernel.Bug{kernel.BugTCPLinear}}
	}
	return interp.Options{Seed: 1}
}

func runSource(src string, opts interp.Options) (*sim.Trace, error) {
	return interp.Run("b18.zcs", []byte(src), opts)
}
