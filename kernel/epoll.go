package kernel

// EpollEvents are the events and flags of an epoll_event
// (include/uapi/linux/eventpoll.h): the poll events in the low bits, the
// input flags EPOLLEXCLUSIVE, EPOLLWAKEUP, EPOLLONESHOT and EPOLLET in
// the high ones.
type EpollEvents uint32

// Epoll events and flags.
const (
	EPOLLIN        EpollEvents = 0x1
	EPOLLPRI       EpollEvents = 0x2
	EPOLLOUT       EpollEvents = 0x4
	EPOLLERR       EpollEvents = 0x8
	EPOLLHUP       EpollEvents = 0x10
	EPOLLRDNORM    EpollEvents = 0x40
	EPOLLRDBAND    EpollEvents = 0x80
	EPOLLWRNORM    EpollEvents = 0x100
	EPOLLWRBAND    EpollEvents = 0x200
	EPOLLMSG       EpollEvents = 0x400
	EPOLLRDHUP     EpollEvents = 0x2000
	EPOLLEXCLUSIVE EpollEvents = 1 << 28
	EPOLLWAKEUP    EpollEvents = 1 << 29
	EPOLLONESHOT   EpollEvents = 1 << 30
	EPOLLET        EpollEvents = 1 << 31

	// EpollPrivateBits are the flags no poll mask holds (EP_PRIVATE_BITS).
	EpollPrivateBits = EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE
	// EpollExclusiveOK are the only bits EPOLLEXCLUSIVE goes with
	// (EPOLLEXCLUSIVE_OK_BITS: EPOLLINOUT_BITS, EPOLLIN and EPOLLOUT alone,
	// then EPOLLERR, EPOLLHUP, EPOLLWAKEUP, EPOLLET; measured on Linux
	// 6.18: EPOLLRDNORM|EPOLLEXCLUSIVE is EINVAL).
	EpollExclusiveOK = EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE
)

// EpollEventNames names each epoll event and flag.
var EpollEventNames = NewSymbols(
	Symbol[EpollEvents]{"EPOLLIN", EPOLLIN}, Symbol[EpollEvents]{"EPOLLPRI", EPOLLPRI},
	Symbol[EpollEvents]{"EPOLLOUT", EPOLLOUT}, Symbol[EpollEvents]{"EPOLLERR", EPOLLERR},
	Symbol[EpollEvents]{"EPOLLHUP", EPOLLHUP}, Symbol[EpollEvents]{"EPOLLRDNORM", EPOLLRDNORM},
	Symbol[EpollEvents]{"EPOLLRDBAND", EPOLLRDBAND}, Symbol[EpollEvents]{"EPOLLWRNORM", EPOLLWRNORM},
	Symbol[EpollEvents]{"EPOLLWRBAND", EPOLLWRBAND}, Symbol[EpollEvents]{"EPOLLMSG", EPOLLMSG},
	Symbol[EpollEvents]{"EPOLLRDHUP", EPOLLRDHUP}, Symbol[EpollEvents]{"EPOLLEXCLUSIVE", EPOLLEXCLUSIVE},
	Symbol[EpollEvents]{"EPOLLWAKEUP", EPOLLWAKEUP}, Symbol[EpollEvents]{"EPOLLONESHOT", EPOLLONESHOT},
	Symbol[EpollEvents]{"EPOLLET", EPOLLET},
)

// String renders events as strace prints them: "EPOLLIN|EPOLLET", "0"
// for none.
func (e EpollEvents) String() string { return unionString(e, EpollEventNames) }

// The operations of epoll_ctl(2).
const (
	EPOLL_CTL_ADD = 1
	EPOLL_CTL_DEL = 2
	EPOLL_CTL_MOD = 3
)

// EpollOpNames names the epoll_ctl operations.
var EpollOpNames = NewSymbols(
	Symbol[int]{"EPOLL_CTL_ADD", EPOLL_CTL_ADD}, Symbol[int]{"EPOLL_CTL_DEL", EPOLL_CTL_DEL},
	Symbol[int]{"EPOLL_CTL_MOD", EPOLL_CTL_MOD},
)
