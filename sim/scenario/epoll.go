package scenario

import "strings"

// EpollCreate is "epoll_create E": epoll_create1(0), naming the instance
// E for the epoll_ctl and epoll_wait statements (and close E).
type EpollCreate struct {
	Line
	Name Ident
}

// EpollCtl is "epoll_ctl E OP S [EVENTS]": epoll_ctl(2) of operation OP
// (EPOLL_CTL_ADD, EPOLL_CTL_MOD, EPOLL_CTL_DEL) on socket S with a union
// of EPOLL* events and flags (none for DEL).
type EpollCtl struct {
	Line
	Epoll  Ident
	Op     Ident
	Sock   Sock
	Events Flags
}

// EpollWait is "epoll_wait E MAXEVENTS [TIMEOUT]": epoll_wait(2) for at
// most MAXEVENTS events, waiting at most TIMEOUT (a duration, or -1 for
// ever; 0 when left out). Its outcome may list the events: "1 [s
// EPOLLERR|EPOLLOUT]".
type EpollWait struct {
	Line
	Epoll   Ident
	Max     Value
	Timeout Value
}

// Forever reports whether the wait has no timeout (-1).
func (s *EpollWait) Forever() bool { return s.Timeout.Kind == ValueWord }

// Fcntl is "fcntl S F_GETFL" or "fcntl S F_SETFL FLAGS": fcntl(2) of the
// file status flags (O_NONBLOCK).
type Fcntl struct {
	Line
	Sock  Sock
	Cmd   Ident
	Flags Flags
}

// EpollEvent is one event of an epoll_wait outcome: the socket it names
// and its events, exactly.
type EpollEvent struct {
	Sock   Sock
	Events Flags
}

// EpollEvents are an epoll_wait outcome's events, in the order returned.
type EpollEvents []EpollEvent

func (es EpollEvents) String() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Sock.String() + " " + e.Events.String()
	}
	return "[" + strings.Join(s, ", ") + "]"
}

var (
	epollOps    = tableOf[int]("epoll_ctl operation", setOf("EPOLL_CTL_ADD", "EPOLL_CTL_MOD", "EPOLL_CTL_DEL"))
	fcntlCmds   = tableOf[int]("fcntl command", setOf("F_GETFL", "F_SETFL"))
	statusFlags = tableOf[int]("file status flag", setOf("O_NONBLOCK", "O_RDWR"))
)

func parseEpollCtl(p *lineParser) Stmt {
	s := &EpollCtl{Epoll: p.name("epoll name"), Op: p.symbol(epollOps), Sock: p.sock()}
	if p.err == nil && (s.Op.Name != "EPOLL_CTL_DEL" || p.peekIs(tWord)) {
		s.Events = p.flags(epollEventNames, true)
	}
	return s
}

func parseEpollWait(p *lineParser) Stmt {
	s := &EpollWait{Epoll: p.name("epoll name")}
	if t, ok := p.word("maxevents"); ok {
		s.Max = p.signedOf(t)
	}
	if t, ok := p.peek(); ok && t.kind == tWord && p.err == nil {
		if t.text == "-1" {
			p.advance()
			s.Timeout = Value{Pos: p.pos(t.col), Kind: ValueWord, Text: t.text}
		} else {
			s.Timeout = p.duration()
		}
	}
	return s
}

func parseFcntl(p *lineParser) Stmt {
	s := &Fcntl{Sock: p.sock(), Cmd: p.symbol(fcntlCmds)}
	if p.err == nil && s.Cmd.Name == "F_SETFL" {
		s.Flags = p.flags(statusFlags, true)
	}
	return s
}

// epollEvents parses an epoll_wait outcome's "[S EVENTS, ...]".
func (p *lineParser) epollEvents() *EpollEvents {
	p.punct(tLBrack, "[")
	es := EpollEvents{}
	for t, ok := p.peek(); ok && t.kind != tRBrack && p.err == nil; t, ok = p.peek() {
		if len(es) > 0 {
			p.punct(tComma, ",")
		}
		es = append(es, EpollEvent{Sock: p.sock(), Events: p.flags(epollEventNames, false)})
	}
	p.punct(tRBrack, "]")
	return &es
}
