//go:build unix

package kbench

import "syscall"

// cpuTime returns the process's user and system CPU time so far, in
// nanoseconds: what a run costs, unlike its wall time, does not grow
// when other programs take the machine's cores.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
