//go:build !unix

package kbench

// cpuTime is 0 where the process's CPU time is not read: the benchmarks
// then report cpu-ns/send as 0.
func cpuTime() int64 { return 0 }
