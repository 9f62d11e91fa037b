//go:build !linux

package replay_test

// peakRSS is not measured away from Linux.
func peakRSS() float64 { return 0 }

// cpuSeconds is not measured away from Linux.
func cpuSeconds() float64 { return 0 }
