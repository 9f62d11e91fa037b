package replay_test

import "syscall"

// peakRSS returns the process's peak resident set size in bytes
// (getrusage's ru_maxrss, in KiB on Linux).
func peakRSS() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return float64(u.Maxrss) * 1024
}
