package scenario

import (
	"math"
	"strings"
)

// statements maps each keyword but note to its parse function. A parse
// function consumes the operands after the keyword; the caller checks that
// nothing is left and parses the outcome.
var statements = map[string]func(*lineParser) Stmt{
	"profile": func(p *lineParser) Stmt { return &Profile{Name: p.dotted("profile name")} },
	"bug":     func(p *lineParser) Stmt { return &Bug{Name: p.dotted("bug name")} },
	"sysctl":  parseSysctl,
	"user": func(p *lineParser) Stmt {
		return &User{Name: p.name("user name"), Options: p.options(userOpts)}
	},
	"task": func(p *lineParser) Stmt {
		return &Task{Name: p.name("task name"), Options: p.options(taskOpts)}
	},
	"device": func(p *lineParser) Stmt {
		return &Device{Name: p.name("device name"), Kind: p.oneOf("device kind", "nic", "loopback", "tun"), Options: p.options(deviceOpts)}
	},
	"tap": func(p *lineParser) Stmt {
		return &Tap{Name: p.name("tap name"), Options: p.options(tapOpts)}
	},
	"socket":     parseSocket,
	"setsockopt": parseSetsockopt,
	"getsockopt": parseGetsockopt,
	"connect":    func(p *lineParser) Stmt { return &Connect{Sock: p.sock()} },
	"listen":     func(p *lineParser) Stmt { return &Listen{Sock: p.sock(), Options: p.options(listenOpts)} },
	"bind":       func(p *lineParser) Stmt { return &Bind{Sock: p.sock(), Options: p.options(bindOpts)} },
	"close":      func(p *lineParser) Stmt { return &Close{Sock: p.sock()} },
	"accept":     func(p *lineParser) Stmt { return &Accept{Sock: p.sock(), New: p.name("new socket name")} },
	"shutdown":   func(p *lineParser) Stmt { return &Shutdown{Sock: p.sock(), How: p.symbol(shutHows)} },
	"send": func(p *lineParser) Stmt {
		return &Send{Sock: p.sock(), Len: p.operand("length"), Flags: p.flags(msgFlagNames, true)}
	},
	"sendto": func(p *lineParser) Stmt {
		return &Sendto{Sock: p.sock(), Len: p.operand("length"), Flags: p.flags(msgFlagNames, true)}
	},
	"sendmsg":  parseSendmsg,
	"sendmmsg": parseSendmmsg,
	"recvmsg": func(p *lineParser) Stmt {
		return &Recvmsg{Sock: p.sock(), Flags: p.flags(msgFlagNames, true), Options: p.options(recvmsgOpts)}
	},
	"recv":         parseRecv,
	"poll":         parsePoll,
	"epoll_create": func(p *lineParser) Stmt { return &EpollCreate{Name: p.name("epoll name")} },
	"epoll_ctl":    parseEpollCtl,
	"epoll_wait":   parseEpollWait,
	"fcntl":        parseFcntl,
	"setrlimit": func(p *lineParser) Stmt {
		s := &Setrlimit{Task: p.name("task name"), Resource: p.symbol(rlimits), Limit: p.limit()}
		if p.peekIs(tWord) {
			s.Max = p.limit()
		}
		return s
	},
	"capdrop": func(p *lineParser) Stmt { return &Capdrop{Task: p.name("task name"), Cap: p.symbol(capNames)} },
	"capset":  func(p *lineParser) Stmt { return &Capset{Task: p.name("task name"), Cap: p.symbol(capNames)} },
	"wait":    func(p *lineParser) Stmt { return &Wait{Dur: p.duration()} },
	"settle":  func(p *lineParser) Stmt { return &Settle{} },
	"hold":    func(p *lineParser) Stmt { return &Hold{Sock: p.sock(), Dir: p.dir()} },
	"release": func(p *lineParser) Stmt { return &Release{Sock: p.sock(), Dir: p.dir()} },
	"drop":    func(p *lineParser) Stmt { return &Drop{Sock: p.sock(), Dir: p.dir(), Count: p.optOperand("count")} },
	"complete": func(p *lineParser) Stmt {
		return &Complete{Device: p.name("device name"), Count: p.optOperand("count")}
	},
	"txerror": func(p *lineParser) Stmt { return &Txerror{Device: p.name("device name"), Count: p.optOperand("count")} },
	"vhost_send": func(p *lineParser) Stmt {
		return &VhostSend{Device: p.name("device name"), Len: p.operand("length"), Options: p.options(vhostOpts)}
	},
	"fault":  func(p *lineParser) Stmt { return &Fault{Site: p.name("fault site"), Rule: p.rule()} },
	"zckey":  func(p *lineParser) Stmt { return &Zckey{Sock: p.sock(), Value: p.operand("counter value")} },
	"mmap":   parseMmap,
	"munmap": func(p *lineParser) Stmt { return &Munmap{Sock: p.sock()} },
	"txframe": func(p *lineParser) Stmt {
		return &Txframe{Sock: p.sock(), Frame: p.operand("frame index"), Len: p.operand("frame length")}
	},
	"txstatus": func(p *lineParser) Stmt { return &Txstatus{Sock: p.sock(), Frame: p.operand("frame index")} },
	"txskew": func(p *lineParser) Stmt {
		return &Txskew{Sock: p.sock(), Frames: p.number("frame count"), CPU: p.number("cpu")}
	},
	"migrate": func(p *lineParser) Stmt { return &Migrate{Task: p.name("task name"), CPU: p.number("cpu")} },
	"expect":  parseExpect,
	"inject":  parseInject,
	"packet":  parsePacket,
}

var (
	userOpts   = []optSpec{{key: "uid", kind: optNumber, required: true}}
	taskOpts   = []optSpec{{key: "user", kind: optName, required: true}, {key: "memlock", kind: optNumberOr, words: []string{"unlimited"}}, {key: "cap_ipc_lock", kind: optBare}, {key: "cap_net_admin", kind: optBare}, {key: "hugepages", kind: optBare}, {key: "cpu", kind: optNumber}}
	tapOpts    = []optSpec{{key: "on", kind: optName, required: true}, {key: "delay", kind: optDuration}}
	deviceOpts = []optSpec{
		{key: "sg", kind: optWords, words: onOff},
		{key: "csum", kind: optWords, words: onOff},
		{key: "gso", kind: optWords, words: onOff},
		{key: "tso", kind: optWords, words: onOff},
		{key: "gso_max_size", kind: optNumber},
		{key: "mtu", kind: optNumber},
		{key: "delay", kind: optDuration},
		{key: "loss", kind: optFraction},
		{key: "txcomplete", kind: optDurationOr, words: []string{"manual"}},
		{key: "cpu", kind: optNumber},
		{key: "orphan_rx", kind: optWords, words: []string{"copy", "plain"}},
		{key: "peer", kind: optWords, words: []string{"model", "script"}},
		{key: "header_split", kind: optWords, words: onOff},
		{key: "gro", kind: optWords, words: onOff},
	}
	// bindOpts are a packet socket's sockaddr_ll: sll_protocol and the
	// device (sll_ifindex; all for 0).
	bindOpts = []optSpec{{key: "proto", kind: optNumber}, {key: "dev", kind: optName}}
	// listenOpts is listen(2)'s backlog, an int.
	listenOpts = []optSpec{{key: "backlog", kind: optSigned}}
	vhostOpts  = []optSpec{{key: "gso_size", kind: optNumber}}
	// sendmsgOpts are its control messages: an SCM_ZC_NOTIFICATION of
	// zc_info entries, its cmsg data length zc_len if not the right one;
	// and where its iovecs lie (iov=packed, back to back, or iov=apart).
	optvalOpts  = []optSpec{{key: "optlen", kind: optSigned}, {key: "null", kind: optBare}}
	recvmsgOpts = []optSpec{{key: "control", kind: optNumber}}
	// zerocopyRecvOpts are getsockopt's for TCP_ZEROCOPY_RECEIVE: the
	// struct's length, copybuf_len, address (as an offset into the
	// socket's mapping), flags, msg_flags, reserved and msg_controllen
	// (with a buffer that size), and optlen.
	zerocopyRecvOpts = []optSpec{{key: "length", kind: optNumber}, {key: "copybuf", kind: optNumber},
		{key: "offset", kind: optNumber}, {key: "flags", kind: optNumber}, {key: "msg_flags", kind: optNumber},
		{key: "reserved", kind: optNumber}, {key: "control", kind: optNumber},
		{key: "optlen", kind: optSigned}, {key: "null", kind: optBare}}
	sendmsgOpts = []optSpec{{key: "zc_info", kind: optNumber}, {key: "zc_len", kind: optNumber},
		{key: "iov", kind: optWords, words: []string{"packed", "apart"}}}
	socketOpts = []optSpec{
		{key: "via", kind: optName},
		{key: "task", kind: optName},
		{key: "peer_ack", kind: optWords, words: []string{"kernel", "immediate", "delayed", "quickack"}},
		{key: "peer_rcvbuf", kind: optNumber},
		{key: "peer_read", kind: optWords, words: []string{"manual", "auto"}},
		{key: "mapped", kind: optBare},
		{key: "ihl", kind: optNumber},
		{key: "to", kind: optName},
	}
)

func parseSysctl(p *lineParser) Stmt {
	s := &Sysctl{Key: p.dotted("sysctl key")}
	if s.Key.Name == "net.ipv4.tcp_congestion_control" {
		if t, ok := p.word("a congestion control's name"); ok {
			s.Values = []Value{{Pos: p.pos(t.col), Kind: ValueWord, Text: t.text}}
		}
		return s
	}
	s.Values = []Value{p.number("sysctl value")}
	for p.peekIs(tWord) && len(s.Values) < 3 {
		s.Values = append(s.Values, p.number("sysctl value"))
	}
	return s
}

func parseSocket(p *lineParser) Stmt {
	s := &Socket{Name: p.name("socket name"), Family: p.symbol(familyNames), Type: p.flags(sockTypeNames, false)}
	if t, ok := p.peek(); ok && t.kind == tWord && !p.optionNext() && !isBareOpt(socketOpts, t.text) {
		p.advance()
		if protocolNames.has(t.text) {
			s.Protocol = Value{p.pos(t.col), ValueWord, 0, t.text, nil}
		} else if isDigit(t.text[0]) {
			s.Protocol = p.numberOf(t)
		} else {
			p.fail(t, "unknown protocol"+hint(t.text, protocolNames.names()))
		}
	}
	s.Options = p.options(socketOpts)
	return s
}

// isBareOpt reports whether word is an option of specs that takes no
// value.
func isBareOpt(specs []optSpec, word string) bool {
	s, ok := findSpec(specs, word)
	return ok && s.kind == optBare
}

// optionNext reports whether the next tokens are "key =".
func (p *lineParser) optionNext() bool {
	return p.i+1 < len(p.toks) && p.toks[p.i+1].kind == tEq
}

func parseSetsockopt(p *lineParser) Stmt {
	s := &Setsockopt{Sock: p.sock(), Level: p.symbol(levelNames), Opt: p.symbol(sockOptNames)}
	p.checkLevel(s.Level, s.Opt)
	t, ok := p.peek()
	switch {
	case p.err != nil:
	case s.Opt.Name == "PACKET_TX_RING" && p.peekIs(tLBrack):
		if s.Req = p.iovec(); p.err == nil && len(s.Req) != 4 {
			p.fail(t, "PACKET_TX_RING takes a struct tpacket_req: [BLOCK_SIZE, BLOCK_NR, FRAME_SIZE, FRAME_NR]")
		}
	case s.Opt.Name == "SO_TIMESTAMPING" && ok && t.kind == tWord && !isDigit(t.text[0]) && t.text[0] != '-':
		s.Flags = p.flags(timestampingNames, false)
	case s.Opt.Name == "TCP_CONGESTION":
		if t, ok := p.word(`a congestion control's name in double quotes ("cubic")`); ok {
			s.Value = p.quoted(t)
		}
	default:
		if t, ok := p.word("option value"); ok {
			s.Value = p.signedOf(t)
		}
	}
	s.Options = p.options(optvalOpts)
	return s
}

func parseSendmsg(p *lineParser) Stmt {
	s := &Sendmsg{Sock: p.sock(), Iov: p.iovec(), Flags: p.flags(msgFlagNames, true)}
	for t, ok := p.peek(); ok && t.kind == tWord && t.text == "cmsg"; t, ok = p.peek() {
		p.advance()
		s.Cmsgs = append(s.Cmsgs, p.parseCmsg(p.pos(t.col)))
	}
	s.Options = p.options(sendmsgOpts)
	return s
}

func parseSendmmsg(p *lineParser) Stmt {
	s := &Sendmmsg{Sock: p.sock()}
	for p.err == nil {
		s.Msgs = append(s.Msgs, p.iovec())
		if !p.peekIs(tLBrack) {
			break
		}
	}
	s.Flags = p.flags(msgFlagNames, true)
	return s
}

func parseRecv(p *lineParser) Stmt {
	s := &Recv{Sock: p.sock(), Len: p.operand("length")}
	if p.peekIs(tWord) {
		s.Flags = p.flags(msgFlagNames, true)
	}
	return s
}

func parseGetsockopt(p *lineParser) Stmt {
	s := &Getsockopt{Sock: p.sock(), Level: p.symbol(levelNames), Opt: p.symbol(sockOptNames)}
	p.checkLevel(s.Level, s.Opt)
	if s.Opt.Name == "TCP_ZEROCOPY_RECEIVE" {
		s.Options = p.options(zerocopyRecvOpts)
	} else {
		s.Options = p.options(optvalOpts)
	}
	return s
}

func parseMmap(p *lineParser) Stmt {
	s := &Mmap{Sock: p.sock()}
	if t, ok := p.peek(); ok && t.kind == tWord && !strings.HasPrefix(t.text, "PROT_") {
		s.Len = p.operand("length")
	}
	if p.peekIs(tWord) {
		s.Prot = p.flags(protNames, false)
	}
	return s
}

func parsePoll(p *lineParser) Stmt {
	s := &Poll{Sock: p.sock(), Events: p.flags(pollEventNames, false)}
	if p.peekIs(tWord) {
		s.Timeout = p.duration()
	}
	return s
}

func parseExpect(p *lineParser) Stmt {
	s := &Expect{Sock: p.sock()}
	for {
		s.Checks = append(s.Checks, p.options(nil)...)
		if !p.idsNext() {
			break
		}
		t := p.advance()
		if !s.Notified.IsZero() {
			p.fail(t, "duplicate option")
		}
		s.Notified.Pos = p.pos(t.col)
		p.advance() // "="
		p.punct(tLBrack, "[")
		s.Notified.Lo = p.id()
		p.punct(tComma, ",")
		s.Notified.Hi = p.id()
		p.punct(tRBrack, "]")
	}
	for i, c := range s.Checks {
		if _, dup := s.Checks[:i].Lookup(c.Key); dup || c.Key == "notified" && !s.Notified.IsZero() {
			p.fail(token{text: c.Key, col: c.Pos.Col}, "duplicate option")
		}
	}
	if len(s.Checks) == 0 && s.Notified.IsZero() {
		p.missing("check such as zckey=1")
	}
	return s
}

// idsNext reports whether notified=[ comes next: expect's check of the
// union of ids received, which the option parser leaves to parseExpect.
func (p *lineParser) idsNext() bool {
	return p.err == nil && p.i+2 < len(p.toks) && p.toks[p.i].text == "notified" &&
		p.toks[p.i+1].kind == tEq && p.toks[p.i+2].kind == tLBrack
}

// id consumes an id: a number at most 0xffffffff or an expression.
func (p *lineParser) id() Value {
	v := p.operand("id")
	if v.Kind == ValueNumber && v.N > math.MaxUint32 {
		p.fail(token{text: v.Text, col: v.Pos.Col}, "id out of range, want at most 0xffffffff")
	}
	return v
}

// limit consumes an rlimit value: a size or unlimited.
func (p *lineParser) limit() Value {
	t, ok := p.word("limit")
	if !ok {
		return Value{}
	}
	if t.text == "unlimited" {
		return Value{p.pos(t.col), ValueWord, 0, t.text, nil}
	}
	if _, msg := parseNumber(t.text); msg != "" {
		p.fail(t, "bad limit, want a size or unlimited")
		return Value{}
	}
	return p.numberOf(t)
}

func (p *lineParser) duration() Value {
	t, ok := p.word("duration")
	if !ok {
		return Value{}
	}
	return p.durationOf(t)
}

func (p *lineParser) dir() Ident { return p.oneOf("direction", "data", "ack") }

// rule consumes a fault rule, WORD or WORD=VALUE, kept as text.
func (p *lineParser) rule() Ident {
	t, ok := p.word("fault rule")
	if !ok || !isName(t.text) {
		p.fail(t, "bad fault rule, want always, never, nth=N, from=N, next=N or p=P")
		return Ident{}
	}
	id := Ident{p.pos(t.col), t.text}
	if p.peekIs(tEq) {
		p.advance()
		v, ok := p.word("value of " + t.text)
		if ok && !isWord(v.text) {
			p.fail(v, "bad value of "+t.text)
		}
		id.Name += "=" + v.text
	}
	return id
}
