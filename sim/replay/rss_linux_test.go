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

// cpuSeconds returns the CPU time the process used so far, user and
// system, on every core (getrusage's ru_utime + ru_stime).
func cpuSeconds() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}
