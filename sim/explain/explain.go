// Package explain tells, in plain sentences, the story of one notification
// id or of one step of a run: which send got the id, which skbs held its
// uarg, what released the last reference, why the notification merged or
// not, why it says COPIED, each with the kernel function the model ran.
//
// It reads only a run's trace (sim.Trace with its Records): every sentence
// restates a typed history entry the model recorded as it decided
// (kernel.Entry: its Op, the objects it involved, kernel.CopyWhy,
// kernel.Merge, a refusal's numbers). Nothing is re-derived from the
// scenario, so an explanation is exactly as right as the timeline.
//
// # Model
//
// A uarg's references are held by the send call (sendmsg#N) and by shared
// infos; an skb reaches a uarg through its shared info, which clones share
// until pskb_expand_head gives one a private copy. ID follows the uarg
// that covers an id through every entry of its history, naming for each
// shared info the skbs that used it, and ends with the error-queue read
// that returned the id.
package explain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
)

// Error is a request the trace cannot answer: an id no send got, a step
// that does not exist. It says what the trace has instead.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// story is the run's events and what explain learned of its objects.
type story struct {
	events []*sim.Event
	viols  []*sim.Violation
	// skbsOf lists, for each shared info, the skbs that used it, in the
	// order they appeared.
	skbsOf map[kernel.ObjectID][]kernel.ObjectID
	// via is, for each entry on an skb, the shared info the skb used
	// then, by step and index in the step's Touched.
	via map[entryAt]kernel.ObjectID
}

// entryAt addresses one entry of a trace.
type entryAt struct {
	step uint64
	i    int
}

func read(tr *sim.Trace) *story {
	s := &story{skbsOf: map[kernel.ObjectID][]kernel.ObjectID{}, via: map[entryAt]kernel.ObjectID{}}
	shinfoOf := map[kernel.ObjectID]kernel.ObjectID{} // skb → its shared info, as the trace goes
	lastHolder := map[kernel.ObjectID]kernel.ObjectID{}
	use := func(shinfo, skb kernel.ObjectID) {
		shinfoOf[skb] = shinfo
		if !slices.Contains(s.skbsOf[shinfo], skb) {
			s.skbsOf[shinfo] = append(s.skbsOf[shinfo], skb)
		}
	}
	for i := range tr.Records {
		r := &tr.Records[i]
		if r.Violation != nil {
			s.viols = append(s.viols, r.Violation)
		}
		if r.Event == nil {
			continue
		}
		s.events = append(s.events, r.Event)
		for i, t := range r.Event.Touched {
			e := t.Entry
			switch e.Op {
			case kernel.OpUargGet:
				lastHolder[t.Object] = e.Holder
			case kernel.OpUargHandoff:
				lastHolder[t.Object] = e.Peer
			case kernel.OpZcopySet:
				if h, ok := lastHolder[e.Holder]; ok && h.Kind == "shinfo" {
					use(h, t.Object)
				}
			case kernel.OpExpandHead:
				use(e.Holder, t.Object)
			case kernel.OpClone:
				if sh, ok := shinfoOf[e.Holder]; ok {
					use(sh, t.Object)
				}
			}
			if sh, ok := shinfoOf[t.Object]; ok {
				s.via[entryAt{r.Event.Step, i}] = sh
			}
		}
	}
	return s
}

// skbs renders the skbs that used a shared info: "skb#21", "skb#21 and
// its clone skb#22", "skb#21 and its clones skb#22, skb#30"; "" when none
// is known.
func (s *story) skbs(shinfo kernel.ObjectID) string {
	list := s.skbsOf[shinfo]
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0].String()
	case 2:
		return fmt.Sprintf("%v and its clone %v", list[0], list[1])
	}
	names := make([]string, len(list)-1)
	for i, b := range list[1:] {
		names[i] = b.String()
	}
	return fmt.Sprintf("%v and its clones %s", list[0], strings.Join(names, ", "))
}

// holder renders who holds a reference: "sendmsg#4 (the send call of step
// 4)", "shinfo#20 (the shared info of skb#21)".
func (s *story) holder(h kernel.ObjectID) string {
	switch h.Kind {
	case "sendmsg":
		return fmt.Sprintf("%v (the send call of step %d)", h, h.Serial)
	case "shinfo":
		if b := s.skbs(h); b != "" {
			return fmt.Sprintf("%v (the shared info of %s)", h, b)
		}
	}
	return h.String()
}

// at renders where a step is: "step 7 (s receives ACK 65484 window
// 64198; tcp_ack → tcp_clean_rtx_queue)", naming the kernel path a
// network event or timer runs.
func at(e *sim.Event) string {
	text := e.Text
	if i := strings.Index(text, "; "); i >= 0 {
		text = text[:i]
	}
	text = strings.TrimSpace(text)
	if fn := eventFuncs[e.Op]; fn != "" {
		text += "; " + fn
	}
	return fmt.Sprintf("step %d (%s)", e.Step, text)
}

// eventFuncs names the kernel path each kind of network event or timer
// step models (sim.Event.Op).
var eventFuncs = map[string]string{
	"ack":         "tcp_ack → tcp_clean_rtx_queue",
	"tx_complete": "the driver's TX completion, napi_consume_skb",
	"rto":         "tcp_retransmit_timer",
	"delack":      "tcp_delack_timer",
	"ip_expire":   "ip_expire",
}

// sentences collects the story's lines.
type sentences struct{ b strings.Builder }

func (w *sentences) say(format string, args ...any) {
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

func (w *sentences) String() string { return w.b.String() }
