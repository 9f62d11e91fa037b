package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zcsim/zcsim/sim/engine"
)

// The model fires a TCP timer exactly when it is due; the kernel's timer
// wheel fires it later, by an amount no scenario shows (tcp/doc.go, "When
// a timer fires"). A call on the timer's connection made after the
// model's firing but before the latest time the kernel's may come is
// predicted under the assumption that the timer fired first, and its
// result says so (Result.Assumes, Event.Assumes).

// wheelTimers name the socket timers that are timer_lists on the wheel
// (sk_reset_timer → mod_timer): icsk_retransmit_timer, which runs the
// RTO, the SYN retransmission, the zero-window probe and the tail loss
// probe, and icsk_delack_timer. The pacing timer is an hrtimer, exact;
// sk_stream_wait_memory's wait is the model's own.
var wheelTimers = map[string]string{
	"rto":        "retransmission timer",
	"syn":        "SYN retransmission timer",
	"probe":      "zero-window probe timer",
	"loss_probe": "tail loss probe timer",
	"delack":     "delayed-ACK timer",
}

// Timer wheel geometry of kernel/time/timer.c: LVL_CLK_SHIFT, LVL_SIZE.
const (
	wheelClkShift = 3
	wheelLvlSize  = 64
)

// wheelDepth is LVL_DEPTH: 9 levels above HZ 100, 8 at or below.
func wheelDepth(hz int) int {
	if hz > 100 {
		return 9
	}
	return 8
}

// wheelSlack is how much later than due the kernel may run a timer armed
// d ahead at hz (calc_wheel_index, calc_index): one due fewer than
// LVL_START(1) = 63 jiffies ahead is filed at level 0 and runs at the
// tick after its expiry, up to a jiffy after it was due from the moment
// within its jiffy it was armed; one due at least LVL_START(k) =
// 63 << 3(k-1) jiffies ahead goes to level k, its expiry rounded up to
// the next multiple of LVL_GRAN(k) = 8^k jiffies: up to that much later.
func wheelSlack(d engine.Duration, hz int) engine.Duration {
	jiffy := engine.Second / engine.Duration(hz)
	ahead := uint64((d + jiffy - 1) / jiffy)
	lvl, depth := 0, wheelDepth(hz)
	for lvl < depth-1 && ahead >= (wheelLvlSize-1)<<(wheelClkShift*lvl) {
		lvl++
	}
	return jiffy << (wheelClkShift * lvl)
}

// firedTimer is a timer the model fired at at whose kernel counterpart
// may run as late as until.
type firedTimer struct {
	op, socket string
	at, until  engine.Time
	// inherited is the part of the slack a timer armed in the firing of
	// an earlier one took from it.
	inherited engine.Duration
}

// armSlack is the slack of a wheel timer op armed d from now: the
// wheel's own, plus, when the step of another timer's firing arms it,
// that timer's whole slack, as the kernel arms it as late as the other
// fired (chained timers: the next zero-window probe, an RTO after a
// loss probe, a timer of the peer the firing's segment reached over
// loopback in the same step). Zero for a timer not on the wheel.
func (w *World) armSlack(op string, d engine.Duration) (slack, inherited engine.Duration) {
	if _, ok := wheelTimers[op]; !ok {
		return 0, 0
	}
	if w.firing != nil {
		inherited = w.firing.slack
	}
	return wheelSlack(d, w.Profile().HZ) + inherited, inherited
}

// timerFired records that timer t of s fired now, with the slack it was
// armed with: its window stays open that long, and a round trip of s's
// device's link delay more, for what the timer sent to reach the peer
// and its answer to come back.
func (w *World) timerFired(s *Socket, t *timer) {
	if t.slack == 0 {
		return
	}
	now := w.Now()
	until := now.Add(t.slack)
	if s.Dev != nil {
		until = until.Add(2 * s.Dev.Delay)
	}
	s.fired = append(pruneWindows(s.fired, now), firedTimer{op: t.op, socket: s.Name, at: now, until: until, inherited: t.inherited})
}

// pruneWindows drops the windows closed by now.
func pruneWindows(fs []firedTimer, now engine.Time) []firedTimer {
	out := fs[:0]
	for _, f := range fs {
		if now < f.until {
			out = append(out, f)
		}
	}
	return out
}

// openWindows are the timers of s's connection (s and its peer) the model
// fired whose kernel counterparts may not have fired yet.
func (w *World) openWindows(s *Socket) []firedTimer {
	if s == nil {
		return nil
	}
	now := w.Now()
	s.fired = pruneWindows(s.fired, now)
	open := s.fired
	if p := s.Peer; p != nil {
		p.fired = pruneWindows(p.fired, now)
		open = append(open[:len(open):len(open)], p.fired...)
	}
	return open
}

// BeginCall tells the world that a front end starts a statement now
// that may be a system call, so that a call which sleeps is judged from
// when it began (timerAssumption); the next call's record forgets it.
// Without it a call is judged from when it returns, which can only say
// "under an assumption" more often.
func (w *World) BeginCall() { w.callStart, w.callStarted = w.Now(), true }

// callBegan is when the call being recorded began (BeginCall), or now;
// the mark is used once.
func (w *World) callBegan() engine.Time {
	began := w.Now()
	if w.callStarted {
		began, w.callStarted = w.callStart, false
	}
	return began
}

// closeWindows forgets every open window: after a settle every timer has
// fired, on the kernel too.
func (w *World) closeWindows() {
	for _, s := range w.sockets {
		s.fired = s.fired[:0]
	}
}

// timerAssumption says, for a call on s that returns now, which timers
// of its connection the model fired that the kernel's wheel may still be
// about to fire, or "" if none. A call that slept since began was woken
// by what its connection did meanwhile, on the kernel too: the timers
// that fired while it slept are behind it there as well, and behind
// every later call (their windows close).
func (w *World) timerAssumption(s *Socket, began engine.Time) string {
	if began < w.Now() && s != nil {
		for _, k := range []*Socket{s, s.Peer} {
			if k != nil {
				k.fired = slices.DeleteFunc(k.fired, func(f firedTimer) bool { return f.at > began })
			}
		}
	}
	var parts []string
	for _, f := range w.openWindows(s) {
		text := fmt.Sprintf("the %s of %s fired at %v, before this call, as the model has it; the kernel's timer wheel may run it later, what it sends arriving as late as %v",
			wheelTimers[f.op], f.socket, f.at, f.until)
		if f.inherited > 0 {
			text += fmt.Sprintf(", %v of it from the timer whose firing armed it", f.inherited)
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "; ")
}
