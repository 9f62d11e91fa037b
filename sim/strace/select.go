package strace

import (
	"sort"
	"strings"

	"github.com/zcsim/zcsim/kernel"
)

// Select is select(nfds, readfds, writefds, exceptfds, timeout) or
// pselect6(nfds, readfds, writefds, exceptfds, timeout, sigmask): each
// descriptor of the three sets, in ascending order as do_select visits
// them, with the sets it was in on entry and, from the result's trailing
// "(in [5], out [4], left {...})", the sets it was left in (none for a
// descriptor strace does not list: it was not ready). TimeoutNs is the
// timeout in nanoseconds (a struct timeval for select, a struct timespec
// for pselect6), -1 for a NULL one.
type Select struct {
	Header
	Fds       []SelectFd `json:"fds"`
	TimeoutNs int64      `json:"timeout_ns"`
}

// SelectFd is one descriptor of a select's sets.
type SelectFd struct {
	Fd    int        `json:"fd"`
	Sets  SelectSets `json:"sets"`
	Ready SelectSets `json:"ready,omitempty"`
}

// SelectSets says which of a select's sets a descriptor is in.
type SelectSets = kernel.SelectSets

// The sets of select(2): readfds, writefds and exceptfds.
const (
	SelectIn  = kernel.SelectIn
	SelectOut = kernel.SelectOut
	SelectEx  = kernel.SelectEx
)

// selectSets are the sets in the order of select's arguments.
var selectSets = [...]SelectSets{SelectIn, SelectOut, SelectEx}

func decodeSelect(h Header, a []Value) (Op, *badArg) {
	want, args := 5, "nfds, readfds, writefds, exceptfds, timeout"
	if h.Syscall == "pselect6" {
		want, args = 6, args+", sigmask"
	}
	if len(a) != want {
		at := Value{}
		if len(a) > 0 {
			at = a[len(a)-1]
		}
		return nil, &badArg{at, "expected " + args}
	}
	if _, bad := intArg(a[0], "nfds"); bad != nil {
		return nil, bad
	}
	op := &Select{Header: h, TimeoutNs: -1}
	sets := map[int]SelectSets{}
	for i, set := range selectSets {
		v := a[1+i].Entry()
		if v.IsNull() {
			continue
		}
		if v.Kind != KindArray {
			return &Ignored{Header: h, Name: h.Syscall, Reason: "descriptors not shown"}, nil
		}
		fds, bad := fdSet(v)
		if bad != nil {
			return nil, bad
		}
		for _, fd := range fds {
			sets[fd] |= set
		}
	}
	for fd, s := range sets {
		op.Fds = append(op.Fds, SelectFd{Fd: fd, Sets: s})
	}
	sort.Slice(op.Fds, func(i, j int) bool { return op.Fds[i].Fd < op.Fds[j].Fd })
	if t := a[4].Entry(); !t.IsNull() {
		ns, bad := selectTimeout(h.Syscall, t)
		if bad != nil {
			return nil, bad
		}
		op.TimeoutNs = ns
	}
	if h.Result.Kind == ResultValue && h.Result.Comment != "" && h.Result.Comment != "Timeout" {
		if bad := op.ready(a[1]); bad != nil {
			return nil, bad
		}
	}
	return op, nil
}

// fdSet reads an fd_set as strace prints it, "[4 5]": the descriptors in
// it, each a number (decorated under -y).
func fdSet(v Value) ([]int, *badArg) {
	fds := make([]int, 0, len(v.Elems))
	for _, e := range v.Elems {
		if e.Kind != KindInt && e.Kind != KindFd {
			return nil, &badArg{e, "an fd_set member is not a descriptor"}
		}
		fd, bad := fdArg(e)
		if bad != nil {
			return nil, bad
		}
		if fd < 0 {
			return nil, &badArg{e, "an fd_set member is negative"}
		}
		fds = append(fds, fd)
	}
	return fds, nil
}

// selectTimeout reads select's struct timeval or pselect6's struct
// timespec as nanoseconds.
func selectTimeout(syscall string, v Value) (int64, *badArg) {
	if syscall == "pselect6" {
		return timespecArg(v, "timeout")
	}
	sec, ok1 := v.Field("tv_sec")
	usec, ok2 := v.Field("tv_usec")
	s, ok3 := sec.AsInt()
	u, ok4 := usec.AsInt()
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, &badArg{v, "timeout is not a struct timeval"}
	}
	return s*1e9 + u*1e3, nil
}

// ready reads the sets strace lists after the result, "in [5], out [4]"
// (with ", left {...}" when the timeout was not NULL), into the
// descriptors; at is the argument an error is reported at. A descriptor
// listed that was not asked about, or a set named twice, is malformed.
func (op *Select) ready(at Value) *badArg {
	rest := op.Result.Comment
	var seen SelectSets
	for rest != "" {
		name, after, _ := strings.Cut(rest, " ")
		if name == "left" {
			return nil
		}
		set, ok := kernel.SelectSetNames.ByName(name)
		if !ok || seen&set != 0 {
			return &badArg{at, "the ready sets after the result are not \"in [...]\", \"out [...]\" or \"except [...]\""}
		}
		seen |= set
		c := &cursor{s: after, segs: []segment{{}}, mem: &carver{}}
		var list Value
		if err := c.value(&list); err != nil || list.Kind != KindArray {
			return &badArg{at, "a ready set after the result is not an fd_set"}
		}
		fds, bad := fdSet(list)
		if bad != nil {
			return &badArg{at, bad.msg + " after the result"}
		}
		for _, fd := range fds {
			i := sort.Search(len(op.Fds), func(i int) bool { return op.Fds[i].Fd >= fd })
			if i == len(op.Fds) || op.Fds[i].Fd != fd || op.Fds[i].Sets&set == 0 {
				return &badArg{at, "a ready descriptor was not in the set it was asked about"}
			}
			op.Fds[i].Ready |= set
		}
		rest = strings.TrimPrefix(after[c.i:], ", ")
		if len(rest) == len(after[c.i:]) && rest != "" {
			return &badArg{at, "the ready sets after the result are not separated by \", \""}
		}
	}
	return nil
}
