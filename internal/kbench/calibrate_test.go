//go:build linux

package kbench

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zcsim/zcsim/cost"
	"github.com/zcsim/zcsim/internal/netns"
)

var (
	calibrateOut    = flag.String("kbench.calibrate", "", "file TestCalibrateCost writes the fitted cost constants to (empty: skip it)")
	calibrateRounds = flag.Int("kbench.calibrate-rounds", 15, "timed batches per figure of TestCalibrateCost")
	calibratePasses = flag.Int("kbench.calibrate-passes", 3, "passes over every figure of TestCalibrateCost; each figure keeps its least")
)

// TestCalibrateCost measures the cost model's constants on the live
// kernel (CalibrationSamples in a private network namespace), fits them
// (cost.Calibrate) and writes them with the machine, kernel and date to
// the file -kbench.calibrate names, e.g. cost/calibration.json.
func TestCalibrateCost(t *testing.T) {
	if *calibrateOut == "" {
		t.Skip("pass -kbench.calibrate FILE to measure the cost model's constants on the live kernel")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: the calibration runs in a private network namespace")
	}
	var samples []cost.Sample
	err := netns.Run(func() error {
		for range *calibratePasses {
			pass, err := CalibrationSamples(*calibrateRounds)
			if err != nil {
				return err
			}
			samples = LeastOf(samples, pass)
		}
		return nil
	})
	if errors.Is(err, ErrNoZerocopy) {
		t.Skipf("the kernel has no MSG_ZEROCOPY over loopback: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	k, err := cost.Calibrate(samples)
	if err != nil {
		for _, s := range samples {
			t.Logf("%+v", s)
		}
		t.Fatal(err)
	}
	c := cost.Calibration{Machine: machine(), Kernel: release(), Date: time.Now().UTC().Format("2006-01-02"),
		Command: "go test ./internal/kbench -run TestCalibrateCost -v -kbench.calibrate $PWD/cost/calibration.json", Samples: samples}
	c.SetConstants(k)
	if _, err := c.Constants(); err != nil {
		t.Fatalf("the fit is not a usable calibration (too noisy? rerun on a quieter machine): %v", err)
	}
	out, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*calibrateOut, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	for tm := range cost.NumTerms {
		t.Logf("%-14s %10.4f ns", tm, c.Nanos[tm.String()])
	}
}

// machine names the CPU (/proc/cpuinfo's model name) and its count.
func machine() string {
	name := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				name = strings.TrimSpace(v)
				break
			}
		}
	}
	var set unix.CPUSet
	n := 0
	if unix.SchedGetaffinity(0, &set) == nil {
		n = set.Count()
	}
	return fmt.Sprintf("%s, %d CPUs", name, n)
}

// release is uname's kernel release.
func release() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:])
}
