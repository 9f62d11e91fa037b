package replay

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/strace"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// heldUargs lists the uargs of one socket's zerocopy sends whose ids the
// program has not read from the error queue yet, oldest first: what the
// kernel may still charge for them.
//
// The model completes a send as soon as its schedule lets it, and then
// returns what its uarg charged: the locked pages
// (mm_unaccount_pinned_pages in __msg_zerocopy_callback) and, when the
// notification merged into the queue's tail record
// (skb_zerocopy_notify_extend), the optmem of the uarg's skb
// (consume_skb). In the kernel those completions may not have run yet:
// the log shows a send complete only when a read reports its id. Until
// then each uarg may still hold its skb's optmem (sock_omalloc) and its
// pages, and a later msg_zerocopy_alloc may fail with ENOBUFS where the
// model admits it. heldBack asks whether it does.
type heldUargs struct {
	list []heldUarg
}

// heldUarg is one uarg: the first id it covers (it covers the ids up to
// the next entry's first), the model's uarg, and the pages its sends
// accounted (ubuf.PinnedPages of each call's size).
type heldUarg struct {
	first uint32
	u     *ubuf.Info
	pages uint64
}

// sent records a send's uarg: a new one, or one more call on the last;
// the uargs the program has read all ids of since are dropped first.
func (h *heldUargs) sent(e *fdEntry, res sock.SendResult, size uint64) {
	if !res.ZC || res.Uarg == nil {
		return
	}
	h.prune(e)
	pages := ubuf.PinnedPages(size)
	if n := len(h.list); res.Outcome == ubuf.Extended && n > 0 && h.list[n-1].u == res.Uarg {
		h.list[n-1].pages += pages
		return
	}
	h.list = append(h.list, heldUarg{first: res.ID, u: res.Uarg, pages: pages})
}

// prune drops the uargs whose ids the program has all read: those before
// the id after the last one read (errView.next).
func (h *heldUargs) prune(e *fdEntry) {
	if !e.errq.hasNext {
		return
	}
	next, key := e.errq.next, e.s.Sk.ZCKey()
	for len(h.list) > 0 {
		end := key
		if len(h.list) > 1 {
			end = h.list[1].first
		}
		if int32(next-end) < 0 {
			return
		}
		h.list = h.list[1:]
	}
}

// returned sums what the model already gave back of the uargs still
// unread: the optmem of those whose notification merged into another
// record (every completed one, less the zerocopy records the model still
// queues), and the pages of every completed one. first and last are the
// ids concerned.
func (h *heldUargs) returned(e *fdEntry) (omem int, pages uint64, first, last uint32, n int) {
	completed := 0
	for i, hu := range h.list {
		if hu.u.Refcnt() > 0 {
			continue
		}
		if completed == 0 {
			first = hu.first
		}
		last = e.s.Sk.ZCKey() - 1
		if i+1 < len(h.list) {
			last = h.list[i+1].first - 1
		}
		completed++
		omem += hu.u.Truesize
		pages += hu.pages
	}
	records := 0
	for rec := range e.s.Sk.ErrQueue.All() {
		if rec.IsZerocopy() {
			records++
		}
	}
	omem -= min(records, completed) * e.s.Sk.Host().Profile.OmallocTruesize
	return max(omem, 0), pages, first, last, completed
}

// heldBack replays a zerocopy send the log shows failing with ENOBUFS
// while the model, as it stands, would admit its uarg. It reports false
// when the send is left to the plain prediction (the model refuses it too,
// or nothing was held back); otherwise the verdict is given: agree under
// the assumption that the completions of the unread uargs had not run yet,
// when the optmem or the pages they held explain the refusal
// (sock_omalloc's optmem_max check, mm_account_pinned_pages against
// RLIMIT_MEMLOCK), the call not run (msg_zerocopy_alloc failed: nothing
// was queued, no id consumed); else why holds the reason no schedule
// explains it, for the divergence the plain prediction gives.
func (r *replayer) heldBack(o *strace.Send, e *fdEntry, text string, size uint64) (done bool, why string) {
	if e.s.Task == nil || refuses(e, size) {
		return false, ""
	}
	sk, task := e.s.Sk, e.s.Task.Task
	p := sk.Host().Profile
	e.held.prune(e)
	omem, pages, first, last, n := e.held.returned(e)
	others := r.othersPages(e)
	if n == 0 && others == 0 {
		return false, "no schedule: no send whose completion the model ran is unread, so nothing it gave back could still be charged"
	}
	ids := fmt.Sprintf("ids %d..%d (%d uargs)", first, last, n)
	if n == 0 {
		ids = "the user's other sockets' unread sends"
	}
	switch {
	case omem > 0 && sk.OmallocRefuses(omem):
		r.assume(&o.Header, e, text, o.Result.String(), "-1 ENOBUFS", "",
			fmt.Sprintf("the completions of %s had not run yet, so their notification skbs still charged optmem: sk_omem_alloc %d + %d > optmem_max %d; msg_zerocopy_alloc failed, the call queued nothing",
				ids, sk.OmemAlloc+omem, p.OmallocEstimate, sk.Net.OptmemMax))
		return true, ""
	case pages+others > 0 && ubuf.Refuses(p, task, size, pages+others):
		also := ""
		if others > 0 && n > 0 {
			also = fmt.Sprintf(" (%d of them the user's other sockets')", others)
		}
		r.assume(&o.Header, e, text, o.Result.String(), "-1 ENOBUFS", "",
			fmt.Sprintf("the completions of %s had not run yet, so their %d pages%s were still locked: %d more would pass RLIMIT_MEMLOCK (%d pages); msg_zerocopy_alloc failed, the call queued nothing",
				ids, pages+others, also, ubuf.PinnedPages(size), task.Memlock>>kernel.PageShift))
		return true, ""
	}
	return false, fmt.Sprintf("no schedule: even with the completions of %s not run, sk_omem_alloc would be %d (optmem_max %d) and %d more pages locked",
		ids, sk.OmemAlloc+omem, sk.Net.OptmemMax, pages+others)
}

// othersPages sums the pages the model gave back of the unread uargs of
// every traced socket but e: RLIMIT_MEMLOCK bounds the user's locked_vm
// (mm_account_pinned_pages), which every socket of the user charges.
func (r *replayer) othersPages(e *fdEntry) uint64 {
	seen := map[*fdEntry]bool{e: true}
	var pages uint64
	for _, t := range r.tables {
		for _, o := range t.fds {
			if seen[o] || o.s == nil {
				continue
			}
			seen[o] = true
			o.held.prune(o)
			_, pg, _, _, _ := o.held.returned(o)
			pages += pg
		}
	}
	return pages
}

// refuses reports whether the model, as it stands, would refuse a new
// uarg for a size-byte zerocopy send on e: optmem or locked pages.
func refuses(e *fdEntry, size uint64) bool {
	if e.s.Task == nil {
		return e.s.Sk.OmallocRefuses(0)
	}
	return e.s.Sk.OmallocRefuses(0) || ubuf.Refuses(e.s.Sk.Host().Profile, e.s.Task.Task, size, 0)
}
