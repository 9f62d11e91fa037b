// Package kbench measures the simulator against the live kernel: the same
// MSG_ZEROCOPY workloads run as scenarios on the model and as a small
// sender on loopback, interleaved round by round, and the ratio of the
// model's send rate to the kernel's is printed with its spread.
//
// # Workloads
//
// Each Workload is one socket sending zerocopy messages of one size to a
// peer on the same host, reading its error queue every DrainEvery sends:
// UDP 1000 B, TCP 1000 B, UDP 60 KB and TCP 64 KiB. On the model the
// network settles before each drain (Scenario); on the kernel the drain
// reads what has arrived without waiting (Kernel).
//
// # Running
//
//	go test ./internal/kbench -run '^$' -bench . -benchmem            # the model alone
//	sudo go test ./internal/kbench -run TestKernelRatio -v -kbench.rounds 5  # model ÷ kernel
//
// TestKernelRatio needs root (it moves a locked OS thread to a private
// network namespace with unshare(CLONE_NEWNET), so the host's namespace
// is never touched) and a kernel with MSG_ZEROCOPY; otherwise it skips
// and says why. It runs only when -kbench.rounds is given, so that
// go test ./... stays quick. docs/performance.md reports its figures.
//
// # Calibrating the cost model
//
// CalibrationSamples measures what package cost fits its constants from:
// UDP sends over loopback and over lo with a qdisc that drops every frame
// (pfifo limit 0, set with tc), copied and with MSG_ZEROCOPY, error-queue
// reads and a receiver's reads, each timed by the sending thread's CPU
// clock. TestCalibrateCost runs it in a private network namespace, fits
// the constants (cost.Calibrate) and writes them with the machine, kernel
// and date:
//
//	sudo go test ./internal/kbench -run TestCalibrateCost -v -kbench.calibrate $PWD/cost/calibration.json
//
// It runs only when -kbench.calibrate is given, needs root, and skips
// without MSG_ZEROCOPY; docs/cost.md describes the samples and the fit.
package kbench
