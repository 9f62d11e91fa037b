package ubuf

import "github.com/zcsim/zcsim/kernel"

// User is a user_struct: the per-uid counter of pages pinned by
// MSG_ZEROCOPY sends, shared by every task and socket of that uid. The zero
// value is uid 0 with nothing pinned.
type User struct {
	UID int
	// LockedVM is user_struct.locked_vm, in pages.
	LockedVM uint64
	// charged is what the live uargs' mmpins hold of it (Charged).
	charged uint64
}

// Charged returns the pages the mmpins of live uargs charge to the user:
// kept where a charge is made (mm_account_pinned_pages), returned
// (mm_unaccount_pinned_pages) or dies with its uarg, it is what LockedVM
// must equal.
func (u *User) Charged() uint64 { return u.charged }

// Task is the calling process: whose user it runs as, its RLIMIT_MEMLOCK and
// whether it has CAP_IPC_LOCK. mm_account_pinned_pages reads the limit of
// the current task but charges the pages to its user.
type Task struct {
	Name string
	User *User
	// Memlock is RLIMIT_MEMLOCK in bytes, the soft limit, the one
	// mm_account_pinned_pages reads; kernel.RLIM_INFINITY for none.
	Memlock uint64
	// MemlockMax is the hard limit, which setrlimit may lower but not
	// raise (the model's tasks have no CAP_SYS_RESOURCE).
	MemlockMax uint64
	// CapIPCLock exempts the task from locked-page accounting.
	CapIPCLock bool
	// CapNetAdmin lets the task set SO_SNDBUFFORCE and SO_RCVBUFFORCE.
	CapNetAdmin bool
	// PinnedVM is the per-process counter charged instead of the user's
	// when the profile has kernel.BugMemlockPerProcess.
	PinnedVM uint64
	// charged is what the live uargs' mmpins hold of it (Charged).
	charged uint64
}

// Charged returns the pages the mmpins of live uargs charge to the task
// (under kernel.BugMemlockPerProcess), as User.Charged.
func (t *Task) Charged() uint64 { return t.charged }

// MMPin is struct mmpin: the user charged for a uarg's pinned pages and how
// many. The zero value has charged nothing.
type MMPin struct {
	User  *User
	Task  *Task // charged task, only under kernel.BugMemlockPerProcess
	NumPg uint64
}

// PinnedPages is the worst-case number of pages a buffer of size bytes can
// span, (size >> PAGE_SHIFT) + 2, as mm_account_pinned_pages counts it,
// whatever the buffer's alignment.
func PinnedPages(size uint64) uint64 { return size>>kernel.PageShift + 2 }

// Refuses reports whether mm_account_pinned_pages of size bytes would
// fail for task were extra more pages locked than are: the check Account
// makes, asked without charging anything.
func Refuses(p *kernel.Profile, task *Task, size, extra uint64) bool {
	numPg, maxPg, accounted := pinLimit(p, task, size)
	switch {
	case !accounted:
		return false
	case p.Bugs.Has(kernel.BugMemlockPerProcess):
		return task.PinnedVM+extra+numPg > maxPg
	}
	return task.User.LockedVM+extra+numPg > maxPg
}

// pinLimit returns the pages mm_account_pinned_pages charges for size
// bytes and the task's RLIMIT_MEMLOCK in pages, and whether it accounts
// them at all: not for a task with CAP_IPC_LOCK, a zero size or, where
// the profile says so, an unlimited RLIMIT_MEMLOCK.
func pinLimit(p *kernel.Profile, task *Task, size uint64) (numPg, maxPg uint64, accounted bool) {
	if task.CapIPCLock || size == 0 || p.MemlockInfinityExempt && task.Memlock == kernel.RLIM_INFINITY {
		return 0, 0, false
	}
	return PinnedPages(size), task.Memlock >> kernel.PageShift, true
}

// Account models mm_account_pinned_pages: it charges PinnedPages(size) to
// the user (the one already recorded in m, else the task's) against the
// task's RLIMIT_MEMLOCK, and reports false (the caller's ENOBUFS) if that
// would exceed the limit. A task with CAP_IPC_LOCK, a zero size and, where
// the profile says so, an unlimited RLIMIT_MEMLOCK are not accounted at all.
func (m *MMPin) Account(p *kernel.Profile, task *Task, size uint64) bool {
	_, ok := m.account(p, task, size)
	return ok
}

// account is Account, also returning on a refusal the history entry that
// says it with its numbers (kernel.OpMemlockRefused).
func (m *MMPin) account(p *kernel.Profile, task *Task, size uint64) (kernel.Entry, bool) {
	numPg, maxPg, accounted := pinLimit(p, task, size)
	if !accounted {
		return kernel.Entry{}, true
	}
	refused := func(have uint64, perProcess bool) (kernel.Entry, bool) {
		return kernel.Entry{Op: kernel.OpMemlockRefused,
			Args: [4]int64{int64(have), int64(numPg), int64(maxPg), kernel.Bool(perProcess)}}, false
	}
	if p.Bugs.Has(kernel.BugMemlockPerProcess) {
		if task.PinnedVM+numPg > maxPg {
			return refused(task.PinnedVM, true)
		}
		task.PinnedVM += numPg
		task.charged += numPg
		m.Task = task
		m.NumPg += numPg
		return kernel.Entry{}, true
	}
	user := m.User
	if user == nil {
		user = task.User
	}
	if user.LockedVM+numPg > maxPg {
		return refused(user.LockedVM, false)
	}
	user.LockedVM += numPg
	user.charged += numPg
	m.User = user
	m.NumPg += numPg
	return kernel.Entry{}, true
}

// Unaccount models mm_unaccount_pinned_pages: it returns every page the
// uarg charged, once.
func (m *MMPin) Unaccount() {
	if locked, _ := m.counters(); locked != nil {
		*locked -= m.NumPg
	}
	m.forget()
}

// forget drops the charge from what the live uargs hold (Charged) without
// returning it: its uarg is gone, whether or not it was unaccounted.
func (m *MMPin) forget() {
	if _, charged := m.counters(); charged != nil {
		*charged -= m.NumPg
	}
	*m = MMPin{}
}

// counters returns the counter m charges (locked_vm, or pinned_vm under
// kernel.BugMemlockPerProcess) and what the live uargs charge to its
// owner, nil if m charges nothing.
func (m *MMPin) counters() (locked, charged *uint64) {
	switch {
	case m.Task != nil:
		return &m.Task.PinnedVM, &m.Task.charged
	case m.User != nil:
		return &m.User.LockedVM, &m.User.charged
	}
	return nil, nil
}
