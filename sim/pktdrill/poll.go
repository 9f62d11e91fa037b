package pktdrill

import "fmt"

// poll translates "poll([{fd=FD, events=EVENTS, revents=REVENTS}], 1,
// MS) = R" into "poll fdFD EVENTS MSms => R revents=REVENTS": the
// scenario polls one descriptor, and packetdrill checks revents, 0 when
// the script leaves it out. A negative (infinite) timeout has no
// scenario form: poll waits a duration.
func (t *translator) poll(c call) {
	if !t.nargs(c, 3) {
		return
	}
	list := c.args[0]
	if list.kind != eList || len(list.items) != 1 || list.items[0].kind != eStruct {
		t.fail(list.pos, "", "the importer takes a poll of one descriptor: [{fd=FD, events=EVENTS, revents=REVENTS}]")
		return
	}
	fd, events, revents := int64(-1), "", "0"
	ok := true
	for _, f := range list.items[0].fields {
		good := true
		switch f.name {
		case "fd":
			fd, good = t.num(f.val, "a descriptor")
		case "events":
			events, good = t.word(f.val, "POLL* events")
		case "revents":
			revents, good = t.word(f.val, "POLL* events")
		default:
			t.fail(f.pos, f.name, "a struct pollfd has fd=, events= and revents=")
			good = false
		}
		ok = ok && good
	}
	nfds, ok2 := t.num(c.args[1], "nfds")
	ms, ok3 := t.num(c.args[2], "a timeout in milliseconds")
	switch {
	case !ok || !ok2 || !ok3:
		return
	case events == "":
		t.fail(list.pos, "", "the pollfd needs its events=")
		return
	case !t.sockets[fd]:
		t.fail(list.pos, "fd", "no socket has descriptor %d", fd)
		return
	case nfds != 1:
		t.fail(c.args[1].pos, "", "poll's nfds %d does not match its one pollfd", nfds)
		return
	case ms < 0:
		t.fail(c.args[2].pos, "", "the scenario's poll waits a duration: a negative timeout is not translated")
		return
	}
	timeout := ""
	if ms > 0 {
		timeout = fmt.Sprintf(" %dms", ms)
	}
	res := outcome(c)
	if c.errno == "" && !c.anyRet {
		res += " revents=" + revents
	}
	t.emit(c.pos, "poll %s %s%s%s", fdName(fd), events, timeout, res)
}
