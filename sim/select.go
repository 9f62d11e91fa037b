package sim

import (
	"math/bits"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
)

// SelectFd is one descriptor of Select: its socket, the sets it is in
// and, once the call returned, the sets it was left in.
type SelectFd struct {
	S     *Socket
	Sets  kernel.SelectSets
	Ready kernel.SelectSets
}

// Select models select(2) or pselect6(2) of sockets (do_select): it waits
// until a descriptor is ready, the timeout passes or the network goes
// idle, leaves each descriptor in the sets its poll mask (pollMask) meets
// (kernel.SelectReady: POLLIN_SET for readfds, POLLOUT_SET for writefds,
// POLLEX_SET for exceptfds), writes Ready and returns how many set
// memberships it left, as do_select counts them (a descriptor readable
// and writable counts twice). Unlike poll, a descriptor is not ready on
// POLLHUP or POLLERR unless a set it is in has them: POLLHUP only
// readfds, POLLERR readfds and writefds. A closed socket fails the call
// with EBADF (max_select_fd) at once. The timeline names each ready
// socket with its sets.
func (w *World) Select(c Call, fds []SelectFd, timeout engine.Duration) Result {
	for i := range fds {
		if fds[i].S.closed {
			return w.FailCall(c, "select", kernel.EBADF)
		}
	}
	ready := func() bool {
		for i := range fds {
			if kernel.SelectReady(w.pollMask(fds[i].S), fds[i].Sets) != 0 {
				return true
			}
		}
		return false
	}
	w.pollWait(ready, timeout)
	w.begin()
	n := 0
	var said []string
	for i := range fds {
		fd := &fds[i]
		fd.Ready = kernel.SelectReady(w.pollMask(fd.S), fd.Sets)
		if fd.Ready == 0 {
			continue
		}
		n += bits.OnesCount8(uint8(fd.Ready))
		said = append(said, fd.S.Name+" "+fd.Ready.String())
	}
	if n > 0 {
		w.say("ready " + strings.Join(said, ", "))
	}
	r := ok(int64(n))
	w.record(c, "select", nil, r)
	return r
}
