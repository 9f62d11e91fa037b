package kernel_test

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
)

// A replay of "linux-6.18 with bug B11 re-introduced": the profile is a
// private copy, and misuse of a tracked object is reported as a violation
// with the step at which it happened, never a panic.
func ExampleHost() {
	p, _ := kernel.Lookup("linux-6.18")
	p.Switch(kernel.BugCopiedAfterOverwrite, true)
	h := kernel.NewHost(p)
	fmt.Println(p.Name, p.Bugs.Sorted(), "optmem_max", p.OptmemMax)

	var skb struct{ kernel.Tracked }
	h.Track(&skb.Tracked, "skb", &skb)
	h.Step = 1
	skb.Note(kernel.Entry{Op: kernel.OpAllocSkb, Args: [4]int64{256}})
	skb.Free()
	h.Step = 2
	skb.Free()
	fmt.Println("live:", h.Live())
	for _, v := range h.TakeViolations() {
		fmt.Println(v)
		for _, e := range v.History {
			fmt.Printf("  step %d: %s\n", e.Step, e.Text())
		}
	}
	// Output:
	// linux-6.18 [copied-after-overwrite] optmem_max 131072
	// live: []
	// step 2: invariant refcount: skb#1: freed twice
	//   step 1: alloc_skb linear 256
	//   step 1: freed
}
