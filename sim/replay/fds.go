package replay

import (
	"fmt"
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
		r.first = &fdTable{fds: map[int]*fdEntry{}}
	}
	r.tables[pid] = r.first
	return r.first
}

// use makes t the current call's table.
func (r *replayer) use(t *fdTable) { r.cur, r.fds = t, t.fds }

// put makes fd refer to e in the current table, dropping what fd referred
// to before (a close the log did not show, or dup2 over it).
func (r *replayer) put(fd int, e *fdEntry) {
	r.drop(fd)
	r.fds[fd] = e
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
	e.refs--
	return e, e.refs == 0
}

// open reports whether some descriptor still refers to e.
func (e *fdEntry) open() bool { return e.refs > 0 }

// dup replays dup, dup2, dup3 and fcntl(F_DUPFD): the new descriptor
// refers to the same open file (f_dupfd, do_dup2), so calls on either
// reach the same model socket and only the last close closes it.
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
			r.put(int(n), e)
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
	child := &fdTable{fds: make(map[int]*fdEntry, len(r.fds))}
	for fd, e := range r.fds {
		child.fds[fd] = e
		e.refs++
	}
	r.tables[int(n)] = child
}

// closeRange replays close_range(first, last, 0): each descriptor in the
// range is closed as close(2) closes it. With CLOSE_RANGE_CLOEXEC they are
// only marked close-on-exec, which the replay does not follow.
func (r *replayer) closeRange(o *strace.CloseRange) {
	if o.CloExec || o.Result.Kind != strace.ResultValue {
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
	for _, other := range r.tables {
		if other == t {
			return
		}
	}
	fds := make([]int, 0, len(t.fds))
	for fd := range t.fds {
		fds = append(fds, fd)
	}
	slices.Sort(fds)
	r.use(t)
	for _, fd := range fds {
		if e, last := r.drop(fd); last && e.s != nil {
			text := fmt.Sprintf("exit of pid %d: close(%d)", n.Pid, fd)
			r.w.Close(sim.Call{Source: fmt.Sprintf("%s:%d", r.file, n.Line), Text: text}, e.s)
		}
	}
}
