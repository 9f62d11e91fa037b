package engine_test

import (
	"fmt"

	"github.com/zcsim/zcsim/sim/engine"
)

func ExampleLoop() {
	var l engine.Loop
	say := func(what string) func() { return func() { fmt.Printf("at %v: %s\n", l.Now(), what) } }
	rto, _ := l.After(200*engine.Millisecond, "tcp/rto", say("rto"))
	l.After(40*engine.Microsecond, "tcp/ack", func() { say("ack")(); l.Cancel(rto) })
	l.After(0, "tcp/xmit", say("xmit"))
	n, err := l.RunUntilIdle(100)
	fmt.Println(n, err, l.Now())
	// Output:
	// at 0s: xmit
	// at 40us: ack
	// 2 <nil> 40us
}

func ExampleParseRule() {
	f := engine.NewFaults(engine.NewStreams(1))
	r, err := engine.ParseRule("nth=2")
	if err != nil {
		panic(err)
	}
	f.Arm("skb/alloc", r)
	fmt.Println(f.Fail("skb/alloc"), f.Fail("skb/alloc"), f.Fail("skb/alloc"))
	fmt.Println(f.Log())

	_, err = engine.ParseRule("p=0.1234567")
	fmt.Println(err)
	// Output:
	// false true false
	// [{skb/alloc 2}]
	// ParseRule("p=0.1234567"): column 11: more than 6 fractional digits (at "7")
}

func ExampleParseDuration() {
	d, _ := engine.ParseDuration("1500us")
	fmt.Println(d, int64(d))
	_, err := engine.ParseDuration("1.5ms")
	fmt.Println(err)
	// Output:
	// 1.5ms 1500000
	// ParseDuration("1.5ms"): column 2: fractions are not allowed; use an integer in a smaller unit (1.5ms is 1500us) (at ".5ms")
}
