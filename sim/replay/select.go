package replay

import (
	"github.com/zcsim/zcsim/sim/strace"
)

// selectSyscall replays select(2) or pselect6(2) of followed sockets as
// poll is (guidePoll): do_select asks each descriptor's poll method and
// leaves it in readfds when the mask meets POLLIN_SET, in writefds when
// it meets POLLOUT_SET, in exceptfds when it meets POLLEX_SET
// (kernel.SelectReady), so what is compared, socket by socket, is the
// sets the kernel left it in, from what strace lists after the result.
// A zerocopy sender's queued notification (POLLERR) leaves it in
// writefds, a hung-up socket (POLLHUP) only in readfds. Descriptors
// that are not followed sockets are not compared; a select of none is
// ignored.
func (r *replayer) selectSyscall(o *strace.Select) {
	pc := selectOf(r.fds, o)
	if len(pc.ps) == 0 {
		r.ignore(o.Syscall, "no socket the replay follows")
		return
	}
	r.guidePoll(pc)
}

// selectOf is the pollCall of select o on the followed sockets of fds.
func selectOf(fds map[int]*fdEntry, o *strace.Select) *pollCall {
	pc := &pollCall{h: &o.Header, nfds: len(o.Fds), timeoutNs: o.TimeoutNs, sel: true}
	for _, sfd := range o.Fds {
		if e := fds[sfd.Fd]; e != nil && e.s != nil {
			pc.ps = append(pc.ps, polled{fd: sfd.Fd, s: e.s, sets: sfd.Sets, revents: selectEvents(sfd.Ready)})
		}
	}
	return pc
}
