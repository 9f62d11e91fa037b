package strace

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// parseOne parses src, requires no error, and returns its calls.
func parseOne(t *testing.T, src string) *Log {
	t.Helper()
	log, err := Parse("t.log", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return log
}

// wantLen stops the test unless n == want.
func wantLen(t *testing.T, what string, n, want int) {
	t.Helper()
	if n != want {
		t.Fatalf("got %d %s, want %d", n, what, want)
	}
}

// ignorePos drops the positions and source text of values, so tests can
// state only the shape.
var ignorePos = cmpopts.IgnoreFields(Value{}, "Line", "Col", "Text")

func TestLinePrefixes(t *testing.T) {
	tests := []struct {
		name string
		src  string
		pid  int
		when Time
		dur  time.Duration
	}{
		{"plain", "close(3) = 0", 0, Time{}, 0},
		{"bare pid", "4007  close(3)                  = 0", 4007, Time{}, 0},
		{"pid brackets", "[pid  4023] close(3) = 0", 4023, Time{}, 0},
		{"-t", "21:18:13 close(3) = 0", 0, Time{Kind: TimeOfDay, Nanos: (21*3600 + 18*60 + 13) * 1e9}, 0},
		{"-tt", "21:17:54.188243 close(3) = 0", 0, Time{Kind: TimeOfDay, Nanos: (21*3600+17*60+54)*1e9 + 188243000}, 0},
		{"-ttt", "1795987092.696665 close(3) = 0", 0, Time{Kind: TimeEpoch, Nanos: 1795987092696665000}, 0},
		{"-r", "     0.000182 close(3) = 0", 0, Time{Kind: TimeRelative, Nanos: 182000, Since: 182000}, 0},
		{"-f -tt -T", "3926  21:17:54.188243 close(3) = 0 <0.000032>", 3926, Time{Kind: TimeOfDay, Nanos: (21*3600+17*60+54)*1e9 + 188243000}, 32 * time.Microsecond},
		{"[pid] -r -T", "[pid 7]      0.000001 close(3) = 0 <1.5>", 7, Time{Kind: TimeRelative, Nanos: 1000, Since: 1000}, 1500 * time.Millisecond},
		{"unavailable", "close(3) = ? <unavailable>", 0, Time{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := parseOne(t, tt.src)
			wantLen(t, "calls", len(log.Calls), 1)
			c := log.Calls[0]
			if c.Pid != tt.pid || c.Time != tt.when || c.Duration != tt.dur || c.Name != "close" {
				t.Errorf("got pid %d time %+v dur %v name %q, want pid %d time %+v dur %v", c.Pid, c.Time, c.Duration, c.Name, tt.pid, tt.when, tt.dur)
			}
		})
	}
}

func TestValues(t *testing.T) {
	i := func(n int64) Value { return Value{Kind: KindInt, Int: n} }
	flags := func(names ...string) Value { return Value{Kind: KindFlags, Names: names} }
	str := func(s string, trunc bool) Value { return Value{Kind: KindString, Str: s, Truncated: trunc} }
	tests := []struct {
		name string
		arg  string
		want Value
	}{
		{"decimal", "4096", i(4096)},
		{"negative", "-1", i(-1)},
		{"hex", "0x7ffc1062fb30", i(0x7ffc1062fb30)},
		{"octal", "0644", i(0644)},
		{"big", "18446744073709551615", i(-1)},
		{"name", "SOL_SOCKET", flags("SOL_SOCKET")},
		{"union", "MSG_ZEROCOPY|MSG_DONTWAIT", flags("MSG_ZEROCOPY", "MSG_DONTWAIT")},
		{"union with number", "S_IFREG|0644", Value{Kind: KindFlags, Names: []string{"S_IFREG"}, Rem: 0644, HasRem: true}},
		{"numeric union", "0x2|0x80000", Value{Kind: KindFlags, Rem: 0x80002, HasRem: true}},
		{"string", `"abc"`, str("abc", false)},
		{"truncated", `"zz"...`, str("zz", true)},
		{"escapes", `"\0\n\x7a\177\"\\"`, str("\x00\nz\x7f\"\\", false)},
		{"abstract", `@"sock"`, str("sock", false)},
		{"empty array", "[]", Value{Kind: KindArray, Elems: []Value{}}},
		{"array", "[1, 2]", Value{Kind: KindArray, Elems: []Value{i(1), i(2)}}},
		{"sigset", "[HUP INT]", Value{Kind: KindArray, Elems: []Value{flags("HUP"), flags("INT")}}},
		{"omitted", "[1, ...]", Value{Kind: KindArray, Elems: []Value{i(1), {Kind: KindOmitted}}}},
		{"struct", "{a=1, b=X}", Value{Kind: KindStruct, Fields: []Field{{"a", i(1)}, {"b", flags("X")}}}},
		{"macro", "htons(8000)", Value{Kind: KindMacro, Name: "htons", Elems: []Value{i(8000)}}},
		{"inet_addr", `inet_addr("127.0.0.1")`, Value{Kind: KindMacro, Name: "inet_addr", Elems: []Value{str("127.0.0.1", false)}}},
		{"sizeof", "sizeof(struct sockaddr_in)", Value{Kind: KindExpr}},
		{"product", "8192*1024", Value{Kind: KindExpr}},
		{"address-of", "&sin6_addr", Value{Kind: KindExpr}},
		{"complement", "~[RTMIN RT_1]", Value{Kind: KindExpr}},
		{"fraction", "1.25", Value{Kind: KindExpr}},
		{"fd tcp", "3<TCP:[127.0.0.1:41234->127.0.0.1:8000]>", Value{Kind: KindFd, Int: 3, Decor: "TCP:[127.0.0.1:41234->127.0.0.1:8000]"}},
		{"fd udp6", "5<UDPv6:[[::1]:5000]>", Value{Kind: KindFd, Int: 5, Decor: "UDPv6:[[::1]:5000]"}},
		{"fd socket", "3<socket:[12345]>", Value{Kind: KindFd, Int: 3, Decor: "socket:[12345]"}},
		{"decorated AT_FDCWD", "AT_FDCWD</work/tmp>", Value{Kind: KindFlags, Names: []string{"AT_FDCWD"}, Decor: "/work/tmp"}},
		{"in-out", "[128 => 16]", Value{Kind: KindArray, Elems: []Value{{Kind: KindInOut, Elems: []Value{i(128), i(16)}}}}},
		{"verbose comment", "0x3c /* SO_ZEROCOPY */", Value{Kind: KindInt, Int: 0x3c, Comment: "SO_ZEROCOPY"}},
		{"verbose union", "0x2 /* SOCK_DGRAM */|0x80000 /* SOCK_CLOEXEC */", Value{Kind: KindFlags, Rem: 0x80002, HasRem: true, Comment: "SOCK_DGRAM|SOCK_CLOEXEC"}},
		{"comment only", "/* 3 entries */", Value{Kind: KindComment, Comment: "3 entries"}},
		{"resuming", "<... resuming interrupted read ...>", Value{Kind: KindExpr}},
		{"wait status", "[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]", Value{Kind: KindArray, Elems: []Value{{Kind: KindStruct, Fields: []Field{{"", Value{Kind: KindExpr}}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := parseOne(t, "f("+tt.arg+") = 0")
			wantLen(t, "calls", len(log.Calls), 1)
			wantLen(t, "args", len(log.Calls[0].Args), 1)
			got := log.Calls[0].Args[0]
			if diff := cmp.Diff(tt.want, got, ignorePos); diff != "" {
				t.Errorf("value of %s (-want +got):\n%s", tt.arg, diff)
			}
			if tt.want.Comment == "" && got.Text != tt.arg {
				t.Errorf("Text = %q, want %q", got.Text, tt.arg)
			}
		})
	}
}

func TestValueAccessors(t *testing.T) {
	log := parseOne(t, `f(8192*1024, 1<<20, [4], 0x4008000 /* MSG_MORE|MSG_ZEROCOPY */, NULL, 0x2000, htons(80), 28 => 0, "s", {a=1}) = 0`)
	a := log.Calls[0].Args
	for i, want := range []int64{8192 * 1024, 1 << 20, 4, 0x4008000} {
		if n, ok := a[i].AsInt(); !ok || n != want {
			t.Errorf("arg %d AsInt = %d, %v; want %d", i, n, ok, want)
		}
	}
	if got := a[3].Symbols(); !cmp.Equal(got, []string{"MSG_MORE", "MSG_ZEROCOPY"}) {
		t.Errorf("Symbols = %q", got)
	}
	if !a[3].Has("MSG_ZEROCOPY", 0) || !a[5].Has("MSG_ERRQUEUE", 0x2000) || a[5].Has("X", 1) {
		t.Error("Has misreads flags")
	}
	if !a[4].IsNull() || a[3].IsNull() {
		t.Error("IsNull wrong")
	}
	if n, _ := a[6].AsInt(); n != 80 {
		t.Errorf("htons AsInt = %d", n)
	}
	if n, _ := a[7].AsInt(); n != 0 || a[7].Entry().Int != 28 || a[0].Entry().Kind != KindExpr || a[0].Exit().Kind != KindExpr {
		t.Error("in/out accessors wrong")
	}
	if _, ok := a[8].AsInt(); ok {
		t.Error("string has no int")
	}
	if _, ok := a[9].Field("b"); ok {
		t.Error("Field found a missing member")
	}
	if a[8].Symbol() != `"s"` || a[9].Symbols() != nil || !a[0].IsValid() || (Value{}).IsValid() {
		t.Error("Symbol/IsValid wrong")
	}
	if KindFd.String() != "fd" || Kind(99).String() != "Kind(99)" {
		t.Error("Kind.String wrong")
	}
	if n, ok := evalProduct("1<<x"); ok {
		t.Errorf("evalProduct(1<<x) = %d", n)
	}
}

func TestResults(t *testing.T) {
	tests := []struct {
		src  string
		want Result
		str  string
	}{
		{"f() = 4096", Result{Kind: ResultValue, Value: Value{Kind: KindInt, Int: 4096}}, "4096"},
		{"f() = -1 EAGAIN (Resource temporarily unavailable)", Result{Kind: ResultErrno, Value: Value{Kind: KindInt, Int: -1}, Errno: "EAGAIN", Comment: "Resource temporarily unavailable"}, "-1 EAGAIN"},
		{"exit_group(0) = ?", Result{Kind: ResultUnknown}, "?"},
		{"accept(3, 0x7ffc, [16]) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)",
			Result{Kind: ResultInterrupted, Errno: "ERESTARTSYS", Comment: "To be restarted if SA_RESTART is set"}, "? ERESTARTSYS"},
		{"sendto(3, \"a\"..., 4096, 0, NULL, 0) = ? ERESTARTNOHAND (To be restarted if no handler) <0.5>",
			Result{Kind: ResultInterrupted, Errno: "ERESTARTNOHAND", Comment: "To be restarted if no handler"}, "? ERESTARTNOHAND"},
		{"nanosleep({tv_sec=1, tv_nsec=0}, 0x7ffc) = ? ERESTART_RESTARTBLOCK (Interrupted by signal)",
			Result{Kind: ResultInterrupted, Errno: "ERESTART_RESTARTBLOCK", Comment: "Interrupted by signal"}, "? ERESTART_RESTARTBLOCK"},
		{"connect(3, {sa_family=AF_INET}, 16) = ? ERESTARTNOINTR (To be restarted)",
			Result{Kind: ResultInterrupted, Errno: "ERESTARTNOINTR", Comment: "To be restarted"}, "? ERESTARTNOINTR"},
		{"mmap(NULL, 8192) = 0x7f5ed3c4e000", Result{Value: Value{Kind: KindInt, Int: 0x7f5ed3c4e000}}, "0x7f5ed3c4e000"},
		{"socket() = 3<TCP:[5218]>", Result{Value: Value{Kind: KindFd, Int: 3, Decor: "TCP:[5218]"}}, "3<TCP:[5218]>"},
		{"poll() = 0 (Timeout)", Result{Value: Value{Kind: KindInt}, Comment: "Timeout"}, "0"},
	}
	for _, tt := range tests {
		log := parseOne(t, tt.src)
		got := log.Calls[0].Result
		if diff := cmp.Diff(tt.want, got, ignorePos); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.src, diff)
		}
		if got.String() != tt.str {
			t.Errorf("%s: String() = %q, want %q", tt.src, got.String(), tt.str)
		}
	}
	log := parseOne(t, "f() = 7\ng() = -1 EPIPE (Broken pipe)")
	if n, ok := log.Calls[0].Result.Ret(); !ok || n != 7 {
		t.Errorf("Ret = %d, %v", n, ok)
	}
	if _, ok := log.Calls[1].Result.Ret(); ok {
		t.Error("Ret of an errno result must fail")
	}
}

func TestUnfinishedResumed(t *testing.T) {
	src := strings.Join([]string{
		"[pid  4023] 21:00:00.000001 recvfrom(4,  <unfinished ...>",
		"[pid  4024] sendto(5, \"zz\"..., 8192, MSG_ZEROCOPY, NULL, 0 <unfinished ...>",
		"[pid  4024] <... sendto resumed>)       = 8192 <0.000010>",
		"[pid  4023] <... recvfrom resumed>\"zz\"..., 65536, 0, NULL, NULL) = 8192",
		"[pid  4025] read(3, <unfinished ...>",
		"[pid  4026] futex(0x1, FUTEX_WAIT, 0, NULL <unfinished ...>",
		"[pid  4026] +++ exited with 0 +++",
	}, "\n")
	log := parseOne(t, src)
	type call struct {
		Lines []int
		Pid   int
		Name  string
		Nargs int
		Kind  ResultKind
	}
	var got []call
	for _, c := range log.Calls {
		got = append(got, call{c.Lines, c.Pid, c.Name, len(c.Args), c.Result.Kind})
	}
	want := []call{
		{[]int{2, 3}, 4024, "sendto", 6, ResultValue},
		{[]int{1, 4}, 4023, "recvfrom", 6, ResultValue},
		{[]int{6}, 4026, "futex", 4, ResultUnfinished},
		{[]int{5}, 4025, "read", 1, ResultUnfinished},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if log.Calls[1].Time.Nanos != 21*3600e9+1000 || log.Calls[0].Duration != 10*time.Microsecond {
		t.Errorf("merged call keeps start time and resumed duration: %+v %v", log.Calls[1].Time, log.Calls[0].Duration)
	}
}

func TestOrphanResumed(t *testing.T) {
	log := parseOne(t, "<... accept4 resumed>{sa_family=AF_INET}, [16], 0) = 5")
	c := log.Calls[0]
	if !c.Orphan || c.Name != "accept4" || len(c.Args) != 3 {
		t.Errorf("orphan resumed: %+v", c)
	}
	ops, err := Decode(log)
	if err != nil {
		t.Fatal(err)
	}
	if ig, ok := ops[0].(*Ignored); !ok || ig.Reason == "" {
		t.Errorf("orphan decodes to %#v, want Ignored with a reason", ops[0])
	}
}

func TestStitchedStraceMessage(t *testing.T) {
	src := "[pid  4023] accept4(3, strace: Process 4024 attached\n <unfinished ...>\n[pid  4023] <... accept4 resumed>NULL, NULL, SOCK_CLOEXEC) = 4\n"
	log := parseOne(t, src)
	wantLen(t, "calls", len(log.Calls), 1)
	if c := log.Calls[0]; !cmp.Equal(c.Lines, []int{1, 2, 3}) || len(c.Args) != 4 {
		t.Errorf("stitched call: lines %v args %d", c.Lines, len(c.Args))
	}
	want := []Note{{Line: 1, Pid: 4023, Kind: NoteMessage, Text: "Process 4024 attached"}}
	if diff := cmp.Diff(want, log.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

func TestNotes(t *testing.T) {
	src := strings.Join([]string{
		"4007  --- SIGPIPE {si_signo=SIGPIPE, si_code=SI_USER, si_pid=4007, si_uid=0} ---",
		"--- stopped by SIGSTOP ---",
		"4007  +++ exited with 3 +++",
		"12 +++ killed by SIGKILL (core dumped) +++",
		"strace: Process 4023 attached",
	}, "\n")
	log := parseOne(t, src)
	want := []Note{
		{Line: 1, Pid: 4007, Kind: NoteSignal, Name: "SIGPIPE", Text: "SIGPIPE {si_signo=SIGPIPE, si_code=SI_USER, si_pid=4007, si_uid=0}"},
		{Line: 2, Kind: NoteSignal, Name: "SIGSTOP", Text: "stopped by SIGSTOP"},
		{Line: 3, Pid: 4007, Kind: NoteExit, Status: 3, Text: "exited with 3"},
		{Line: 4, Pid: 12, Kind: NoteKilled, Name: "SIGKILL", Text: "killed by SIGKILL (core dumped)"},
		{Line: 5, Kind: NoteMessage, Text: "Process 4023 attached"},
	}
	if diff := cmp.Diff(want, log.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{"# a comment", `t.log:1:1: expected a system call, signal, exit or strace message (at "# a comment")`},
		{"close(3)", `t.log:1:9: expected "=" and a result after ")"`},
		{"close(3 = 0", `t.log:1:9: expected "," or ")" after argument (at "= 0")`},
		{`write(1, "abc, 3) = 3`, `t.log:1:10: unterminated string (at "\"abc, 3) = 3")`},
		{"f(1) = 0 junk", `t.log:1:10: unexpected text after result (at "junk")`},
		{"f(1) = 0 <1.x>", `t.log:1:10: malformed duration (at "<1.x>")`},
		{"f(12abc) = 0", `t.log:1:3: malformed number (at "12abc) = 0")`},
		{"f(3<TCP:[1) = 0", `t.log:1:4: unterminated fd decoration (at "<TCP:[1) = 0")`},
		{`f("\q") = 0`, `t.log:1:4: unknown escape \q (at "\\q\") = 0")`},
		{"f([1;2]) = 0", `t.log:1:5: expected "," or "]" in array (at ";2]) = 0")`},
		{"f({a=1;}) = 0", `t.log:1:7: expected "," or "}" in struct (at ";}) = 0")`},
		{"f(/* x) = 0", `t.log:1:3: unterminated comment (at "/* x) = 0")`},
		{"f() = abc", `t.log:1:7: result is not a number (at "abc")`},
		{"f() = ? EINTR (x)", `t.log:1:9: expected a restart code (ERESTARTSYS) after "= ?" (at "EINTR (x)")`},
		{`sendto(3, "", 18446744073709551616, 0, NULL, 0) = 1`, `t.log:1:15: malformed number (at "18446744073709551616, 0,")`},
		{"99:99:99 f() = 0", `t.log:1:1: malformed timestamp (at "99:99:99 f() = 0")`},
		{"+++ exited with x +++", `t.log:1:1: unknown exit line (at "+++ exited with x +++")`},
		{"+++ gone", `t.log:1:1: exit line without closing +++ (at "+++ gone")`},
		{"--- SIGINT", `t.log:1:1: signal line without closing ---`},
		{"<... f resumed", `t.log:1:1: malformed resumed marker`},
		{"f(a) = 0 (x", `t.log:1:10: unbalanced parenthesis in result comment (at "(x")`},
		{"f(1) = 0 <1", `t.log:1:10: unterminated duration (at "<1")`},
		{"f(sizeof(x = 0", `t.log:1:9: unbalanced parenthesis (at "(x = 0")`},
		{`f("\x") = 0`, `t.log:1:4: bad \x escape`},
		{"f(<x) = 0", `t.log:1:3: unterminated <...> (at "<x) = 0")`},
		{"f(-x) = 0", `t.log:1:3: expected a number (at "-x) = 0")`},
		{"f(A|-) = 0", `t.log:1:5: malformed flag (at "-) = 0")`},
		{"f(}) = 0", `t.log:1:3: unexpected '}' (at "}) = 0")`},
		{"f(1,", `t.log:1:5: missing value`},
		{"[pid 1] f( <unfinished ...>\n[pid 1] <... g resumed>) = 0", `t.log:2:24: g resumed while f (line 1) is unfinished (at ") = 0")`},
		{"[pid 1] f( <unfinished ...>\n[pid 1] g( <unfinished ...>", `t.log:2:11: pid 1 starts g while f (line 1) is unfinished`},
		{"f(1, strace: Process 2 attached", `t.log:1:1: line interrupted by a strace message is never continued`},
		{"f(" + strings.Repeat("[", 100), `t.log:1:67: values nested deeper than 64`},
	}
	for _, tt := range tests {
		_, err := Parse("t.log", []byte(tt.src))
		var list *ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%q: got error %v, want an *ErrorList", tt.src, err)
			continue
		}
		if got := list.Errs[0].Error(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestErrorsAreBoundedAndAllReported(t *testing.T) {
	src := strings.Repeat("garbage\nclose(3) = 0\n", MaxErrors+5)
	log, err := Parse("g.log", []byte(src))
	var list *ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v, want an *ErrorList", err)
	}
	if len(list.Errs) != MaxErrors || list.Dropped != 5 || len(log.Calls) != MaxErrors+5 {
		t.Errorf("got %d errors, %d dropped, %d calls", len(list.Errs), list.Dropped, len(log.Calls))
	}
	if !strings.HasSuffix(err.Error(), "(and 5 more errors)") || len(list.Unwrap()) != MaxErrors {
		t.Errorf("error text tail: %q", err.Error()[len(err.Error())-30:])
	}
	if list.Errs[1].Line != 3 {
		t.Errorf("second error on line %d, want 3", list.Errs[1].Line)
	}
}

func TestParseFile(t *testing.T) {
	if _, err := ParseFile("testdata/no-such.log"); err == nil {
		t.Error("ParseFile of a missing file succeeded")
	}
	log, err := ParseFile("testdata/rlimit_f.log")
	if err != nil || log.File != "testdata/rlimit_f.log" {
		t.Errorf("ParseFile: %v, file %q", err, log.File)
	}
}

// clone's arguments are printed as name=value: each keeps its name.
func TestNamedArguments(t *testing.T) {
	log := parseOne(t, "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x7ff73d633a10) = 25622")
	args := log.Calls[0].Args
	wantLen(t, "args", len(args), 3)
	want := []Value{
		{Kind: KindFlags, Name: "child_stack", Names: []string{"NULL"}},
		{Kind: KindFlags, Name: "flags", Names: []string{"CLONE_CHILD_CLEARTID", "SIGCHLD"}},
		{Kind: KindInt, Name: "child_tidptr", Int: 0x7ff73d633a10},
	}
	if diff := cmp.Diff(want, args, ignorePos); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if args[1].Text != "flags=CLONE_CHILD_CLEARTID|SIGCHLD" {
		t.Errorf("Text = %q", args[1].Text)
	}
}

// The Scanner yields each fixture's calls and notes as Parse lists them,
// interleaved in source order.
func TestScannerMatchesParse(t *testing.T) {
	for _, path := range fixtures(t) {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		log, err := Parse("fuzz", src)
		checkScanner(t, src, log, err)
	}
	sc := NewScanner("t.log", strings.NewReader("close(3) = 0\n+++ exited with 0 +++\nclose(4) = 0"))
	var order []string
	for sc.Scan() {
		if it := sc.Item(); it.Call != nil {
			order = append(order, it.Call.Name)
		} else {
			order = append(order, it.Note.Text)
		}
	}
	require.NoError(t, sc.Err())
	require.Equal(t, []string{"close", "exited with 0", "close"}, order)
	require.Equal(t, 3, sc.Line())
	require.True(t, sc.Unterminated(), "the last line has no line end")
	sc = NewScanner("t.log", strings.NewReader("close(3) = 0\n"))
	for sc.Scan() {
	}
	require.False(t, sc.Unterminated())
}

// With ReportStarts the Scanner also yields, at its line, the first half
// of an unfinished send, which Decoder.Start decodes from the arguments
// strace printed on entry; the whole call still comes at its resumed
// line, its End the resumed line's time. The first half of another call
// (accept) is yielded too, and Decoder.Start decodes nothing of it.
func TestScannerStarts(t *testing.T) {
	src := "101 12:00:00.000001 sendto(4, \"x\"..., 100, MSG_ZEROCOPY, NULL, 0 <unfinished ...>\n" +
		"100 12:00:00.000002 accept(3,  <unfinished ...>\n" +
		"101 12:00:00.000003 <... sendto resumed>) = 100\n" +
		"100 12:00:00.000004 <... accept resumed>NULL, NULL) = 5\n"
	sc := NewScanner("t.log", strings.NewReader(src))
	sc.ReportStarts()
	dec := NewDecoder("t.log")
	var got []string
	for sc.Scan() {
		switch it := sc.Item(); {
		case it.Start != nil && it.Start.Name != "sendto":
			require.Nil(t, dec.Start(it.Start), "only sends decode from their first half")
			got = append(got, fmt.Sprintf("start %s line %d at %d", it.Start.Name, it.Start.Lines[0], it.Start.Time.Nanos))
		case it.Start != nil:
			s, ok := dec.Start(it.Start).(*Send)
			require.True(t, ok, "the start of a send decodes to a Send")
			got = append(got, fmt.Sprintf("start %s line %d fd %d len %d zerocopy %v", s.Syscall, s.Lines[0], s.Fd, s.Len, s.ZeroCopy))
		case it.Call != nil:
			got = append(got, fmt.Sprintf("call %s lines %v at %d end %d", it.Call.Name, it.Call.Lines, it.Call.Time.Nanos, it.Call.End.Nanos))
		}
	}
	require.NoError(t, sc.Err())
	const at = 12 * 3600e9
	require.Equal(t, []string{
		"start sendto line 1 fd 4 len 100 zerocopy true",
		fmt.Sprintf("start accept line 2 at %d", int64(at+2000)),
		fmt.Sprintf("call sendto lines [1 3] at %d end %d", int64(at+1000), int64(at+3000)),
		fmt.Sprintf("call accept lines [2 4] at %d end %d", int64(at+2000), int64(at+4000)),
	}, got)
	require.Nil(t, dec.Start(&Call{Name: "accept", Args: []Value{{Kind: KindInt, Int: 3}}}), "only sends decode from their first half")
	require.NoError(t, dec.Err())
}

// A line that repeats a recent line's call after its pid and timestamp
// (a program's loop) comes out of a Scanner as Parse lists it: its own
// line, pid and time, and its values at its own columns, whatever the
// prefix's width, and decodes as Decode decodes it; a call it cannot
// decode fails at its own position. Halves of unfinished calls, notes and
// cut lines are parsed anew, and so is a line the Scanner no longer
// remembers (after more lines than it keeps).
func TestScannerRepeatedLines(t *testing.T) {
	send := `sendto(4, "zz"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096`
	bad := `sendto(x, "zz"..., 4096, MSG_ZEROCOPY, NULL, 0) = 4096`
	recv := `recvmsg(4, {msg_name=NULL, msg_iov=[{iov_base="", iov_len=1}], msg_control=[{cmsg_len=48, cmsg_level=SOL_IP, cmsg_type=IP_RECVERR, cmsg_data={ee_errno=0, ee_origin=5, ee_type=0, ee_code=1, ee_info=0, ee_data=7}}], msg_flags=MSG_ERRQUEUE}, MSG_ERRQUEUE) = 0`
	read := `recvfrom(5, "zz"..., 65536, 0, NULL, NULL) = 32768`
	lines := []string{
		send, send, "7 " + send, "[pid 12345] " + send, "[pid 12345] " + send, "12:00:01.5 " + send,
		"12:00:01.500000 " + send, "", send, "--- SIGPIPE {si_signo=SIGPIPE} ---", send,
		bad, bad, "[pid 9] " + bad, recv, "1795987092.696665 " + recv, recv,
		"7 accept(3,  <unfinished ...>", "7 accept(3,  <unfinished ...>", "7 <... accept resumed>NULL, NULL) = 5",
		"close(3) = 0", "close(3) = 0 <0.000010>", "close(3) = 0 <0.000010>",
		read, send, read, "8 " + send, "9 " + read, recv, read, bad, read,
	}
	for round := range 3 * (maxFresh + maxHot) {
		lines = append(lines, read, fmt.Sprintf("close(%d) = 0", round), send)
		if round%5 == 0 {
			lines = append(lines, fmt.Sprintf("dup(%d) = 7", round), fmt.Sprintf("dup(%d) = 7", round))
		}
	}
	src := []byte(strings.Join(lines, "\n") + "\n")
	log, err := Parse("fuzz", src)
	checkScanner(t, src, log, err)
	_, want := Decode(log)
	require.Error(t, want, "the bad lines do not decode")
}

// A process killed inside a call: strace closes the arguments printed
// so far with "<... name resumed> <unfinished ...>) = ?"; the call keeps
// them, has no result, and decodes to Ignored without an error.
func TestKilledInsideCall(t *testing.T) {
	src := "7 poll([{fd=4, events=POLLIN}], 1, 10000 <unfinished ...>\n" +
		"8 accept(3,  <unfinished ...>\n" +
		"9 epoll_pwait(5,  <unfinished ...>\n" +
		"7 <... poll resumed> <unfinished ...>) = ?\n" +
		"8 <... accept resumed> <unfinished ...>) = ?\n" +
		"9 <... epoll_pwait resumed> <unfinished ...>) = ?\n"
	log, err := Parse("t.log", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Calls) != 3 || len(log.Calls[0].Args) != 3 || len(log.Calls[1].Args) != 1 || log.Calls[0].Result.Kind != ResultUnknown {
		t.Fatalf("calls: %+v", log.Calls)
	}
	ops, err := Decode(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops[1:] {
		if ig, ok := op.(*Ignored); !ok || ig.Reason != "no result, arguments cut" {
			t.Errorf("%s decodes to %#v", op.Head().Syscall, op)
		}
	}
}

// strace -r times each line from the line before, whichever pid printed
// it: Time.Since sums them over every line, the halves of unfinished
// calls and notes included, so that a call's halves and the lines
// between them keep their places.
func TestRelativeSince(t *testing.T) {
	src := "100      0.000010 accept(3,  <unfinished ...>\n" +
		"101      0.000020 close(4) = 0\n" +
		"100      0.000030 <... accept resumed>NULL, NULL) = 5\n" +
		"101      0.000040 +++ exited with 0 +++\n" +
		"100      0.000050 close(5) = 0\n"
	log, err := Parse("t.log", []byte(src))
	require.NoError(t, err)
	var got []string
	for _, c := range log.Calls {
		got = append(got, fmt.Sprintf("%s at %d end %d", c.Name, c.Time.At(), c.End.At()))
	}
	require.Equal(t, []string{"close at 30000 end 0", "accept at 10000 end 60000", "close at 150000 end 0"}, got)
	require.Equal(t, int64(100000), log.Notes[0].Time.At())
}
