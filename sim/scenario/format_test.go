package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/zcsim/zcsim/kernel"
	"pgregory.net/rapid"
)

// sameAST compares statements without positions, with nil and empty slices
// equal.
var sameAST = []cmp.Option{ignorePos, cmpopts.EquateEmpty()}

// TestFormatParseFixedPoint checks on random ASTs that Format's text parses
// back to the same statements and formats to the same text.
func TestFormatParseFixedPoint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		requireFixedPoint(t, rapid.Custom(genFile).Draw(t, "stmts"))
	})
}

// requireFixedPoint fails unless stmts format to a text that parses back
// to the same statements and formats to the same text.
func requireFixedPoint(t *rapid.T, stmts []Stmt) {
	text := Format(stmts)
	back, err := Parse("gen.zcs", []byte(text))
	if err != nil {
		t.Fatalf("Parse(Format(stmts)) failed: %v\ntext:\n%s", err, text)
	}
	if diff := cmp.Diff(stmts, back, sameAST...); diff != "" {
		t.Fatalf("Parse(Format(stmts)) != stmts (-want +got):\n%s\ntext:\n%s", diff, text)
	}
	if again := Format(back); again != text {
		t.Fatalf("Format is not a fixed point:\nfirst:\n%s\nagain:\n%s", text, again)
	}
}

func genFile(t *rapid.T) []Stmt {
	var stmts []Stmt
	if rapid.Bool().Draw(t, "profile") {
		stmts = append(stmts, &Profile{Name: Ident{Name: rapid.SampledFrom([]string{"linux-6.18", "rfc-v2", "linux-4.14"}).Draw(t, "p")}})
	}
	n := rapid.IntRange(0, 12).Draw(t, "n")
	for range n {
		st := genStmt(t)
		l := st.line()
		l.Gap = rapid.IntRange(0, 3).Draw(t, "gap") == 0
		switch st.(type) {
		case *Comment:
		case *Note:
			l.Comment = genComment(t)
		default:
			l.Comment = genComment(t)
			l.Want = genOutcome(t)
		}
		stmts = append(stmts, st)
	}
	if len(stmts) > 0 {
		stmts[0].line().Gap = false
	}
	return stmts
}

var (
	genName  = rapid.StringMatching(`[a-zA-Z_][a-zA-Z0-9_-]{0,6}`)
	genDots  = rapid.StringMatching(`[a-z][a-z0-9._-]{0,12}`)
	genText  = rapid.StringMatching(`([^#\n\r\t ]([^#\n\r]{0,20}[^#\n\r\t ])?)?`)
	genWordV = rapid.StringMatching(`[A-Za-z_.+:/-][A-Za-z0-9_.+:/-]{0,8}`)
)

func genComment(t *rapid.T) string {
	if rapid.Bool().Draw(t, "hasComment") {
		return ""
	}
	return genText.Draw(t, "comment")
}

func genNumber(t *rapid.T) Value {
	n := rapid.Uint64Range(0, 1<<40).Draw(t, "n")
	text := fmt.Sprint(n)
	switch rapid.IntRange(0, 2).Draw(t, "spelling") {
	case 1:
		text = fmt.Sprintf("0x%x", n)
	case 2:
		n = rapid.Uint64Range(1, 4096).Draw(t, "k")
		unit := rapid.SampledFrom([]string{"K", "M", "G"}).Draw(t, "unit")
		text = fmt.Sprint(n) + unit
		n <<= map[string]int{"K": 10, "M": 20, "G": 30}[unit]
	}
	return Value{Kind: ValueNumber, N: n, Text: text}
}

func genDuration(t *rapid.T) Value {
	n := rapid.Uint64Range(0, 100000).Draw(t, "d")
	i := rapid.IntRange(0, len(durationUnits)-1).Draw(t, "unit")
	return Value{Kind: ValueDuration, N: n * durationUnits[i].ns, Text: fmt.Sprint(n) + durationUnits[i].unit}
}

// genNumberBelow draws a decimal number below n.
func genNumberBelow(t *rapid.T, n uint64) Value {
	v := rapid.Uint64Range(0, n-1).Draw(t, "n")
	return Value{Kind: ValueNumber, N: v, Text: fmt.Sprint(v)}
}

func word(s string) Value { return Value{Kind: ValueWord, Text: s} }

// genCmsg draws a control message: a named type at a name of its level,
// or numbers, with a value, flags for a timestamping type, maybe a length.
func genCmsg(t *rapid.T) Cmsg {
	var c Cmsg
	if rapid.Bool().Draw(t, "named") {
		c.Type = genSymbol(t, cmsgTypeNames)
		typ, _ := kernel.CmsgTypeNames.ByName(c.Type.Name)
		var levels []string
		for _, l := range levelNames.names() {
			if v, _ := kernel.LevelNames.ByName(l); v == typ.Level {
				levels = append(levels, l)
			}
		}
		c.Level = Ident{Name: rapid.SampledFrom(levels).Draw(t, "level")}
	} else {
		c.Level = Ident{Name: genNumberBelow(t, 1<<31).Text}
		c.Type = Ident{Name: genNumberBelow(t, 1<<31).Text}
	}
	if c.isTimestamping() && rapid.Bool().Draw(t, "flags") {
		c.Flags = genFlags(t, timestampingNames, false)
	} else {
		c.Value = genNumber(t)
	}
	if rapid.Bool().Draw(t, "len") {
		c.Len = genNumberBelow(t, 64)
	}
	return c
}

func genSymbol(t *rapid.T, tab table) Ident {
	return Ident{Name: rapid.SampledFrom(tab.names()).Draw(t, tab.what)}
}

// genFlags draws distinct names of tab; with zero, possibly none.
func genFlags(t *rapid.T, tab table, zero bool) Flags {
	min := 1
	if zero {
		min = 0
	}
	names := rapid.SliceOfNDistinct(rapid.SampledFrom(tab.names()), min, 3, rapid.ID[string]).Draw(t, tab.what)
	var f Flags
	for _, n := range names {
		f.Names = append(f.Names, Ident{Name: n})
	}
	return f
}

func genSock(t *rapid.T) Sock {
	return Sock{Name: genName.Draw(t, "sock"), Peer: rapid.Bool().Draw(t, "peer")}
}

// genOptions draws some of specs, in random order, with valid values.
func genOptions(t *rapid.T, specs []optSpec) Options {
	var os Options
	for _, i := range rapid.Permutation(indexes(len(specs))).Draw(t, "order") {
		s := specs[i]
		if !s.required && rapid.Bool().Draw(t, "skip") {
			continue
		}
		os = append(os, Option{Key: s.key, Value: genOptValue(t, s)})
	}
	return os
}

func indexes(n int) []int {
	is := make([]int, n)
	for i := range is {
		is[i] = i
	}
	return is
}

func genOptValue(t *rapid.T, s optSpec) Value {
	if len(s.words) > 0 && rapid.Bool().Draw(t, "word") {
		return word(rapid.SampledFrom(s.words).Draw(t, s.key))
	}
	switch s.kind {
	case optBare:
		return Value{}
	case optNumber, optNumberOr, optSigned:
		return genNumber(t)
	case optDuration, optDurationOr:
		return genDuration(t)
	case optFraction:
		return word(rapid.SampledFrom([]string{"0", "1", "0.25", "1.000", "0.001"}).Draw(t, "p"))
	case optName:
		return word(genName.Draw(t, "name"))
	}
	return word(rapid.SampledFrom(s.words).Draw(t, s.key))
}

func genIov(t *rapid.T) []Value {
	return rapid.SliceOfN(rapid.Custom(genNumber), 0, 3).Draw(t, "iov")
}

func genOutcome(t *rapid.T) Outcome {
	o := genBaseOutcome(t)
	if o.Kind == OutcomeReturn && o.Ret != -1 && rapid.IntRange(0, 3).Draw(t, "epoll") == 0 {
		es := EpollEvents{}
		for range rapid.IntRange(0, 3).Draw(t, "events") {
			es = append(es, EpollEvent{Sock: genSock(t), Events: genFlags(t, epollEventNames, false)})
		}
		o.Epoll = &es
		return o
	}
	record := o.Kind == OutcomeReturn && o.Ret != -1 || o.Kind == OutcomeCtrunc
	if (record || o.Kind == OutcomeZerocopy || o.Kind == OutcomeTimestamp) && rapid.Bool().Draw(t, "fields") {
		if fs := genFields(t, record); len(fs) > 0 {
			o.Msg = &fs
		}
	}
	return o
}

// genFields draws field checks, the sock_extended_err's too if record.
func genFields(t *rapid.T, record bool) Fields {
	keys := fieldKeys
	if !record {
		keys = keys[:4]
	}
	var fs Fields
	for _, k := range keys {
		if !rapid.Bool().Draw(t, k) {
			continue
		}
		f := Field{Key: k}
		switch k {
		case "msg_flags":
			f.Flags = genFlags(t, msgFlagNames, true)
		case "revents":
			f.Flags = genFlags(t, pollEventNames, true)
		case "cmsg_level":
			f.Value = word(genSymbol(t, levelNames).Name)
		case "cmsg_type":
			f.Value = word(genSymbol(t, cmsgTypes).Name)
		case "ee_errno":
			f.Value = word(genSymbol(t, errnoNames).Name)
		case "ee_origin":
			f.Value = word(genSymbol(t, eeOrigins).Name)
		default:
			f.Value = genNumberBelow(t, 256)
		}
		fs = append(fs, f)
	}
	return fs
}

func genBaseOutcome(t *rapid.T) Outcome {
	switch rapid.IntRange(0, 6).Draw(t, "outcome") {
	case 1:
		return Outcome{Kind: OutcomeReturn, Ret: rapid.Int64().Draw(t, "ret")}
	case 2:
		return Outcome{Kind: OutcomeErrno, Errno: genSymbol(t, errnoNames).Name}
	case 3:
		return Outcome{Kind: OutcomeZerocopy, Range: Range{rapid.Uint32().Draw(t, "lo"), rapid.Uint32().Draw(t, "hi")},
			Copied: rapid.Bool().Draw(t, "copied")}
	case 4:
		o := Outcome{Kind: OutcomeTimestamp, Tstamp: genSymbol(t, tstampKinds).Name, HasKey: rapid.Bool().Draw(t, "haskey")}
		if o.HasKey {
			o.Key = rapid.Uint32().Draw(t, "key")
		}
		return o
	case 5:
		return Outcome{Kind: OutcomeCtrunc}
	case 6:
		return Outcome{Kind: OutcomeName, Name: genName.Draw(t, "name")}
	}
	return Outcome{}
}

// genStmt draws any statement but profile.
func genStmt(t *rapid.T) Stmt {
	gens := []func(*rapid.T) Stmt{
		func(t *rapid.T) Stmt { return &Comment{Text: genText.Draw(t, "text")} },
		func(t *rapid.T) Stmt { return &Note{Text: genText.Draw(t, "text")} },
		func(t *rapid.T) Stmt { return &Bug{Name: Ident{Name: genDots.Draw(t, "bug")}} },
		func(t *rapid.T) Stmt {
			if rapid.IntRange(0, 5).Draw(t, "congestion") == 0 {
				return &Sysctl{Key: Ident{Name: "net.ipv4.tcp_congestion_control"}, Values: []Value{{Kind: ValueWord, Text: genName.Draw(t, "cc")}}}
			}
			return &Sysctl{Key: Ident{Name: genDots.Draw(t, "key")}, Values: rapid.SliceOfN(rapid.Custom(genNumber), 1, 3).Draw(t, "v")}
		},
		func(t *rapid.T) Stmt {
			return &User{Name: Ident{Name: genName.Draw(t, "u")}, Options: genOptions(t, userOpts)}
		},
		func(t *rapid.T) Stmt {
			return &Task{Name: Ident{Name: genName.Draw(t, "t")}, Options: genOptions(t, taskOpts)}
		},
		func(t *rapid.T) Stmt {
			return &Device{Name: Ident{Name: genName.Draw(t, "d")}, Kind: Ident{Name: rapid.SampledFrom([]string{"nic", "loopback", "tun"}).Draw(t, "kind")},
				Options: genOptions(t, deviceOpts)}
		},
		func(t *rapid.T) Stmt {
			return &Tap{Name: Ident{Name: genName.Draw(t, "tap")}, Options: genOptions(t, tapOpts)}
		},
		genSocket,
		genSetsockopt,
		func(t *rapid.T) Stmt {
			s := genSetsockopt(t).(*Setsockopt)
			return &Getsockopt{Sock: s.Sock, Level: s.Level, Opt: s.Opt, Options: s.Options}
		},
		func(t *rapid.T) Stmt { return &Connect{Sock: genSock(t)} },
		func(t *rapid.T) Stmt { return &Listen{Sock: genSock(t), Options: genOptions(t, listenOpts)} },
		func(t *rapid.T) Stmt { return &Bind{Sock: genSock(t)} },
		func(t *rapid.T) Stmt { return &Close{Sock: genSock(t)} },
		func(t *rapid.T) Stmt { return &Accept{Sock: genSock(t), New: Ident{Name: genName.Draw(t, "new")}} },
		func(t *rapid.T) Stmt { return &Shutdown{Sock: genSock(t), How: genSymbol(t, shutHows)} },
		func(t *rapid.T) Stmt {
			return &Send{Sock: genSock(t), Len: genNumber(t), Flags: genFlags(t, msgFlagNames, true)}
		},
		func(t *rapid.T) Stmt {
			return &Sendto{Sock: genSock(t), Len: genNumber(t), Flags: genFlags(t, msgFlagNames, true)}
		},
		func(t *rapid.T) Stmt {
			return &Sendmsg{Sock: genSock(t), Iov: genIov(t), Flags: genFlags(t, msgFlagNames, true),
				Cmsgs: rapid.SliceOfN(rapid.Custom(genCmsg), 0, 3).Draw(t, "cmsgs")}
		},
		func(t *rapid.T) Stmt {
			return &Sendmmsg{Sock: genSock(t), Msgs: rapid.SliceOfN(rapid.Custom(genIov), 1, 3).Draw(t, "msgs"),
				Flags: genFlags(t, msgFlagNames, true)}
		},
		func(t *rapid.T) Stmt {
			return &Recvmsg{Sock: genSock(t), Flags: genFlags(t, msgFlagNames, true), Options: genOptions(t, recvmsgOpts)}
		},
		func(t *rapid.T) Stmt {
			return &Recv{Sock: genSock(t), Len: genNumber(t), Flags: genFlags(t, msgFlagNames, true)}
		},
		func(t *rapid.T) Stmt {
			s := &Poll{Sock: genSock(t), Events: genFlags(t, pollEventNames, false)}
			if rapid.Bool().Draw(t, "timeout") {
				s.Timeout = genDuration(t)
			}
			return s
		},
		func(t *rapid.T) Stmt { return &EpollCreate{Name: Ident{Name: genName.Draw(t, "ep")}} },
		func(t *rapid.T) Stmt {
			s := &EpollCtl{Epoll: Ident{Name: genName.Draw(t, "ep")}, Op: genSymbol(t, epollOps), Sock: genSock(t)}
			if s.Op.Name != "EPOLL_CTL_DEL" || rapid.Bool().Draw(t, "events") {
				s.Events = genFlags(t, epollEventNames, true)
			}
			return s
		},
		func(t *rapid.T) Stmt {
			n := rapid.Int64Range(-2, 64).Draw(t, "max")
			s := &EpollWait{Epoll: Ident{Name: genName.Draw(t, "ep")}, Max: Value{Kind: ValueNumber, N: uint64(n), Text: fmt.Sprint(n)}}
			switch rapid.IntRange(0, 2).Draw(t, "timeout") {
			case 1:
				s.Timeout = genDuration(t)
			case 2:
				s.Timeout = word("-1")
			}
			return s
		},
		func(t *rapid.T) Stmt {
			s := &Fcntl{Sock: genSock(t), Cmd: genSymbol(t, fcntlCmds)}
			if s.Cmd.Name == "F_SETFL" {
				s.Flags = genFlags(t, statusFlags, true)
			}
			return s
		},
		func(t *rapid.T) Stmt {
			s := &Setrlimit{Task: Ident{Name: genName.Draw(t, "task")}, Resource: genSymbol(t, rlimits),
				Limit: genOptValue(t, optSpec{kind: optNumberOr, words: []string{"unlimited"}})}
			if rapid.Bool().Draw(t, "hard") {
				s.Max = genOptValue(t, optSpec{kind: optNumberOr, words: []string{"unlimited"}})
			}
			return s
		},
		func(t *rapid.T) Stmt {
			return &Capdrop{Task: Ident{Name: genName.Draw(t, "task")}, Cap: genSymbol(t, capNames)}
		},
		func(t *rapid.T) Stmt {
			return &Capset{Task: Ident{Name: genName.Draw(t, "task")}, Cap: genSymbol(t, capNames)}
		},
		func(t *rapid.T) Stmt { return &Wait{Dur: genDuration(t)} },
		func(t *rapid.T) Stmt { return &Settle{} },
		func(t *rapid.T) Stmt { return &Hold{Sock: genSock(t), Dir: genDir(t)} },
		func(t *rapid.T) Stmt { return &Release{Sock: genSock(t), Dir: genDir(t)} },
		func(t *rapid.T) Stmt { return &Drop{Sock: genSock(t), Dir: genDir(t), Count: genMaybeNumber(t)} },
		func(t *rapid.T) Stmt {
			return &Complete{Device: Ident{Name: genName.Draw(t, "dev")}, Count: genMaybeNumber(t)}
		},
		func(t *rapid.T) Stmt {
			return &Txerror{Device: Ident{Name: genName.Draw(t, "dev")}, Count: genMaybeNumber(t)}
		},
		func(t *rapid.T) Stmt {
			return &VhostSend{Device: Ident{Name: genName.Draw(t, "dev")}, Len: genNumber(t), Options: genOptions(t, vhostOpts)}
		},
		func(t *rapid.T) Stmt {
			rule := rapid.SampledFrom([]string{"always", "never", "nth=3", "from=0x10", "next=1", "p=0.25"}).Draw(t, "rule")
			return &Fault{Site: Ident{Name: genName.Draw(t, "site")}, Rule: Ident{Name: rule}}
		},
		func(t *rapid.T) Stmt { return &Zckey{Sock: genSock(t), Value: genNumber(t)} },
		genExpect,
	}
	return gens[rapid.IntRange(0, len(gens)-1).Draw(t, "stmt")](t)
}

func genDir(t *rapid.T) Ident {
	return Ident{Name: rapid.SampledFrom([]string{"data", "ack"}).Draw(t, "dir")}
}

func genMaybeNumber(t *rapid.T) Value {
	if rapid.Bool().Draw(t, "count") {
		return Value{}
	}
	return genNumber(t)
}

func genSocket(t *rapid.T) Stmt {
	s := &Socket{Name: Ident{Name: genName.Draw(t, "name")}, Family: genSymbol(t, familyNames), Type: genFlags(t, sockTypeNames, false)}
	switch rapid.IntRange(0, 2).Draw(t, "proto") {
	case 1:
		s.Protocol = word(genSymbol(t, protocolNames).Name)
	case 2:
		s.Protocol = genNumber(t)
	}
	s.Options = genOptions(t, socketOpts)
	return s
}

func genSetsockopt(t *rapid.T) Stmt {
	opt := genSymbol(t, sockOptNames)
	var levels []string
	for _, l := range levelNames.names() {
		p := &lineParser{}
		if p.checkLevel(Ident{Name: l}, opt); p.err == nil {
			levels = append(levels, l)
		}
	}
	s := &Setsockopt{Sock: genSock(t), Level: Ident{Name: rapid.SampledFrom(levels).Draw(t, "level")}, Opt: opt}
	switch {
	case opt.Name == "SO_TIMESTAMPING" && rapid.Bool().Draw(t, "flags"):
		s.Flags = genFlags(t, timestampingNames, false)
	case opt.Name == "TCP_CONGESTION":
		s.Value = Value{Kind: ValueString, Text: `"` + genName.Draw(t, "congestion") + `"`}
	default:
		s.Value = genNumber(t)
	}
	s.Options = genOptions(t, optvalOpts)
	return s
}

func genExpect(t *rapid.T) Stmt {
	keys := rapid.SliceOfNDistinct(genName, 1, 4, rapid.ID[string]).Draw(t, "keys")
	s := &Expect{Sock: genSock(t)}
	for _, k := range keys {
		v := genNumber(t)
		if rapid.Bool().Draw(t, "word") {
			v = word(genWordV.Draw(t, "v"))
			if _, msg := parseNumber(v.Text); msg == "" {
				v = genNumber(t)
			}
		}
		s.Checks = append(s.Checks, Option{Key: k, Value: v})
	}
	return s
}

func TestFormatKeepsParagraphs(t *testing.T) {
	src := "\n\n# one\nsettle\n\n\n\n# two\nwait 1s   # later\n"
	want := "# one\nsettle\n\n# two\nwait 1s # later\n"
	if got := Format(mustParse(t, src)); got != want {
		t.Errorf("Format:\n got: %q\nwant: %q", got, want)
	}
	if !strings.HasSuffix(Format(mustParse(t, want)), "\n") {
		t.Errorf("Format output does not end in a newline")
	}
}
