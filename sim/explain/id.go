package explain

import (
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
)

// ID tells the story of notification id on the socket named socket ("" for
// the only socket whose sends got that id): the send that got it and the
// uarg it used, every reference that uarg's holders took and dropped,
// whether and why its data was copied, what dropped the last reference,
// how the notification was queued (merged or not, and why) and which
// error-queue read returned it. It fails with an *Error when no send, or
// sends on several sockets, got the id.
func ID(tr *sim.Trace, socket string, id uint32) (string, error) {
	s := read(tr)
	send, err := s.sendOf(socket, id)
	if err != nil {
		return "", err
	}
	var w sentences
	uarg, ok := s.uargOf(&w, send, id)
	if !ok {
		return "", &Error{fmt.Sprintf("step %d gave id %d but records no msg_zerocopy_alloc or msg_zerocopy_realloc", send.Step, id)}
	}
	done := s.follow(&w, send, uarg, id)
	s.readBack(&w, send.Socket, id, done)
	return w.String(), nil
}

// IDs lists the ids the run's sends got, per socket, in order.
func IDs(tr *sim.Trace) map[string][]uint32 {
	out := map[string][]uint32{}
	for i := range tr.Records {
		if e := tr.Records[i].Event; e != nil && e.UargID != nil {
			out[e.Socket] = append(out[e.Socket], *e.UargID)
		}
	}
	return out
}

// sendOf finds the send that got id on socket.
func (s *story) sendOf(socket string, id uint32) (*sim.Event, error) {
	var found []*sim.Event
	given := map[string][]uint32{}
	var order []string
	for _, e := range s.events {
		if e.UargID == nil {
			continue
		}
		if _, ok := given[e.Socket]; !ok {
			order = append(order, e.Socket)
		}
		given[e.Socket] = append(given[e.Socket], *e.UargID)
		if *e.UargID == id && (socket == "" || e.Socket == socket) {
			found = append(found, e)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		var names []string
		for _, e := range found {
			names = append(names, e.Socket)
		}
		return nil, &Error{fmt.Sprintf("id %d was given on sockets %s: choose one with --socket", id, strings.Join(names, ", "))}
	}
	if len(order) == 0 {
		return nil, &Error{fmt.Sprintf("no send got id %d: the run gave no notification ids", id)}
	}
	var have []string
	for _, name := range order {
		have = append(have, fmt.Sprintf("%s: %s", name, idList(given[name])))
	}
	where := ""
	if socket != "" {
		where = " on " + socket
	}
	return nil, &Error{fmt.Sprintf("no send got id %d%s; ids given: %s", id, where, strings.Join(have, "; "))}
}

// idList renders ids as "0..3" when consecutive, else "0, 2, 5".
func idList(ids []uint32) string {
	consecutive := true
	for i := 1; i < len(ids); i++ {
		consecutive = consecutive && ids[i] == ids[i-1]+1
	}
	if consecutive && len(ids) > 1 {
		return fmt.Sprintf("%d..%d", ids[0], ids[len(ids)-1])
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ", ")
}

// uargOf says how the send got id and returns the uarg that covers it.
func (s *story) uargOf(w *sentences, send *sim.Event, id uint32) (kernel.ObjectID, bool) {
	for _, t := range send.Touched {
		e := t.Entry
		switch {
		case e.Op == kernel.OpZerocopyAlloc && uint32(e.Args[0]) == id:
			w.say("Id %d: at %s, %s.", id, at(send), send.Source)
			w.say("  msg_zerocopy_alloc made %v on %v for it: id %d = sk_zckey, which becomes %d; %d bytes, %d pinned pages charged to locked_vm, a notification skb of %d bytes charged to optmem; its one reference is held by %s.",
				t.Object, e.Peer, id, id+1, e.Args[1], e.Args[2], e.Args[3], s.holder(e.Holder))
			return t.Object, true
		case e.Op == kernel.OpZerocopyRealloc && within(id, e.Args[0], e.Args[1]):
			w.say("Id %d: at %s, %s.", id, at(send), send.Source)
			w.say("  msg_zerocopy_realloc extended %v, the uarg of the skb at the tail of the write queue, to ids %d..%d: its ids end right before sk_zckey, so one uarg and one notification cover both sends.",
				t.Object, e.Args[0], e.Args[1])
			return t.Object, true
		}
	}
	return kernel.ObjectID{}, false
}

// within reports whether id lies in [lo, hi], modulo 2^32.
func within(id uint32, lo, hi int64) bool { return id-uint32(lo) <= uint32(hi)-uint32(lo) }

// follow narrates every entry of uarg's history from the send's step on,
// and returns the step that completed it (0 if none did).
func (s *story) follow(w *sentences, send *sim.Event, uarg kernel.ObjectID, id uint32) uint64 {
	refcnt := int64(1)
	// holding are the shared infos that hold a reference: the skbs using
	// them reach the uarg, and their clones, frees and losses are told.
	holding := map[kernel.ObjectID]bool{}
	for _, ev := range s.events {
		if ev.Step < send.Step {
			continue
		}
		header := false
		for i, t := range ev.Touched {
			via := s.via[entryAt{ev.Step, i}]
			if t.Object != uarg && (!holding[via] || !skbLine(t.Entry)) {
				continue
			}
			if !header {
				w.say("  At %s:", at(ev))
				header = true
			}
			e := t.Entry
			if t.Object != uarg {
				w.say("    %v, which reaches the uarg through %v: %s.", t.Object, via, e.Text())
				continue
			}
			switch e.Op {
			case kernel.OpUargGet:
				holding[e.Holder] = true
				refcnt = e.After
				w.say("    %s takes a reference (%s → net_zcopy_get): refcnt %d → %d.", s.holder(e.Holder), getCause(ev, i, uarg, e.Holder), e.Before, e.After)
			case kernel.OpUargHandoff:
				holding[e.Peer] = true
				w.say("    The reference of %v passes to %s (skb_zcopy_set with have_uref): the count stays %d.", e.Holder, s.holder(e.Peer), refcnt)
			case kernel.OpZerocopyRealloc:
				if ev != send {
					w.say("    That send joins the uarg with id %d (msg_zerocopy_realloc): it now covers ids %d..%d, one notification for all.", e.Args[1], e.Args[0], e.Args[1])
				}
			case kernel.OpUargCopied:
				s.copied(w, ev, i, kernel.CopyWhy(e.Args[0]))
			case kernel.OpUargPut:
				refcnt = e.After
				delete(holding, e.Holder)
				w.say("    %s drops its reference (%s → net_zcopy_put, success=%t): refcnt %d → %d.", s.holder(e.Holder), dropCause(ev, i, e.Holder), e.Args[0] != 0, e.Before, e.After)
			case kernel.OpPutAbort:
				w.say("    The call failed after taking the id: msg_zerocopy_put_abort by %v gives back len %d.", e.Holder, e.Args[0])
			case kernel.OpUargComplete:
				s.completed(w, ev, e)
				return ev.Step
			case kernel.OpUargCompleteSilent:
				w.say("    The last reference is gone, but __msg_zerocopy_callback queues nothing: len %d, socket dead %t.", e.Args[0], e.Args[1] != 0)
				return ev.Step
			}
		}
	}
	w.say("  The run ends with %v still holding references: no notification for id %d.", uarg, id)
	return 0
}

// getCause names the operation that made holder take the reference of
// entry i of the step: the skb_zcopy_set that follows it, or the
// pskb_expand_head that gives an skb holder as its private shared info.
func getCause(ev *sim.Event, i int, uarg, holder kernel.ObjectID) string {
	for _, t := range ev.Touched[i+1:] {
		switch e := t.Entry; {
		case e.Op == kernel.OpZcopySet && e.Holder == uarg:
			return "skb_zcopy_set on " + t.Object.String()
		case e.Op == kernel.OpExpandHead && e.Holder == holder:
			return "pskb_expand_head on " + t.Object.String()
		}
	}
	return "net_zcopy_get"
}

// skbLine reports whether an entry on an skb that reaches the uarg is
// part of its story: a clone made or freed, a segmentation, a loss.
func skbLine(e kernel.Entry) bool {
	switch e.Op {
	case kernel.OpClone, kernel.OpReleaseData, kernel.OpSegment, kernel.OpText, kernel.OpXmitFailed, kernel.OpTapDeliver:
		return true
	}
	return false
}

// dropCause names what made holder drop the reference of entry i of the
// step: for a shared info the skb operation just before it that cleared
// the skb's zerocopy state (skb_release_data, skb_copy_ubufs,
// __pskb_pull_tail, skb_tx_error), for a send call the end of the call.
func dropCause(ev *sim.Event, i int, holder kernel.ObjectID) string {
	if holder.Kind == "sendmsg" {
		return "the end of the send call"
	}
	for j := i - 1; j >= 0; j-- {
		t := ev.Touched[j]
		switch t.Entry.Op {
		case kernel.OpReleaseData, kernel.OpCopyUbufs, kernel.OpPullTail:
			return fmt.Sprintf("%s on %v → skb_zcopy_clear", t.Entry.Op.Func(), t.Object)
		case kernel.OpZcopyClear:
			continue
		}
		if t.Object.Kind == "uarg" && t.Entry.Op != kernel.OpUargCopied {
			break
		}
	}
	return "skb_zcopy_clear"
}

// copied narrates the uarg's zerocopy becoming 0: why, and the skb
// operation just before it in the step that did the copying.
func (s *story) copied(w *sentences, ev *sim.Event, i int, why kernel.CopyWhy) {
	w.say("    Its zerocopy becomes 0, so the notification will say COPIED: %v.", why)
	for j := i - 1; j >= 0; j-- {
		if t := ev.Touched[j]; t.Entry.Op == kernel.OpCopyUbufs {
			w.say("      %v's frags were copied: %s.", t.Object, t.Entry.Text())
			return
		}
	}
}

// completed narrates __msg_zerocopy_callback: the notification, and how
// the error queue took it.
func (s *story) completed(w *sentences, ev *sim.Event, e kernel.Entry) {
	w.say("    That was the last reference: __msg_zerocopy_callback unaccounts the pinned pages and builds notification [%d,%d]%s.",
		e.Args[0], e.Args[1], copiedSuffix(e))
	for _, t := range ev.Touched {
		if n := t.Entry; n.Op == kernel.OpNotified && n.Args[0] == e.Args[0] && n.Args[1] == e.Args[1] {
			m := kernel.Merge(n.Args[3])
			if m.Merged() {
				w.say("    The error queue of %v merges it into the queued record: %v.", t.Object, m)
			} else {
				w.say("    The error queue of %v queues it as a new record: %v.", t.Object, m)
			}
		}
	}
}

func copiedSuffix(e kernel.Entry) string {
	if e.Args[2] == 0 {
		return ", not COPIED: the data went from the user's pages"
	}
	if why := kernel.CopyWhy(e.Args[3]); why != kernel.NotCopied {
		return ", COPIED (" + why.Name() + ")"
	}
	return ", COPIED"
}

// readBack narrates the error-queue read that returned id on socket after
// the step that completed it.
func (s *story) readBack(w *sentences, socket string, id uint32, done uint64) {
	if done == 0 {
		return
	}
	for _, ev := range s.events {
		n := ev.Notification
		if ev.Step < done || ev.Socket != socket || n == nil || n.Origin != kernel.SO_EE_ORIGIN_ZEROCOPY {
			continue
		}
		if within(id, int64(n.Info), int64(n.Data)) {
			copied := ""
			if n.Code&kernel.SO_EE_CODE_ZEROCOPY_COPIED != 0 {
				copied = " with SO_EE_CODE_ZEROCOPY_COPIED"
			}
			w.say("  At %s:", at(ev))
			w.say("    recvmsg(MSG_ERRQUEUE) returns [%d,%d]%s: from here the program may reuse the buffer of id %d.", n.Info, n.Data, copied, id)
			return
		}
	}
	w.say("  No error-queue read in the run returns id %d.", id)
}
