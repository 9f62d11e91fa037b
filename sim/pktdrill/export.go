package pktdrill

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/scenario"
)

// Export writes the scenario src, read from file, as a packetdrill script
// a packetdrill binary runs against the live kernel. It takes scenarios
// that say only what packetdrill can: TCP sockets on one scripted device
// (peer=script), the calls packetdrill makes with the results each must
// return, waits, inject with its sequence numbers and packet with its
// range. Anything else is a scenario.ErrorList naming the statement. The
// scenario runs in family to (scenario.Retarget), which the script's
// --ip_version says.
func Export(file string, src []byte, to scenario.Family) ([]byte, error) {
	x := &exporter{fds: map[string]int{}, family: map[string]string{}}
	fmt.Fprintf(&x.b, "// exported from %s by zcsim export --packetdrill\n", file)
	x.head = x.b.Len()
	re := scenario.Retarget{To: to}
	err := scenario.ParseEach(file, src, func(st scenario.Stmt) bool {
		re.Rewrite(st)
		x.stmt(st)
		return len(x.errs) < scenario.MaxErrors
	})
	if err != nil {
		return nil, err
	}
	if len(x.errs) > 0 {
		return nil, x.errs
	}
	return []byte(x.b.String()), nil
}

// exporter writes events; wait carries the time to the next one.
type exporter struct {
	b      strings.Builder
	errs   scenario.ErrorList
	wait   int64
	device string
	fds    map[string]int
	family map[string]string
	// version is the script's --ip_version, set by its first socket,
	// and written at head, before every event, as packetdrill wants.
	version string
	head    int
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (x *exporter) fail(st scenario.Stmt, format string, args ...any) {
	if len(x.errs) < scenario.MaxErrors {
		x.errs = append(x.errs, &scenario.Error{Pos: st.Pos(), Msg: fmt.Sprintf(format, args...), Near: scenario.FormatCall(st)})
	}
}

// event writes one event at the time the waits before it added up to.
func (x *exporter) event(format string, args ...any) {
	fmt.Fprintf(&x.b, "%6s %s\n", "+"+secText(x.wait), fmt.Sprintf(format, args...))
	x.wait = 0
}

// secText writes nanoseconds as packetdrill's seconds: 0, .25, 1.5.
func secText(ns int64) string {
	if ns == 0 {
		return "0"
	}
	s := strconv.FormatFloat(float64(ns)/1e9, 'f', -1, 64)
	return strings.TrimPrefix(s, "0")
}

// result is the packetdrill result of a call's expectation.
func (x *exporter) result(st scenario.Stmt) (string, bool) {
	w := st.Expectation()
	switch w.Kind {
	case scenario.OutcomeReturn:
		return strconv.FormatInt(w.Ret, 10), true
	case scenario.OutcomeErrno:
		if !w.AnyCode {
			return errnoResult(w.Errno), true
		}
		x.fail(st, "packetdrill checks the errno: name it, not %s", w)
	case scenario.OutcomeNone:
		x.fail(st, "packetdrill checks every call's result: write it after =>")
	default:
		x.fail(st, "packetdrill cannot express the expectation %s here", w)
	}
	return "", false
}

// errnoResult is a failed call's result; packetdrill wants a note after
// the errno, which it does not check.
func errnoResult(name string) string { return "-1 " + name + " (" + name + ")" }

// fd returns the descriptor of a scenario socket.
func (x *exporter) fd(st scenario.Stmt, s scenario.Sock) (int, bool) {
	fd, ok := x.fds[s.String()]
	if !ok || s.Peer {
		x.fail(st, "%s is not a socket of the script (a scripted device has no implicit peer)", s)
	}
	return fd, ok && !s.Peer
}

// alloc gives a socket the lowest descriptor the kernel would.
func (x *exporter) alloc(name string) int {
	fd := 3
	for {
		taken := false
		for _, f := range x.fds {
			taken = taken || f == fd
		}
		if !taken {
			x.fds[name] = fd
			return fd
		}
		fd++
	}
}

func (x *exporter) stmt(st scenario.Stmt) {
	switch s := st.(type) {
	case *scenario.Comment:
		fmt.Fprintf(&x.b, "// %s\n", s.Text)
	case *scenario.Note:
		fmt.Fprintf(&x.b, "// %s\n", s.Text)
	case *scenario.Profile:
		// The live kernel is the profile.
	case *scenario.Wait:
		x.wait += int64(s.Dur.N)
	case *scenario.Device:
		if o, ok := s.Options.Lookup("peer"); !ok || o.Value.Text != "script" || x.device != "" || len(s.Options) != 1 {
			x.fail(st, "packetdrill has one device, its tun: the scenario's one device, with peer=script and no other option")
			return
		}
		x.device = s.Name.Name
	default:
		x.call(st)
	}
}

func (x *exporter) call(st scenario.Stmt) {
	switch s := st.(type) {
	case *scenario.Socket:
		x.socket(s)
	case *scenario.Setsockopt:
		x.setsockopt(s)
	case *scenario.Getsockopt:
		x.getsockopt(s)
	case *scenario.Bind, *scenario.Listen, *scenario.Connect, *scenario.Close, *scenario.Send, *scenario.Sendto, *scenario.Sendmsg, *scenario.Recv:
		x.onSocket(st)
	case *scenario.Sysctl:
		x.sysctl(s)
	case *scenario.Accept:
		if fd, ok := x.fd(st, s.Sock); ok {
			if r, ok := x.result(st); ok {
				if st.Expectation().Kind == scenario.OutcomeReturn {
					x.alloc(s.New.Name)
					x.family[s.New.Name] = x.family[s.Sock.Name]
				}
				x.event("accept(%d, ..., ...) = %s", fd, r)
			}
		}
	case *scenario.Shutdown:
		if fd, ok := x.fd(st, s.Sock); ok {
			if r, ok := x.result(st); ok {
				x.event("shutdown(%d, %s) = %s", fd, s.How.Name, r)
			}
		}
	case *scenario.Recvmsg:
		x.recvmsg(s)
	case *scenario.Fcntl:
		if fd, ok := x.fd(st, s.Sock); ok {
			if r, ok := x.result(st); ok && s.Cmd.Name == "F_GETFL" {
				x.event("fcntl(%d, F_GETFL) = %s", fd, r)
			} else if ok {
				x.event("fcntl(%d, F_SETFL, %s) = %s", fd, s.Flags, r)
			}
		}
	case *scenario.EpollCreate, *scenario.EpollCtl, *scenario.EpollWait:
		x.epoll(st)
	case *scenario.Poll:
		x.poll(s)
	case *scenario.Inject:
		x.inject(s)
	case *scenario.Packet:
		x.packet(s)
	default:
		x.fail(st, "packetdrill has no form for %s", strings.Fields(scenario.FormatCall(st))[0])
	}
}

func (x *exporter) socket(s *scenario.Socket) {
	_, typ, _ := s.Args()
	if o, ok := s.Options.Lookup("via"); !ok || o.Value.Text != x.device || x.device == "" {
		x.fail(s, "a socket of the script is on its scripted device: via=DEVICE")
		return
	}
	_, mapped := s.Options.Lookup("mapped")
	if typ.Base() != kernel.SOCK_STREAM || len(s.Options) != 1+boolInt(mapped) {
		x.fail(s, "the script's sockets are TCP sockets with no option but via= (and mapped)")
		return
	}
	version := map[string]string{"AF_INET": "ipv4", "AF_INET6": "ipv6"}[s.Family.Name]
	if mapped {
		version = "ipv4-mapped-ipv6"
	}
	if x.version == "" {
		x.version = version
		text := x.b.String()
		x.b.Reset()
		fmt.Fprintf(&x.b, "%s--ip_version=\"%s\"\n%s", text[:x.head], version, text[x.head:])
	} else if version != x.version {
		x.fail(s, "packetdrill runs a script in one address family: this socket's is not the first one's")
		return
	}
	r, ok := x.result(s)
	if !ok {
		return
	}
	fd := x.alloc(s.Name.Name)
	if r != strconv.Itoa(fd) {
		x.fail(s, "the kernel gives this socket descriptor %d, not %s", fd, r)
		return
	}
	x.family[s.Name.Name] = s.Family.Name
	x.event("socket(..., SOCK_STREAM, IPPROTO_TCP) = %d", fd)
	if s.Type.Has("SOCK_NONBLOCK") {
		x.event("fcntl(%d, F_SETFL, O_RDWR|O_NONBLOCK) = 0", fd)
	}
}

func (x *exporter) setsockopt(s *scenario.Setsockopt) {
	fd, ok := x.fd(s, s.Sock)
	if !ok {
		return
	}
	if len(s.Options) > 0 || s.Value.Kind != scenario.ValueNumber {
		x.fail(s, "the exporter writes setsockopt with an int value only")
		return
	}
	if r, ok := x.result(s); ok {
		x.event("setsockopt(%d, %s, %s, [%d], 4) = %s", fd, s.Level.Name, s.Opt.Name, s.Value.Int(), r)
	}
}

// getsockopt writes getsockopt into an int: the expected value in its
// buffer and 0 as the result, or the errno (packetdrill compares the
// buffer only after a call that succeeded).
func (x *exporter) getsockopt(s *scenario.Getsockopt) {
	fd, ok := x.fd(s, s.Sock)
	if !ok {
		return
	}
	if len(s.Options) > 0 {
		x.fail(s, "the exporter writes getsockopt into an int only")
		return
	}
	val, ret := int64(0), ""
	if w := s.Expectation(); w.Kind == scenario.OutcomeReturn {
		val, ret = w.Ret, "0"
	} else if ret, ok = x.result(s); !ok {
		return
	}
	x.event("getsockopt(%d, %s, %s, [%d], [4]) = %s", fd, s.Level.Name, s.Opt.Name, val, ret)
}

// onSocket writes a call on a socket of the script with its result.
func (x *exporter) onSocket(st scenario.Stmt) {
	ss, _ := scenario.SockOf(st)
	fd, ok := x.fd(st, ss)
	if !ok {
		return
	}
	r, ok := x.result(st)
	if !ok {
		return
	}
	switch s := st.(type) {
	case *scenario.Bind:
		x.event("bind(%d, ..., ...) = %s", fd, r)
	case *scenario.Listen:
		x.event("listen(%d, %d) = %s", fd, s.Backlog(), r)
	case *scenario.Connect:
		x.event("connect(%d, ..., ...) = %s", fd, r)
	case *scenario.Close:
		x.event("close(%d) = %s", fd, r)
		delete(x.fds, ss.String())
	case *scenario.Send:
		x.event("send(%d, ..., %d, %s) = %s", fd, s.Len.N, s.Flags, r)
	case *scenario.Sendto:
		x.event("sendto(%d, ..., %d, %s, ..., ...) = %s", fd, s.Len.N, s.Flags, r)
	case *scenario.Recv:
		x.event("recv(%d, ..., %d, %s) = %s", fd, s.Len.N, s.Flags, r)
	case *scenario.Sendmsg:
		if _, _, zc := s.ZcInfo(); zc {
			x.fail(st, "the exporter writes no SCM_ZC_NOTIFICATION: packetdrill has none")
			return
		}
		if len(s.Iov) > 1 && !s.IovApart() && s.Flags.MsgFlags()&kernel.MSG_ZEROCOPY != 0 {
			x.fail(st, "packetdrill allocates each iovec apart, so their zerocopy frags differ from iovecs back to back: write iov=apart")
			return
		}
		iov := make([]string, len(s.Iov))
		for i, v := range s.Iov {
			iov[i] = fmt.Sprintf("{..., %d}", v.N)
		}
		ctl := ""
		if len(s.Cmsgs) > 0 {
			var cms []string
			for _, c := range s.Cmsgs {
				if c.DataLen() != 4 {
					x.fail(st, "packetdrill writes a control message's data as an int (4 bytes), not %d bytes", c.DataLen())
					return
				}
				cms = append(cms, fmt.Sprintf("{cmsg_level=%s, cmsg_type=%s, cmsg_data=%s}", c.Level.Name, c.Type.Name, cmsgData(c)))
			}
			ctl = ", msg_control=[" + strings.Join(cms, ", ") + "]"
		}
		x.event("sendmsg(%d, {msg_name(...)=..., msg_iov(%d)=[%s]%s, msg_flags=0}, %s) = %s", fd, len(iov), strings.Join(iov, ", "), ctl, s.Flags, r)
	}
}

// epoll writes epoll_create(1), epoll_ctl with its struct epoll_event and
// epoll_wait with the first event its outcome lists, the one packetdrill
// checks ({events=0, u32=0} for none: the zeroed event), and its timeout in milliseconds.
func (x *exporter) epoll(st scenario.Stmt) {
	r, ok := x.result(st)
	if !ok {
		return
	}
	if s, ok := st.(*scenario.EpollCreate); ok {
		if fd := x.alloc(s.Name.Name); r != strconv.Itoa(fd) {
			x.fail(s, "the kernel gives this instance descriptor %d, not %s", fd, r)
		} else {
			x.event("epoll_create(1) = %d", fd)
		}
		return
	}
	var epName string
	switch s := st.(type) {
	case *scenario.EpollCtl:
		epName = s.Epoll.Name
	case *scenario.EpollWait:
		epName = s.Epoll.Name
	}
	ep, ok := x.fds[epName]
	if !ok {
		x.fail(st, "%s is not an epoll instance of the script", epName)
		return
	}
	switch s := st.(type) {
	case *scenario.EpollCtl:
		fd, ok := x.fd(st, s.Sock)
		if !ok {
			return
		}
		events := s.Events.String()
		if events == "" {
			events = "0"
		}
		x.event("epoll_ctl(%d, %s, %d, {events=%s, fd=%d}) = %s", ep, s.Op.Name, fd, events, fd, r)
	case *scenario.EpollWait:
		ms := int64(-1)
		if !s.Forever() {
			if s.Timeout.N%1e6 != 0 {
				x.fail(st, "packetdrill's epoll_wait timeout is in whole milliseconds")
				return
			}
			ms = int64(s.Timeout.N / 1e6)
		}
		ev := "{events=0, u32=0}"
		if w := st.Expectation(); w.Epoll != nil && len(*w.Epoll) > 0 {
			first := (*w.Epoll)[0]
			fd, ok := x.fd(st, first.Sock)
			if !ok {
				return
			}
			ev = fmt.Sprintf("{events=%s, fd=%d}", first.Events, fd)
		} else if w.Kind == scenario.OutcomeReturn && w.Ret > 0 {
			x.fail(st, "packetdrill checks the first event a wait returns: list the events after the count")
			return
		}
		x.event("epoll_wait(%d, %s, %d, %d) = %s", ep, ev, s.Max.Int(), ms, r)
	}
}

// recvmsg writes an error-queue read: a zerocopy notification as its
// sock_extended_err in the control message of the socket's family, a
// read without a control buffer (control=0) that loses its record to
// MSG_CTRUNC, or a failed read. packetdrill sizes the control buffer to
// the control messages it lists (cmsg_new: CMSG_SPACE of the
// sock_extended_err and the offender's sockaddr_in or sockaddr_in6, 48
// or 64 bytes), which holds the record: a notification read with
// control=N is written when N is at least that size for the socket's
// family (both buffers hold the record, so the read returns the same),
// and a failed read whatever N (its result does not depend on the
// buffer). A read that loses its record to MSG_CTRUNC is written only
// with control=0: with a control message listed, packetdrill's buffer
// would hold the record, or compare the cut message's level with the
// listed one.
func (x *exporter) recvmsg(s *scenario.Recvmsg) {
	fd, ok := x.fd(s, s.Sock)
	if !ok {
		return
	}
	w := s.Expectation()
	control, sized := s.Options.Lookup("control")
	switch {
	case !s.Flags.Has("MSG_ERRQUEUE") || len(s.Options) > boolInt(sized):
		x.fail(s, "the exporter writes recvmsg of the error queue only, with no option but control=0")
		return
	case sized && control.Value.N == 0 && w.Kind != scenario.OutcomeCtrunc && w.Kind != scenario.OutcomeErrno,
		sized && control.Value.N != 0 && w.Kind == scenario.OutcomeZerocopy && control.Value.N < recordControl(x.family[s.Sock.Name]),
		sized && control.Value.N != 0 && w.Kind != scenario.OutcomeZerocopy && w.Kind != scenario.OutcomeErrno:
		x.fail(s, "packetdrill sizes the control buffer to the control messages it expects: the exporter writes control=0 => ctrunc, control=%d or more => zerocopy on this socket, or a failed read", recordControl(x.family[s.Sock.Name]))
		return
	}
	const empty = "{msg_name(...)=..., msg_iov(1)=[{...,0}], msg_flags=0}"
	if w.AnyCode {
		x.fail(s, "packetdrill checks the exact record: write it, not %s", w)
		return
	}
	switch w.Kind {
	case scenario.OutcomeCtrunc:
		// No msg_control: packetdrill gives the read no control buffer
		// (cmsg_new), and the kernel sets MSG_CTRUNC (put_cmsg).
		if !sized {
			x.fail(s, "a read that loses its record to MSG_CTRUNC says its control buffer: control=0")
			return
		}
		flags := "MSG_ERRQUEUE|MSG_CTRUNC"
		if w.Msg != nil {
			if f, ok := w.Msg.Lookup("msg_flags"); ok {
				flags = f.Flags.String()
			}
		}
		x.event("recvmsg(%d, {msg_name(...)=..., msg_iov(1)=[{...,0}], msg_flags=%s}, %s) = 0", fd, flags, s.Flags)
	case scenario.OutcomeErrno:
		x.event("recvmsg(%d, %s, %s) = %s", fd, empty, s.Flags, errnoResult(w.Errno))
	case scenario.OutcomeZerocopy:
		// ipv6_recv_error for every AF_INET6 socket, v4-mapped too.
		level, typ := "SOL_IP", "IP_RECVERR"
		if x.family[s.Sock.Name] == "AF_INET6" {
			level, typ = "SOL_IPV6", "IPV6_RECVERR"
		}
		code := "0"
		if w.Copied {
			code = "SO_EE_CODE_ZEROCOPY_COPIED"
		}
		x.event("recvmsg(%d, {msg_name(...)=..., msg_iov(1)=[{...,0}], msg_flags=MSG_ERRQUEUE,\n"+
			"                msg_control=[{cmsg_level=%s, cmsg_type=%s,\n"+
			"                              cmsg_data={ee_errno=0, ee_origin=SO_EE_ORIGIN_ZEROCOPY, ee_type=0,\n"+
			"                                         ee_code=%s, ee_info=%d, ee_data=%d}}]}, %s) = 0",
			fd, level, typ, code, w.Range.Lo, w.Range.Hi, s.Flags)
	default:
		x.result(s)
		if w.Kind == scenario.OutcomeReturn {
			x.fail(s, "an error-queue read returns a notification or fails: say which")
		}
	}
}

// recordControl is the control buffer packetdrill gives a read that
// expects one error-queue record on a socket of family: CMSG_SPACE of a
// sock_extended_err and a sockaddr_in (48) or sockaddr_in6 (64).
func recordControl(family string) uint64 {
	if family == "AF_INET6" {
		return 64
	}
	return 48
}

// poll writes a poll of one descriptor with the revents its outcome
// checks (packetdrill checks them, 0 when none) and its timeout in
// milliseconds.
func (x *exporter) poll(s *scenario.Poll) {
	fd, ok := x.fd(s, s.Sock)
	if !ok {
		return
	}
	r, ok := x.result(s)
	if !ok {
		return
	}
	if s.Timeout.N%1e6 != 0 {
		x.fail(s, "packetdrill's poll timeout is in whole milliseconds")
		return
	}
	revents := "0"
	w := s.Expectation()
	if w.Msg != nil {
		if f, ok := w.Msg.Lookup("revents"); ok {
			revents = f.Flags.String()
		}
	}
	if w.Kind == scenario.OutcomeReturn && w.Ret > 0 && revents == "0" {
		x.fail(s, "packetdrill checks the revents a poll returns: write revents= after the count")
		return
	}
	x.event("poll([{fd=%d, events=%s, revents=%s}], 1, %d) = %s", fd, s.Events, revents, s.Timeout.N/1e6, r)
}

// segment writes a TCP segment's header as packetdrill does: flags,
// seq:end(len), ack, win, <options>. Inbound segments need every field
// the kernel checks; outbound ones leave out what the statement does.
func (x *exporter) segment(st scenario.Stmt, flags scenario.Flags, os scenario.Options, inbound bool) (string, bool) {
	var f string
	for _, n := range []struct{ name, letter string }{{"SYN", "S"}, {"FIN", "F"}, {"RST", "R"}, {"PSH", "P"}, {"ACK", "."}} {
		if flags.Has(n.name) {
			f += n.letter
		}
	}
	num := func(k string) (uint64, bool) {
		o, ok := os.Lookup(k)
		return o.Value.N, ok
	}
	seq, ok := num("seq")
	if !ok && flags.Has("SYN") {
		seq, ok = 0, true
	}
	if !ok {
		x.fail(st, "packetdrill needs the segment's seq=")
		return "", false
	}
	n, _ := num("len")
	out := fmt.Sprintf("%s %d:%d(%d)", f, seq, uint32(seq+n), n)
	if a, ok := num("ack"); ok {
		out += fmt.Sprintf(" ack %d", a)
	} else if inbound && flags.Has("ACK") {
		x.fail(st, "packetdrill needs an inbound ACK's ack=")
		return "", false
	}
	if w, ok := num("win"); ok {
		out += fmt.Sprintf(" win %d", w)
	} else if inbound {
		out += " win 65535" // inject's default
	}
	if _, ok := num("gso"); ok {
		x.fail(st, "packetdrill writes a super-packet by its range: leave out gso=")
		return "", false
	}
	var opts []string
	if m, ok := num("mss"); ok {
		opts = append(opts, fmt.Sprintf("mss %d", m))
	}
	_, sack := os.Lookup("sackok")
	_, ts := os.Lookup("ts")
	switch {
	case sack && ts:
		opts = append(opts, "sackOK", "TS val 0 ecr 0")
	case sack:
		opts = append(opts, "nop", "nop", "sackOK")
	case ts:
		opts = append(opts, "nop", "nop", "TS val 0 ecr 0")
	}
	if w, ok := num("wscale"); ok {
		opts = append(opts, "nop", fmt.Sprintf("wscale %d", w))
	}
	opts = append(opts, fastOpenOption(os)...)
	switch {
	case len(opts) > 0:
		out += " <" + strings.Join(opts, ",") + ">"
	case !inbound:
		out += " <...>" // packet checks no option unless it names one
	}
	return out, true
}

// fastOpenOption writes the Fast Open option fo or foexp names as
// tcp_options_write lays it out, last: FO or FOEXP with the cookie's hex
// digits, two NOPs after it when its length (2 bytes for FO, 4 for
// FOEXP, and the cookie's) leaves 2 bytes of a 32-bit word.
func fastOpenOption(os scenario.Options) []string {
	for _, k := range []struct {
		key, word string
		base      int
	}{{"fo", "FO", 2}, {"foexp", "FOEXP", 4}} {
		o, ok := os.Lookup(k.key)
		if !ok {
			continue
		}
		out := []string{k.word}
		if o.Value.Text != "" {
			out[0] += " " + o.Value.Text
		}
		if (k.base+len(o.Value.Text)/2)&3 == 2 {
			out = append(out, "nop", "nop")
		}
		return out
	}
	return nil
}

// sysctl writes the setting of a sysctl as a shell command packetdrill
// runs: sysctl -q KEY=VALUE, the value as written when the kernel's
// parser reads it too (decimal, or 0x hex: proc_dointvec's base 0), else
// in decimal (a size such as 20K is the scenario's notation, not sysctl's).
func (x *exporter) sysctl(s *scenario.Sysctl) {
	if len(s.Values) != 1 {
		x.fail(s, "the exporter writes a sysctl of one value only")
		return
	}
	v := s.Values[0]
	text := v.Text
	if _, err := strconv.ParseUint(text, 0, 64); err != nil {
		text = strconv.FormatUint(v.N, 10)
	}
	x.event("`sysctl -q %s=%s`", s.Key.Name, text)
}

func (x *exporter) inject(s *scenario.Inject) {
	if _, ok := x.fd(s, s.Sock); !ok {
		return
	}
	if seg, ok := x.segment(s, s.Flags, s.Options, true); ok {
		x.event("< %s", seg)
	}
}

func (x *exporter) packet(s *scenario.Packet) {
	if s.Device.Name != x.device {
		x.fail(s, "packetdrill sees the packets of its tun, the scenario's scripted device")
		return
	}
	if s.None {
		// packetdrill fails on any packet the script does not expect.
		fmt.Fprintf(&x.b, "// no packet more here\n")
		return
	}
	if _, ok := s.Options.Lookup("len"); !ok {
		x.fail(s, "packetdrill needs an outbound packet's seq= and len=")
		return
	}
	if seg, ok := x.segment(s, s.Flags, s.Options, false); ok {
		x.event("> %s", seg)
	}
}

// cmsgData writes a control message's value as packetdrill reads an
// integer cmsg_data: the flags as named, or the number.
func cmsgData(c scenario.Cmsg) string {
	if !c.Flags.IsZero() {
		return c.Flags.String()
	}
	return strconv.FormatUint(c.Data(), 10)
}
