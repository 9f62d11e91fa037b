// Command scenario prints the scenario of one kbench workload, for
// measuring a long run of zcsim from the outside:
//
//	go run ./internal/kbench/scenario -workload udp-1000 -sends 1000000 > /tmp/1m.zcs
//	/usr/bin/time -v zcsim run --brief /tmp/1m.zcs > /dev/null
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/zcsim/zcsim/internal/kbench"
)

func main() {
	name := flag.String("workload", "udp-1000", "workload name")
	sends := flag.Int("sends", 1000, "number of sends")
	flag.Parse()
	for _, w := range kbench.Workloads() {
		if w.Name == *name {
			os.Stdout.Write(w.Scenario(*sends))
			return
		}
	}
	fmt.Fprintf(os.Stderr, "scenario: no workload %q\n", *name)
	os.Exit(2)
}
