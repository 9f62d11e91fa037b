package replay

import (
	"fmt"
	"slices"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/strace"
)

// maxAhead bounds the model events one observation may pull ahead of the
// model's clock.
const maxAhead = 100000

// errView is the replay's view of one socket's error queue: the model's
// queue, less what the traced program already read of its head record.
//
// The model completes a send as soon as its schedule lets it (the peer's
// ACK, the receiver's read, a TX completion); the kernel may have done so
// later. A read that returns the first ids of the model's head record
// [lo,hi], [lo,h] with h < hi, is explained by the schedule in which
// h+1..hi completed after the read: __msg_zerocopy_callback then queued
// them as a record of their own, which later completions extend
// (skb_zerocopy_notify_extend at the queue's tail) as they extend the
// model's record. The view keeps that rest, [cut,hi], for the next read;
// the model's record is dequeued only when a read takes its last id, so
// its charge stays on the socket's optmem meanwhile, as the rest's own
// notification skb does in the kernel.
//
// The zero value is the model's queue as it is.
type errView struct {
	// cut, when hasCut, is the first id of the model's head record the
	// program has not read yet.
	cut    uint32
	hasCut bool
	// next, when hasNext, is the id after the last one the program read.
	next    uint32
	hasNext bool
	// slack counts the ids that reads whose range strace did not print
	// (IPv6 under strace 6.1) may have left queued in the kernel: each
	// took the model's whole head record, but the kernel's record may
	// have been shorter. slackLine is the last such read.
	slack     uint64
	slackLine int
}

// head returns the view's head record: the model's head, from cut on.
func (v *errView) head(q *notify.Queue) (notify.Record, bool) {
	for rec := range q.All() {
		if v.hasCut && rec.IsZerocopy() && rec.Range().Contains(v.cut) {
			rec.Info = v.cut
		}
		return rec, true
	}
	return notify.Record{}, false
}

// read records that the program read rec, the view's head.
func (v *errView) read(rec notify.Record) {
	v.hasCut = false
	if rec.IsZerocopy() {
		v.next, v.hasNext = rec.Data+1, true
	}
}

// errRead replays recvmsg(MSG_ERRQUEUE) guided by what the log observed.
// The model's error queue is what its schedule completed; the kernel's
// may hold less (completions not yet run) or more (completions the model
// schedules later). The read agrees when the view's head is what the log
// shows; it agrees under an assumption when a schedule of the hidden work
// explains the log:
//
//   - EAGAIN while the view holds a record: that record's completion
//     came after the read; it stays queued.
//   - a zerocopy range [lo,h] that starts the view's head [lo,hi]: ids
//     h+1..hi completed after the read; they stay queued (errView).
//   - a record the view lacks, or a range that runs past its head: the
//     model's pending work (ACKs, timers, deliveries) runs ahead of its
//     clock, one event at a time, until the view explains the read
//     (runAhead); the time it ran ahead is taken off the next gap.
//   - a record of unprinted range while the view is empty: an earlier
//     unprinted read may have taken fewer ids than the model's record.
//
// It diverges when no schedule can: a range that does not start where the
// last one ended (a gap, or ids reported twice), one past the ids handed
// out (sk_zckey), another code, origin or errno, or a record the model
// never completes.
func (r *replayer) errRead(o *strace.Recv, e *fdEntry, text string, flags kernel.MsgFlags) {
	r.between(&o.Header)
	q := &e.s.Sk.ErrQueue
	v := &e.errq
	obs := o.Result.String()
	var ext *strace.ExtErr
	for _, c := range o.Cmsgs {
		if c.Ext != nil {
			ext = c.Ext
		}
	}
	if ext != nil {
		obs += " " + recordOf(*ext).String()
	}
	unprinted := ext == nil && len(o.Cmsgs) > 0 && o.Result.Kind == strace.ResultValue
	if o.Result.Kind == strace.ResultErrno && (o.Result.Errno == "EAGAIN" || o.Result.Errno == "EWOULDBLOCK") {
		if head, ok := v.head(q); ok {
			r.assume(&o.Header, e, text, obs, "-1 EAGAIN", "", fmt.Sprintf("the model's notification %v had not been queued yet: its completion came after this read, and it stays queued", head))
			return
		}
	}
	if o.Result.Kind != strace.ResultValue || (ext == nil && !unprinted) {
		r.modelErrRead(&o.Header, e, text, flags, obs, ext, "", "")
		return
	}
	var ahead engine.Duration
	if ext == nil {
		ahead, _ = r.runAhead(func() bool { _, ok := v.head(q); return ok })
	} else {
		ahead, _ = r.runAhead(func() bool { return explains(v, q, *ext) })
	}
	assumed := ""
	if ahead > 0 {
		assumed = fmt.Sprintf("the network ran %v ahead of the model's clock: completions the model schedules later had already run", ahead)
	}
	head, ok := v.head(q)
	switch {
	case ext == nil && !ok && v.slack > 0:
		v.slack--
		r.v6Read(line(&o.Header))
		r.assume(&o.Header, e, text, obs, o.Result.String(), retOnly,
			fmt.Sprintf("an earlier read whose range strace did not print (line %d) took fewer ids than the model's record: this read takes ids it left", v.slackLine))
	case ext == nil:
		if ok && head.IsZerocopy() {
			v.slack += uint64(head.Data - head.Info)
			if head.Data != head.Info {
				v.slackLine = line(&o.Header)
			}
		}
		r.modelErrRead(&o.Header, e, text, flags, obs, nil, assumed, "")
	case ok && head.IsZerocopy() && ext.Origin == kernel.SO_EE_ORIGIN_ZEROCOPY && explains(v, q, *ext) && ext.Data != head.Data:
		rest := notify.Range{Lo: ext.Data + 1, Hi: head.Data}
		v.cut, v.hasCut = rest.Lo, true
		v.next, v.hasNext = rest.Lo, true
		part := head
		part.Data = ext.Data
		a := fmt.Sprintf("ids %d..%d of the model's notification %v had not completed yet: they were queued after this read", rest.Lo, rest.Hi, head.Range())
		if assumed != "" {
			a = assumed + "; " + a
		}
		r.assume(&o.Header, e, text, obs, "0 "+part.String(), "", a)
	default:
		why := ""
		if ext.Origin == kernel.SO_EE_ORIGIN_ZEROCOPY {
			why = r.noSchedule(e, v, head, ok, *ext)
		}
		r.modelErrRead(&o.Header, e, text, flags, obs, ext, assumed, why)
	}
}

// explains reports whether the view's head record can be what the log
// read: the same record, or for a zerocopy range, one that starts where
// the read's starts, with the same code, and reaches its end.
func explains(v *errView, q *notify.Queue, x strace.ExtErr) bool {
	head, ok := v.head(q)
	if !ok {
		return false
	}
	if !head.IsZerocopy() || x.Origin != kernel.SO_EE_ORIGIN_ZEROCOPY {
		return sameRecord(x, head)
	}
	return head.Info == x.Info && head.Code == x.Code && kernel.Errno(x.Errno) == head.Errno && x.Type == head.Type &&
		head.Range().Contains(x.Data)
}

// noSchedule says why no schedule of the model produces the zerocopy
// range x: where it starts against the next id to report (after the last
// read, or the view's head), how far the ids handed out (sk_zckey) reach,
// and the code.
func (r *replayer) noSchedule(e *fdEntry, v *errView, head notify.Record, ok bool, x strace.ExtErr) string {
	key := e.s.Sk.ZCKey()
	from, known := x.Info, false
	switch {
	case v.hasNext:
		from, known = v.next, true
	case ok && head.IsZerocopy():
		from, known = head.Info, true
	}
	switch {
	case known && x.Info != from:
		return fmt.Sprintf("no schedule: the next id to report is %d (the last read ended before it, or the model's first notification starts there), so a range from %d leaves a gap or repeats ids", from, x.Info)
	case x.Data-x.Info >= key-x.Info:
		return fmt.Sprintf("no schedule: the range reaches id %d, past the ids handed out (sk_zckey %d)", x.Data, key)
	case ok && head.IsZerocopy() && head.Code != x.Code:
		return fmt.Sprintf("no schedule: the model's notification %v has code %d, the log's %d", head.Range(), head.Code, x.Code)
	case ok && head.IsZerocopy():
		return fmt.Sprintf("no schedule: the model completes the range only as %v", head.Range())
	}
	return "no schedule: the model never completes these ids"
}

// retOnly is how a read whose record strace did not print is compared.
const retOnly = "return value only: strace printed no cmsg data"

// modelErrRead runs the read on the model: it dequeues the model's head
// record, which the view renders from its cut on, and compares it with
// the log: with the logged record ext, or on the return value only when
// the log shows a record strace did not print (ext nil on a successful
// read with control messages). assumed, if set, is the schedule the
// comparison assumes; why, the model's reason on a divergence.
func (r *replayer) modelErrRead(h *strace.Header, e *fdEntry, text string, flags kernel.MsgFlags, obs string, ext *strace.ExtErr, assumed, why string) {
	v := &e.errq
	head, had := v.head(&e.s.Sk.ErrQueue)
	res := r.w.Recvmsg(r.call(h, text), e.s, 0, flags)
	pred := res.String()
	agree, how := false, ""
	if res.Record != nil {
		rec := *res.Record
		if had {
			rec = head
		}
		pred += " " + rec.String()
		v.read(rec)
		agree = obs == pred && (ext == nil || sameRecord(*ext, rec))
	}
	if ext == nil && res.Record != nil && h.Result.Kind == strace.ResultValue && obs != pred {
		agree, how = res.Errno == 0 && fmt.Sprint(res.Ret) == h.Result.String(), retOnly
		r.v6Read(line(h))
	} else if res.Record == nil {
		agree = obs == pred
	}
	if res.Errno == kernel.EAGAIN && why == "" {
		why = "the model's error queue is empty"
	}
	switch {
	case !agree:
		r.addHow(h, e.fd, e.s.Name, text, obs, pred, why, how, Diverge)
	case assumed != "":
		r.assume(h, e, text, obs, pred, how, assumed)
	default:
		r.addHow(h, e.fd, e.s.Name, text, obs, pred, "", how, Agree)
	}
}

// assume records a call on e that agrees under the stated schedule.
func (r *replayer) assume(h *strace.Header, e *fdEntry, text, obs, pred, how, assumption string) {
	r.emit(Call{Line: line(h), Pid: h.Pid, Syscall: h.Syscall, Fd: e.fd, Socket: e.s.Name, Text: text,
		Observed: obs, Predicted: pred, Verdict: Assumed, Compared: how, Assumption: assumption})
}

// assumeOn records a call on fd, replayed on the model socket sock, that
// agrees under the stated schedule.
func (r *replayer) assumeOn(h *strace.Header, fd int, sock, text, obs, pred, assumption string) {
	r.emit(Call{Line: line(h), Pid: h.Pid, Syscall: h.Syscall, Fd: fd, Socket: sock, Text: text,
		Observed: obs, Predicted: pred, Verdict: Assumed, Assumption: assumption})
}

// runAhead lets the model's pending network work (ACKs, deliveries,
// timers, TX completions) run before the log's clock says, one event at a
// time, until done holds, the network is idle or maxAhead events ran. It
// returns how far the model's clock moved and whether done holds; the
// next gap between calls is shortened by that much, so the model's clock
// keeps the log's.
func (r *replayer) runAhead(done func() bool) (engine.Duration, bool) {
	start := r.w.Now()
	for n := 0; !done(); n++ {
		if n == maxAhead || !r.w.RunNext() {
			d := r.w.Now().Sub(start)
			r.ahead += d
			return d, false
		}
	}
	d := r.w.Now().Sub(start)
	r.ahead += d
	return d, true
}

// guideRead replays a read of data guided by what the log observed, as
// errRead does an error-queue read; it reports false when the read is
// left to the plain prediction. What arrived when is the hidden choice;
// data arrives a segment (or datagram) at a time:
//
//   - EAGAIN while the model has data queued: it had not arrived yet; it
//     stays queued.
//   - a stream read of n bytes, fewer than both the model has queued and
//     the buffer, n the size of the model's first segments: only those had
//     arrived (tcp_recvmsg returns what is queued); the model's read takes
//     n and the rest stays.
//   - more than the model has queued, or a datagram the model has not
//     delivered: its pending work runs ahead (runAhead) until it has.
func (r *replayer) guideRead(o *strace.Recv, e *fdEntry, target *sim.Socket, text string, flags kernel.MsgFlags, want int) bool {
	obs := o.Result.String()
	segs := target.QueuedSegments()
	if o.Result.Kind == strace.ResultErrno && (o.Result.Errno == "EAGAIN" || o.Result.Errno == "EWOULDBLOCK") {
		if len(segs) == 0 {
			return false
		}
		what := fmt.Sprintf("the %d bytes the model had queued", sum(segs))
		if !target.IsTCP() {
			what = fmt.Sprintf("the model's next datagram (%d bytes)", segs[0])
		}
		r.assumeOn(&o.Header, e.fd, target.Name, text, obs, "-1 EAGAIN", what+" had not arrived yet: they stay queued for a later read")
		return true
	}
	n64, ok := o.Result.Ret()
	if !ok || n64 <= 0 || n64 > int64(want) {
		return false
	}
	n := int(n64)
	var ahead engine.Duration
	if target.IsTCP() && sum(segs) < n {
		ahead, _ = r.runAhead(func() bool { segs = target.QueuedSegments(); return sum(segs) >= n })
	} else if !target.IsTCP() && len(segs) == 0 {
		ahead, _ = r.runAhead(func() bool { segs = target.QueuedSegments(); return len(segs) > 0 })
	}
	assumed := ""
	if ahead > 0 {
		assumed = fmt.Sprintf("the network ran %v ahead of the model's clock: data the model delivers later had already arrived", ahead)
	}
	take := want
	if q := sum(segs); target.IsTCP() && n < want && q > n && (isPrefixSum(segs, n) || e.in.endsAt(n)) {
		take = n
		a := fmt.Sprintf("only %d of the %d bytes the model had queued had arrived (its first segments): the rest stay queued", n, q)
		if !isPrefixSum(segs, n) {
			a = fmt.Sprintf("only %d of the %d bytes the model had queued had arrived, up to the end of one of the traced sender's sends (tcp_sendmsg's segments, autocorking and TSO sizing depend on timing; the model's segments run across it): the rest stay queued", n, q)
		}
		if assumed != "" {
			a = assumed + "; " + a
		}
		assumed = a
	}
	if assumed == "" {
		return false
	}
	res := r.w.Recv(r.call(&o.Header, text), target, take, flags)
	if res.String() != obs {
		r.compare(&o.Header, e.fd, target.Name, text, obs, res.String(), why(res))
		return true
	}
	r.assumeOn(&o.Header, e.fd, target.Name, text, obs, res.String(), assumed)
	return true
}

func sum(ns []int) int {
	t := 0
	for _, n := range ns {
		t += n
	}
	return t
}

// stream is one direction of a connection whose both ends are traced:
// where the sender's sends ended in its byte stream (the ones the
// receiver has not read past yet) and how much the receiver read. A read
// that ends at a send's end is one the kernel can return whatever the
// model's segments: each send is pushed as it is made, so a segment
// boundary can fall there.
type stream struct {
	ends       []uint64
	sent, read uint64
}

// wrote records n more bytes sent, one send.
func (st *stream) wrote(n int64) {
	if st == nil || n <= 0 {
		return
	}
	st.sent += uint64(n)
	st.ends = append(st.ends, st.sent)
}

// took records n more bytes read, forgetting the ends read past.
func (st *stream) took(n int64) {
	if st == nil || n <= 0 {
		return
	}
	st.read += uint64(n)
	i := 0
	for i < len(st.ends) && st.ends[i] <= st.read {
		i++
	}
	st.ends = st.ends[i:]
}

// endsAt reports whether a read of n more bytes ends where a send ended.
func (st *stream) endsAt(n int) bool {
	if st == nil {
		return false
	}
	_, found := slices.BinarySearch(st.ends, st.read+uint64(n))
	return found
}

// isPrefixSum reports whether n is the size of the first few of segs.
func isPrefixSum(segs []int, n int) bool {
	t := 0
	for _, s := range segs {
		t += s
		if t == n {
			return true
		}
	}
	return false
}
