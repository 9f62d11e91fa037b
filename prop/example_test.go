package prop_test

import (
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/prop"
	"github.com/zcsim/zcsim/sim/gen"
)

// corked is the lesson of catalog entry B6: three UDP zerocopy sends, the
// first two corked with MSG_MORE, make one datagram and one range.
const corked = `profile linux-5.0
device eth0 nic mtu=9000
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_ZEROCOPY 1
connect u
send u 1000 MSG_ZEROCOPY|MSG_MORE
send u 1000 MSG_ZEROCOPY|MSG_MORE
send u 1000 MSG_ZEROCOPY
settle
recvmsg u MSG_ERRQUEUE
`

// Exec runs a scenario and hands back what it did: here the ids the three
// sends got and the one range the error queue reported for them.
func ExampleExec() {
	out, err := prop.Exec(prop.Scenario{Seed: 1, Src: []byte(corked)}, prop.Options{})
	if err != nil {
		panic(err)
	}
	for _, c := range out.Calls() {
		if c.Sent {
			fmt.Printf("%s %s = %d, id %d\n", c.Source, c.Op, c.Ret, c.ID)
		}
	}
	for _, n := range out.Notifications() {
		fmt.Printf("%s: [%d,%d], %d ids, copied %v\n", n.Socket, n.Lo, n.Hi, n.Len(), n.Copied)
	}
	fmt.Println(len(out.Violations()), "violations")
	// Output:
	// prop.zcs:6 send = 1000, id 0
	// prop.zcs:7 send = 1000, id 1
	// prop.zcs:8 send = 1000, id 2
	// u: [0,2], 3 ids, copied true
	// 0 violations
}

// With a catalogued bug switched on (B6: corked UDP appends took a uarg
// reference nobody dropped), the same run breaks the refcount invariant;
// Run would fail the test with these.
func ExampleExec_bug() {
	out, err := prop.Exec(prop.Scenario{Seed: 1, Src: []byte(corked)}, prop.Options{Bugs: []kernel.Bug{kernel.BugUDPMoreRefcnt}})
	if err != nil {
		panic(err)
	}
	for _, v := range out.Violations() {
		fmt.Println(v.Rule, v.Object, strings.SplitN(v.Message, ":", 2)[0])
	}
	// Output:
	// refcount uarg#4 leaked at quiescence
}

// Scenarios draws generated scenarios; outside a property, Example draws
// one for a fixed seed.
func ExampleScenarios() {
	g := prop.Scenarios(gen.Config{Profile: "linux-6.18", Allow: gen.UDP | gen.Cork})
	sc := g.Example(1)
	out, err := prop.Exec(sc, prop.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Contains(string(sc.Src), "profile linux-6.18\n"), strings.Contains(string(sc.Src), "SOCK_STREAM"))
	fmt.Println(len(out.Violations()), "violations")
	// Output:
	// true false
	// 0 violations
}
