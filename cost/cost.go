package cost

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
)

// Term is one kind of costly kernel work (the table of the package doc).
type Term uint8

// The terms, in the order the account lists them.
const (
	Syscall Term = iota
	SendCall
	CopyByte
	PinPage
	Uarg
	Packet
	RxCopyByte
	ErrqueueRead
	ReadByte
	NumTerms
)

var termNames = [NumTerms]string{"syscall", "send_call", "copy_byte", "pin_page", "uarg", "packet", "rx_copy_byte", "errqueue_read", "read_byte"}

// String is the term's name in the constants file and the JSON output.
func (t Term) String() string {
	if t < NumTerms {
		return termNames[t]
	}
	return fmt.Sprintf("Term(%d)", uint8(t))
}

// ParseTerm is the term named s.
func ParseTerm(s string) (Term, bool) {
	for t, n := range termNames {
		if n == s {
			return Term(t), true
		}
	}
	return 0, false
}

// Context is where a step's work ran (the package doc's Model).
type Context uint8

const (
	// Process is a system call's step, with the softirq work it runs on
	// its own stack.
	Process Context = iota
	// Softirq is a network event or timer of this host.
	Softirq
	numContexts
)

// Counts is how many units of each term a run did, per context.
type Counts [numContexts][NumTerms]int64

// Of is the count of t in context c.
func (n *Counts) Of(c Context, t Term) int64 { return n[c][t] }

// Total is the count of t in both contexts.
func (n *Counts) Total(t Term) int64 { return n[Process][t] + n[Softirq][t] }

// Meter counts the terms of a run's records as they come: it is a
// sim.Sink, so a long run streams through it, or it reads a kept trace
// (Count).
type Meter struct {
	n Counts
	// sent and filled are the bytes the sends returned and the bytes
	// zerocopy took from user pages, per context: copy_byte is their
	// difference, once the run is over (a blocked send's frags are filled
	// in an earlier step than the one that returns its length).
	sent, filled [numContexts]int64
}

// Put counts one record (sim.Sink).
func (m *Meter) Put(r *sim.Record) error {
	if r.Event != nil {
		m.event(r.Event)
	}
	return nil
}

func (m *Meter) event(e *sim.Event) {
	if e.FarHost() {
		return
	}
	e.Render()
	ctx := Softirq
	if e.Ret != nil || e.Op == "send" {
		ctx = Process
	}
	n := &m.n[ctx]
	if e.Ret != nil {
		n[Syscall]++
		switch {
		case e.Op == "send" && e.Errno == "":
			n[SendCall]++
			m.sent[ctx] += *e.Ret
		case e.Op == "send":
			n[SendCall]++
		case e.Op == "recvmsg" && (e.Notification != nil || e.MsgFlags != ""):
			n[ErrqueueRead]++
		}
	}
	for i := range e.Touched {
		en := &e.Touched[i].Entry
		switch en.Op {
		case kernel.OpZerocopyFill:
			m.filled[ctx] += en.Args[0]
			n[PinPage] += en.Args[1]
		case kernel.OpZerocopyAlloc:
			n[Uarg]++
		case kernel.OpCopyUbufs:
			n[RxCopyByte] += en.Args[0]
		}
	}
	wk := e.Work()
	n[Packet] += wk.TxFrames + wk.RxFrames + wk.Acks
	n[ReadByte] += wk.RxReadBytes
}

// Counts is what the meter counted so far.
func (m *Meter) Counts() Counts {
	n := m.n
	for c := range numContexts {
		n[c][CopyByte] = m.sent[c] - m.filled[c]
	}
	return n
}

// Count counts the terms of a kept trace.
func Count(tr *sim.Trace) Counts {
	var m Meter
	for i := range tr.Records {
		_ = m.Put(&tr.Records[i])
	}
	return m.Counts()
}

// Constants are the nanoseconds one unit of each term costs.
type Constants [NumTerms]float64

// Account is a run's counts priced by constants.
type Account struct {
	Counts Counts
	// Nanos is the cost of each term per context.
	Nanos [numContexts][NumTerms]float64
}

// Price prices counts with k.
func Price(n Counts, k *Constants) Account {
	a := Account{Counts: n}
	for c := range numContexts {
		for t := range NumTerms {
			a.Nanos[c][t] = float64(n[c][t]) * k[t]
		}
	}
	return a
}

// Process is the CPU time of the sending process: its system calls.
func (a *Account) Process() float64 { return sum(a.Nanos[Process][:]) }

// System is the CPU time of the whole host: the process and the
// softirqs of this host.
func (a *Account) System() float64 { return a.Process() + sum(a.Nanos[Softirq][:]) }

// Term is the cost of t in both contexts.
func (a *Account) Term(t Term) float64 { return a.Nanos[Process][t] + a.Nanos[Softirq][t] }

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
