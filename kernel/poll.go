package kernel

// PollEvents are the events of poll(2) (include/uapi/asm-generic/poll.h):
// what a pollfd asks for in events and gets back in revents.
type PollEvents uint16

// Poll events.
const (
	POLLIN     PollEvents = 0x1
	POLLPRI    PollEvents = 0x2
	POLLOUT    PollEvents = 0x4
	POLLERR    PollEvents = 0x8
	POLLHUP    PollEvents = 0x10
	POLLNVAL   PollEvents = 0x20
	POLLRDNORM PollEvents = 0x40
	POLLRDBAND PollEvents = 0x80
	POLLWRNORM PollEvents = 0x100
	POLLWRBAND PollEvents = 0x200
	POLLRDHUP  PollEvents = 0x2000
)

// PollAlways are the events poll reports whether asked for or not
// (do_pollfd: filter = demangle_poll(events) | EPOLLERR | EPOLLHUP).
const PollAlways = POLLERR | POLLHUP

// PollEventNames names each poll event.
var PollEventNames = NewSymbols(
	Symbol[PollEvents]{"POLLIN", POLLIN}, Symbol[PollEvents]{"POLLPRI", POLLPRI},
	Symbol[PollEvents]{"POLLOUT", POLLOUT}, Symbol[PollEvents]{"POLLERR", POLLERR},
	Symbol[PollEvents]{"POLLHUP", POLLHUP}, Symbol[PollEvents]{"POLLNVAL", POLLNVAL},
	Symbol[PollEvents]{"POLLRDNORM", POLLRDNORM}, Symbol[PollEvents]{"POLLRDBAND", POLLRDBAND},
	Symbol[PollEvents]{"POLLWRNORM", POLLWRNORM}, Symbol[PollEvents]{"POLLWRBAND", POLLWRBAND},
	Symbol[PollEvents]{"POLLRDHUP", POLLRDHUP},
)

// String renders events as strace prints them: "POLLIN|POLLRDNORM", "0"
// for none.
func (e PollEvents) String() string { return unionString(e, PollEventNames) }

// The events that leave a descriptor in each of select(2)'s sets
// (fs/select.c: POLLIN_SET, POLLOUT_SET, POLLEX_SET): do_select keeps a
// descriptor of readfds when its poll mask meets PollInSet, of writefds
// when it meets PollOutSet, of exceptfds when it meets PollExSet.
// POLLNVAL is in all three (Linux 6.1's fs/select.c), though no socket's
// poll method reports it.
const (
	PollInSet  = POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR | POLLNVAL
	PollOutSet = POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR | POLLNVAL
	PollExSet  = POLLPRI | POLLNVAL
)

// SelectSets says which of select(2)'s sets a descriptor is in: readfds
// (SelectIn), writefds (SelectOut), exceptfds (SelectEx).
type SelectSets uint8

// The sets of select(2).
const (
	SelectIn SelectSets = 1 << iota
	SelectOut
	SelectEx
)

// SelectSetNames names the sets as strace does after a select's result.
var SelectSetNames = NewSymbols(
	Symbol[SelectSets]{"in", SelectIn}, Symbol[SelectSets]{"out", SelectOut}, Symbol[SelectSets]{"except", SelectEx},
)

// String names the sets, "in|out", "0" for none.
func (s SelectSets) String() string { return unionString(s, SelectSetNames) }

// MarshalText makes SelectSets print as their names in JSON.
func (s SelectSets) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Events are the poll events that leave a descriptor in any of the sets
// s: the union of their PollInSet, PollOutSet and PollExSet.
func (s SelectSets) Events() PollEvents {
	var ev PollEvents
	if s&SelectIn != 0 {
		ev |= PollInSet
	}
	if s&SelectOut != 0 {
		ev |= PollOutSet
	}
	if s&SelectEx != 0 {
		ev |= PollExSet
	}
	return ev
}

// SelectReady is what do_select leaves of the sets asked of a descriptor
// whose poll method reported mask: each set whose events mask meets.
func SelectReady(mask PollEvents, asked SelectSets) SelectSets {
	var s SelectSets
	for _, set := range [...]SelectSets{SelectIn, SelectOut, SelectEx} {
		if asked&set != 0 && mask&set.Events() != 0 {
			s |= set
		}
	}
	return s
}
