package check

import (
	"slices"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// incremental is what the incremental check keeps from one Check to the
// next. The sums its rules compare with the refcounts and charges are
// kept by the model where it changes them — the live skbs of a shared
// info (skb.SharedInfo.Skbs), the frags on a page (mm.Page.Frags), a
// socket's live uargs and their optmem (sock.Sock.LiveUargs), the pages
// the live uargs charge to a user or task (ubuf.User.Charged), the
// holders whose references of a uarg moved since it was last looked at
// (ubuf.Info.Moved)
// — so that a Check reads them from the objects a step touched, not from
// an index of every live object.
type incremental struct {
	built bool
	// users and tasks are those a live uarg charged, in order of first
	// charge.
	users []*ubuf.User
	tasks []*ubuf.Task
	// charged says that a uarg was touched, or a task registered, since
	// the last Check: the counters the lockedVM rule compares move with
	// the charges (mm_account_pinned_pages with a uarg's allocation, its
	// unaccounting with the uarg's end), so it is checked only then.
	charged bool
	// ofree lists the live skbs charged to a socket's optmem (sock_ofree)
	// and that socket, as last seen: when one is freed or orphaned, the
	// socket's sk_omem_alloc moved.
	ofree []ofreeSkb
	// userScratch and taskScratch are reused by every lockedVM check.
	userScratch []*ubuf.User
	taskScratch []*ubuf.Task
}

type ofreeSkb struct {
	b  *skb.Buff
	sk *sock.Sock
}

// dirty is what one step touched, expanded to what the checks of those
// objects read, each list in the order first reached until sort puts it in
// creation order.
type dirty struct {
	socks   []*sock.Sock
	uargs   []*ubuf.Info
	skbs    []*skb.Buff
	shinfos []*skb.SharedInfo
	pages   []*mm.Page
	// holds pairs each shared info with the uarg it points at: a holder
	// of that uarg whose state the step may have changed.
	holds []hold
	// suspects are the uargs that may have a bad holder (suspectHolders).
	suspects []*ubuf.Info
	// freedFrags says that a page was freed under a live shared info's
	// frag: the frags of the step's shared infos are checked then.
	freedFrags bool
	// gen numbers the Check; an object is on the lists once it was
	// visited in this generation (kernel.Tracked.Visit).
	gen uint64
}

// hold is a shared info and a uarg it may hold a reference of.
type hold struct {
	s *skb.SharedInfo
	u *ubuf.Info
}

func (d *dirty) reset() {
	d.socks, d.uargs, d.skbs, d.shinfos, d.pages = d.socks[:0], d.uargs[:0], d.skbs[:0], d.shinfos[:0], d.pages[:0]
	d.holds, d.suspects, d.freedFrags = d.holds[:0], d.suspects[:0], false
	d.gen++
}

// add puts t's object on its list, once.
func (d *dirty) add(t *kernel.Tracked) {
	if t == nil || !t.Visit(d.gen) {
		return
	}
	switch o := t.Self().(type) {
	case *sock.Sock:
		d.socks = append(d.socks, o)
	case *ubuf.Info:
		d.uargs = append(d.uargs, o)
	case *skb.Buff:
		d.skbs = append(d.skbs, o)
	case *skb.SharedInfo:
		d.shinfos = append(d.shinfos, o)
	case *mm.Page:
		d.pages = append(d.pages, o)
	}
}

// sort puts every list in creation order, the order of a full sweep.
func (d *dirty) sort() {
	sortByID(d.socks, func(s *sock.Sock) kernel.ObjectID { return s.Ident() })
	sortByID(d.uargs, func(u *ubuf.Info) kernel.ObjectID { return u.Ident() })
	sortByID(d.skbs, func(b *skb.Buff) kernel.ObjectID { return b.Ident() })
	sortByID(d.shinfos, func(s *skb.SharedInfo) kernel.ObjectID { return s.Ident() })
	sortByID(d.pages, func(p *mm.Page) kernel.ObjectID { return p.Ident() })
}

func sortByID[T any](s []T, id func(T) kernel.ObjectID) {
	slices.SortFunc(s, func(a, b T) int {
		x, y := id(a).Serial, id(b).Serial
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
}

// suspect reports whether u is one of d's suspects.
func (d *dirty) suspect(u *ubuf.Info) bool { return slices.Contains(d.suspects, u) }

// build starts the incremental check from every live object: the first
// Check, after which the Host keeps its touched list.
func (m *Monitor) build(h *kernel.Host) {
	in := &m.incr
	d := &m.dirty
	d.reset()
	h.LiveObjects(d.add)
	for _, u := range d.uargs {
		in.chargedBy(u)
		u.Moved() // a full sweep checks them all now
	}
	for _, b := range d.skbs {
		in.seeOwner(b)
	}
	in.built = true
	h.KeepTouched = true
	h.ClearTouched()
	mm.ClearUncovered(h)
}

// chargedBy notes the user or task a live uarg charges.
func (in *incremental) chargedBy(u *ubuf.Info) {
	switch {
	case u.Freed():
	case u.Mmp.Task != nil:
		in.tasks = appendNew(in.tasks, u.Mmp.Task)
	case u.Mmp.User != nil:
		in.users = appendNew(in.users, u.Mmp.User)
	}
}

// seeOwner returns the socket a live skb is charged to, noting it if that
// is the socket's optmem.
func (in *incremental) seeOwner(b *skb.Buff) *sock.Sock {
	o, d := b.Owner()
	sk := sock.OwnerSock(o)
	if sk != nil && d == skb.SockOfree && !slices.Contains(in.ofree, ofreeSkb{b, sk}) {
		in.ofree = append(in.ofree, ofreeSkb{b, sk})
	}
	return sk
}

// collect turns the Host's touched objects into the dirty set: every
// touched object, the pages whose references no longer cover their frags
// (mm.Uncovered: put_page and a frag's attachment list them), the sockets
// the hooks heard of, and what their checks read as it is now — an skb's
// shared info (a freed skb's too) and owner, a shared info's uarg, a
// uarg's socket and the holders whose references of it moved. What a step
// took away from an object without touching it cannot break its rules: a
// frag leaving a page, an skb leaving a shared info with its dataref, each
// lowers both sides of the rule at once. Where the counters say that a
// freed object is still used (a live skb on a freed shared info, a live
// uarg of a freed socket, a frag on a freed page), the users are found by
// a walk of the live objects: a violation's cost, not a step's.
func (m *Monitor) collect(h *kernel.Host) *dirty {
	d, in := &m.dirty, &m.incr
	d.reset()
	for _, t := range h.Touched() {
		d.add(t)
	}
	h.ClearTouched()
	for _, p := range mm.Uncovered(h) {
		d.add(&p.Tracked)
	}
	mm.ClearUncovered(h)
	for _, sk := range m.hooked {
		d.add(&sk.Tracked)
	}
	m.hooked = m.hooked[:0]
	// An skb charged to optmem that is no longer: its socket's
	// sk_omem_alloc moved.
	kept := in.ofree[:0]
	for _, o := range in.ofree {
		if ow, ds := o.b.Owner(); o.b.Freed() || sock.OwnerSock(ow) != o.sk || ds != skb.SockOfree {
			d.add(&o.sk.Tracked)
			continue
		}
		kept = append(kept, o)
	}
	clear(in.ofree[len(kept):])
	in.ofree = kept
	for _, b := range d.skbs {
		d.add(&b.Shinfo().Tracked)
		if !b.Freed() {
			if sk := in.seeOwner(b); sk != nil {
				d.add(&sk.Tracked)
			}
		}
	}
	for i := 0; i < len(d.shinfos); i++ {
		s := d.shinfos[i]
		if s.Freed() && s.Skbs() > 0 {
			usersOfFreed(h, d, s)
		}
		if s.Uarg != nil {
			d.add(&s.Uarg.Tracked)
			d.holds = append(d.holds, hold{s, s.Uarg})
		}
	}
	for _, u := range d.uargs {
		if sk, ok := u.Socket().(*sock.Sock); ok {
			d.add(&sk.Tracked)
		}
		in.chargedBy(u)
		in.charged = true
		m.holdersOf(h, d, u)
	}
	for _, sk := range d.socks {
		if n, _ := sk.LiveUargs(); sk.Freed() && n > 0 {
			uargsOfFreed(h, d, sk)
		}
	}
	for _, p := range d.pages {
		if p.Freed() && p.Frags() > 0 {
			shinfosOnFreed(h, d, p)
			d.freedFrags = true
		}
	}
	m.suspectHolders(d)
	return d
}

// holdersOf adds the shared infos whose references of u moved since it
// was last looked at (ubuf.Info.Moved: those it took and those it
// dropped, which may still point at it) and, once it is freed, any it
// still has. A uarg with a bad new holder is a suspect.
func (m *Monitor) holdersOf(h *kernel.Host, d *dirty, u *ubuf.Info) {
	taken, dropped := u.Moved()
	if u.Freed() {
		taken = u.Holders()
	}
	bad := false
	for _, id := range taken {
		if id.Kind == "shinfo" {
			d.add(h.Object(id))
			bad = bad || holderBad(h, u, id)
		}
	}
	for _, id := range dropped {
		if id.Kind == "shinfo" {
			d.add(h.Object(id))
		}
	}
	if bad && !u.Freed() && !d.suspect(u) {
		d.suspects = append(d.suspects, u)
	}
}

// usersOfFreed adds the live skbs that use s, a freed shared info.
func usersOfFreed(h *kernel.Host, d *dirty, s *skb.SharedInfo) {
	h.LiveObjects(func(t *kernel.Tracked) {
		if b, ok := t.Self().(*skb.Buff); ok && b.Shinfo() == s {
			d.add(t)
		}
	})
}

// shinfosOnFreed adds the live shared infos with a frag on p, a freed page.
func shinfosOnFreed(h *kernel.Host, d *dirty, p *mm.Page) {
	h.LiveObjects(func(t *kernel.Tracked) {
		if s, ok := t.Self().(*skb.SharedInfo); ok && slices.ContainsFunc(s.Frags, func(f skb.Frag) bool { return f.Page == p }) {
			d.add(t)
		}
	})
}

// uargsOfFreed adds the live uargs of sk, a freed socket.
func uargsOfFreed(h *kernel.Host, d *dirty, sk *sock.Sock) {
	h.LiveObjects(func(t *kernel.Tracked) {
		if u, ok := t.Self().(*ubuf.Info); ok && u.Flavour == ubuf.MsgZerocopy && u.Socket() == ubuf.Socket(sk) {
			d.add(t)
		}
	})
}

// suspectHolders adds to the suspects the uargs of d that may have a
// holder that is freed or does not point at them, so that
// checkIncremental checks their every holder (uargHolderViolations) and
// reports them in a full sweep's order: a holder's state can only have
// changed if the uarg took the reference since it was last looked at
// (holdersOf) or if the holder is one of the step's shared infos
// (d.holds). Otherwise every holder was found good when it was taken or
// last changed, so the cost is what the step touched, not how many
// holders a uarg has.
func (m *Monitor) suspectHolders(d *dirty) {
	for _, p := range d.holds {
		// holderBad(h, p.u, p.s.Ident()), from the pointer at hand.
		bad := p.s.Freed() || !holdsUarg(p.s) || p.s.Uarg != p.u
		if bad && !p.u.Freed() && p.u.HeldBy(p.s.Ident()) > 0 && !d.suspect(p.u) {
			d.suspects = append(d.suspects, p.u)
		}
	}
}

// checkIncremental is Check's per-step sweep when not quiescent: the state
// invariants of rules 2, 4 and 5, on the objects the step touched. It only
// reads, so that Check can run it again once d is sorted.
func (m *Monitor) checkIncremental(h *kernel.Host, d *dirty) []kernel.Violation {
	var out []kernel.Violation
	for _, s := range d.shinfos {
		if !s.Freed() && s.Dataref() != s.Skbs() {
			out = append(out, datarefViolation(h, s, s.Skbs()))
		}
	}
	for _, b := range d.skbs {
		if !b.Freed() && b.Shinfo().Freed() {
			out = append(out, freedShinfoViolation(h, b))
		}
	}
	for _, u := range d.uargs {
		switch {
		case u.Freed():
		case d.suspect(u):
			out = append(out, uargHolderViolations(h, u)...)
		default:
			out = appendUargSocket(out, h, u)
		}
	}
	for _, s := range d.shinfos {
		if s.Freed() {
			continue
		}
		out = appendShinfoUarg(out, h, s)
	}
	for _, s := range d.shinfos {
		if d.freedFrags && !s.Freed() {
			out = appendFreedFrags(out, h, s)
		}
	}
	for _, p := range d.pages {
		if p.Freed() {
			continue
		}
		out = appendPageRef(out, h, p, p.Frags())
	}
	noSockRef := h.Profile.Bugs.Has(kernel.BugNoSockRef)
	for _, sk := range d.socks {
		if n, _ := sk.LiveUargs(); !sk.Freed() && !noSockRef {
			out = appendSockRef(out, h, sk, n)
		}
	}
	for _, sk := range d.socks {
		if sk.Freed() {
			continue
		}
		out = appendOptmem(out, h, sk, m.optmemOwed(sk), m.OtherOptmem)
	}
	if m.incr.charged && m.lockedVMMoved() {
		out = append(out, lockedVMViolations(h, m.chargedUsers(), m.chargedTasks(), (*ubuf.User).Charged, (*ubuf.Task).Charged)...)
	}
	for _, sk := range d.socks {
		if st := m.bySock[sk]; st != nil && !sk.Freed() {
			if v, bad := compareQueue(h, st, m.zerocopyRecords(sk)); bad {
				out = append(out, v)
			}
		}
	}
	return out
}

// done forgets what the Check that used d no longer needs.
func (m *Monitor) done() { m.incr.charged = false }

// optmemOwed is what a socket's optmem skbs and zerocopy state hold: the
// skbs it owns are re-read, not remembered.
func (m *Monitor) optmemOwed(sk *sock.Sock) int {
	n := 0
	for _, o := range m.incr.ofree {
		if ow, d := o.b.Owner(); o.sk == sk && sock.OwnerSock(ow) == sk && d == skb.SockOfree && !o.b.Freed() {
			n += o.b.Truesize
		}
	}
	if !sk.Host().Profile.Bugs.Has(kernel.BugNotifyWmem) {
		_, uargBytes := sk.LiveUargs()
		n += uargBytes + queuedCharges(sk)
	}
	return n
}

// lockedVMMoved reports whether a user's locked_vm or a task's pinned_vm
// differs from its live uargs' charge, among the users and tasks that
// chargedUsers and chargedTasks list and maybe more: the cheap test before
// the lists are built in a full sweep's order.
func (m *Monitor) lockedVMMoved() bool {
	for _, t := range m.tasks {
		if t.PinnedVM != t.Charged() || t.User != nil && t.User.LockedVM != t.User.Charged() {
			return true
		}
	}
	for _, u := range m.incr.users {
		if u.LockedVM != u.Charged() {
			return true
		}
	}
	for _, t := range m.incr.tasks {
		if t.PinnedVM != t.Charged() {
			return true
		}
	}
	return false
}

// chargedUsers is the users the lockedVM check covers: those of the
// registered tasks, then those charged by a uarg, as in the full sweep.
func (m *Monitor) chargedUsers() []*ubuf.User {
	users := m.incr.userScratch[:0]
	defer func() { m.incr.userScratch = users[:0] }()
	for _, t := range m.tasks {
		if t.User != nil {
			users = appendNew(users, t.User)
		}
	}
	for _, u := range m.incr.users {
		if u.Charged() > 0 {
			users = appendNew(users, u)
		}
	}
	return users
}

func (m *Monitor) chargedTasks() []*ubuf.Task {
	tasks := append(m.incr.taskScratch[:0], m.tasks...)
	defer func() { m.incr.taskScratch = tasks[:0] }()
	for _, t := range m.incr.tasks {
		if t.Charged() > 0 {
			tasks = appendNew(tasks, t)
		}
	}
	return tasks
}
