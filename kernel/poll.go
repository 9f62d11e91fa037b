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
