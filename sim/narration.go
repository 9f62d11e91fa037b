package sim

import (
	"strconv"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/ubuf"
)

// line is one sentence of a step's narration: what a step did that the
// timeline should say besides the event itself, such as a notification
// being queued, or a network event's own sentence. A frequent sentence is
// kept as what it says and worded only when the event is rendered
// (Event.Render), so a run whose timeline is not printed formats nothing
// for it; a rare one is text already.
type line struct {
	kind lineKind
	// text is a lineText's sentence, and a lineTimer's after its socket.
	text string
	// name is the socket the sentence is about: the one a lineNotified's
	// notification was queued on, the receiver of a lineSegment,
	// lineAck or lineDatagram, the socket of a lineTimer.
	name string
	// n and merged are a lineNotified's notification and whether it
	// merged.
	n      ubuf.Notification
	merged bool
	// obj is the object a lineCopied's zerocopy became 0 on, lo and hi
	// its uarg's id range when ids is set, and why the copy's reason.
	// lo and hi are also a lineSegment's sequence numbers (with fin, and
	// dup for one out of order) and lo a lineAck's acknowledgement.
	obj      kernel.ObjectID
	lo, hi   uint32
	ids      bool
	fin, dup bool
	why      kernel.CopyWhy
	// num is a lineAck's window and a lineDatagram's length.
	num int
}

// lineKind says which sentence a line holds.
type lineKind uint8

const (
	lineText lineKind = iota
	lineNotified
	lineCopied
	// lineSegment: "s.peer receives seq 1..1001".
	lineSegment
	// lineAck: "s receives ACK 1001 window 65483".
	lineAck
	// lineDatagram: "s.peer receives a datagram of 1000 bytes".
	lineDatagram
	// lineTimer: "s: " and what the timer did.
	lineTimer
)

// say adds a sentence to the current step's narration.
func (w *World) say(text string) { w.narration = append(w.narration, line{text: text}) }

// notifiedLine narrates __msg_zerocopy_callback queuing n on the error
// queue of socket name, or merging it into the queued one.
func notifiedLine(name string, n ubuf.Notification, merged bool) line {
	return line{kind: lineNotified, name: name, n: n, merged: merged}
}

// copiedLine narrates a uarg's zerocopy becoming 0 (ubuf.Info.SetCopied)
// on the object t, for the reason why.
func copiedLine(t *kernel.Tracked, why kernel.CopyWhy) line {
	l := line{kind: lineCopied, obj: t.Ident(), why: why}
	if u, ok := t.Self().(*ubuf.Info); ok {
		l.lo, l.hi, l.ids = u.ID, u.ID+uint32(u.Len)-1, true
	}
	return l
}

// appendTo appends the sentence to b.
func (l *line) appendTo(b []byte) []byte {
	switch l.kind {
	case lineNotified:
		return appendNotified(b, l.name, l.n, l.merged)
	case lineCopied:
		return appendCopied(b, l)
	case lineSegment:
		b = append(append(b, l.name...), " receives seq "...)
		b = append(strconv.AppendUint(b, uint64(l.lo), 10), ".."...)
		b = strconv.AppendUint(b, uint64(l.hi), 10)
		if l.fin {
			b = append(b, " FIN"...)
		}
		if l.dup {
			b = append(b, " (not the next expected: dropped, to be acknowledged)"...)
		}
		return b
	case lineAck:
		b = append(append(b, l.name...), " receives ACK "...)
		b = append(strconv.AppendUint(b, uint64(l.lo), 10), " window "...)
		return strconv.AppendInt(b, int64(l.num), 10)
	case lineDatagram:
		b = append(append(b, l.name...), " receives a datagram of "...)
		return append(strconv.AppendInt(b, int64(l.num), 10), " bytes"...)
	case lineTimer:
		return append(append(append(b, l.name...), ": "...), l.text...)
	}
	return append(b, l.text...)
}

// appendNotified words a notification being queued: "s: notification
// [0,3] COPIED queued (COPIED by loopback at step 4)".
func appendNotified(b []byte, name string, n ubuf.Notification, merged bool) []byte {
	b = append(append(b, name...), ": notification ["...)
	b = strconv.AppendUint(b, uint64(n.Lo), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, uint64(n.Hi()), 10)
	b = append(b, ']')
	if n.Copied {
		b = append(b, " COPIED"...)
	}
	if merged {
		b = append(b, " merged into the queued one"...)
	} else {
		b = append(b, " queued"...)
	}
	if n.Why != kernel.NotCopied {
		b = append(b, " (COPIED by "...)
		b = append(b, n.Why.Name()...)
		if n.WhyStep != 0 {
			b = append(b, " at step "...)
			b = strconv.AppendUint(b, n.WhyStep, 10)
		}
		b = append(b, ')')
	}
	return b
}

// appendCopied words a uarg's zerocopy becoming 0: "uarg#7 [id 0..1]
// will notify COPIED: " and the reason in words.
func appendCopied(b []byte, l *line) []byte {
	b = append(b, l.obj.String()...)
	if l.ids {
		b = append(b, " [id "...)
		b = strconv.AppendUint(b, uint64(l.lo), 10)
		b = append(b, ".."...)
		b = strconv.AppendUint(b, uint64(l.hi), 10)
		b = append(b, ']')
	}
	b = append(b, " will notify COPIED"...)
	if l.why != kernel.NotCopied {
		b = append(append(b, ": "...), l.why.String()...)
	}
	return b
}
