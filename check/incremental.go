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
// it touched, not on how much is alive.
type index struct {
	built bool
	// shinfoOf is the shared info each live skb used; users is its inverse.
	shinfoOf map[*skb.Buff]*skb.SharedInfo
	users    map[*skb.SharedInfo][]*skb.Buff
	// fragsOf is the frag pages of each live shared info; fragRefs counts,
	// per page, the frags of live shared infos on it.
	fragsOf  map[*skb.SharedInfo][]*mm.Page
	fragRefs map[*mm.Page]int
	// ownerOf is each live skb's owning socket; owned is its inverse.
	ownerOf map[*skb.Buff]*sock.Sock
	owned   map[*sock.Sock]map[*skb.Buff]struct{}
	// uargs is each socket's live msg_zerocopy uargs, sockOf its inverse.
	uargs  map[*sock.Sock][]*ubuf.Info
	sockOf map[*ubuf.Info]*sock.Sock
	// charge is each live uarg's locked-page charge; byUser and byTask sum
	// them.
	charge    map[*ubuf.Info]ubuf.MMPin
	byUser    map[*ubuf.User]uint64
	byTask    map[*ubuf.Task]uint64
	userOrder []*ubuf.User // users seen charged, in order of first charge
	taskOrder []*ubuf.Task // tasks seen charged, in order of first charge
	// userScratch and taskScratch are reused by every lockedVM check.
	userScratch []*ubuf.User
	taskScratch []*ubuf.Task
	// spare holds frag page slices of freed shared infos for reuse.
	spare [][]*mm.Page
}

// dirty is what one step touched, expanded to what the checks of those
// objects read, each list in creation order.
type dirty struct {
	socks   []*sock.Sock
	uargs   []*ubuf.Info
	skbs    []*skb.Buff
	shinfos []*skb.SharedInfo
	pages   []*mm.Page
	// gen numbers the Check; an object is on the lists once it was
	// visited in this generation (kernel.Tracked.Visit).
	gen uint64
}

func (d *dirty) reset() {
	d.socks, d.uargs, d.skbs, d.shinfos, d.pages = d.socks[:0], d.uargs[:0], d.skbs[:0], d.shinfos[:0], d.pages[:0]
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
	ix.shinfoOf, ix.users = map[*skb.Buff]*skb.SharedInfo{}, map[*skb.SharedInfo][]*skb.Buff{}
	ix.fragsOf, ix.fragRefs = map[*skb.SharedInfo][]*mm.Page{}, map[*mm.Page]int{}
	ix.ownerOf, ix.owned = map[*skb.Buff]*sock.Sock{}, map[*sock.Sock]map[*skb.Buff]struct{}{}
	ix.uargs, ix.sockOf = map[*sock.Sock][]*ubuf.Info{}, map[*ubuf.Info]*sock.Sock{}
	ix.charge, ix.byUser, ix.byTask = map[*ubuf.Info]ubuf.MMPin{}, map[*ubuf.User]uint64{}, map[*ubuf.Task]uint64{}
	ix.built = true
}

// update brings the index up to date for the objects in d (skbs first,
// so that the shared infos they moved to are refreshed too).
func (ix *index) update(d *dirty) {
	for _, b := range d.skbs {
		ix.skb(b)
	}
	for _, s := range d.shinfos {
		ix.shinfo(s)
	}
	for _, u := range d.uargs {
		ix.uarg(u)
	}
}

func (ix *index) skb(b *skb.Buff) {
	old, had := ix.shinfoOf[b]
	var now *skb.SharedInfo
	if !b.Freed() {
		now = b.Shinfo()
	}
	if old != now || !had {
		if had {
			ix.users[old] = remove(ix.users[old], b)
			if len(ix.users[old]) == 0 {
				delete(ix.users, old)
			}
			delete(ix.shinfoOf, b)
		}
		if now != nil {
			ix.shinfoOf[b] = now
			ix.users[now] = append(ix.users[now], b)
		}
	}
	var owner *sock.Sock
	if !b.Freed() {
		o, _ := b.Owner()
		owner, _ = o.(*sock.Sock)
	}
	if prev, ok := ix.ownerOf[b]; ok && prev != owner {
		delete(ix.owned[prev], b)
		delete(ix.ownerOf, b)
	}
	if owner != nil {
		if ix.owned[owner] == nil {
			ix.owned[owner] = map[*skb.Buff]struct{}{}
		}
		ix.owned[owner][b] = struct{}{}
		ix.ownerOf[b] = owner
	}
}

func (ix *index) shinfo(s *skb.SharedInfo) {
	if old, ok := ix.fragsOf[s]; ok && !s.Freed() && sameFrags(old, s.Frags) {
		return
	}
	for _, p := range ix.fragsOf[s] {
		if ix.fragRefs[p]--; ix.fragRefs[p] == 0 {
			delete(ix.fragRefs, p)
		}
	}
	pages, had := ix.fragsOf[s]
	if s.Freed() {
		if had {
			ix.spare = append(ix.spare, pages[:0])
			delete(ix.fragsOf, s)
		}
		return
	}
	if !had && len(ix.spare) > 0 {
		pages = ix.spare[len(ix.spare)-1]
		ix.spare = ix.spare[:len(ix.spare)-1]
	}
	pages = pages[:0]
	for _, f := range s.Frags {
		pages = append(pages, f.Page)
		ix.fragRefs[f.Page]++
	}
	ix.fragsOf[s] = pages
}

// sameFrags reports whether frags are on the pages seen.
func sameFrags(seen []*mm.Page, frags []skb.Frag) bool {
	if len(seen) != len(frags) {
		return false
	}
	for i, f := range frags {
		if seen[i] != f.Page {
			return false
		}
	}
	return true
}

func (ix *index) uarg(u *ubuf.Info) {
	if prev, ok := ix.sockOf[u]; ok {
		ix.uargs[prev] = remove(ix.uargs[prev], u)
		delete(ix.sockOf, u)
	}
	if c, ok := ix.charge[u]; ok {
		ix.addCharge(c, -1)
		delete(ix.charge, u)
	}
	if u.Freed() {
		return
	}
	if sk, ok := u.Socket().(*sock.Sock); ok && u.Flavour == ubuf.MsgZerocopy {
		ix.sockOf[u] = sk
		ix.uargs[sk] = insertByID(ix.uargs[sk], u)
	}
	ix.charge[u] = u.Mmp
	ix.addCharge(u.Mmp, 1)
}

func (ix *index) addCharge(c ubuf.MMPin, sign int) {
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

// insertByID keeps a socket's uargs in creation order.
func insertByID(s []*ubuf.Info, u *ubuf.Info) []*ubuf.Info {
	i := len(s)
	for i > 0 && s[i-1].Ident().Serial > u.Ident().Serial {
		i--
	}
	return slices.Insert(s, i, u)
}

// build fills the index from every live object: the first Check, after
// which the Host keeps its touched list.
func (ix *index) build(h *kernel.Host, d *dirty) {
	ix.init()
	d.reset()
	h.LiveObjects(d.add)
	ix.update(d)
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
		for _, b := range ix.users[s] {
			d.add(&b.Tracked)
		}
	}
	for i := 0; i < len(d.skbs); i++ {
		b := d.skbs[i]
		if s := ix.shinfoOf[b]; s != nil {
			d.add(&s.Tracked)
		}
		if sk := ix.ownerOf[b]; sk != nil {
			d.add(&sk.Tracked)
		}
	}
	for _, s := range d.shinfos {
		for _, p := range ix.fragsOf[s] {
			d.add(&p.Tracked)
		}
	}
	for _, u := range d.uargs {
		if sk := ix.sockOf[u]; sk != nil {
			d.add(&sk.Tracked)
		}
	}
	ix.update(d)
	// What it is related to now.
	for i := 0; i < len(d.skbs); i++ {
		b := d.skbs[i]
		if !b.Freed() {
			d.add(&b.Shinfo().Tracked)
			if o, _ := b.Owner(); o != nil {
				if sk, ok := o.(*sock.Sock); ok {
					d.add(&sk.Tracked)
				}
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
		}
	}
	for _, u := range d.uargs {
		if sk, ok := u.Socket().(*sock.Sock); ok {
			d.add(&sk.Tracked)
		}
	}
	ix.update(d)
	d.sort()
	return d
}

// checkIncremental is Check's per-step sweep when not quiescent: the state
// invariants of rules 2, 4 and 5, on the objects the step touched.
func (m *Monitor) checkIncremental(h *kernel.Host, d *dirty) []kernel.Violation {
	ix := &m.index
	var out []kernel.Violation
	for _, s := range d.shinfos {
		if !s.Freed() && s.Dataref() != len(ix.users[s]) {
			out = append(out, datarefViolation(h, s, len(ix.users[s])))
		}
	}
	for _, b := range d.skbs {
		if !b.Freed() && b.Shinfo().Freed() {
			out = append(out, freedShinfoViolation(h, b))
		}
	}
	for _, u := range d.uargs {
		if !u.Freed() {
			out = append(out, uargHolderViolations(h, u)...)
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
			out = append(out, pageRefViolations(h, p, ix.fragRefs[p])...)
		}
	}
	for _, sk := range d.socks {
		if !sk.Freed() && !h.Profile.Bugs.Has(kernel.BugNoSockRef) {
			out = append(out, sockRefViolations(h, sk, len(ix.uargs[sk]))...)
		}
	}
	for _, sk := range d.socks {
		if !sk.Freed() {
			out = append(out, optmemViolations(h, sk, m.optmemOwed(sk), m.OtherOptmem)...)
		}
	}
	out = append(out, lockedVMViolations(h, m.chargedUsers(), m.chargedTasks(), ix.byUser, ix.byTask)...)
	for _, sk := range d.socks {
		if st := m.bySock[sk]; st != nil && !sk.Freed() {
			if v, bad := compareQueue(h, st, zerocopyRecords(sk)); bad {
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
	for b := range m.index.owned[sk] {
		if o, d := b.Owner(); o == skb.Owner(sk) && d == skb.SockOfree {
			n += b.Truesize
		}
	}
	if !sk.Host().Profile.Bugs.Has(kernel.BugNotifyWmem) {
		n += notifyChargesOf(sk, m.index.uargs[sk])
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
