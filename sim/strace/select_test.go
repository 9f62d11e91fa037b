package strace

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The forms strace 6.1 prints select and pselect6 in on Linux 6.18
// (sim/replay/testdata/select_loop.log): fd_sets as "[5 6]" (decorated
// under -yy), NULL sets, the ready sets and the time left after the
// result, "(Timeout)" for 0, and pselect6's sigmask struct or NULL
// (-X raw prints the signal numbers, -X verbose adds their names: the
// decoder reads neither).
func TestDecodeSelect(t *testing.T) {
	tests := []struct {
		name, line string
		want       Op
	}{
		{"select", `select(7, [5<TCP:[127.0.0.1:9126->127.0.0.1:45160]> 6<pipe:[258991]>], [4<TCP:[127.0.0.1:45160->127.0.0.1:9126]>], [4<TCP:[127.0.0.1:45160->127.0.0.1:9126]>], {tv_sec=0, tv_usec=100000}) = 1 (out [4], left {tv_sec=0, tv_usec=99997})`,
			&Select{Fds: []SelectFd{{Fd: 4, Sets: SelectOut | SelectEx, Ready: SelectOut}, {Fd: 5, Sets: SelectIn}, {Fd: 6, Sets: SelectIn}}, TimeoutNs: 100e6}},
		{"select two sets ready", `select(6, [4 5], [4], NULL, {tv_sec=1, tv_usec=5}) = 3 (in [4 5], out [4], left {tv_sec=0, tv_usec=100})`,
			&Select{Fds: []SelectFd{{Fd: 4, Sets: SelectIn | SelectOut, Ready: SelectIn | SelectOut}, {Fd: 5, Sets: SelectIn, Ready: SelectIn}}, TimeoutNs: 1e9 + 5e3}},
		{"select forever, except", `select(5, NULL, NULL, [4], NULL) = 1 (except [4])`,
			&Select{Fds: []SelectFd{{Fd: 4, Sets: SelectEx, Ready: SelectEx}}, TimeoutNs: -1}},
		{"select no sets", `select(0, NULL, NULL, NULL, {tv_sec=0, tv_usec=1000}) = 0 (Timeout)`,
			&Select{TimeoutNs: 1e6}},
		{"select empty set", `select(5, [], NULL, NULL, {tv_sec=0, tv_usec=0}) = 0 (Timeout)`,
			&Select{TimeoutNs: 0}},
		{"select interrupted", `select(5, [4], NULL, NULL, NULL) = ? ERESTARTNOHAND (To be restarted if no handler)`,
			&Select{Fds: []SelectFd{{Fd: 4, Sets: SelectIn}}, TimeoutNs: -1}},
		{"select sets as addresses", `select(5, 0x7ffc1000, NULL, NULL, NULL) = -1 EFAULT (Bad address)`,
			&Ignored{Name: "select", Reason: "descriptors not shown"}},
		{"pselect6 timeout", `pselect6(6, [5<TCP:[127.0.0.1:9126->127.0.0.1:45160]>], NULL, NULL, {tv_sec=0, tv_nsec=0}, NULL) = 0 (Timeout)`,
			&Select{Fds: []SelectFd{{Fd: 5, Sets: SelectIn}}, TimeoutNs: 0}},
		{"pselect6 sigmask", `pselect6(7, [5 6], [4], NULL, {tv_sec=0, tv_nsec=100000000}, {sigmask=[USR1], sigsetsize=8}) = 2 (in [5], out [4], left {tv_sec=0, tv_nsec=99998201})`,
			&Select{Fds: []SelectFd{{Fd: 4, Sets: SelectOut, Ready: SelectOut}, {Fd: 5, Sets: SelectIn, Ready: SelectIn}, {Fd: 6, Sets: SelectIn}}, TimeoutNs: 100e6}},
		{"pselect6 raw", `pselect6(7, [5 6], [4], NULL, {tv_sec=0, tv_nsec=100000000}, {sigmask=[10], sigsetsize=8}) = 1 (out [4], left {tv_sec=0, tv_nsec=99998514})`,
			&Select{Fds: []SelectFd{{Fd: 4, Sets: SelectOut, Ready: SelectOut}, {Fd: 5, Sets: SelectIn}, {Fd: 6, Sets: SelectIn}}, TimeoutNs: 100e6}},
		{"pselect6 verbose, forever", `pselect6(7, [5], [4], NULL, NULL, {sigmask=[10 /* USR1 */], sigsetsize=8}) = 1 (in [5])`,
			&Select{Fds: []SelectFd{{Fd: 4, Sets: SelectOut}, {Fd: 5, Sets: SelectIn, Ready: SelectIn}}, TimeoutNs: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeOne(t, tt.line)
			if diff := cmp.Diff(tt.want, got, decodeOpts); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

func TestDecodeSelectErrors(t *testing.T) {
	tests := []struct{ line, want string }{
		{`select(X, [4], NULL, NULL, NULL) = 0`, `t.log:1:8: select: nfds is not a number`},
		{`select(5, [4], NULL, NULL) = 0`, `t.log:1:22: select: expected nfds, readfds, writefds, exceptfds, timeout`},
		{`pselect6(5, [4], NULL, NULL, NULL) = 0`, `t.log:1:30: pselect6: expected nfds, readfds, writefds, exceptfds, timeout, sigmask`},
		{`select(5, [X], NULL, NULL, NULL) = 0`, `t.log:1:12: select: an fd_set member is not a descriptor`},
		{`select(5, [-1], NULL, NULL, NULL) = 0`, `t.log:1:12: select: an fd_set member is negative`},
		{`select(5, [4], NULL, NULL, {tv_sec=0, tv_nsec=1}) = 0`, `t.log:1:28: select: timeout is not a struct timeval`},
		{`pselect6(5, [4], NULL, NULL, {tv_sec=0, tv_usec=1}, NULL) = 0`, `t.log:1:30: pselect6: timeout is not a struct timespec`},
		{`select(5, [4], NULL, NULL, NULL) = 1 (on [4])`, `t.log:1:11: select: the ready sets after the result are not "in [...]", "out [...]" or "except [...]"`},
		{`select(5, [4], NULL, NULL, NULL) = 1 (in [4], in [4])`, `t.log:1:11: select: the ready sets after the result are not "in [...]"`},
		{`select(5, [4], NULL, NULL, NULL) = 1 (in 4)`, `t.log:1:11: select: a ready set after the result is not an fd_set`},
		{`select(5, [4], NULL, NULL, NULL) = 1 (in [X])`, `t.log:1:11: select: an fd_set member is not a descriptor after the result`},
		{`select(5, [4], [3], NULL, NULL) = 1 (out [4])`, `t.log:1:11: select: a ready descriptor was not in the set it was asked about`},
		{`select(5, [4], NULL, NULL, NULL) = 1 (in [4] left {})`, `t.log:1:11: select: the ready sets after the result are not separated by ", "`},
	}
	for _, tt := range tests {
		log := parseOne(t, tt.line)
		ops, err := Decode(log)
		var list *ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%s: got %v, want an *ErrorList", tt.line, err)
			continue
		}
		if got := list.Errs[0].Error(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.line, got, tt.want)
		}
		if ig, ok := ops[0].(*Ignored); !ok || ig.Reason == "" {
			t.Errorf("%s: decoded to %#v, want Ignored with a reason", tt.line, ops[0])
		}
	}
}

// The sets print and marshal by the names strace gives them.
func TestSelectSetsText(t *testing.T) {
	if got := (SelectIn | SelectEx).String(); got != "in|except" {
		t.Errorf("String = %q", got)
	}
	b, err := json.Marshal(SelectFd{Fd: 4, Sets: SelectOut | SelectEx, Ready: SelectOut})
	if err != nil || string(b) != `{"fd":4,"sets":"out|except","ready":"out"}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
}

// FuzzDecodeSelect feeds arbitrary sets, timeouts and result comments to
// the select decoder: it never panics, every error is inside the line,
// and every descriptor it reports ready was asked about in that set.
func FuzzDecodeSelect(f *testing.F) {
	f.Add("select", "[5 6]", "[4]", "[4]", "{tv_sec=0, tv_usec=100000}", "1 (out [4], left {tv_sec=0, tv_usec=99997})")
	f.Add("pselect6", "[5<TCP:[127.0.0.1:1->127.0.0.1:2]>]", "NULL", "NULL", "{tv_sec=0, tv_nsec=0}, NULL", "0 (Timeout)")
	f.Add("pselect6", "[5 6]", "[4]", "NULL", "NULL, {sigmask=[USR1], sigsetsize=8}", "2 (in [5], out [4])")
	f.Add("select", "[]", "NULL", "[3]", "NULL", "1 (except [3])")
	f.Fuzz(func(t *testing.T, name, in, out, ex, tail, res string) {
		if name != "select" && name != "pselect6" {
			name = "select"
		}
		line := name + "(9, " + in + ", " + out + ", " + ex + ", " + tail + ") = " + res + "\n"
		log, err := Parse("fuzz", []byte(line))
		lines := strings.Count(line, "\n") + 1
		checkErrors(t, err, lines)
		ops, err := Decode(log)
		checkErrors(t, err, lines)
		for _, op := range ops {
			s, ok := op.(*Select)
			if !ok {
				continue
			}
			for i, fd := range s.Fds {
				if fd.Ready&^fd.Sets != 0 || fd.Sets == 0 || i > 0 && s.Fds[i-1].Fd >= fd.Fd {
					t.Fatalf("%q: descriptors %+v", line, s.Fds)
				}
			}
		}
	})
}
