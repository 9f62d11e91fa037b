package pktdrill

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/scenario"
)

// Device is the name of the scripted tun device an imported script runs
// over, as packetdrill's own tun device.
const Device = "tun0"

// line is one statement of the scenario and the script position it
// comes from.
type line struct {
	pos  scenario.Pos
	text string
}

// translator turns events into scenario lines.
type translator struct {
	l      *lexer
	out    []line
	now    int64
	family string
	// sockets and epolls are the descriptors of the script's sockets and
	// epoll instances.
	sockets, epolls map[int64]bool
	// epollData maps each epoll instance's event data values (u32=,
	// u64=, ptr=) to the socket epoll_ctl gave them.
	epollData map[int64]map[int64]int64
	// listener is the last listening descriptor, conn the connection
	// injected segments go to (the last accepted or connected one).
	listener, conn int64
	notes          []string
}

func (t *translator) emit(pos scenario.Pos, format string, args ...any) {
	t.out = append(t.out, line{pos, fmt.Sprintf(format, args...)})
}

// note emits a note statement saying what of the script is not run, and
// keeps it for the importer's report.
func (t *translator) note(pos scenario.Pos, text string) {
	t.notes = append(t.notes, pos.String()+": "+text)
	t.emit(pos, "note not run: %s", text)
}

func (t *translator) fail(pos scenario.Pos, near, format string, args ...any) {
	t.l.fail(pos, near, format, args...)
}

// options are the command-line options a script may set for itself; each
// maps to what the scenario does with it.
func (t *translator) option(ev event) {
	name, val, _ := strings.Cut(strings.TrimPrefix(ev.option, "--"), "=")
	val = strings.Trim(val, "\"")
	switch name {
	case "tolerance_usecs":
		t.note(ev.pos, "--tolerance_usecs: the model's times are exact")
	case "send_omit_free":
		t.note(ev.pos, "--send_omit_free: every send of the model has a buffer of its own")
	case "ip_version":
		switch val {
		case "ipv4":
			t.family = "AF_INET"
		case "ipv6":
			t.family = "AF_INET6"
		case "ipv4-mapped-ipv6":
			t.family = "AF_INET6 mapped"
		default:
			t.fail(ev.pos, ev.option, "unknown --ip_version, want ipv4, ipv6 or ipv4-mapped-ipv6")
		}
	default:
		t.fail(ev.pos, ev.option, "unknown option")
	}
}

// advance lets the time of ev pass.
func (t *translator) advance(ev event) {
	if !ev.timed || ev.time.any {
		return
	}
	at := ev.time.ns
	if ev.time.rel {
		at += t.now
	}
	if at < t.now {
		t.fail(ev.pos, "", "time goes backwards: %s is before the previous event", nsText(at))
		return
	}
	if at > t.now {
		t.emit(ev.pos, "wait %s", nsText(at-t.now))
		t.now = at
	}
}

// nsText writes a duration in the largest whole unit.
func nsText(ns int64) string {
	for _, u := range []struct {
		unit string
		n    int64
	}{{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}} {
		if ns%u.n == 0 {
			return strconv.FormatInt(ns/u.n, 10) + u.unit
		}
	}
	return strconv.FormatInt(ns, 10) + "ns"
}

func (t *translator) event(ev event) {
	switch {
	case ev.option != "":
		t.option(ev)
		return
	case ev.shell != "":
		t.advance(ev)
		t.shell(ev)
		return
	}
	if len(ev.toks) == 0 {
		return // an unterminated shell command, which the lexer reported
	}
	t.advance(ev)
	switch ev.toks[0].text {
	case "<", ">":
		t.packet(ev)
	default:
		p := &parser{l: t.l, toks: ev.toks, ok: true}
		c := p.call()
		if p.ok {
			t.call(c)
		}
	}
}

// fdName is the scenario's name for a descriptor.
func fdName(fd int64) string { return "fd" + strconv.FormatInt(fd, 10) }

// outcome is the scenario expectation of a call's result.
func outcome(c call) string {
	switch {
	case c.anyRet:
		return ""
	case c.errno != "":
		return " => -1 " + c.errno
	}
	return " => " + strconv.FormatInt(c.ret, 10)
}

// fd returns the descriptor argument i of c, reporting a bad one.
func (t *translator) fd(c call, i int) (int64, bool) {
	if i >= len(c.args) || c.args[i].kind != eNum {
		t.fail(c.pos, c.name, "%s needs a file descriptor as its argument %d", c.name, i+1)
		return 0, false
	}
	fd := c.args[i].num
	if !t.sockets[fd] {
		t.fail(c.args[i].pos, strconv.FormatInt(fd, 10), "no socket has descriptor %d", fd)
		return 0, false
	}
	return fd, true
}

// nargs checks the number of arguments.
func (t *translator) nargs(c call, n int) bool {
	if len(c.args) != n {
		t.fail(c.pos, c.name, "%s takes %d arguments, not %d", c.name, n, len(c.args))
		return false
	}
	return true
}

// word returns argument e as a "|"-union, or "0" for the number 0.
func (t *translator) word(e expr, what string) (string, bool) {
	switch {
	case e.kind == eWords:
		return strings.Join(e.words, "|"), true
	case e.kind == eNum && e.num == 0:
		return "0", true
	}
	t.fail(e.pos, "", "expected %s", what)
	return "", false
}

// num returns argument e as a number; [N] is N too.
func (t *translator) num(e expr, what string) (int64, bool) {
	if e.kind == eList && len(e.items) == 1 {
		e = e.items[0]
	}
	if e.kind != eNum {
		t.fail(e.pos, "", "expected %s", what)
		return 0, false
	}
	return e.num, true
}

// call translates one system call.
func (t *translator) call(c call) {
	switch c.name {
	case "socket":
		t.socket(c)
	case "setsockopt", "getsockopt":
		t.sockopt(c)
	case "close":
		if len(c.args) == 1 && c.args[0].kind == eNum && t.epolls[c.args[0].num] {
			t.emit(c.pos, "close %s%s", fdName(c.args[0].num), outcome(c))
			return
		}
		t.connection(c)
	case "bind", "listen", "connect", "accept", "shutdown", "fcntl":
		t.connection(c)
	case "poll":
		t.poll(c)
	case "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait":
		t.epoll(c)
	case "send", "sendto", "write", "sendmsg":
		t.send(c)
	case "recvmsg", "recv", "read":
		t.recv(c)
	default:
		t.fail(c.pos, c.name, "system call %s is not one the importer translates", c.name)
	}
}

func (t *translator) socket(c call) {
	if !t.nargs(c, 3) {
		return
	}
	family := t.family
	if d := c.args[0]; d.kind != eEllipsis {
		var ok bool
		if family, ok = t.word(d, "a family or ..."); !ok {
			return
		}
	}
	typ, ok1 := t.word(c.args[1], "a socket type")
	proto, ok2 := t.word(c.args[2], "a protocol")
	if !ok1 || !ok2 {
		return
	}
	fd := c.ret
	if c.errno != "" || c.anyRet {
		t.fail(c.pos, c.name, "the importer needs the descriptor socket returns")
		return
	}
	t.sockets[fd] = true
	mapped := ""
	if f, ok := strings.CutSuffix(family, " mapped"); ok {
		family, mapped = f, " mapped"
	}
	t.emit(c.pos, "socket %s %s %s %s via=%s%s%s", fdName(fd), family, typ, proto, Device, mapped, outcome(c))
}

func (t *translator) sockopt(c call) {
	if len(c.args) < 4 {
		t.fail(c.pos, c.name, "%s takes 5 arguments", c.name)
		return
	}
	fd, ok := t.fd(c, 0)
	level, ok1 := t.word(c.args[1], "a level")
	opt, ok2 := t.word(c.args[2], "an option")
	if !ok || !ok1 || !ok2 {
		return
	}
	if c.name == "getsockopt" {
		v, ok := t.num(c.args[3], "the option's value")
		if !ok {
			return
		}
		res := fmt.Sprintf(" => %d", v)
		if c.errno != "" {
			res = outcome(c)
		}
		t.emit(c.pos, "getsockopt %s %s %s%s", fdName(fd), level, opt, res)
		return
	}
	var val string
	if v := c.args[3]; v.kind == eWords || v.kind == eList && len(v.items) == 1 && v.items[0].kind == eWords {
		if v.kind == eList {
			v = v.items[0]
		}
		val = strings.Join(v.words, "|")
	} else {
		v, ok := t.num(c.args[3], "the option's value")
		if !ok {
			return
		}
		val = strconv.FormatInt(v, 10)
	}
	optlen := ""
	if len(c.args) > 4 {
		if n, ok := t.num(c.args[4], "the option's length"); ok && n != 4 {
			optlen = fmt.Sprintf(" optlen=%d", n)
		}
	}
	t.emit(c.pos, "setsockopt %s %s %s %s%s%s", fdName(fd), level, opt, val, optlen, outcome(c))
}

// backlog is the backlog= option of a listen(fd, backlog) call, none
// for scenario.DefaultBacklog.
func (t *translator) backlog(c call) string {
	if len(c.args) != 2 {
		t.fail(c.pos, c.name, "listen takes a descriptor and a backlog")
		return ""
	}
	n, ok := t.num(c.args[1], "a backlog")
	switch {
	case !ok || n == scenario.DefaultBacklog:
		return ""
	case n < math.MinInt32 || n > math.MaxInt32:
		t.fail(c.args[1].pos, strconv.FormatInt(n, 10), "the backlog is an int, between %d and %d", math.MinInt32, math.MaxInt32)
		return ""
	}
	return fmt.Sprintf(" backlog=%d", n)
}

func (t *translator) connection(c call) {
	fd, ok := t.fd(c, 0)
	if !ok {
		return
	}
	name := fdName(fd)
	switch c.name {
	case "bind", "close":
		t.emit(c.pos, "%s %s%s", c.name, name, outcome(c))
	case "listen":
		t.listener = fd
		t.emit(c.pos, "listen %s%s%s", name, t.backlog(c), outcome(c))
	case "connect":
		t.conn = fd
		t.emit(c.pos, "connect %s%s", name, outcome(c))
	case "accept":
		if c.errno != "" || c.anyRet {
			t.emit(c.pos, "accept %s %s%s", name, fdName(0), outcome(c))
			return
		}
		t.conn = c.ret
		t.sockets[c.ret] = true
		t.emit(c.pos, "accept %s %s%s", name, fdName(c.ret), outcome(c))
	case "shutdown":
		if !t.nargs(c, 2) {
			return
		}
		how, ok := t.word(c.args[1], "SHUT_RD, SHUT_WR or SHUT_RDWR")
		if ok {
			t.emit(c.pos, "shutdown %s %s%s", name, how, outcome(c))
		}
	case "fcntl":
		t.fcntl(c, fd)
	}
}

// fcntl takes fcntl(fd, F_GETFL) and fcntl(fd, F_SETFL, FLAGS): the
// fcntl statement.
func (t *translator) fcntl(c call, fd int64) {
	if len(c.args) < 2 {
		t.fail(c.pos, c.name, "fcntl takes (fd, F_GETFL) or (fd, F_SETFL, flags)")
		return
	}
	cmd, ok := t.word(c.args[1], "F_GETFL or F_SETFL")
	switch {
	case !ok:
	case cmd == "F_GETFL" && t.nargs(c, 2):
		t.emit(c.pos, "fcntl %s F_GETFL%s", fdName(fd), outcome(c))
	case cmd == "F_SETFL" && t.nargs(c, 3):
		if flags, ok := t.word(c.args[2], "file status flags"); ok {
			t.emit(c.pos, "fcntl %s F_SETFL %s%s", fdName(fd), flags, outcome(c))
		}
	case cmd != "F_GETFL" && cmd != "F_SETFL":
		t.fail(c.args[1].pos, cmd, "the importer translates fcntl F_GETFL and F_SETFL")
	}
}

// epoll translates epoll_create(N) and epoll_create1(0), which name the
// instance fdN after the descriptor they return, epoll_ctl(E, OP, S,
// {events=EVENTS, fd=S}) and epoll_wait(E, {events=EVENTS, fd=S},
// MAXEVENTS, TIMEOUT) = K. packetdrill checks the first event a wait
// returns only, so one that returns more than one is refused; one that
// returns none wants {events=0, u32=0} (the zeroed event packetdrill
// compares). TIMEOUT is in milliseconds.
func (t *translator) epoll(c call) {
	if c.name == "epoll_create" || c.name == "epoll_create1" {
		if !t.nargs(c, 1) {
			return
		}
		if c.errno != "" || c.anyRet {
			t.fail(c.pos, c.name, "the importer needs the descriptor %s returns", c.name)
			return
		}
		t.epolls[c.ret] = true
		t.emit(c.pos, "epoll_create %s%s", fdName(c.ret), outcome(c))
		return
	}
	if !t.nargs(c, 4) {
		return
	}
	ep := c.args[0]
	if ep.kind != eNum || !t.epolls[ep.num] {
		t.fail(ep.pos, "", "%s needs an epoll instance's descriptor as its argument 1", c.name)
		return
	}
	if c.name == "epoll_ctl" {
		op, ok := t.word(c.args[1], "EPOLL_CTL_ADD, EPOLL_CTL_MOD or EPOLL_CTL_DEL")
		fd, ok2 := t.fd(c, 2)
		events, data, ok3 := t.epollEvent(c.args[3])
		if !ok || !ok2 || !ok3 || !t.epollRegister(ep.num, op, fd, data, c.args[3].pos) {
			return
		}
		if op == "EPOLL_CTL_DEL" || events == "0" {
			events = ""
		} else {
			events = " " + events
		}
		t.emit(c.pos, "epoll_ctl %s %s %s%s%s", fdName(ep.num), op, fdName(fd), events, outcome(c))
		return
	}
	events, data, ok := t.epollEvent(c.args[1])
	max, ok2 := t.num(c.args[2], "maxevents")
	ms, ok3 := t.num(c.args[3], "a timeout in milliseconds")
	if !ok || !ok2 || !ok3 {
		return
	}
	timeout := ""
	switch {
	case ms < 0:
		timeout = " -1"
	case ms > 0:
		timeout = fmt.Sprintf(" %dms", ms)
	}
	res := outcome(c)
	switch {
	case c.errno != "" || c.anyRet:
	case c.ret == 0 && events != "0":
		t.fail(c.args[1].pos, "events", "an epoll_wait that returns 0 reports no event: write {events=0, u32=0}")
		return
	case c.ret == 1:
		sock, ok := t.epollSocket(ep.num, data, c.args[1].pos)
		if !ok {
			return
		}
		res += fmt.Sprintf(" [%s %s]", fdName(sock), events)
	case c.ret > 1:
		t.fail(c.pos, c.name, "packetdrill checks the first event of a wait only: the importer takes waits that return 0 or 1")
		return
	}
	t.emit(c.pos, "epoll_wait %s %d%s%s", fdName(ep.num), max, timeout, res)
}

// epollData is an epoll_event's data as the script writes it: fd=N, or
// a value the program chose, u32=, u64= or ptr= (kind "data").
type epollData struct {
	kind string
	val  int64
}

// epollEvent reads a struct epoll_event, {events=EVENTS, fd=FD}, or with
// u32=, u64= or ptr= for its data.
func (t *translator) epollEvent(e expr) (string, epollData, bool) {
	if e.kind != eStruct || len(e.fields) != 2 || e.fields[0].name != "events" {
		t.fail(e.pos, "", "expected an epoll_event {events=EVENTS, fd=FD}")
		return "", epollData{}, false
	}
	events, ok := t.word(e.fields[0].val, "EPOLL* events")
	data := e.fields[1]
	switch data.name {
	case "fd":
		fd, ok2 := t.num(data.val, "a descriptor")
		return events, epollData{"fd", fd}, ok && ok2
	case "u32", "u64", "ptr":
		v, ok2 := t.num(data.val, "the event's data")
		return events, epollData{"data", v}, ok && ok2
	}
	t.fail(data.pos, data.name, "an epoll_event's data is fd=, u32=, u64= or ptr=")
	return "", epollData{}, false
}

// epollRegister keeps the data epoll_ctl gives socket fd on the
// instance ep, so that a wait's event names the socket: fd= must be the
// socket's own descriptor; a value (u32=, u64=, ptr=) must be no other
// socket's on the instance.
func (t *translator) epollRegister(ep int64, op string, fd int64, data epollData, pos scenario.Pos) bool {
	if data.kind == "fd" {
		if data.val != fd {
			t.fail(pos, "fd", "the event's fd=%d is not the socket's, %d", data.val, fd)
			return false
		}
		return true
	}
	values := t.epollData[ep]
	if values == nil {
		values = map[int64]int64{}
		t.epollData[ep] = values
	}
	for v, s := range values {
		if s == fd {
			delete(values, v)
		}
	}
	if op == "EPOLL_CTL_DEL" {
		return true
	}
	if s, taken := values[data.val]; taken {
		t.fail(pos, "", "socket %d has the event data %d on this instance already: a wait could not say which socket is ready", s, data.val)
		return false
	}
	values[data.val] = fd
	return true
}

// epollSocket is the socket a wait's event names by its data.
func (t *translator) epollSocket(ep int64, data epollData, pos scenario.Pos) (int64, bool) {
	sock, ok := data.val, t.sockets[data.val]
	if data.kind != "fd" {
		sock, ok = t.epollData[ep][data.val]
	}
	if !ok {
		t.fail(pos, "", "the event names no socket of the script: %s %d", data.kind, data.val)
	}
	return sock, ok
}

// use returns the name of the socket c acts on.
func (t *translator) use(c call) (string, bool) {
	fd, ok := t.fd(c, 0)
	return fdName(fd), ok
}

// flagsArg returns a send's or read's flags argument.
func (t *translator) flagsArg(c call, i int) (string, bool) {
	if i >= len(c.args) {
		return "0", true
	}
	return t.word(c.args[i], "MSG_* flags")
}

func (t *translator) send(c call) {
	name, ok := t.use(c)
	if !ok {
		return
	}
	if c.name == "sendmsg" {
		t.sendmsg(c, name)
		return
	}
	if len(c.args) < 3 {
		t.fail(c.pos, c.name, "%s needs a length", c.name)
		return
	}
	n, ok := t.num(c.args[2], "a length")
	flags, ok2 := t.flagsArg(c, 3)
	if c.name == "write" {
		flags, ok2 = "0", len(c.args) == 3
	}
	if !ok || !ok2 {
		return
	}
	kw := "send"
	if c.name == "sendto" {
		kw = "sendto"
		if strings.Contains("|"+flags+"|", "|MSG_FASTOPEN|") {
			t.conn, _ = t.fd(c, 0) // tcp_sendmsg_fastopen connects
		}
	}
	t.emit(c.pos, "%s %s %d %s%s", kw, name, n, flags, outcome(c))
}

// sendmsg takes {msg_name(...)=..., msg_iov(N)=[{..., LEN}, ...],
// msg_control=[{cmsg_level=L, cmsg_type=T, cmsg_data=V}, ...],
// msg_flags=0}.
func (t *translator) sendmsg(c call, name string) {
	if !t.nargs(c, 3) || c.args[1].kind != eStruct {
		t.fail(c.pos, c.name, "sendmsg takes (fd, {msg_iov(N)=[...], ...}, flags)")
		return
	}
	var lens, cmsgs []string
	for _, f := range c.args[1].fields {
		switch f.name {
		case "msg_control":
			for _, cm := range f.val.items {
				w, ok := t.sendCmsg(cm)
				if !ok {
					return
				}
				cmsgs = append(cmsgs, w)
			}
		case "msg_iov":
			for _, iov := range f.val.items {
				if iov.kind != eStruct && iov.kind != eList || len(iov.items)+len(iov.fields) == 0 {
					t.fail(iov.pos, "", "expected an iovec {..., LEN}")
					return
				}
				n, ok := t.iovLen(iov)
				if !ok {
					return
				}
				lens = append(lens, strconv.FormatInt(n, 10))
			}
		case "msg_name", "msg_flags":
		default:
			t.fail(f.pos, f.name, "the importer does not translate a sendmsg's %s", f.name)
			return
		}
	}
	flags, ok := t.flagsArg(c, 2)
	if ok {
		apart := ""
		if len(lens) > 1 {
			apart = " iov=apart" // run_system_call.c callocs each iovec
		}
		t.emit(c.pos, "sendmsg %s [%s] %s%s%s%s", name, strings.Join(lens, ", "), flags, strings.Join(cmsgs, ""), apart, outcome(c))
	}
}

// sendCmsg translates a control message a sendmsg carries, {cmsg_level=L,
// cmsg_type=T, cmsg_data=V} with names or numbers, into a cmsg clause.
// packetdrill's cmsg_new writes an integer cmsg_data as an int, so the
// message has 4 bytes of data whatever its type: len=4 when that is not
// the type's own length (a UDP_SEGMENT's u16 becomes a u32, which the
// kernel refuses). Other data (a struct) is not translated.
func (t *translator) sendCmsg(e expr) (string, bool) {
	if e.kind != eStruct {
		t.fail(e.pos, "", "expected a control message {cmsg_level=..., cmsg_type=..., cmsg_data=...}")
		return "", false
	}
	var level, typ, data string
	for _, f := range e.fields {
		var w string
		switch {
		case f.val.kind == eNum:
			w = strconv.FormatInt(f.val.num, 10)
		case f.val.kind == eWords && f.name != "cmsg_len":
			w = strings.Join(f.val.words, "|")
		case f.name == "cmsg_data":
			t.fail(f.pos, f.name, "the importer translates a sendmsg's cmsg_data when it is an integer")
			return "", false
		}
		switch f.name {
		case "cmsg_len":
		case "cmsg_level":
			level = w
		case "cmsg_type":
			typ = w
		case "cmsg_data":
			data = w
		default:
			t.fail(f.pos, f.name, "unknown cmsghdr field")
			return "", false
		}
	}
	if level == "" || typ == "" || data == "" {
		t.fail(e.pos, "", "a control message needs its cmsg_level, cmsg_type and cmsg_data")
		return "", false
	}
	w := " cmsg " + level + " " + typ + " " + data
	if ct, ok := kernel.CmsgTypeNames.ByName(typ); ok && kernel.CmsgLen(ct) != 4 {
		w += " len=4"
	}
	return w, true
}

// iovLen reads an iovec {..., LEN} or {iov_base=..., iov_len=LEN}.
func (t *translator) iovLen(iov expr) (int64, bool) {
	for _, f := range iov.fields {
		if f.name == "iov_len" {
			return t.num(f.val, "an iovec length")
		}
	}
	// {..., LEN} parses as a struct only with names; packetdrill's
	// positional form is a list in the lexer's eyes.
	if len(iov.items) == 2 {
		return t.num(iov.items[1], "an iovec length")
	}
	t.fail(iov.pos, "", "expected an iovec {..., LEN}")
	return 0, false
}

func (t *translator) recv(c call) {
	name, ok := t.use(c)
	if !ok {
		return
	}
	if c.name != "recvmsg" {
		if len(c.args) < 3 {
			t.fail(c.pos, c.name, "%s needs a length", c.name)
			return
		}
		n, ok := t.num(c.args[2], "a length")
		flags, ok2 := t.flagsArg(c, 3)
		if ok && ok2 {
			t.emit(c.pos, "recv %s %d %s%s", name, n, flags, outcome(c))
		}
		return
	}
	if !t.nargs(c, 3) || c.args[1].kind != eStruct {
		t.fail(c.pos, c.name, "recvmsg takes (fd, {msg_control=[...], ...}, flags)")
		return
	}
	flags, ok := t.flagsArg(c, 2)
	if !ok {
		return
	}
	if c.errno != "" || c.anyRet {
		t.emit(c.pos, "recvmsg %s %s%s", name, flags, outcome(c))
		return
	}
	if c.ret != 0 {
		t.fail(c.pos, c.name, "an error-queue read returns 0 or fails")
		return
	}
	want, ok := t.errqueueRead(c.args[1])
	if ok {
		t.emit(c.pos, "recvmsg %s %s%s", name, flags, want)
	}
}

// errqueueRead translates the msghdr of an error-queue read that returned
// 0. packetdrill gives the read a control buffer the size of the control
// messages the script expects (cmsg_new: CMSG_SPACE of the
// sock_extended_err and the offender's sockaddr_in, 48 bytes, or
// sockaddr_in6, 64 bytes), none when it expects none. That buffer holds
// the record the script expects, so a read it says returns one gets the
// scenario's default buffer, room for any record, and the checks of
// msg_flags, cmsg_level and cmsg_type; one whose msg_flags say
// MSG_CTRUNC gets control= of packetdrill's size and the outcome ctrunc.
// A zerocopy notification's sock_extended_err (ee_origin
// SO_EE_ORIGIN_ZEROCOPY) becomes "zerocopy [ee_info,ee_data]", with copied
// for SO_EE_CODE_ZEROCOPY_COPIED.
func (t *translator) errqueueRead(msg expr) (string, bool) {
	var (
		msgFlags string
		cm       *expr
	)
	for _, f := range msg.fields {
		switch f.name {
		case "msg_name", "msg_iov":
		case "msg_flags":
			if f.val.kind == eEllipsis {
				continue
			}
			var ok bool
			if msgFlags, ok = t.word(f.val, "MSG_* flags"); !ok {
				return "", false
			}
		case "msg_control":
			switch {
			case len(f.val.items) > 1 || len(f.val.items) == 1 && f.val.items[0].kind != eStruct:
				t.fail(f.pos, f.name, "the importer translates one control message")
				return "", false
			case len(f.val.items) == 1:
				cm = &f.val.items[0]
			}
		default:
			t.fail(f.pos, f.name, "the importer does not translate a recvmsg's %s", f.name)
			return "", false
		}
	}
	var fields []string
	if msgFlags != "" {
		fields = append(fields, "msg_flags="+msgFlags)
	}
	ctrunc := strings.Contains("|"+msgFlags+"|", "|MSG_CTRUNC|")
	if cm == nil {
		if !ctrunc {
			t.fail(msg.pos, "", "the importer needs the msg_control of a recvmsg that returns a record, or msg_flags with MSG_CTRUNC")
			return "", false
		}
		return " control=0 => ctrunc" + joinFields(fields), true
	}
	level, typ, ee, ok := t.cmsg(*cm)
	if !ok {
		return "", false
	}
	fields = append(fields, "cmsg_level="+level, "cmsg_type="+typ)
	if ctrunc {
		size := 64
		if level == "SOL_IP" {
			size = 48
		}
		for _, k := range eeFields {
			if e, ok := ee[k]; ok {
				v := strconv.FormatInt(e.num, 10)
				if e.kind != eNum {
					var ok bool
					if v, ok = t.word(e, k); !ok {
						return "", false
					}
				}
				fields = append(fields, k+"="+v)
			}
		}
		return fmt.Sprintf(" control=%d => ctrunc", size) + joinFields(fields), true
	}
	rec, ok := t.zerocopyRecord(msg, ee)
	return " => " + rec + joinFields(fields), ok
}

// eeFields are the fields of a struct sock_extended_err, in its order.
var eeFields = []string{"ee_errno", "ee_origin", "ee_type", "ee_code", "ee_info", "ee_data"}

func joinFields(fields []string) string {
	if len(fields) == 0 {
		return ""
	}
	return " " + strings.Join(fields, " ")
}

// zerocopyRecord translates the sock_extended_err of a zerocopy
// notification into the zerocopy expectation.
func (t *translator) zerocopyRecord(msg expr, ee map[string]expr) (string, bool) {
	get := func(k string) (expr, bool) {
		e, ok := ee[k]
		if !ok {
			t.fail(msg.pos, k, "the sock_extended_err has no %s", k)
		}
		return e, ok
	}
	origin, ok := get("ee_origin")
	if !ok {
		return "", false
	}
	if !oneOf(origin, "SO_EE_ORIGIN_ZEROCOPY") {
		t.fail(origin.pos, "", "the importer translates zerocopy notifications (ee_origin=SO_EE_ORIGIN_ZEROCOPY)")
		return "", false
	}
	for _, k := range []string{"ee_errno", "ee_type"} {
		e, ok := get(k)
		if !ok {
			return "", false
		}
		if e.kind != eNum || e.num != 0 {
			t.fail(e.pos, k, "a zerocopy notification has %s=0", k)
			return "", false
		}
	}
	code, ok := get("ee_code")
	if !ok {
		return "", false
	}
	copied := ""
	switch {
	case code.kind == eWords && code.words[0] == "SO_EE_CODE_ZEROCOPY_COPIED":
		copied = " copied"
	case code.kind == eNum && code.num == 0:
	default:
		t.fail(code.pos, "ee_code", "ee_code is 0 or SO_EE_CODE_ZEROCOPY_COPIED")
		return "", false
	}
	info, ok1 := get("ee_info")
	data, ok2 := get("ee_data")
	if !ok1 || !ok2 {
		return "", false
	}
	lo, ok1 := t.num(info, "ee_info")
	hi, ok2 := t.num(data, "ee_data")
	if !ok1 || !ok2 {
		return "", false
	}
	return fmt.Sprintf("zerocopy [%d,%d]%s", lo, hi, copied), true
}

// cmsgLevels and cmsgTypes are the error-queue control messages' level
// and type names the importer takes, with the scenario's name for each.
// CMSG_LEVEL_IP and CMSG_TYPE_RECVERR, which packetdrill's runners define
// for each address family, are the script family's (--ip_version).
var (
	cmsgLevels = map[string]string{"SOL_IP": "SOL_IP", "IPPROTO_IP": "SOL_IP", "SOL_IPV6": "SOL_IPV6", "IPPROTO_IPV6": "SOL_IPV6"}
	cmsgTypes  = map[string]string{"IP_RECVERR": "IP_RECVERR", "IPV6_RECVERR": "IPV6_RECVERR"}
)

// cmsg reads {cmsg_level=..., cmsg_type=..., cmsg_data={...}}: the level
// and type as the scenario names them, and the fields of its
// sock_extended_err.
func (t *translator) cmsg(e expr) (level, typ string, ee map[string]expr, ok bool) {
	ee = map[string]expr{}
	v6 := t.family != "AF_INET"
	for _, f := range e.fields {
		switch f.name {
		case "cmsg_len":
		case "cmsg_level":
			level = cmsgLevels[wordOf(f.val)]
			if wordOf(f.val) == "CMSG_LEVEL_IP" {
				level = map[bool]string{false: "SOL_IP", true: "SOL_IPV6"}[v6]
			}
			if level == "" {
				t.fail(f.pos, f.name, "the importer translates IP and IPv6 error-queue control messages")
				return "", "", nil, false
			}
		case "cmsg_type":
			typ = cmsgTypes[wordOf(f.val)]
			if wordOf(f.val) == "CMSG_TYPE_RECVERR" {
				typ = map[bool]string{false: "IP_RECVERR", true: "IPV6_RECVERR"}[v6]
			}
			if typ == "" {
				t.fail(f.pos, f.name, "the importer translates IP_RECVERR and IPV6_RECVERR control messages")
				return "", "", nil, false
			}
		case "cmsg_data":
			for _, d := range f.val.fields {
				ee[d.name] = d.val
			}
		default:
			t.fail(f.pos, f.name, "unknown cmsghdr field")
			return "", "", nil, false
		}
	}
	if level == "" || typ == "" {
		t.fail(e.pos, "", "a control message needs its cmsg_level and cmsg_type")
		return "", "", nil, false
	}
	return level, typ, ee, true
}

// wordOf is a one-word argument, or "".
func wordOf(e expr) string {
	if e.kind != eWords || len(e.words) != 1 {
		return ""
	}
	return e.words[0]
}

func oneOf(e expr, names ...string) bool {
	if e.kind != eWords || len(e.words) != 1 {
		return false
	}
	for _, n := range names {
		if e.words[0] == n {
			return true
		}
	}
	return false
}
