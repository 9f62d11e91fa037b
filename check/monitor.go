package check

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
)

// Monitor is told what the model did and checks it against the invariants
// of docs/invariants.md. It watches the sockets of one kernel.Host.
//
// The zero value is not usable; create one with NewMonitor.
type Monitor struct {
	// QueueSkbs, if set, returns the skbs a protocol keeps on a socket's
	// queues (write, retransmit, receive, cork): roots of the leak check.
	QueueSkbs func(sk *sock.Sock) []*skb.Buff
	// OtherOptmem, if set, returns the sk_omem_alloc a socket owes to
	// optmem users other than zerocopy (cmsg buffers, filters).
	OtherOptmem func(sk *sock.Sock) int
	// PathSkbs, if set, returns the skbs the network below the sockets
	// keeps, whatever became of the socket that sent them: frames held on
	// a path, transmissions a device has not completed. Roots of the leak
	// check.
	PathSkbs func() []*skb.Buff
	// OwnedPages, if set, returns the pages a socket holds outside any
	// skb (its sk_page_frag): roots of the leak check.
	OwnedPages func(sk *sock.Sock) []*mm.Page

	// Full makes every Check a full sweep of the Host's live objects
	// instead of an incremental one over what the steps since the last
	// Check touched. Both report the same violations; the full sweep costs
	// time in proportion to what is alive, and tests use it as the oracle
	// of the incremental one.
	Full bool

	scratch world       // reused by every full Check
	incr    incremental // what the incremental Check keeps
	dirty   dirty       // reused by every Check
	// spareSends are send records checkSettled is done with; shadows is
	// zerocopyRecords' reused result.
	spareSends []*sendRec
	shadows    []shadow
	pages      []*mm.Page // RxQueued's reused list
	// hooked lists the sockets the hooks heard of since the last Check.
	hooked []*sock.Sock
	socks  []*sockState
	bySock map[*sock.Sock]*sockState
	tasks  []*ubuf.Task
	rx     []*skb.Buff
	rxLive int // how many of rx were live when last pruned
	found  []kernel.Violation
	settle []settled
	seq    uint64
}

// sockState is what the Monitor knows of one socket.
type sockState struct {
	sk          *sock.Sock
	ledger      notify.Ledger
	sends       sendSet               // sent, not yet notified
	early       map[uint32]earlyNotif // notified before their call returned
	zckeyAtCall uint32                // sk_zckey as the call in progress started
	inCall      bool
	queue       []shadow // zerocopy records, as the notifications built them
}

// newSendRec returns a record to fill, reusing one checkSettled is done
// with.
func (m *Monitor) newSendRec() *sendRec {
	if n := len(m.spareSends); n > 0 {
		r := m.spareSends[n-1]
		m.spareSends = m.spareSends[:n-1]
		return r
	}
	return new(sendRec)
}

// sendRec is one successful zerocopy call.
type sendRec struct {
	id     uint32
	label  string
	buf    *mm.Buffer
	copied bool
	seq    uint64
}

// earlyNotif is a notification of an id whose call had not returned yet.
type earlyNotif struct {
	copied bool
	uarg   kernel.ObjectID
}

// shadow is a zerocopy record as the notifications built it.
type shadow struct {
	r      notify.Range
	copied bool
}

// settled is a send whose notification was queued: at the next Check its
// buffer must be out of flight (rule 3).
type settled struct {
	send *sendRec
	uarg kernel.ObjectID
	sk   *sock.Sock
}

// NewMonitor returns a Monitor that knows no socket yet.
func NewMonitor() *Monitor {
	return &Monitor{bySock: make(map[*sock.Sock]*sockState)}
}

// Tracked registers a socket and a task; either may be nil. A socket's ids
// are expected to continue from its current sk_zckey, its error queue's
// zerocopy records are taken as they are, its OnNotify hook is set to
// call Notified after any hook already installed, and its OnPurge hook
// to forget the records a purge of the queue took. A socket's own task is
// registered with it. Registering twice is harmless.
func (m *Monitor) Tracked(sk *sock.Sock, task *ubuf.Task) {
	if task != nil {
		m.addTask(task)
	}
	if sk == nil || m.bySock[sk] != nil {
		return
	}
	if sk.Task != nil {
		m.addTask(sk.Task)
	}
	st := &sockState{sk: sk, early: make(map[uint32]earlyNotif)}
	st.ledger.Expect(sk.ZCKey())
	for r := range sk.ErrQueue.All() {
		if r.IsZerocopy() {
			st.queue = append(st.queue, shadow{r.Range(), r.Copied()})
		}
	}
	m.socks = append(m.socks, st)
	m.bySock[sk] = st
	prev := sk.OnNotify
	sk.OnNotify = func(n ubuf.Notification, merged bool) {
		if prev != nil {
			prev(n, merged)
		}
		m.Notified(sk, n, merged)
	}
	prevPurge := sk.OnPurge
	sk.OnPurge = func() {
		if prevPurge != nil {
			prevPurge()
		}
		st.queue = st.queue[:0] // the records went with the queue, unread
	}
}

func (m *Monitor) addTask(t *ubuf.Task) {
	for _, have := range m.tasks {
		if have == t {
			return
		}
	}
	m.tasks = append(m.tasks, t)
	m.incr.charged = true
}

func (m *Monitor) state(sk *sock.Sock) *sockState {
	m.hooked = append(m.hooked, sk)
	if m.bySock[sk] == nil {
		m.Tracked(sk, nil)
	}
	return m.bySock[sk]
}

// Outstanding returns how many ids sk handed out whose notification has
// not been queued yet.
func (m *Monitor) Outstanding(sk *sock.Sock) int {
	if st := m.bySock[sk]; st != nil {
		return st.sends.len()
	}
	return 0
}

// Renumber tells the Monitor that sk_zckey was set from outside the
// model's calls (a scenario fast-forwarding the counter): the next id is
// expected where it now stands.
func (m *Monitor) Renumber(sk *sock.Sock) { m.state(sk).ledger.Expect(sk.ZCKey()) }

// Before records sk_zckey as a send call starts, so that Sent can compare
// sk_zckey with it, and starts the socket's least sk_omem_alloc afresh
// (sock.Sock.MarkOmem) for the optmem admission check. Without it, Sent
// expects sk_zckey where the previous call left it.
func (m *Monitor) Before(sk *sock.Sock) {
	st := m.state(sk)
	if k := sk.ZCKey(); k != st.ledger.Next() {
		m.report(sk.Host(), kernel.RuleIDs, &sk.Tracked,
			"sk_zckey moved between calls: the last call left %d, now %d", st.ledger.Next(), k)
		st.ledger.Expect(k)
	}
	st.zckeyAtCall = sk.ZCKey()
	sk.MarkOmem()
	st.inCall = true
}

// Sent reports that a send call on sk returned r; label names the call
// (e.g. "demo.zc:12") and buf is the user buffer it sent from, if known.
// Failed calls and calls that took no id are reported too.
func (m *Monitor) Sent(sk *sock.Sock, label string, r sock.SendResult, buf *mm.Buffer) {
	st := m.state(sk)
	h := sk.Host()
	before := st.ledger.Next()
	if st.inCall {
		before = st.zckeyAtCall
	}
	defer func() { st.inCall = false }()
	if !r.ZC {
		if k := sk.ZCKey(); k != before {
			m.report(h, kernel.RuleIDs, &sk.Tracked,
				"%s took no id (result %d, %v) but moved sk_zckey from %d to %d", label, r.N, r.Err, before, k)
			st.ledger.Expect(k)
		}
		return
	}
	m.checkSentID(st, label, r)
	m.seq++
	rec := m.newSendRec()
	*rec = sendRec{id: r.ID, label: label, buf: buf, copied: r.Copied, seq: m.seq}
	var e earlyNotif
	ok := false
	if len(st.early) > 0 { // no lookup in the usual empty map
		e, ok = st.early[r.ID]
	}
	if ok {
		delete(st.early, r.ID)
		m.checkSendCode(h, sk, e.uarg, e.copied, rec)
		m.settle = append(m.settle, settled{rec, e.uarg, sk})
	} else {
		st.sends.put(r.ID, rec)
	}
	m.checkMemlock(sk, r)
	m.checkAdmission(st, r)
}

// checkSentID is rule 1 for a call that consumed an id.
func (m *Monitor) checkSentID(st *sockState, label string, r sock.SendResult) {
	sk, h := st.sk, st.sk.Host()
	if (r.Err != 0 || r.N < 0) && !r.FailedAfterID {
		m.report(h, kernel.RuleIDs, &sk.Tracked, "%s failed (result %d, %v) but consumed id %d", label, r.N, r.Err, r.ID)
	}
	if err := st.ledger.Sent(r.ID, label, r.N); err != nil {
		m.report(h, kernel.RuleIDs, &sk.Tracked, "ids not consecutive: %v", err)
	}
	if k := sk.ZCKey(); k != r.ID+1 {
		m.report(h, kernel.RuleIDs, &sk.Tracked, "%s got id %d but left sk_zckey at %d, want %d", label, r.ID, k, r.ID+1)
	}
	if u := r.Uarg; u != nil && !uargRange(u).Contains(r.ID) {
		m.report(h, kernel.RuleIDs, &u.Tracked, "%s got id %d outside its uarg's range %v", label, r.ID, uargRange(u))
	}
}

// uargRange is the inclusive id range of a msg_zerocopy uarg.
func uargRange(u *ubuf.Info) notify.Range {
	return notify.Range{Lo: u.ID, Hi: u.ID + uint32(u.Len) - 1}
}

// checkMemlock is rule 5's admission half: right after a call whose uarg
// carries a page charge, the charged counter is within the calling task's
// RLIMIT_MEMLOCK, unless the task is exempt.
func (m *Monitor) checkMemlock(sk *sock.Sock, r sock.SendResult) {
	u, t := r.Uarg, sk.Task
	if u == nil || u.Flavour != ubuf.MsgZerocopy || u.Mmp.NumPg == 0 || t == nil || t.CapIPCLock {
		return
	}
	p := sk.Host().Profile
	if p.MemlockInfinityExempt && t.Memlock == kernel.RLIM_INFINITY {
		return
	}
	maxPg := t.Memlock >> kernel.PageShift
	switch {
	case u.Mmp.Task != nil && u.Mmp.Task.PinnedVM > maxPg:
		m.report(sk.Host(), kernel.RuleAccounting, &u.Tracked,
			"task %s pinned_vm %d pages above its RLIMIT_MEMLOCK %d pages", u.Mmp.Task.Name, u.Mmp.Task.PinnedVM, maxPg)
	case u.Mmp.User != nil && u.Mmp.User.LockedVM > maxPg:
		m.report(sk.Host(), kernel.RuleAccounting, &u.Tracked,
			"uid %d locked_vm %d pages above task %s's RLIMIT_MEMLOCK %d pages", u.Mmp.User.UID, u.Mmp.User.LockedVM, t.Name, maxPg)
	}
}

// checkAdmission is sock_omalloc's test: a call that allocated a uarg
// saw omem + SKB_TRUESIZE(0) ≤ optmem_max, omem the least sk_omem_alloc
// since it started (sock.Sock.OmemLow). A call that sleeps for send-buffer
// space before it allocates its uarg (packet_snd waits in
// sock_alloc_send_pskb, then skb_zerocopy_alloc calls sock_omalloc) is
// admitted against the optmem left after the completions that ran while
// it slept, and one carrying SCM_ZC_NOTIFICATION against what remains
// once the handler freed the completions it took; any admitted allocation
// saw at least this least value.
func (m *Monitor) checkAdmission(st *sockState, r sock.SendResult) {
	sk := st.sk
	p := sk.Host().Profile
	if !st.inCall || r.Outcome != ubuf.Allocated || p.Bugs.Has(kernel.BugNotifyWmem) || sk.Net == nil {
		return
	}
	if omem := sk.OmemLow; omem+p.OmallocEstimate > sk.Net.OptmemMax {
		m.report(sk.Host(), kernel.RuleAccounting, &sk.Tracked,
			"sock_omalloc admitted a uarg with omem %d + %d > optmem_max %d", omem, p.OmallocEstimate, sk.Net.OptmemMax)
	}
}

// inFlight reports whether id was allocated by the call in progress: it
// lies in [next, sk_zckey) mod 2^32.
func (st *sockState) inFlight(id uint32) bool {
	next := st.ledger.Next()
	return id-next < st.sk.ZCKey()-next
}

// Notified reports a notification that __msg_zerocopy_callback handed to
// sk's error queue, merged into a record or queued as a new one. Tracked
// installs it as sk.OnNotify.
func (m *Monitor) Notified(sk *sock.Sock, n ubuf.Notification, merged bool) {
	st := m.state(sk)
	h := sk.Host()
	obj := &sk.Tracked
	if t := h.Object(n.Uarg); t != nil {
		obj = t
	}
	rng := notify.Range{Lo: n.Lo, Hi: n.Hi()}
	if sk.Dead() && !h.Profile.NotifyDeadSocket {
		m.report(h, kernel.RuleNotifyOnce, obj, "notification %v queued on %v after SOCK_DEAD", rng, sk.Ident())
	}
	if n.Len == 0 {
		m.report(h, kernel.RuleNotifyOnce, obj, "notification of no id (len 0) queued on %v", sk.Ident())
		return
	}
	var covered []*sendRec
	var bad []uint32
	for i := uint32(0); i < n.Len; i++ {
		id := n.Lo + i
		if s, ok := st.sends.take(id); ok {
			covered = append(covered, s)
			continue
		}
		if _, dup := st.early[id]; !dup && st.inFlight(id) {
			st.early[id] = earlyNotif{copied: n.Copied, uarg: n.Uarg}
			continue
		}
		bad = append(bad, id)
	}
	if len(bad) > 0 {
		m.report(h, kernel.RuleNotifyOnce, obj, "notification %v on %v covers %d ids never sent or already notified: %s",
			rng, sk.Ident(), len(bad), someIDs(bad))
	}
	for _, s := range covered {
		m.checkSendCode(h, sk, n.Uarg, n.Copied, s)
		m.settle = append(m.settle, settled{s, n.Uarg, sk})
	}
	m.checkUargCode(h, n)
	m.shadowAdd(st, n, merged)
}

// someIDs renders at most eight ids.
func someIDs(ids []uint32) string {
	if len(ids) > 8 {
		return fmt.Sprintf("%v…", ids[:8])
	}
	return fmt.Sprint(ids)
}

// checkUargCode is rule 6: the notification's Copied is the negation of the
// uarg's zerocopy flag, the AND of every reference drop's success, on
// profiles whose notifications carry the code (Profile.CopiedCode).
func (m *Monitor) checkUargCode(h *kernel.Host, n ubuf.Notification) {
	t := h.Object(n.Uarg)
	if t == nil {
		return
	}
	u, ok := t.Self().(*ubuf.Info)
	if !ok || u.Flavour != ubuf.MsgZerocopy || n.Copied == !u.Zerocopy || !h.Profile.CopiedCode {
		return
	}
	m.report(h, kernel.RuleCopied, t, "notification [%d,%d] copied=%t but the uarg's zerocopy flag is %t",
		n.Lo, n.Hi(), n.Copied, u.Zerocopy)
}

// checkSendCode is rule 6 for one send: a call that copied its data is
// reported COPIED.
func (m *Monitor) checkSendCode(h *kernel.Host, sk *sock.Sock, uarg kernel.ObjectID, copied bool, s *sendRec) {
	if s.copied && !copied && h.Profile.CopiedCode {
		m.report(h, kernel.RuleCopied, &sk.Tracked, "%s (id %d, %v) copied its data but was notified without COPIED",
			s.label, s.id, uarg)
	}
}

// shadowAdd follows the error queue's zerocopy records: a merged
// notification extends the record at the profile's merge end.
func (m *Monitor) shadowAdd(st *sockState, n ubuf.Notification, merged bool) {
	sk := st.sk
	if !merged {
		st.queue = append(st.queue, shadow{notify.Range{Lo: n.Lo, Hi: n.Hi()}, n.Copied})
		return
	}
	if len(st.queue) == 0 {
		m.report(sk.Host(), kernel.RuleNotifyOnce, &sk.Tracked,
			"notification [%d,%d] merged into an error queue without zerocopy records", n.Lo, n.Hi())
		return
	}
	i := len(st.queue) - 1
	if sk.Host().Profile.NotifyMergeEnd == kernel.QueueHead {
		i = 0
	}
	r := &st.queue[i].r
	if n.Lo != r.Hi+1 {
		m.report(sk.Host(), kernel.RuleNotifyOnce, &sk.Tracked,
			"notification [%d,%d] merged into record %v, which it does not follow", n.Lo, n.Hi(), *r)
	}
	r.Hi = n.Hi()
}

// Read reports a record that recvmsg(MSG_ERRQUEUE) returned on sk: the
// kernel took it off the queue and the program received it.
func (m *Monitor) Read(sk *sock.Sock, rec notify.Record) {
	if !rec.IsZerocopy() {
		return
	}
	m.Unlinked(sk, rec)
	m.Delivered(sk, rec.Range())
}

// Unlinked reports a zerocopy record the kernel took off sk's error queue,
// the first zerocopy record queued: a recvmsg(MSG_ERRQUEUE) or an
// SCM_ZC_NOTIFICATION handler. Whether the program got it is Delivered's
// to say; a record unlinked and never delivered is a lost notification,
// which the check at quiescence reports.
func (m *Monitor) Unlinked(sk *sock.Sock, rec notify.Record) {
	st := m.state(sk)
	h := sk.Host()
	if len(st.queue) == 0 {
		m.report(h, kernel.RuleNotifyOnce, &sk.Tracked, "read %v, but no notification built it", rec)
		return
	}
	head := st.queue[0]
	st.queue = st.queue[1:]
	if head.r != rec.Range() {
		m.report(h, kernel.RuleNotifyOnce, &sk.Tracked, "read %v, but the notifications built %v", rec, head.r)
	} else if head.copied != rec.Copied() {
		m.report(h, kernel.RuleCopied, &sk.Tracked, "read %v with copied=%t, but its first notification said %t",
			rec, rec.Copied(), head.copied)
	}
}

// Delivered reports that the program received the completion of the ids
// in r on sk: each must be outstanding in its ledger.
func (m *Monitor) Delivered(sk *sock.Sock, r notify.Range) {
	st := m.state(sk)
	if _, err := st.ledger.Complete(r); err != nil {
		m.report(sk.Host(), kernel.RuleNotifyOnce, &sk.Tracked, "received %v: %v", r, err)
	}
}

// RxQueued reports that b reached a receive queue of sk on this host. Its
// pages must not be user pages and it must hold no uarg: skb_orphan_frags_rx
// copied the frags and released the zerocopy state, so a reader that never
// reads cannot hold a notification back (rule 7). While it lives it is a
// root of the leak check.
func (m *Monitor) RxQueued(sk *sock.Sock, b *skb.Buff) {
	var user []*mm.Page
	m.pages = b.AppendPages(m.pages[:0])
	for _, p := range m.pages {
		if p.User {
			user = append(user, p)
		}
	}
	if len(user) > 0 {
		m.report(b.Host(), kernel.RuleRxPages, &b.Tracked, "%d user pages on the receive queue of %v: %s",
			len(user), sk.Ident(), somePages(user))
	}
	if u := b.Zcopy(); u != nil {
		m.report(b.Host(), kernel.RuleRxPages, &b.Tracked, "on the receive queue of %v still holding %v", sk.Ident(), u)
	}
	m.RxLooped(sk, b)
}

// RxLooped reports that b reached a receive queue of sk on this host
// through a device under the loopback switch of the RFC v2 benchmarks
// (plain skb_orphan_frags on receive): it may keep the user's pages and
// its uarg, which the reader's free releases, so rule 7 does not apply to
// it. While it lives it is a root of the leak check, as with RxQueued.
func (m *Monitor) RxLooped(sk *sock.Sock, b *skb.Buff) {
	m.hooked = append(m.hooked, sk)
	m.rx = append(m.rx, b)
	if len(m.rx) >= 2*m.rxLive+64 {
		m.pruneRx()
	}
}

// report records a violation found as an event arrived.
func (m *Monitor) report(h *kernel.Host, rule kernel.Rule, t *kernel.Tracked, format string, args ...any) {
	m.found = append(m.found, violation(h, rule, t, format, args...))
}

// violation builds a violation of rule by the object t at the host's
// current step.
func violation(h *kernel.Host, rule kernel.Rule, t *kernel.Tracked, format string, args ...any) kernel.Violation {
	v := kernel.Violation{Step: h.Step, Rule: rule, Message: fmt.Sprintf(format, args...)}
	if t != nil {
		v.Object, v.History = t.Ident(), t.History()
	}
	return v
}
