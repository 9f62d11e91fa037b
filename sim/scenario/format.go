package scenario

import "strings"

// Format prints statements in canonical form, one per line: single spaces
// between operands, options as key=value, flags joined by "|" without blanks,
// iovecs as "[a, b]", the outcome after " => " in the form [Outcome.String]
// gives, trailing comments after " # ", and one blank line wherever the source
// had blank lines (Line.Gap). Numbers, durations, words and expressions keep
// their spelling (Value.Text). A [Repeat] is always a block: its header
// "repeat [VAR] COUNT {", its body indented by two blanks a level, and "}"
// on a line of its own, even where the source had it on one line. For every
// file Parse accepts, Parse(Format(stmts)) returns the same statements,
// positions aside, and Format of those is the same text.
func Format(stmts []Stmt) string {
	var b strings.Builder
	format(&b, stmts, "")
	return b.String()
}

// format writes stmts at the indentation indent.
func format(b *strings.Builder, stmts []Stmt, indent string) {
	for i, st := range stmts {
		if st == nil {
			continue
		}
		if (i > 0 || indent != "") && st.line().Gap {
			b.WriteByte('\n')
		}
		b.WriteString(indent)
		b.WriteString(FormatStmt(st))
		b.WriteByte('\n')
		if r, ok := st.(*Repeat); ok {
			format(b, r.Body, indent+"  ")
			b.WriteString(indent + "}")
			if r.EndComment != "" {
				b.WriteString(" # " + r.EndComment)
			}
			b.WriteByte('\n')
		}
	}
}

// FormatStmt prints one statement in canonical form, without a newline, as
// [Format] does; the timeline uses it to show the step being run. For a
// [Repeat] it is the header line alone, "repeat i 1000 {" and its comment.
func FormatStmt(st Stmt) string {
	l := st.line()
	if c, ok := st.(*Comment); ok {
		return strings.TrimRight("# "+c.Text, " ")
	}
	s := strings.Join(words(st), " ")
	if _, ok := st.(*Repeat); ok {
		s += " {"
	}
	if _, note := st.(*Note); !note && !l.Want.IsZero() {
		s += " => " + l.Want.String()
	}
	if l.Comment != "" {
		s += " # " + l.Comment
	}
	return s
}

// FormatCall renders the statement alone, in canonical form, without its
// expectation or comment: what a timeline shows as the call.
func FormatCall(st Stmt) string {
	if c, ok := st.(*Comment); ok {
		return strings.TrimRight("# "+c.Text, " ")
	}
	return strings.Join(words(st), " ")
}

// words renders a statement's keyword and operands.
func words(st Stmt) []string {
	switch s := st.(type) {
	case *Note:
		return nonEmpty("note", s.Text)
	case *Profile:
		return []string{"profile", s.Name.Name}
	case *Bug:
		return []string{"bug", s.Name.Name}
	case *Repeat:
		return nonEmpty("repeat", s.Var.Name, s.Count.Text)
	case *Sysctl:
		return append([]string{"sysctl", s.Key.Name}, values(s.Values)...)
	case *User:
		return append([]string{"user", s.Name.Name}, options(s.Options)...)
	case *Task:
		return append([]string{"task", s.Name.Name}, options(s.Options)...)
	case *Device:
		return append([]string{"device", s.Name.Name, s.Kind.Name}, options(s.Options)...)
	case *Tap:
		return append([]string{"tap", s.Name.Name}, options(s.Options)...)
	case *Socket:
		w := nonEmpty("socket", s.Name.Name, s.Family.Name, s.Type.String(), s.Protocol.Text)
		return append(w, options(s.Options)...)
	case *Setsockopt:
		v := s.Value.Text
		switch {
		case s.Req != nil:
			v = iovec(s.Req)
		case v == "":
			v = s.Flags.String()
		}
		return append([]string{"setsockopt", s.Sock.String(), s.Level.Name, s.Opt.Name, v}, options(s.Options)...)
	case *Getsockopt:
		return append([]string{"getsockopt", s.Sock.String(), s.Level.Name, s.Opt.Name}, options(s.Options)...)
	case *Expect:
		w := append([]string{"expect", s.Sock.String()}, options(s.Checks)...)
		if !s.Notified.IsZero() {
			w = append(w, "notified="+s.Notified.String())
		}
		return w
	}
	return callWords(st)
}

// callWords renders the syscall and network-control statements.
func callWords(st Stmt) []string {
	switch s := st.(type) {
	case *Connect:
		return []string{"connect", s.Sock.String()}
	case *Listen:
		return append([]string{"listen", s.Sock.String()}, options(s.Options)...)
	case *Bind:
		return append([]string{"bind", s.Sock.String()}, options(s.Options)...)
	case *Mmap:
		w := nonEmpty("mmap", s.Sock.String(), s.Len.Text)
		if !s.Prot.IsZero() {
			w = append(w, s.Prot.String())
		}
		return w
	case *Munmap:
		return []string{"munmap", s.Sock.String()}
	case *Txframe:
		return []string{"txframe", s.Sock.String(), s.Frame.Text, s.Len.Text}
	case *Txstatus:
		return []string{"txstatus", s.Sock.String(), s.Frame.Text}
	case *Txskew:
		return []string{"txskew", s.Sock.String(), s.Frames.Text, s.CPU.Text}
	case *Migrate:
		return []string{"migrate", s.Task.Name, s.CPU.Text}
	case *Close:
		return []string{"close", s.Sock.String()}
	case *Accept:
		return []string{"accept", s.Sock.String(), s.New.Name}
	case *Shutdown:
		return []string{"shutdown", s.Sock.String(), s.How.Name}
	case *Send:
		return []string{"send", s.Sock.String(), s.Len.Text, s.Flags.String()}
	case *Sendto:
		return []string{"sendto", s.Sock.String(), s.Len.Text, s.Flags.String()}
	case *Sendmsg:
		w := []string{"sendmsg", s.Sock.String(), iovec(s.Iov), s.Flags.String()}
		for _, c := range s.Cmsgs {
			w = append(w, c.words()...)
		}
		return append(w, options(s.Options)...)
	case *Sendmmsg:
		w := []string{"sendmmsg", s.Sock.String()}
		for _, m := range s.Msgs {
			w = append(w, iovec(m))
		}
		return append(w, s.Flags.String())
	case *Recvmsg:
		return append([]string{"recvmsg", s.Sock.String(), s.Flags.String()}, options(s.Options)...)
	case *Recv:
		w := []string{"recv", s.Sock.String(), s.Len.Text}
		if !s.Flags.IsZero() {
			w = append(w, s.Flags.String())
		}
		return w
	case *Poll:
		return nonEmpty("poll", s.Sock.String(), s.Events.String(), s.Timeout.Text)
	case *EpollCreate:
		return []string{"epoll_create", s.Name.Name}
	case *EpollCtl:
		if s.Op.Name == "EPOLL_CTL_DEL" && s.Events.IsZero() {
			return []string{"epoll_ctl", s.Epoll.Name, s.Op.Name, s.Sock.String()}
		}
		return []string{"epoll_ctl", s.Epoll.Name, s.Op.Name, s.Sock.String(), s.Events.String()}
	case *EpollWait:
		return nonEmpty("epoll_wait", s.Epoll.Name, s.Max.Text, s.Timeout.Text)
	case *Fcntl:
		if s.Cmd.Name == "F_SETFL" {
			return []string{"fcntl", s.Sock.String(), s.Cmd.Name, s.Flags.String()}
		}
		return []string{"fcntl", s.Sock.String(), s.Cmd.Name}
	case *Setrlimit:
		return nonEmpty("setrlimit", s.Task.Name, s.Resource.Name, s.Limit.Text, s.Max.Text)
	case *Capdrop:
		return []string{"capdrop", s.Task.Name, s.Cap.Name}
	case *Capset:
		return []string{"capset", s.Task.Name, s.Cap.Name}
	}
	return timeWords(st)
}

// timeWords renders the statements that drive time and the network.
func timeWords(st Stmt) []string {
	switch s := st.(type) {
	case *Wait:
		return []string{"wait", s.Dur.Text}
	case *Settle:
		return []string{"settle"}
	case *Hold:
		return []string{"hold", s.Sock.String(), s.Dir.Name}
	case *Release:
		return []string{"release", s.Sock.String(), s.Dir.Name}
	case *Drop:
		return nonEmpty("drop", s.Sock.String(), s.Dir.Name, s.Count.Text)
	case *Complete:
		return nonEmpty("complete", s.Device.Name, s.Count.Text)
	case *Txerror:
		return nonEmpty("txerror", s.Device.Name, s.Count.Text)
	case *VhostSend:
		return append([]string{"vhost_send", s.Device.Name, s.Len.Text}, options(s.Options)...)
	case *Fault:
		return []string{"fault", s.Site.Name, s.Rule.Name}
	case *Zckey:
		return []string{"zckey", s.Sock.String(), s.Value.Text}
	}
	return packetWords(st)
}

// nonEmpty returns the words that are not empty.
func nonEmpty(ws ...string) []string {
	out := ws[:0]
	for _, w := range ws {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

func values(vs []Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Text
	}
	return out
}

func options(os Options) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = o.String()
	}
	return out
}

func iovec(vs []Value) string { return "[" + strings.Join(values(vs), ", ") + "]" }
