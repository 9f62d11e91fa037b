package check

import (
	"fmt"
	"sort"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// Check returns every violation at once: those the model reported itself
// since the last Check (h.TakeViolations), those the Monitor saw as events
// arrived, and those the current state of h shows. quiescent says that no
// call is in progress and nothing is in flight, which enables the leak,
// wmem/rmem and every-id-notified checks. The result is nil when every
// invariant holds.
func (m *Monitor) Check(h *kernel.Host, quiescent bool) []kernel.Violation {
	out := h.TakeViolations()
	out = append(out, m.found...)
	m.found = nil
	full := m.Full || quiescent || !m.incr.built
	if !m.incr.built {
		m.build(h)
	}
	d := m.collect(h)
	defer m.done()
	if !full {
		out = append(out, m.checkSettled(h)...)
		vs := m.checkIncremental(h, d)
		if len(vs) > 1 {
			// Report them in the order of a full sweep: the lists are in
			// the order the step touched them until sorted, which only
			// matters when there is an order to give.
			d.sort()
			vs = m.checkIncremental(h, d)
		}
		return append(out, vs...)
	}
	w := m.walk(h)
	out = append(out, m.checkSettled(h)...)
	out = append(out, checkDataref(h, w)...)
	out = append(out, checkUargHolders(h, w)...)
	out = append(out, checkPageRefs(h, w)...)
	out = append(out, checkSockRefs(h, w)...)
	out = append(out, checkOptmem(h, w, m.OtherOptmem)...)
	out = append(out, m.checkLockedVM(h, w)...)
	out = append(out, m.checkErrQueues(h)...)
	if quiescent {
		out = append(out, checkLeaks(h, w, m.roots(w), m.ownedPages(w))...)
		out = append(out, checkCharges(h, w)...)
		out = append(out, m.checkUnnotified(h, w)...)
	}
	return out
}

// world is the Host's live objects by type, in creation order. The
// Monitor reuses one across Checks, so a check after every step does not
// allocate it anew.
type world struct {
	socks   []*sock.Sock
	uargs   []*ubuf.Info
	skbs    []*skb.Buff
	shinfos []*skb.SharedInfo
	pages   []*mm.Page
	uargsOf map[ubuf.Socket][]*ubuf.Info
	// frags counts the frags pointing at each page (checkPageRefs).
	frags map[*mm.Page]int
}

// walk sorts h's live objects into the Monitor's reused world.
func (m *Monitor) walk(h *kernel.Host) *world {
	w := &m.scratch
	w.socks, w.uargs, w.skbs, w.shinfos, w.pages = w.socks[:0], w.uargs[:0], w.skbs[:0], w.shinfos[:0], w.pages[:0]
	if w.uargsOf == nil {
		w.uargsOf, w.frags = map[ubuf.Socket][]*ubuf.Info{}, map[*mm.Page]int{}
	}
	clear(w.uargsOf)
	clear(w.frags)
	h.LiveObjects(func(t *kernel.Tracked) {
		switch o := t.Self().(type) {
		case *sock.Sock:
			w.socks = append(w.socks, o)
		case *ubuf.Info:
			w.uargs = append(w.uargs, o)
			if o.Flavour == ubuf.MsgZerocopy && o.Socket() != nil {
				w.uargsOf[o.Socket()] = append(w.uargsOf[o.Socket()], o)
			}
		case *skb.Buff:
			w.skbs = append(w.skbs, o)
		case *skb.SharedInfo:
			w.shinfos = append(w.shinfos, o)
		case *mm.Page:
			w.pages = append(w.pages, o)
		}
	})
	return w
}

// holdsUarg reports whether a shared info owns a uarg reference: it points
// at one with SKBFL_ZEROCOPY_ENABLE and is not nouarg.
func holdsUarg(s *skb.SharedInfo) bool {
	return s.Uarg != nil && !s.NoUarg && s.Flags&kernel.SKBFL_ZEROCOPY_ENABLE != 0
}

// checkSettled is rule 3: after the event that queued a notification, the
// buffers of the sends it covers are out of flight, except for pages that
// an outstanding send also uses.
func (m *Monitor) checkSettled(h *kernel.Host) []kernel.Violation {
	var out []kernel.Violation
	var shared map[*mm.Page]bool
	for _, s := range m.settle {
		if s.send.buf == nil {
			continue
		}
		var busy []*mm.Page
		for _, p := range s.send.buf.InFlight() {
			if shared == nil {
				shared = m.outstandingPages()
			}
			if !shared[p] {
				busy = append(busy, p)
			}
		}
		if len(busy) == 0 {
			continue
		}
		obj := &s.sk.Tracked
		if t := h.Object(s.uarg); t != nil {
			obj = t
		}
		v := violation(h, kernel.RuleNotifyAfterPages, obj,
			"%s (id %d) was notified by %v while %d of its pages are still in flight: %s",
			s.send.label, s.send.id, s.uarg, len(busy), somePages(busy))
		out = append(out, v)
	}
	for _, s := range m.settle {
		*s.send = sendRec{}
		m.spareSends = append(m.spareSends, s.send)
	}
	clear(m.settle)
	m.settle = m.settle[:0]
	return out
}

// somePages renders at most four pages.
func somePages(pages []*mm.Page) string {
	if len(pages) > 4 {
		return fmt.Sprintf("%v…", pages[:4])
	}
	return fmt.Sprint(pages)
}

// outstandingPages returns the pages of every send not yet notified.
func (m *Monitor) outstandingPages() map[*mm.Page]bool {
	pages := make(map[*mm.Page]bool)
	for _, st := range m.socks {
		for s := range st.sends.all() {
			if s.buf != nil {
				for _, p := range s.buf.Present() {
					pages[p] = true
				}
			}
		}
	}
	return pages
}

// checkDataref is rule 4: a shared info's dataref counts the live skbs
// that use it.
func checkDataref(h *kernel.Host, w *world) []kernel.Violation {
	users := make(map[*skb.SharedInfo]int)
	for _, b := range w.skbs {
		users[b.Shinfo()]++
	}
	var out []kernel.Violation
	for _, s := range w.shinfos {
		if s.Dataref() != users[s] {
			out = append(out, datarefViolation(h, s, users[s]))
		}
	}
	for _, b := range w.skbs {
		if b.Shinfo().Freed() {
			out = append(out, freedShinfoViolation(h, b))
		}
	}
	return out
}

func datarefViolation(h *kernel.Host, s *skb.SharedInfo, users int) kernel.Violation {
	return violation(h, kernel.RuleRefcount, &s.Tracked, "dataref %d but %d live skbs use it", s.Dataref(), users)
}

func freedShinfoViolation(h *kernel.Host, b *skb.Buff) kernel.Violation {
	return violation(h, kernel.RuleRefcount, &b.Tracked, "uses freed %v", b.Shinfo().Ident())
}

// checkUargHolders is rule 4: every shared info holder of a uarg points
// at it, every shared info pointing at a uarg is one of its holders
// exactly once, and no uarg outlives its socket.
func checkUargHolders(h *kernel.Host, w *world) []kernel.Violation {
	var out []kernel.Violation
	for _, u := range w.uargs {
		out = append(out, uargHolderViolations(h, u)...)
	}
	for _, s := range w.shinfos {
		out = appendShinfoUarg(out, h, s)
	}
	return out
}

// uargHolderViolations checks one uarg's shared info holders and socket.
func uargHolderViolations(h *kernel.Host, u *ubuf.Info) []kernel.Violation {
	var out []kernel.Violation
	for id := range u.AllHolders() {
		if v, bad := holderViolation(h, u, id); bad {
			out = append(out, v)
		}
	}
	return appendUargSocket(out, h, u)
}

// holderViolation reports u held by id if holderBad says so.
func holderViolation(h *kernel.Host, u *ubuf.Info, id kernel.ObjectID) (kernel.Violation, bool) {
	if !holderBad(h, u, id) {
		return kernel.Violation{}, false
	}
	if h.Object(id) == nil {
		return violation(h, kernel.RuleRefcount, &u.Tracked, "held by freed %v", id), true
	}
	return violation(h, kernel.RuleRefcount, &u.Tracked, "held by %v, which does not point at it", id), true
}

// holderBad reports whether a shared info holding a reference of u is
// freed or does not point at u (holders of other kinds are not checked).
func holderBad(h *kernel.Host, u *ubuf.Info, id kernel.ObjectID) bool {
	if id.Kind != "shinfo" {
		return false
	}
	t := h.Object(id)
	if t == nil {
		return true
	}
	s, ok := t.Self().(*skb.SharedInfo)
	return !ok || !holdsUarg(s) || s.Uarg != u
}

// appendUargSocket appends to out a violation if u outlives its socket.
// Like every append* check it returns out itself when the rule holds.
func appendUargSocket(out []kernel.Violation, h *kernel.Host, u *ubuf.Info) []kernel.Violation {
	if sk, ok := u.Socket().(*sock.Sock); ok && sk.Freed() {
		return append(out, violation(h, kernel.RuleRefcount, &u.Tracked, "outlives its socket %v", sk.Ident()))
	}
	return out
}

// appendShinfoUarg appends to out a violation unless a shared info
// holding a uarg is one of its holders exactly once.
func appendShinfoUarg(out []kernel.Violation, h *kernel.Host, s *skb.SharedInfo) []kernel.Violation {
	switch {
	case !holdsUarg(s):
	case s.Uarg.Freed():
		return append(out, violation(h, kernel.RuleRefcount, &s.Tracked, "points at freed %v", s.Uarg.Ident()))
	default:
		if n := s.Uarg.HeldBy(s.Ident()); n != 1 {
			return append(out, violation(h, kernel.RuleRefcount, &s.Tracked,
				"points at %v and holds %d of its references, want 1", s.Uarg, n))
		}
	}
	return out
}

// checkPageRefs is rule 4: each frag of a live shared info owns a
// reference on a live page.
func checkPageRefs(h *kernel.Host, w *world) []kernel.Violation {
	var out []kernel.Violation
	frags := w.frags
	for _, s := range w.shinfos {
		out = appendFreedFrags(out, h, s)
		for _, f := range s.Frags {
			if !f.Page.Freed() {
				frags[f.Page]++
			}
		}
	}
	for _, p := range w.pages {
		out = appendPageRef(out, h, p, frags[p])
	}
	return out
}

// appendFreedFrags appends to out a violation for each frag of s on a
// freed page.
func appendFreedFrags(out []kernel.Violation, h *kernel.Host, s *skb.SharedInfo) []kernel.Violation {
	for _, f := range s.Frags {
		if f.Page.Freed() {
			out = append(out, violation(h, kernel.RuleRefcount, &s.Tracked, "frag on freed %v", f.Page.Ident()))
		}
	}
	return out
}

// appendPageRef appends to out a violation unless a page's refcount
// covers its frags.
func appendPageRef(out []kernel.Violation, h *kernel.Host, p *mm.Page, frags int) []kernel.Violation {
	floor := 0
	if p.Mapped() {
		floor = 1
	}
	if p.Refs() < floor+frags {
		return append(out, violation(h, kernel.RuleRefcount, &p.Tracked,
			"refcount %d but %d frags reference it (floor %d)", p.Refs(), frags, floor))
	}
	return out
}

// checkSockRefs is rule 4: a socket holds a reference for its descriptor
// while open and one for each live uarg.
func checkSockRefs(h *kernel.Host, w *world) []kernel.Violation {
	if h.Profile.Bugs.Has(kernel.BugNoSockRef) {
		return nil
	}
	var out []kernel.Violation
	for _, sk := range w.socks {
		out = appendSockRef(out, h, sk, len(w.uargsOf[sk]))
	}
	return out
}

// appendSockRef appends to out a violation unless one socket's sk_refcnt
// covers its holders.
func appendSockRef(out []kernel.Violation, h *kernel.Host, sk *sock.Sock, uargs int) []kernel.Violation {
	want := uargs
	if !sk.Dead() {
		want++
	}
	if sk.Refcnt() < want {
		return append(out, violation(h, kernel.RuleRefcount, &sk.Tracked,
			"sk_refcnt %d below the %d its descriptor and uargs hold", sk.Refcnt(), want))
	}
	return out
}

// checkOptmem is rule 5: sk_omem_alloc is the sum of what holds it.
func checkOptmem(h *kernel.Host, w *world, other func(*sock.Sock) int) []kernel.Violation {
	var out []kernel.Violation
	wmemBug := h.Profile.Bugs.Has(kernel.BugNotifyWmem)
	owned := ownedSums(w)
	for _, sk := range w.socks {
		want := owned[ownerKey{sk, skb.SockOfree}]
		if !wmemBug {
			want += notifyCharges(sk, w)
		}
		out = appendOptmem(out, h, sk, want, other)
	}
	return out
}

// appendOptmem appends to out a violation unless sk_omem_alloc is owed,
// what its skbs and zerocopy state hold, plus other's share.
func appendOptmem(out []kernel.Violation, h *kernel.Host, sk *sock.Sock, owed int, other func(*sock.Sock) int) []kernel.Violation {
	if other != nil {
		owed += other(sk)
	}
	if sk.OmemAlloc != owed {
		return append(out, violation(h, kernel.RuleAccounting, &sk.Tracked,
			"sk_omem_alloc %d, but its uargs, queued notifications and optmem skbs hold %d", sk.OmemAlloc, owed))
	}
	return out
}

// notifyCharges is the optmem of a socket's live uargs and queued
// zerocopy records.
func notifyCharges(sk *sock.Sock, w *world) int { return notifyChargesOf(sk, w.uargsOf[sk]) }

// notifyChargesOf is the optmem of uargs and of sk's queued zerocopy
// records.
func notifyChargesOf(sk *sock.Sock, uargs []*ubuf.Info) int {
	n := queuedCharges(sk)
	for _, u := range uargs {
		n += u.Truesize
	}
	return n
}

// queuedCharges is the optmem of sk's queued zerocopy records.
func queuedCharges(sk *sock.Sock) int {
	n := 0
	for r := range sk.ErrQueue.All() {
		if r.IsZerocopy() {
			n += r.Truesize
		}
	}
	return n
}

type ownerKey struct {
	sk *sock.Sock
	d  skb.Destructor
}

// ownedSums adds up the truesize of live skbs by owning socket and
// destructor.
func ownedSums(w *world) map[ownerKey]int {
	sums := make(map[ownerKey]int)
	for _, b := range w.skbs {
		o, d := b.Owner()
		if sk := sock.OwnerSock(o); sk != nil {
			sums[ownerKey{sk, d}] += b.Truesize
		}
	}
	return sums
}

// checkCharges is rule 5 at quiescence: sk_wmem_alloc, sk_wmem_queued and
// sk_rmem_alloc equal what live skbs (and, for rmem, queued non-zerocopy
// records) still hold.
func checkCharges(h *kernel.Host, w *world) []kernel.Violation {
	var out []kernel.Violation
	owned := ownedSums(w)
	for _, sk := range w.socks {
		wmem := owned[ownerKey{sk, skb.SockWfree}]
		if h.Profile.Bugs.Has(kernel.BugNotifyWmem) {
			wmem += notifyCharges(sk, w)
		}
		rmem := owned[ownerKey{sk, skb.SockRfree}]
		for r := range sk.ErrQueue.All() {
			if !r.IsZerocopy() {
				rmem += r.Truesize
			}
		}
		for _, c := range []struct {
			name      string
			got, want int
		}{
			{"sk_wmem_alloc", sk.WmemAlloc, wmem},
			{"sk_wmem_queued", sk.WmemQueued, owned[ownerKey{sk, skb.WmemQueued}]},
			{"sk_rmem_alloc", sk.RmemAlloc, rmem},
		} {
			if c.got != c.want {
				out = append(out, violation(h, kernel.RuleAccounting, &sk.Tracked,
					"at quiescence %s is %d, but what holds it adds up to %d", c.name, c.got, c.want))
			}
		}
	}
	return out
}

// checkLockedVM is rule 5: each user's locked_vm (and, under bug
// memlock-per-process, each task's pinned_vm) is the sum of the charges of
// its live uargs.
func (m *Monitor) checkLockedVM(h *kernel.Host, w *world) []kernel.Violation {
	var users []*ubuf.User
	var tasks []*ubuf.Task
	byUser := make(map[*ubuf.User]uint64)
	byTask := make(map[*ubuf.Task]uint64)
	for _, t := range m.tasks {
		tasks = appendNew(tasks, t)
		if t.User != nil {
			users = appendNew(users, t.User)
		}
	}
	for _, u := range w.uargs {
		switch {
		case u.Mmp.Task != nil:
			tasks = appendNew(tasks, u.Mmp.Task)
			byTask[u.Mmp.Task] += u.Mmp.NumPg
		case u.Mmp.User != nil:
			users = appendNew(users, u.Mmp.User)
			byUser[u.Mmp.User] += u.Mmp.NumPg
		}
	}
	return lockedVMViolations(h, users, tasks,
		func(u *ubuf.User) uint64 { return byUser[u] }, func(t *ubuf.Task) uint64 { return byTask[t] })
}

// lockedVMViolations compares each user's locked_vm and each task's
// pinned_vm with the charges of its live uargs, byUser and byTask.
func lockedVMViolations(h *kernel.Host, users []*ubuf.User, tasks []*ubuf.Task,
	byUser func(*ubuf.User) uint64, byTask func(*ubuf.Task) uint64) []kernel.Violation {
	var out []kernel.Violation
	for _, u := range users {
		if c := byUser(u); u.LockedVM != c {
			v := violation(h, kernel.RuleAccounting, nil, "uid %d locked_vm %d pages, but its live uargs are charged %d",
				u.UID, u.LockedVM, c)
			v.Object = kernel.ObjectID{Kind: "user", Serial: uint64(u.UID)}
			out = append(out, v)
		}
	}
	for i, t := range tasks {
		if c := byTask(t); t.PinnedVM != c {
			v := violation(h, kernel.RuleAccounting, nil, "task %s pinned_vm %d pages, but its live uargs are charged %d",
				t.Name, t.PinnedVM, c)
			v.Object = kernel.ObjectID{Kind: "task", Serial: uint64(i + 1)}
			out = append(out, v)
		}
	}
	return out
}

func appendNew[T comparable](s []T, x T) []T {
	for _, y := range s {
		if y == x {
			return s
		}
	}
	return append(s, x)
}

// checkErrQueues is rules 2 and 6: each tracked socket's zerocopy records
// are those its notifications built, codes included.
func (m *Monitor) checkErrQueues(h *kernel.Host) []kernel.Violation {
	var out []kernel.Violation
	for _, st := range m.socks {
		if st.sk.Freed() {
			continue
		}
		if v, bad := compareQueue(h, st, m.zerocopyRecords(st.sk)); bad {
			out = append(out, v)
		}
	}
	return out
}

// zerocopyRecords is sk's queued zerocopy records as ranges and codes, in
// a slice the next call reuses.
func (m *Monitor) zerocopyRecords(sk *sock.Sock) []shadow {
	got := m.shadows[:0]
	for r := range sk.ErrQueue.All() {
		if r.IsZerocopy() {
			got = append(got, shadow{r.Range(), r.Copied()})
		}
	}
	m.shadows = got
	return got
}

func compareQueue(h *kernel.Host, st *sockState, got []shadow) (kernel.Violation, bool) {
	if len(got) != len(st.queue) {
		return violation(h, kernel.RuleNotifyOnce, &st.sk.Tracked,
			"error queue holds %d zerocopy records %v, the notifications built %d %v", len(got), got, len(st.queue), st.queue), true
	}
	for i, g := range got {
		want := st.queue[i]
		switch {
		case g.r != want.r:
			return violation(h, kernel.RuleNotifyOnce, &st.sk.Tracked,
				"error queue record %d is %v, the notifications built %v", i, g.r, want.r), true
		case g.copied != want.copied:
			return violation(h, kernel.RuleCopied, &st.sk.Tracked,
				"error queue record %v has copied=%t, its first notification said %t", g.r, g.copied, want.copied), true
		}
	}
	return kernel.Violation{}, false
}

// checkUnnotified is rules 1 and 2 at quiescence: on every open socket
// sk_zckey is where the last call left it, every id sent is notified or
// still covered by a live uarg, every id notified either reached the
// program or is still queued (lost), and no early notification is
// unmatched.
func (m *Monitor) checkUnnotified(h *kernel.Host, w *world) []kernel.Violation {
	var out []kernel.Violation
	for _, st := range m.socks {
		sk := st.sk
		if sk.Freed() || sk.Dead() {
			continue
		}
		if k := sk.ZCKey(); k != st.ledger.Next() {
			out = append(out, violation(h, kernel.RuleIDs, &sk.Tracked,
				"at quiescence sk_zckey is %d, but the last call left it at %d", k, st.ledger.Next()))
		}
		for _, s := range sortedSends(&st.sends) {
			if !coveredByLive(w.uargsOf[sk], s.id) {
				out = append(out, violation(h, kernel.RuleNotifyOnce, &sk.Tracked,
					"%s (id %d) was never notified, and no live uarg covers it", s.label, s.id))
			}
		}
		for _, s := range st.lost() {
			out = append(out, violation(h, kernel.RuleNotifyOnce, &sk.Tracked,
				"%s (id %d) was notified and taken off the error queue, but the program never received it: its buffer is never released", s.Label, s.ID))
		}
		ids := make([]uint32, 0, len(st.early))
		for id := range st.early {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			out = append(out, violation(h, kernel.RuleNotifyOnce, &sk.Tracked,
				"id %d was notified (%v), but no call returned it", id, st.early[id].uarg))
		}
	}
	return out
}

func sortedSends(sends *sendSet) []*sendRec {
	out := make([]*sendRec, 0, sends.len())
	for s := range sends.all() {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

func coveredByLive(uargs []*ubuf.Info, id uint32) bool {
	for _, u := range uargs {
		if u.Len > 0 && uargRange(u).Contains(id) {
			return true
		}
	}
	return false
}

// roots returns the skbs that may legitimately live at quiescence: those
// on the error queues of open sockets, on the protocols' queues, on
// receive queues and on the network's paths and devices. A closed
// socket's error queue is no root by itself (deadErrQueues): what only it
// keeps alive keeps the socket alive in turn, a cycle only sk_destruct
// could break (the leak of bug B14).
func (m *Monitor) roots(w *world) []*skb.Buff {
	var roots []*skb.Buff
	for _, sk := range w.socks {
		for r := range sk.ErrQueue.All() {
			if r.Skb != nil && !sk.Dead() {
				roots = append(roots, r.Skb)
			}
		}
		if m.QueueSkbs != nil {
			roots = append(roots, m.QueueSkbs(sk)...)
		}
	}
	if m.PathSkbs != nil {
		roots = append(roots, m.PathSkbs()...)
	}
	m.pruneRx()
	return append(roots, m.rx...)
}

// deadQueue is the error queue of a closed socket that is still alive.
type deadQueue struct {
	sk   *sock.Sock
	skbs []*skb.Buff
}

// deadErrQueues lists the closed sockets whose error queues hold skbs, in
// creation order. Such a queue lives until sk_destruct purges it
// (packet_sock_destruct, inet_sock_destruct), and sk_destruct runs only
// when the last sk_wmem_alloc charge and the last uarg reference to the
// socket are gone (sk_free, sock_wfree): so a dead socket's queue is kept
// legitimately exactly when something the roots reach holds the socket.
func deadErrQueues(w *world) []deadQueue {
	var out []deadQueue
	for _, sk := range w.socks {
		if !sk.Dead() {
			continue
		}
		var skbs []*skb.Buff
		for r := range sk.ErrQueue.All() {
			if r.Skb != nil {
				skbs = append(skbs, r.Skb)
			}
		}
		if len(skbs) > 0 {
			out = append(out, deadQueue{sk, skbs})
		}
	}
	return out
}

// reachDead adds to seen the error queues of the closed sockets that a
// reached skb (charged to the socket) or a reached uarg still holds,
// until no more are added: a queue reached that way may hold a further
// socket in turn.
func reachDead(seen map[kernel.ObjectID]bool, w *world, queues []deadQueue) {
	for grown := true; grown; {
		grown = false
		for i, q := range queues {
			if q.skbs != nil && heldFromRoots(seen, w, q.sk) {
				reachInto(seen, q.skbs)
				queues[i].skbs, grown = nil, true
			}
		}
	}
}

// heldFromRoots reports whether a reached skb is charged to sk or a
// reached uarg holds it.
func heldFromRoots(seen map[kernel.ObjectID]bool, w *world, sk *sock.Sock) bool {
	for _, u := range w.uargsOf[sk] {
		if seen[u.Ident()] {
			return true
		}
	}
	for _, b := range w.skbs {
		if o, _ := b.Owner(); sock.OwnerSock(o) == sk && seen[b.Ident()] {
			return true
		}
	}
	return false
}

// pruneRx forgets the receive-queue skbs that were freed since, so that a
// long run's list stays as long as what is queued.
func (m *Monitor) pruneRx() {
	live := m.rx[:0]
	for _, b := range m.rx {
		if !b.Freed() {
			live = append(live, b)
		}
	}
	clear(m.rx[len(live):])
	m.rx, m.rxLive = live, len(live)
}

// reach marks what the roots keep alive: their skbs, shared infos, frag
// pages, frag_list skbs and uargs.
func reach(roots []*skb.Buff) map[kernel.ObjectID]bool {
	seen := make(map[kernel.ObjectID]bool)
	reachInto(seen, roots)
	return seen
}

// reachInto marks in seen what roots keep alive.
func reachInto(seen map[kernel.ObjectID]bool, roots []*skb.Buff) {
	todo := append([]*skb.Buff(nil), roots...)
	for len(todo) > 0 {
		b := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if b.Freed() || seen[b.Ident()] {
			continue
		}
		seen[b.Ident()] = true
		s := b.Shinfo()
		seen[s.Ident()] = true
		for _, f := range s.Frags {
			seen[f.Page.Ident()] = true
		}
		if holdsUarg(s) {
			seen[s.Uarg.Ident()] = true
		}
		todo = append(todo, s.FragList...)
	}
}

// ownedPages lists the pages sockets hold outside skbs.
func (m *Monitor) ownedPages(w *world) []*mm.Page {
	var out []*mm.Page
	for _, sk := range w.socks {
		if m.OwnedPages != nil {
			out = append(out, m.OwnedPages(sk)...)
		}
	}
	return out
}

// checkLeaks is rule 4 at quiescence: nothing lives that no root reaches.
func checkLeaks(h *kernel.Host, w *world, roots []*skb.Buff, pages []*mm.Page) []kernel.Violation {
	seen := reach(roots)
	reachDead(seen, w, deadErrQueues(w))
	for _, p := range pages {
		seen[p.Ident()] = true
	}
	owns := make(map[*sock.Sock]bool)
	for k := range ownedSums(w) {
		owns[k.sk] = true
	}
	var out []kernel.Violation
	leak := func(t *kernel.Tracked, format string, args ...any) {
		out = append(out, violation(h, kernel.RuleRefcount, t, "leaked at quiescence: "+format, args...))
	}
	for _, id := range h.Live() {
		t := h.Object(id)
		switch o := t.Self().(type) {
		case *skb.Buff:
			if !seen[id] {
				leak(t, "%v, users %d, shared info %v", o, o.Users(), o.Shinfo().Ident())
			}
		case *skb.SharedInfo:
			if !seen[id] {
				leak(t, "dataref %d, %d frags, uarg %v", o.Dataref(), len(o.Frags), o.Uarg)
			}
		case *mm.Page:
			if !seen[id] && o.InFlight() {
				leak(t, "%v", o)
			}
		case *ubuf.Info:
			leakedUarg(o, seen[id], leak)
		case *sock.Sock:
			if o.Dead() && len(w.uargsOf[o]) == 0 && !owns[o] {
				leak(t, "closed socket %v with sk_refcnt %d, no uarg holding it and no skb charged to it", o, o.Refcnt())
			}
		}
	}
	return out
}

// leakedUarg reports a uarg no root reaches, or a reference held by
// something other than a shared info (a send call that never dropped it).
func leakedUarg(u *ubuf.Info, reached bool, leak func(*kernel.Tracked, string, ...any)) {
	if !reached {
		leak(&u.Tracked, "%v, holders %v", u, u.Holders())
		return
	}
	for _, id := range u.Holders() {
		if id.Kind != "shinfo" {
			leak(&u.Tracked, "%v, reference of %v never dropped (holders %v)", u, id, u.Holders())
		}
	}
}

// lost returns the sends whose notification was queued and taken off the
// error queue without reaching the program: outstanding in the ledger,
// yet neither waiting for their notification (sends) nor in a record
// still queued. It counts before it looks, so a socket with nothing lost
// costs as many steps as it has queued records.
func (st *sockState) lost() []notify.Send {
	held := uint64(st.sends.len())
	for _, q := range st.queue {
		held += q.r.Len()
	}
	if uint64(st.ledger.Len()) <= held {
		return nil
	}
	var out []notify.Send
	for _, s := range st.ledger.Outstanding() {
		if _, waiting := st.sends.get(s.ID); waiting || st.queued(s.ID) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// queued reports whether id lies in a zerocopy record still queued.
func (st *sockState) queued(id uint32) bool {
	for _, q := range st.queue {
		if q.r.Contains(id) {
			return true
		}
	}
	return false
}
