// Package skbtest holds domain checkers and fixtures for tests of the core
// packages (kernel, mm, ubuf, skb, notify, sock): "this uarg has refcnt N
// held by these holders", "these pages have these refcounts", "this skb has
// these lengths and this shared info".
//
// Every checker runs all of its sub-checks and reports every mismatch in
// one t.Errorf, each as "got …, want …" or a go-cmp diff (-want +got), so a
// failing test shows the whole state at once. Checkers call t.Helper and
// never stop the test; fixtures that cannot continue use t.Fatal.
package skbtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/ubuf"
	"pgregory.net/rapid"
)

// report fails t once with every mismatch found, if any.
func report(t testing.TB, what string, errs []string) {
	t.Helper()
	if len(errs) > 0 {
		t.Errorf("%s:\n\t%s", what, strings.Join(errs, "\n\t"))
	}
}

// Env is one simulated host under a profile, with a user, a task of that
// user and the namespace sysctls: what most tests of the core packages need.
type Env struct {
	H    *kernel.Host
	P    *kernel.Profile
	Net  *sock.Sysctl
	User *ubuf.User
	Task *ubuf.Task
}

// NewEnv returns an Env running the named profile with the given bugs
// switched on. The task has the profile's default RLIMIT_MEMLOCK and no
// CAP_IPC_LOCK.
func NewEnv(t testing.TB, profile string, bugs ...kernel.Bug) *Env {
	t.Helper()
	p, err := kernel.Lookup(profile)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bugs {
		p.Switch(b, true)
	}
	u := &ubuf.User{UID: 1000}
	return &Env{
		H:    kernel.NewHost(p),
		P:    p,
		Net:  sock.DefaultSysctl(p),
		User: u,
		Task: &ubuf.Task{Name: "app", User: u, Memlock: p.MemlockDefault},
	}
}

// Sock creates socket(family, typ, proto) owned by the Env's task.
func (e *Env) Sock(family kernel.Family, typ kernel.SockType, proto kernel.Protocol) *sock.Sock {
	return sock.New(e.H, e.Net, e.Task, family, typ, proto)
}

// TCP creates an AF_INET TCP socket with SO_ZEROCOPY set where the profile
// has the option.
func (e *Env) TCP() *sock.Sock {
	s := e.Sock(kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	s.SetZerocopy(1)
	return s
}

// UDP creates an AF_INET UDP socket with SO_ZEROCOPY set where the profile
// has the option.
func (e *Env) UDP() *sock.Sock {
	s := e.Sock(kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP)
	s.SetZerocopy(1)
	return s
}

// Call names the in-flight send call of step n as a reference holder.
func Call(n uint64) kernel.ObjectID { return kernel.SendmsgCall(n) }

// Faults is a FaultSource that fails the next Faults[site] calls of each
// site, then lets them succeed.
type Faults map[string]int

// Fail implements kernel.FaultSource.
func (f Faults) Fail(site string) bool {
	if f[site] > 0 {
		f[site]--
		return true
	}
	return false
}

// Uarg is the state of a ubuf.Info that tests pin.
type Uarg struct {
	Refcnt   int
	Holders  []kernel.ObjectID
	ID       uint32
	Len      uint16
	Bytelen  uint32
	Zerocopy bool
	Freed    bool
}

// UargOf returns u's state.
func UargOf(u *ubuf.Info) Uarg {
	return Uarg{
		Refcnt: u.Refcnt(), Holders: u.Holders(), ID: u.ID, Len: u.Len,
		Bytelen: u.Bytelen, Zerocopy: u.Zerocopy, Freed: u.Freed(),
	}
}

// CheckUarg reports every field of u that differs from want.
func CheckUarg(t testing.TB, u *ubuf.Info, want Uarg) {
	t.Helper()
	if d := cmp.Diff(want, UargOf(u), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("%v (-want +got):\n%s", u.Ident(), d)
	}
}

// Refs reports whether u has refcnt n held by exactly holders, in the
// order they took their references.
func Refs(t testing.TB, u *ubuf.Info, n int, holders ...kernel.ObjectID) {
	t.Helper()
	var errs []string
	if got := u.Refcnt(); got != n {
		errs = append(errs, fmt.Sprintf("refcnt: got %d, want %d", got, n))
	}
	if d := cmp.Diff(holders, u.Holders(), cmpopts.EquateEmpty()); d != "" {
		errs = append(errs, fmt.Sprintf("holders (-want +got):\n%s", d))
	}
	report(t, u.Ident().String(), errs)
}

// PageRef pairs a page with the reference count it should have; Refs 0
// means the page should have been freed.
type PageRef struct {
	Page *mm.Page
	Refs int
}

// Pages reports every page whose count differs from its PageRef.
func Pages(t testing.TB, want ...PageRef) {
	t.Helper()
	var errs []string
	for _, w := range want {
		p := w.Page
		switch {
		case w.Refs == 0 && !p.Freed():
			errs = append(errs, fmt.Sprintf("%v: got live with refs %d, want freed", p.Ident(), p.Refs()))
		case w.Refs != 0 && p.Freed():
			errs = append(errs, fmt.Sprintf("%v: got freed, want refs %d", p.Ident(), w.Refs))
		case p.Refs() != w.Refs:
			errs = append(errs, fmt.Sprintf("%v: got refs %d, want %d", p.Ident(), p.Refs(), w.Refs))
		}
	}
	report(t, "page refcounts", errs)
}

// BufferRefs reports whether every page of buf has the given reference
// counts, in page order.
func BufferRefs(t testing.TB, buf *mm.Buffer, refs ...int) {
	t.Helper()
	if len(refs) != buf.NumPages() {
		t.Errorf("BufferRefs: %d counts for %d pages", len(refs), buf.NumPages())
		return
	}
	want := make([]PageRef, len(refs))
	for i, r := range refs {
		want[i] = PageRef{buf.Page(i), r}
	}
	Pages(t, want...)
}

// Frag is a frag as tests pin it: which page, where, how long.
type Frag struct {
	Page kernel.ObjectID
	Off  int
	Size int
}

// Skb is the state of an skb.Buff and its shared info that tests pin.
type Skb struct {
	Len, DataLen int
	Truesize     int
	Users        int
	Dataref      int
	Cloned       bool
	Flags        kernel.SkbFlags
	// Uarg is the uarg the shared info holds (skb_zcopy), the zero id for
	// none.
	Uarg  kernel.ObjectID
	Frags []Frag
}

// SkbOf returns b's state.
func SkbOf(b *skb.Buff) Skb {
	s := b.Shinfo()
	got := Skb{
		Len: b.Len, DataLen: b.DataLen, Truesize: b.Truesize, Users: b.Users(),
		Dataref: s.Dataref(), Cloned: b.IsCloned(), Flags: s.Flags,
	}
	if u := b.Zcopy(); u != nil {
		got.Uarg = u.Ident()
	}
	for _, f := range s.Frags {
		got.Frags = append(got.Frags, Frag{f.Page.Ident(), f.Off, f.Size})
	}
	return got
}

// CheckSkb reports every field of b that differs from want.
func CheckSkb(t testing.TB, b *skb.Buff, want Skb) {
	t.Helper()
	if d := cmp.Diff(want, SkbOf(b), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("%v (-want +got):\n%s", b.Ident(), d)
	}
}

// F returns the frag of size bytes at offset off of page.
func F(page *mm.Page, off, size int) Frag { return Frag{Page: page.Ident(), Off: off, Size: size} }

// FragsOf lists frags of pages pg[i] at offset 0 with the given sizes: the
// frags a page-aligned buffer yields.
func FragsOf(pages []*mm.Page, sizes ...int) []Frag {
	out := make([]Frag, len(sizes))
	for i, n := range sizes {
		out[i] = Frag{pages[i].Ident(), 0, n}
	}
	return out
}

// NoViolations reports every violation h recorded, and forgets them.
func NoViolations(t testing.TB, h *kernel.Host) {
	t.Helper()
	var errs []string
	for _, v := range h.TakeViolations() {
		errs = append(errs, v.String())
	}
	report(t, "unexpected violations", errs)
}

// Violation is a violation as tests pin it.
type Violation struct {
	Rule    kernel.Rule
	Object  kernel.ObjectID
	Message string
}

// Violations reports whether h recorded exactly want, in order, and forgets
// them.
func Violations(t testing.TB, h *kernel.Host, want ...Violation) {
	t.Helper()
	var got []Violation
	for _, v := range h.TakeViolations() {
		got = append(got, Violation{v.Rule, v.Object, v.Message})
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("violations (-want +got):\n%s", d)
	}
}

// LiveKinds counts h's live objects by kind.
func LiveKinds(h *kernel.Host) map[string]int {
	out := map[string]int{}
	for _, id := range h.Live() {
		out[id.Kind]++
	}
	return out
}

// Live reports whether h's live objects are, by kind, exactly want.
func Live(t testing.TB, h *kernel.Host, want map[string]int) {
	t.Helper()
	if d := cmp.Diff(want, LiveKinds(h)); d != "" {
		t.Errorf("live objects by kind (-want +got):\n%s", d)
	}
}

// Owner is a fake skb.Owner that records each Uncharge.
type Owner struct {
	Uncharges []Uncharge
}

// Uncharge is one recorded skb.Owner.Uncharge call.
type Uncharge struct {
	D        skb.Destructor
	Truesize int
}

// Uncharge implements skb.Owner.
func (o *Owner) Uncharge(d skb.Destructor, truesize int) {
	o.Uncharges = append(o.Uncharges, Uncharge{d, truesize})
}

// DrawHeld removes and returns one skb the test's device holds, chosen by
// the state machine; with none held it skips the action.
func DrawHeld(t *rapid.T, held *[]*skb.Buff) *skb.Buff {
	if len(*held) == 0 {
		t.Skip("nothing held")
	}
	i := rapid.IntRange(0, len(*held)-1).Draw(t, "i")
	b := (*held)[i]
	*held = slices.Delete(*held, i, i+1)
	return b
}
