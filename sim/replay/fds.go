package replay

import (
	"fmt"
	"maps"
	"slices"

	"github.com/zcsim/zcsim/sim"

	"github.com/zcsim/zcsim/sim/strace"
)

// fdTable is one process's descriptor table (files_struct): the open
// file each descriptor number refers to. Threads created with CLONE_FILES
// share one table; fork and clone without it give the child a copy, whose
// descriptors refer to the same open files (dup_fd).
type fdTable struct {
	fds map[int]*fdEntry
	// cloexec holds the descriptors marked close-on-exec (FD_CLOEXEC in
	// files_struct's close_on_exec bitmap), which execve closes.
	cloexec map[int]bool
	// maps holds the socket mappings of the process, by address (its mm:
	// a thread shares it with the table; a fork's copy starts empty, so
	// the child's munmap of an inherited mapping is ignored).
	maps map[uint64]*sockMap
}

func newFdTable(n int) *fdTable {
	return &fdTable{fds: make(map[int]*fdEntry, n), cloexec: map[int]bool{}, maps: map[uint64]*sockMap{}}
}

// setCloexec sets or clears fd's close-on-exec flag (__set_close_on_exec,
// __clear_close_on_exec).
func (t *fdTable) setCloexec(fd int, on bool) {
	if on {
		t.cloexec[fd] = true
	} else {
		delete(t.cloexec, fd)
	}
}

// table returns the descriptor table of pid. A pid the log shows no
// fork of (the only process of a log without -f, a thread or child
// created before the capture started) shares the first table the log
// used: threads share it, and it is the one the capture knows.
func (r *replayer) table(pid int) *fdTable {
	if t, ok := r.tables[pid]; ok {
		return t
	}
	if r.first == nil {
		r.first = newFdTable(0)
	}
	r.tables[pid] = r.first
	return r.first
}

// use makes t the current call's table.
func (r *replayer) use(t *fdTable) { r.cur, r.fds = t, t.fds }

// put makes fd refer to e in the current table, dropping what fd referred
// to before (a close the log did not show, or dup2 over it); cloexec is
// the new descriptor's close-on-exec flag (fd_install after
// get_unused_fd_flags).
func (r *replayer) put(fd int, e *fdEntry, cloexec bool) {
	r.drop(fd)
	r.fds[fd] = e
	r.cur.setCloexec(fd, cloexec)
	e.refs++
}

// drop removes fd from the current table and returns the open file it
// referred to, with no descriptor left on it when last.
func (r *replayer) drop(fd int) (e *fdEntry, last bool) {
	e = r.fds[fd]
	if e == nil {
		return nil, false
	}
	delete(r.fds, fd)
	r.cur.setCloexec(fd, false)
	e.refs--
	return e, e.refs == 0
}

// open reports whether some descriptor still refers to e.
func (e *fdEntry) open() bool { return e.refs > 0 }

// dup replays dup, dup2, dup3 and fcntl(F_DUPFD): the new descriptor
// refers to the same open file (f_dupfd, do_dup2), so calls on either
// reach the same model socket and only the last close closes it. The new
// descriptor is close-on-exec only with O_CLOEXEC or F_DUPFD_CLOEXEC.
func (r *replayer) dup(o *strace.Dup) {
	n, ok := o.Result.Ret()
	e := r.fds[o.Fd]
	switch {
	case !ok || n < 0 || n != int64(int32(n)):
		r.ignore(o.Syscall, "failed")
	case e == nil:
		r.unknownFds[o.Fd]++
		r.drop(int(n))
	default:
		r.ignore(o.Syscall, "descriptor alias followed")
		if int(n) != o.Fd {
			r.put(int(n), e, o.CloExec)
		}
	}
}

// fork replays fork, vfork, clone and clone3: the child shares the
// parent's table with CLONE_FILES, else gets a copy (copy_files).
func (r *replayer) fork(o *strace.Fork) {
	n, ok := o.Result.Ret()
	if !ok || n <= 0 || n != int64(int32(n)) {
		r.ignore(o.Syscall, "failed")
		return
	}
	if o.SharesFiles {
		r.ignore(o.Syscall, "thread: shares the descriptor table")
		r.tables[int(n)] = r.cur
		return
	}
	r.ignore(o.Syscall, "child process: copies the descriptor table")
	r.tables[int(n)] = r.cur.copy()
}

// copy is dup_fd: a table whose descriptors refer to the same open files,
// with the same close-on-exec flags.
func (t *fdTable) copy() *fdTable {
	c := newFdTable(len(t.fds))
	for fd, e := range t.fds {
		c.fds[fd] = e
		e.refs++
	}
	for fd := range t.cloexec {
		c.cloexec[fd] = true
	}
	return c
}

// setFd replays fcntl(fd, F_SETFD, flags): the descriptor's close-on-exec
// flag.
func (r *replayer) setFd(o *strace.SetFd) {
	switch n, ok := o.Result.Ret(); {
	case !ok || n != 0:
		r.ignore(o.Syscall, "failed")
	case r.fds[o.Fd] == nil:
		r.ignore(o.Syscall, "not a socket the replay follows")
	default:
		r.ignore(o.Syscall, "close-on-exec flag followed")
		r.cur.setCloexec(o.Fd, o.CloExec)
	}
}

// exec replays a successful execve or execveat: begin_new_exec unshares
// the descriptor table (unshare_files: a table shared with a CLONE_FILES
// child is copied first) and do_close_on_exec closes every descriptor
// marked close-on-exec, the model socket with its last one.
func (r *replayer) exec(o *strace.Exec) {
	if n, ok := o.Result.Ret(); !ok || n != 0 {
		r.ignore(o.Syscall, "failed")
		return
	}
	r.ignore(o.Syscall, "closes close-on-exec descriptors")
	if r.shared(r.cur, o.Pid) {
		r.tables[o.Pid] = r.cur.copy()
		r.use(r.tables[o.Pid])
	}
	fds := slices.Sorted(maps.Keys(r.cur.cloexec))
	r.closeAll(fds, line(&o.Header), func(fd int) string {
		return fmt.Sprintf("%s of pid %d: close-on-exec close(%d)", o.Syscall, o.Pid, fd)
	})
}

// shared reports whether a process other than pid uses table t.
func (r *replayer) shared(t *fdTable, pid int) bool {
	for p, other := range r.tables {
		if p != pid && other == t {
			return true
		}
	}
	return false
}

// closeAll drops fds from the current table, closing each model socket
// whose last descriptor it was; the log shows no call for those closes
// (an exit, an execve), so the report has none.
func (r *replayer) closeAll(fds []int, at int, text func(fd int) string) {
	for _, fd := range fds {
		e, last := r.drop(fd)
		c := sim.Call{Source: fmt.Sprintf("%s:%d", r.file, at), Text: text(fd)}
		switch {
		case last && e.s != nil:
			r.w.Close(c, e.s)
		case last && e.ep != nil:
			r.w.CloseEpoll(c, e.ep.ep)
		}
	}
}

// closeRange replays close_range(first, last, 0): each descriptor in the
// range is closed as close(2) closes it. With CLOSE_RANGE_CLOEXEC they are
// only marked close-on-exec (__range_cloexec).
func (r *replayer) closeRange(o *strace.CloseRange) {
	if o.Result.Kind != strace.ResultValue {
		r.ignore(o.Syscall, "nothing closed")
		return
	}
	fds := make([]int, 0, len(r.fds))
	for fd := range r.fds {
		if uint32(fd) >= o.First && uint32(fd) <= o.Last {
			fds = append(fds, fd)
		}
	}
	if len(fds) == 0 {
		r.ignore(o.Syscall, "no descriptor the replay follows")
		return
	}
	if o.CloExec {
		r.ignore(o.Syscall, "marked close-on-exec")
		for _, fd := range fds {
			r.cur.setCloexec(fd, true)
		}
		return
	}
	slices.Sort(fds)
	for _, fd := range fds {
		r.closeFd(&o.Header, fd, fmt.Sprintf("close_range(%d, %d): close(%d)", o.First, o.Last, fd))
	}
}

// closeFd replays the close of fd in the current table, as close(2) and
// close_range do it: the descriptor goes (even when close fails, as
// Linux's close does), and the model socket is closed only when no other
// descriptor refers to it (filp_close drops one reference; the last one
// releases the socket).
func (r *replayer) closeFd(h *strace.Header, fd int, text string) {
	e, last := r.drop(fd)
	switch {
	case e == nil:
		r.ignore(h.Syscall, "not a socket the replay follows")
		return
	case e.ep != nil:
		// The instance goes with its last descriptor (ep_eventpoll_release).
		r.ignore(h.Syscall, "epoll instance")
		if last {
			r.w.CloseEpoll(r.call(h, text), e.ep.ep)
		}
		return
	case e.s == nil:
		r.ignore(h.Syscall, "socket the model does not follow")
		return
	case !last:
		r.compare(h, fd, e.s.Name, text+" (other descriptors keep the socket open)", h.Result.String(), "0", "")
		return
	}
	r.between(h)
	res := r.w.Close(r.call(h, text), e.s)
	r.compare(h, fd, e.s.Name, text, h.Result.String(), res.String(), "")
	// A client closed before its connection was accepted stays pending:
	// the connection waits in the listener's queue with the data and FIN
	// it got, and accept still returns it (inet_csk_accept).
}

// exit replays the end of a process ("+++ exited with 0 +++", "+++
// killed by SIGKILL +++"): do_exit's exit_files drops its descriptor
// table, closing every descriptor in it, unless a thread that shares the
// table lives on. A model socket whose last descriptor that was is closed
// (the log shows no call for it: the report has none).
func (r *replayer) exit(n strace.Note) {
	t, ok := r.tables[n.Pid]
	if !ok {
		return
	}
	delete(r.tables, n.Pid)
	if r.shared(t, n.Pid) {
		return
	}
	r.use(t)
	r.closeAll(slices.Sorted(maps.Keys(t.fds)), n.Line, func(fd int) string {
		return fmt.Sprintf("exit of pid %d: close(%d)", n.Pid, fd)
	})
}
