package scenario

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// goodLoops maps a file with repeats to its canonical form.
var goodLoops = []struct{ in, want string }{
	{"repeat 3 {\nsettle\n}", "repeat 3 {\n  settle\n}\n"},
	{"repeat i 3 {   # three\n\tsend s i*1000 0 => i*1000\n}   # done", "repeat i 3 { # three\n  send s i*1000 0 => i*1000\n} # done\n"},
	{"repeat 31 { send s 1000 MSG_ZEROCOPY }  # nesting", "repeat 31 { # nesting\n  send s 1000 MSG_ZEROCOPY\n}\n"},
	{"repeat 2 { }", "repeat 2 {\n}\n"},
	{"repeat i 2 { expect s notified=[0,32*i+31] }", "repeat i 2 {\n  expect s notified=[0,32*i+31]\n}\n"},
	{"repeat 2 {\n}", "repeat 2 {\n}\n"},
	{"repeat 2 { note a => b }", "repeat 2 {\n  note a => b\n}\n"},
	{"repeat i 2 { repeat j 2 { recvmsg s MSG_ERRQUEUE => zerocopy [ 32*i+j , (i+1)*32-1 ] copied } }",
		"repeat i 2 {\n  repeat j 2 {\n    recvmsg s MSG_ERRQUEUE => zerocopy [32*i+j,(i+1)*32-1] copied\n  }\n}\n"},
	{"repeat i 4 {\n\n# a comment\nsendmsg s [i, 2*i+1] 0\n\nsendmmsg s [i] [1K-i] 0\n\n}\nsettle",
		"repeat i 4 {\n\n  # a comment\n  sendmsg s [i, 2*i+1] 0\n\n  sendmmsg s [i] [1K-i] 0\n}\nsettle\n"},
	{"repeat k 1 {\nrecv s k+1 => k\nzckey s 0x10*k\ndrop s data k\ncomplete eth0 k\ntxerror eth0 k\nvhost_send t0 k*4K\n}",
		"repeat k 1 {\n  recv s k+1 => k\n  zckey s 0x10*k\n  drop s data k\n  complete eth0 k\n  txerror eth0 k\n  vhost_send t0 k*4K\n}\n"},
	{"repeat E 1 { recvmsg s MSG_ERRQUEUE => E }", "repeat E 1 {\n  recvmsg s MSG_ERRQUEUE => E\n}\n"},
	{"recvmsg s MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND key=2*3", "recvmsg s MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND key=2*3\n"},
	{"send s 4*1K 0", "send s 4*1K 0\n"},
}

func TestRepeatFormat(t *testing.T) {
	for _, tc := range goodLoops {
		stmts := mustParse(t, tc.in)
		if got := Format(stmts); got != tc.want {
			t.Errorf("Format(Parse(%q)):\ngot  %q\nwant %q", tc.in, got, tc.want)
		}
		back := mustParse(t, tc.want)
		if diff := cmp.Diff(stmts, back, sameAST...); diff != "" {
			t.Errorf("Parse(Format(Parse(%q))) changed the tree (-first +again):\n%s", tc.in, diff)
		}
	}
}

// badLoops maps a file to Parse's errors.
var badLoops = []struct{ in, want string }{
	{"repeat {", `t.zcs:1:7: missing repeat count`},
	{"repeat 3", `t.zcs:1:9: missing "{"`},
	{"repeat i-1 3 {\n}", `t.zcs:1:8: bad loop variable, want a letter or _ then letters, digits or _ (at "i-1")`},
	{"repeat i 0x100000000 {\n}", `t.zcs:1:10: repeat count out of range, want at most 4294967295 (at "0x100000000")`},
	{"repeat 3 {\nsettle", `t.zcs:1:1: repeat is not closed: a "}" line is missing (at "repeat")`},
	{"}", `t.zcs:1:1: "}" without a repeat to close (at "}")`},
	{"repeat 3 {\n} settle", `t.zcs:2:3: a closing "}" stands alone on its line (at "settle")`},
	{"repeat 3 { settle", `t.zcs:1:12: a repeat on one line ends with "}" after its statement (at "settle")`},
	{"repeat 3 { repeat 2 { }", `t.zcs:1:12: a repeat on one line holds one whole statement, not a block (at "repeat")`},
	{"repeat 3 { repeat 2 { } settle }", `t.zcs:1:25: a repeat on one line ends with "}" after its statement (at "settle")`},
	{"repeat 3 { send s i 0 }", `t.zcs:1:19: undefined loop variable "i" (at "i")`},
	{"repeat i 3 { repeat i 2 { settle } }", `t.zcs:1:21: loop variable i is already the variable of an enclosing repeat (at "i")`},
	{"repeat 3 {\nprofile linux-6.18\n}", `t.zcs:2:1: profile must be at the top of the file, outside every repeat (at "profile")`},
	{"repeat 3 { bug udp-more-refcnt }", `t.zcs:1:12: bug must be at the top of the file, outside every repeat (at "bug")`},
	{"repeat i 3 {\nsend s 32*i+ 0\n}", `t.zcs:2:13: expression ends early; an expression is one word without blanks, as in 32*i+31`},
	{"repeat i 3 {\nsend s 32*i + 1 0\n}", `t.zcs:2:13: an expression is one word without blanks, as in 32*i+31 (at "+")`},
	{"repeat i 3 {\nsend s (i+1 0\n}", `t.zcs:2:12: expected ")"`},
	{"repeat i 3 {\nsend s 2i 0\n}", `t.zcs:2:8: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at "2i")`},
	{"repeat i 3 {\nsend s 2*i) 0\n}", `t.zcs:2:11: expected an operator (+, - or *) (at ")")`},
	{"repeat i 3 {\nsend s i*64KB 0\n}", `t.zcs:2:10: bad number, want digits with an optional K, M or G suffix, or 0x and hex digits (at "64KB")`},
	{"repeat i 3 {\nsend s i*/2 0\n}", `t.zcs:2:10: expected a number, a loop variable or ( (at "/2")`},
	{"repeat i 3 {\nrecvmsg s 0 => zerocopy [i,j]\n}", `t.zcs:2:28: undefined loop variable "j" (at "j")`},
	{"repeat 3 {\nfrobnicate\n}\n}", "t.zcs:2:1: unknown statement (at \"frobnicate\")\nt.zcs:4:1: \"}\" without a repeat to close (at \"}\")"},
	{"repeat 3 frob {\nsettle\n}\nsettle", `t.zcs:1:10: unexpected word (at "frob")`},
	{"repeat 3 { repeat 2 {", `t.zcs:1:21: a repeat on one line ends with "}" after its statement (at "{")`},
}

func TestRepeatErrors(t *testing.T) {
	for _, tc := range badLoops {
		_, err := Parse("t.zcs", []byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q):\ngot  %v\nwant %s", tc.in, err, tc.want)
		}
	}
	deep := strings.Repeat("repeat 1 {\n", MaxDepth+1) + strings.Repeat("}\n", MaxDepth+1)
	_, err := Parse("t.zcs", []byte(deep))
	if want := "t.zcs:9:1: repeats nest at most 8 deep (at \"repeat\")"; err == nil || err.Error() != want {
		t.Errorf("nine nested repeats: got %v, want %s", err, want)
	}
}

// A repeat reaches ParseEach's function whole, once its "}" is read.
func TestParseEachRepeat(t *testing.T) {
	var got []string
	err := ParseEach("t.zcs", []byte("settle\nrepeat 2 {\nsettle\n}\nwait 1s\n"), func(st Stmt) bool {
		got = append(got, fmt.Sprintf("%T", st))
		return true
	})
	want := []string{"*scenario.Settle", "*scenario.Repeat", "*scenario.Wait"}
	if err != nil || !cmp.Equal(got, want) {
		t.Fatalf("ParseEach: %v, %v; want %v", got, err, want)
	}
}

func TestInstantiate(t *testing.T) {
	src := "repeat i 10 {\nrepeat j 10 {\n" +
		"sendmmsg s [i*j, 1] [j] 0 => 2*i-j\n" +
		"recvmsg s MSG_ERRQUEUE => zerocopy [32*i-1,0xffffffff*j] copied\n" +
		"zckey s i-1\n" +
		"recv s 1 => timestamp SCM_TSTAMP_SND key=i-2\n" +
		"}\n}"
	body := mustParse(t, src)[0].(*Repeat).Body[0].(*Repeat).Body
	text := Format(body)
	var got []string
	for _, st := range body {
		inst, err := Instantiate(st, []int64{0, 3})
		if err != nil {
			t.Fatalf("Instantiate(%s): %v", FormatStmt(st), err)
		}
		if HasExpr(inst) {
			t.Errorf("Instantiate(%s) left an expression", FormatStmt(st))
		}
		got = append(got, FormatStmt(inst))
	}
	want := []string{
		"sendmmsg s [0, 1] [3] 0 => -3",
		"recvmsg s MSG_ERRQUEUE => zerocopy [0xffffffff,0xfffffffd] copied",
		"zckey s 4294967295",
		"recv s 1 => timestamp SCM_TSTAMP_SND key=4294967294",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Instantiate at i=0 j=3 (-want +got):\n%s", diff)
	}
	if again := Format(body); again != text {
		t.Errorf("Instantiate changed the body:\n%s\nwas\n%s", again, text)
	}
	plain := mustParse(t, "send s 1 0")[0]
	if inst, err := Instantiate(plain, nil); err != nil || inst != plain {
		t.Errorf("Instantiate of a statement without expressions: %v, %v; want it back", inst, err)
	}
}

func TestInstantiateErrors(t *testing.T) {
	for _, tc := range []struct {
		src  string
		vars []int64
		want string
	}{
		{"send s 1000-i 0", []int64{1001}, `t.zcs:1:21: a length or count must not be negative, this one is -1 (at "1000-i")`},
		{"send s i*0x7fffffffffffffff 0", []int64{2}, `t.zcs:1:21: expression overflows 64-bit arithmetic (at "i*0x7fffffffffffffff")`},
		{"send s 0x7fffffffffffffff+i 0", []int64{1}, `t.zcs:1:21: expression overflows 64-bit arithmetic (at "0x7fffffffffffffff+i")`},
		{"send s 0-0x7fffffffffffffff-i-i 0", []int64{1}, `t.zcs:1:21: expression overflows 64-bit arithmetic (at "0-0x7fffffffffffffff-i-i")`},
		{"send s 0xffffffffffffffff*i 0", []int64{0}, `t.zcs:1:21: expression overflows 64-bit arithmetic (at "0xffffffffffffffff*i")`},
		{"recvmsg s 0 => i*0x4000000000000000", []int64{2}, `t.zcs:1:29: expression overflows 64-bit arithmetic (at "i*0x4000000000000000")`},
		{"drop s data 0-i", []int64{1}, `t.zcs:1:26: a length or count must not be negative, this one is -1 (at "0-i")`},
	} {
		st := mustParse(t, "repeat i 1 { "+tc.src+" }")[0].(*Repeat).Body[0]
		_, err := Instantiate(st, tc.vars)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Instantiate(%s, %v):\ngot  %v\nwant %s", tc.src, tc.vars, err, tc.want)
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Instantiate's error is %T, want *Error", err)
		}
	}
	st := mustParse(t, "repeat i 1 { send s (0-3)*(0-i) 0 }")[0].(*Repeat).Body[0]
	if inst, err := Instantiate(st, []int64{5}); err != nil || inst.(*Send).Len.N != 15 {
		t.Errorf("(0-3)*(0-i) at i=5: %v, %v; want 15", inst, err)
	}
}

func TestUsesVar(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"repeat i 2 { settle }", false},
		{"repeat 2 { settle }", false},
		{"repeat i 2 { send s i 0 }", true},
		{"repeat i 2 { recvmsg s 0 => zerocopy [0,i] }", true},
		{"repeat i 2 { repeat j 2 { send s j 0 } }", false},
		{"repeat i 2 {\nrepeat j 2 {\nsend s 1 0 => i\n}\n}", true},
	} {
		r := mustParse(t, tc.src)[0].(*Repeat)
		if got := r.UsesVar(0); got != tc.want {
			t.Errorf("UsesVar(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

// genRepeat draws a repeat of random statements with expressions over its
// variable and those of the repeats around it (vars), at most depth deep.
func genRepeat(t *rapid.T, vars []string, depth int) *Repeat {
	r := &Repeat{Line: Line{Comment: genComment(t)}, Count: genNumber(t), EndComment: genComment(t)}
	for r.Count.N > MaxCount {
		r.Count = genNumber(t)
	}
	if rapid.Bool().Draw(t, "named") {
		r.Var = Ident{Name: fmt.Sprintf("v%d", len(vars))}
	}
	inner := append(append([]string(nil), vars...), r.Var.Name)
	for range rapid.IntRange(0, 4).Draw(t, "body") {
		var st Stmt
		switch k := rapid.IntRange(0, 3).Draw(t, "kind"); {
		case k == 0 && depth > 1:
			st = genRepeat(t, inner, depth-1)
		case k == 1:
			st = &Send{Sock: genSock(t), Len: genExpr(t, inner), Flags: genFlags(t, msgFlagNames, true)}
			st.line().Want = Outcome{Kind: OutcomeReturn, RetX: ptr(genExpr(t, inner))}
		case k == 2:
			st = &Recvmsg{Sock: genSock(t), Flags: genFlags(t, msgFlagNames, true)}
			st.line().Want = Outcome{Kind: OutcomeZerocopy, LoX: ptr(genExpr(t, inner)), Range: Range{Hi: rapid.Uint32().Draw(t, "hi")}}
		default:
			st = genStmt(t)
			if _, ok := st.(*Bug); ok {
				st = &Settle{}
			}
		}
		st.line().Gap = rapid.IntRange(0, 3).Draw(t, "gap") == 0
		r.Body = append(r.Body, st)
	}
	return r
}

func ptr[T any](v T) *T { return &v }

// genExpr draws an expression that names a variable of vars when it can,
// so that it never reads as a literal.
func genExpr(t *rapid.T, vars []string) Value {
	var named []string
	for _, v := range vars {
		if v != "" {
			named = append(named, v)
		}
	}
	n := genNumber(t)
	if len(named) == 0 {
		return Value{Kind: ValueExpr, Text: "(" + n.Text + ")", Expr: &Expr{Op: ExprNum, N: n.N}}
	}
	v := rapid.IntRange(0, len(named)-1).Draw(t, "var")
	depth := 0
	for d, name := range vars {
		if name == named[v] {
			depth = d
		}
	}
	x := &Expr{Op: ExprVar, Var: named[v], Depth: depth}
	op := rapid.SampledFrom([]ExprOp{ExprVar, ExprAdd, ExprSub, ExprMul}).Draw(t, "op")
	if op == ExprVar {
		return Value{Kind: ValueExpr, Text: named[v], Expr: x}
	}
	sym := map[ExprOp]string{ExprAdd: "+", ExprSub: "-", ExprMul: "*"}[op]
	return Value{Kind: ValueExpr, Text: n.Text + sym + named[v], Expr: &Expr{Op: op, X: &Expr{Op: ExprNum, N: n.N}, Y: x}}
}

// On random nests of repeats, Format's text parses back to the same tree
// and formats to the same text.
func TestRepeatFixedPoint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		stmts := []Stmt{genRepeat(t, nil, 3)}
		if rapid.Bool().Draw(t, "after") {
			stmts = append(stmts, &Settle{Line: Line{Gap: true}})
		}
		requireFixedPoint(t, stmts)
	})
}
