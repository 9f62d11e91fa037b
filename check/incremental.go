package check

import (
	"slices"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// index is what the incremental check knows of the Host's live objects
// without walking them: the relations the per-step checks need, as they
// stood when each object was last touched (kernel.Host.Touched). It is
// brought up to date at every Check, so that a step's cost depends on what
// it touched, not on how much is alive. Each indexed object's record is
// found through its slot (kernel.Tracked.Slot), not a map.
type index struct {
	built bool
	// chunks hold the records, recChunk each, so that a record never
	// moves; slot 0 is unused, so that it means none. next is the next
	// slot never used; free lists the slots of forgotten records.
	chunks [][]rec
	next   uint32
	free   []uint32
	// byUser and byTask sum the live uargs' locked-page charges.
	byUser    map[*ubuf.User]uint64
	byTask    map[*ubuf.Task]uint64
	userOrder []*ubuf.User // users seen charged, in order of first charge
	taskOrder []*ubuf.Task // tasks seen charged, in order of first charge
	// charged says that a charge moved, or a task was registered, since
	// the last Check: the counters the lockedVM rule compares move with
	// the charges (mm_account_pinned_pages with a uarg's allocation, its
	// unaccounting with the uarg's end), so it is checked only then.
	charged bool
	// userScratch and taskScratch are reused by every lockedVM check.
	userScratch []*ubuf.User
	taskScratch []*ubuf.Task
}

// rec is the index's record of one object; which fields it uses depends on
// the object's type.
type rec struct {
	// skb: its shared info and owning socket, whether it is charged to
	// the owner's optmem (sock_ofree) and then its position in the
	// owner's ofree list.
	shinfo   *skb.SharedInfo
	owner    *sock.Sock
	ofree    bool
	ownedPos int
	// shared info: the live skbs that use it, its frag pages and the uarg
	// it pointed at.
	users []*skb.Buff
	pages []*mm.Page
	uarg  *ubuf.Info
	// page: the frags of live shared infos on it.
	frags int
	// socket: the skbs charged to its optmem and its live msg_zerocopy
	// uargs (in no order), and the sum of those uargs' truesize.
	owned     []*skb.Buff
	uargs     []*ubuf.Info
	uargBytes int
	// uarg: its socket, its position in the socket's uargs, and charge; how many references it had taken
	// (ubuf.Info.Taken) at this Check and at the one before, whose holders
	// since are checked; the Check whose dirty set found a bad holder.
	sk        *sock.Sock
	uargPos   int
	charge    ubuf.MMPin
	charged   bool
	taken     uint64
	checkFrom uint64
	suspect   uint64
}

// recChunk is how many records one chunk of the index holds.
const recChunk = 1024

func (ix *index) at(s uint32) *rec { return &ix.chunks[s/recChunk][s%recChunk] }

// of returns t's record, making one.
func (ix *index) of(t *kernel.Tracked) *rec {
	if s := t.Slot(); s != 0 {
		return ix.at(s)
	}
	var s uint32
	if n := len(ix.free); n > 0 {
		s, ix.free = ix.free[n-1], ix.free[:n-1]
	} else {
		if ix.next%recChunk == 0 {
			ix.chunks = append(ix.chunks, make([]rec, recChunk))
		}
		s = ix.next
		ix.next++
	}
	t.SetSlot(s)
	return ix.at(s)
}

// peek returns t's record, or nil.
func (ix *index) peek(t *kernel.Tracked) *rec {
	if s := t.Slot(); s != 0 {
		return ix.at(s)
	}
	return nil
}

// forget drops the record of a freed object whose relations are gone,
// keeping its slices' storage for the next record of the slot.
func (ix *index) forget(t *kernel.Tracked) {
	s := t.Slot()
	if s == 0 {
		return
	}
	r := ix.at(s)
	*r = rec{users: r.users[:0], pages: r.pages[:0], owned: r.owned[:0], uargs: r.uargs[:0]}
	t.SetSlot(0)
	ix.free = append(ix.free, s)
}

// usersOf is the number of live skbs that use s.
func (ix *index) usersOf(s *skb.SharedInfo) []*skb.Buff {
	if r := ix.peek(&s.Tracked); r != nil {
		return r.users
	}
	return nil
}

// fragsOn is the number of frags of live shared infos on p.
func (ix *index) fragsOn(p *mm.Page) int {
	if r := ix.peek(&p.Tracked); r != nil {
		return r.frags
	}
	return 0
}

// uargsOf is sk's live msg_zerocopy uargs.
func (ix *index) uargsOf(sk *sock.Sock) []*ubuf.Info {
	if r := ix.peek(&sk.Tracked); r != nil {
		return r.uargs
	}
	return nil
}

// uargBytesOf is the truesize of sk's live msg_zerocopy uargs.
func (ix *index) uargBytesOf(sk *sock.Sock) int {
	if r := ix.peek(&sk.Tracked); r != nil {
		return r.uargBytes
	}
	return 0
}

// ofreeBy is the skbs charged to sk's optmem.
func (ix *index) ofreeBy(sk *sock.Sock) []*skb.Buff {
	if r := ix.peek(&sk.Tracked); r != nil {
		return r.owned
	}
	return nil
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
	// holds pairs each shared info with the uarg it pointed at before the
	// step and the one it points at now: the holders of those uargs whose
	// state the step may have changed.
	holds []hold
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
	d.holds = d.holds[:0]
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

func (ix *index) init() {
	ix.chunks, ix.next = nil, 1 // slot 0 means none
	ix.chunks = append(ix.chunks, make([]rec, recChunk))
	ix.byUser, ix.byTask = map[*ubuf.User]uint64{}, map[*ubuf.Task]uint64{}
	ix.built = true
}

// update brings the index up to date for the objects in d from the marks
// in from on (skbs first, so that the shared infos they moved to are
// refreshed too): the objects before them were brought up to date by an
// earlier update of the same Check.
func (ix *index) update(d *dirty, from marks) {
	for _, b := range d.skbs[from.skbs:] {
		ix.skb(b)
	}
	for _, s := range d.shinfos[from.shinfos:] {
		ix.shinfo(s)
	}
	for _, u := range d.uargs[from.uargs:] {
		ix.uarg(u)
	}
}

// marks are the lengths of a dirty set's lists of the types the index
// keeps records of, at some point of a Check.
type marks struct{ skbs, shinfos, uargs int }

func (d *dirty) marks() marks { return marks{len(d.skbs), len(d.shinfos), len(d.uargs)} }

// forgetFreed drops the records of the freed objects in d, once nothing
// in the index points at them.
func (ix *index) forgetFreed(d *dirty) {
	for _, b := range d.skbs {
		if b.Freed() {
			ix.forget(&b.Tracked)
		}
	}
	for _, s := range d.shinfos {
		if r := ix.peek(&s.Tracked); s.Freed() && r != nil && len(r.users) == 0 {
			ix.forget(&s.Tracked)
		}
	}
	for _, u := range d.uargs {
		if u.Freed() {
			ix.forget(&u.Tracked)
		}
	}
	for _, p := range d.pages {
		if r := ix.peek(&p.Tracked); p.Freed() && r != nil && r.frags == 0 {
			ix.forget(&p.Tracked)
		}
	}
}

func (ix *index) skb(b *skb.Buff) {
	r := ix.of(&b.Tracked)
	var now *skb.SharedInfo
	var owner *sock.Sock
	ofree := false
	if !b.Freed() {
		now = b.Shinfo()
		o, d := b.Owner()
		owner = sock.OwnerSock(o)
		ofree = owner != nil && d == skb.SockOfree
	}
	if r.shinfo != now {
		if r.shinfo != nil {
			sr := ix.of(&r.shinfo.Tracked)
			sr.users = remove(sr.users, b)
		}
		if now != nil {
			sr := ix.of(&now.Tracked)
			sr.users = append(sr.users, b)
		}
		r.shinfo = now
	}
	if r.owner == owner && r.ofree == ofree {
		return
	}
	if r.ofree {
		or := ix.of(&r.owner.Tracked)
		last := or.owned[len(or.owned)-1]
		or.owned[r.ownedPos] = last
		ix.of(&last.Tracked).ownedPos = r.ownedPos
		or.owned = or.owned[:len(or.owned)-1]
	}
	if ofree {
		or := ix.of(&owner.Tracked)
		r.ownedPos = len(or.owned)
		or.owned = append(or.owned, b)
	}
	r.owner, r.ofree = owner, ofree
}

func (ix *index) shinfo(s *skb.SharedInfo) {
	r := ix.of(&s.Tracked)
	r.uarg = nil
	if !s.Freed() {
		r.uarg = s.Uarg
	}
	var frags []skb.Frag
	if !s.Freed() {
		frags = s.Frags
	}
	// Only the frags after those still on the pages seen changed (a send
	// appending to an skb adds frags at its end).
	k := samePrefix(r.pages, frags)
	for _, p := range r.pages[k:] {
		ix.of(&p.Tracked).frags--
	}
	r.pages = r.pages[:k]
	if len(frags) == k {
		return
	}
	// Room for a full frag array at once: the slot's storage is kept for
	// whatever record uses it next.
	r.pages = slices.Grow(r.pages, max(len(frags), kernel.MaxSkbFrags)-k)
	for _, f := range frags[k:] {
		r.pages = append(r.pages, f.Page)
		ix.of(&f.Page.Tracked).frags++
	}
}

// samePrefix is how many of frags, from the first, are on the pages seen.
func samePrefix(seen []*mm.Page, frags []skb.Frag) int {
	n := min(len(seen), len(frags))
	for i := range n {
		if seen[i] != frags[i].Page {
			return i
		}
	}
	return n
}

func (ix *index) uarg(u *ubuf.Info) {
	r := ix.of(&u.Tracked)
	r.checkFrom, r.taken = r.taken, u.Taken()
	var sk *sock.Sock
	if !u.Freed() && u.Flavour == ubuf.MsgZerocopy {
		sk, _ = u.Socket().(*sock.Sock)
	}
	if r.sk == sk && r.charged == !u.Freed() && (!r.charged || r.charge == u.Mmp) {
		return // nothing the index keeps of it changed
	}
	if r.sk != nil {
		sr := ix.of(&r.sk.Tracked)
		last := sr.uargs[len(sr.uargs)-1]
		sr.uargs[r.uargPos] = last
		ix.of(&last.Tracked).uargPos = r.uargPos
		sr.uargs = sr.uargs[:len(sr.uargs)-1]
		sr.uargBytes -= u.Truesize
		r.sk = nil
	}
	if r.charged {
		ix.addCharge(r.charge, -1)
		r.charged = false
	}
	if u.Freed() {
		return
	}
	if sk != nil {
		r.sk = sk
		sr := ix.of(&sk.Tracked)
		r.uargPos = len(sr.uargs)
		sr.uargs = append(sr.uargs, u)
		sr.uargBytes += u.Truesize
	}
	r.charge, r.charged = u.Mmp, true
	ix.addCharge(u.Mmp, 1)
}

func (ix *index) addCharge(c ubuf.MMPin, sign int) {
	ix.charged = true
	switch {
	case c.Task != nil:
		ix.taskOrder = appendNew(ix.taskOrder, c.Task)
		ix.byTask[c.Task] = uint64(int64(ix.byTask[c.Task]) + int64(sign)*int64(c.NumPg))
	case c.User != nil:
		ix.userOrder = appendNew(ix.userOrder, c.User)
		ix.byUser[c.User] = uint64(int64(ix.byUser[c.User]) + int64(sign)*int64(c.NumPg))
	}
}

func remove[T comparable](s []T, x T) []T {
	if i := slices.Index(s, x); i >= 0 {
		return slices.Delete(s, i, i+1)
	}
	return s
}

// build fills the index from every live object: the first Check, after
// which the Host keeps its touched list.
func (ix *index) build(h *kernel.Host, d *dirty) {
	ix.init()
	d.reset()
	h.LiveObjects(d.add)
	ix.update(d, marks{})
	ix.forgetFreed(d)
	h.KeepTouched = true
	h.ClearTouched()
}

// collect turns the Host's touched objects into the dirty set and updates
// the index: every touched object, the shared infos, pages, uargs and
// sockets its checks read, and the skbs that use a touched shared info.
func (m *Monitor) collect(h *kernel.Host) *dirty {
	d, ix := &m.dirty, &m.index
	d.reset()
	for _, t := range h.Touched() {
		d.add(t)
	}
	h.ClearTouched()
	for _, sk := range m.hooked {
		d.add(&sk.Tracked)
	}
	m.hooked = m.hooked[:0]
	// What a touched object was related to before the step.
	for _, s := range d.shinfos {
		for _, b := range ix.usersOf(s) {
			d.add(&b.Tracked)
		}
	}
	for i := 0; i < len(d.skbs); i++ {
		if r := ix.peek(&d.skbs[i].Tracked); r != nil {
			if r.shinfo != nil {
				d.add(&r.shinfo.Tracked)
			}
			if r.owner != nil {
				d.add(&r.owner.Tracked)
			}
		}
	}
	for _, s := range d.shinfos {
		if r := ix.peek(&s.Tracked); r != nil {
			for _, p := range r.pages {
				d.add(&p.Tracked)
			}
			if r.uarg != nil {
				d.add(&r.uarg.Tracked)
				d.holds = append(d.holds, hold{s, r.uarg})
			}
		}
	}
	for _, u := range d.uargs {
		if r := ix.peek(&u.Tracked); r != nil && r.sk != nil {
			d.add(&r.sk.Tracked)
		}
	}
	for _, sk := range d.socks {
		if sk.Freed() {
			for _, u := range ix.uargsOf(sk) {
				d.add(&u.Tracked) // a uarg that outlives its socket
			}
		}
	}
	ix.update(d, marks{})
	updated := d.marks()
	// What it is related to now.
	for i := 0; i < len(d.skbs); i++ {
		b := d.skbs[i]
		if !b.Freed() {
			d.add(&b.Shinfo().Tracked)
			o, _ := b.Owner()
			if sk := sock.OwnerSock(o); sk != nil {
				d.add(&sk.Tracked)
			}
		}
	}
	for _, s := range d.shinfos {
		if s.Freed() {
			continue
		}
		for _, f := range s.Frags {
			d.add(&f.Page.Tracked)
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
	}
	ix.update(d, updated)
	m.suspectHolders(h, d)
	return d
}

// suspectHolders marks the uargs of d that may have a holder that is freed
// or does not point at them, so that checkIncremental checks their every
// holder (uargHolderViolations) and reports them in a full sweep's order:
// a holder's state can only have changed if the uarg took the reference
// since the last Check (the end of its holders list) or if the holder is
// one of the step's shared infos (d.holds). Otherwise every holder was
// found good when it was taken or last changed, so the cost is what the
// step touched, not how many holders a uarg has.
func (m *Monitor) suspectHolders(h *kernel.Host, d *dirty) {
	ix := &m.index
	for _, p := range d.holds {
		// holderBad(h, p.u, p.s.Ident()), from the pointer at hand.
		bad := p.s.Freed() || !holdsUarg(p.s) || p.s.Uarg != p.u
		if bad && !p.u.Freed() && p.u.HeldBy(p.s.Ident()) > 0 {
			ix.of(&p.u.Tracked).suspect = d.gen
		}
	}
	for _, u := range d.uargs {
		if u.Freed() {
			continue
		}
		r := ix.of(&u.Tracked)
		for id := range u.HoldersSince(r.checkFrom) {
			if holderBad(h, u, id) {
				r.suspect = d.gen
				break
			}
		}
	}
}

// done forgets what the Check that used d no longer needs.
func (m *Monitor) done(d *dirty) {
	m.index.forgetFreed(d)
	m.index.charged = false
}

// checkIncremental is Check's per-step sweep when not quiescent: the state
// invariants of rules 2, 4 and 5, on the objects the step touched. It only
// reads, so that Check can run it again once d is sorted.
func (m *Monitor) checkIncremental(h *kernel.Host, d *dirty) []kernel.Violation {
	ix := &m.index
	var out []kernel.Violation
	for _, s := range d.shinfos {
		if n := len(ix.usersOf(s)); !s.Freed() && s.Dataref() != n {
			out = append(out, datarefViolation(h, s, n))
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
		case ix.peek(&u.Tracked).suspect == d.gen:
			out = append(out, uargHolderViolations(h, u)...)
		default:
			out = append(out, uargSocketViolations(h, u)...)
		}
	}
	for _, s := range d.shinfos {
		if !s.Freed() {
			out = append(out, shinfoUargViolations(h, s)...)
		}
	}
	for _, s := range d.shinfos {
		if !s.Freed() {
			out = append(out, freedFragViolations(h, s)...)
		}
	}
	for _, p := range d.pages {
		if !p.Freed() {
			out = append(out, pageRefViolations(h, p, ix.fragsOn(p))...)
		}
	}
	for _, sk := range d.socks {
		if !sk.Freed() && !h.Profile.Bugs.Has(kernel.BugNoSockRef) {
			out = append(out, sockRefViolations(h, sk, len(ix.uargsOf(sk)))...)
		}
	}
	for _, sk := range d.socks {
		if !sk.Freed() {
			out = append(out, optmemViolations(h, sk, m.optmemOwed(sk), m.OtherOptmem)...)
		}
	}
	if ix.charged {
		out = append(out, lockedVMViolations(h, m.chargedUsers(), m.chargedTasks(), ix.byUser, ix.byTask)...)
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

// optmemOwed is what a socket's optmem skbs and zerocopy state hold, from
// the index: the skbs it owns are re-read, not remembered.
func (m *Monitor) optmemOwed(sk *sock.Sock) int {
	n := 0
	for _, b := range m.index.ofreeBy(sk) {
		if o, d := b.Owner(); sock.OwnerSock(o) == sk && d == skb.SockOfree {
			n += b.Truesize
		}
	}
	if !sk.Host().Profile.Bugs.Has(kernel.BugNotifyWmem) {
		n += m.index.uargBytesOf(sk) + queuedCharges(sk)
	}
	return n
}

// chargedUsers is the users the lockedVM check covers: those of the
// registered tasks, then those charged by a uarg, as in the full sweep.
func (m *Monitor) chargedUsers() []*ubuf.User {
	users := m.index.userScratch[:0]
	defer func() { m.index.userScratch = users[:0] }()
	for _, t := range m.tasks {
		if t.User != nil {
			users = appendNew(users, t.User)
		}
	}
	for _, u := range m.index.userOrder {
		if m.index.byUser[u] > 0 {
			users = appendNew(users, u)
		}
	}
	return users
}

func (m *Monitor) chargedTasks() []*ubuf.Task {
	tasks := append(m.index.taskScratch[:0], m.tasks...)
	defer func() { m.index.taskScratch = tasks[:0] }()
	for _, t := range m.index.taskOrder {
		if m.index.byTask[t] > 0 {
			tasks = appendNew(tasks, t)
		}
	}
	return tasks
}
