package ubuf_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/ubuf"
)

func profile(t *testing.T, name string, bugs ...kernel.Bug) *kernel.Profile {
	t.Helper()
	p, err := kernel.Lookup(name)
	require.NoError(t, err)
	for _, b := range bugs {
		p.Bugs[b] = true
	}
	return p
}

func TestPinnedPages(t *testing.T) {
	for _, tt := range []struct{ size, pages uint64 }{
		{0, 2}, {1, 2}, {4095, 2}, {4096, 3}, {61439, 16}, {61440, 17}, {65536, 18}, {1 << 20, 258},
	} {
		require.Equal(t, tt.pages, ubuf.PinnedPages(tt.size), "size %d", tt.size)
	}
}

// TestAccountLimitEdges pins (size>>12)+2 <= limit>>12, measured on Linux
// 6.18 for TCP (probes/FINDINGS.md §7a).
func TestAccountLimitEdges(t *testing.T) {
	p := profile(t, "linux-6.18")
	tests := []struct {
		limit  uint64
		size   uint64
		ok     bool
		locked uint64
	}{
		{64 << 10, 61439, true, 16},
		{64 << 10, 61440, false, 0},
		{12 << 10, 8191, true, 3},
		{12 << 10, 8192, false, 0},
		{8 << 10, 4095, true, 2},
		{8 << 10, 4096, false, 0},
		{4 << 10, 1, false, 0},
		{0, 1, false, 0},
		{8 << 20, 1 << 20, true, 258},
	}
	for _, tt := range tests {
		u := &ubuf.User{UID: 65534}
		task := &ubuf.Task{User: u, Memlock: tt.limit}
		var m ubuf.MMPin
		require.Equal(t, tt.ok, m.Account(p, task, tt.size), "limit %d size %d", tt.limit, tt.size)
		require.Equal(t, tt.locked, u.LockedVM, "limit %d size %d", tt.limit, tt.size)
		require.Equal(t, tt.locked, m.NumPg)
		if tt.ok {
			require.Same(t, u, m.User)
		} else {
			require.Nil(t, m.User, "a refusal records nothing")
		}
	}
}

func TestAccountExemptions(t *testing.T) {
	tests := []struct {
		name    string
		profile string
		task    ubuf.Task
		size    uint64
		locked  uint64
	}{
		{"CAP_IPC_LOCK", "linux-6.18", ubuf.Task{CapIPCLock: true, Memlock: 0}, 1 << 20, 0},
		{"size 0", "linux-6.18", ubuf.Task{Memlock: 0}, 0, 0},
		{"RLIM_INFINITY exempt on 6.18", "linux-6.18", ubuf.Task{Memlock: kernel.RLIM_INFINITY}, 1 << 20, 0},
		{"RLIM_INFINITY exempt on 5.0", "linux-5.0", ubuf.Task{Memlock: kernel.RLIM_INFINITY}, 1 << 20, 0},
		{"RLIM_INFINITY charged on 4.14", "linux-4.14", ubuf.Task{Memlock: kernel.RLIM_INFINITY}, 1 << 20, 258},
	}
	for _, tt := range tests {
		u := &ubuf.User{}
		task := tt.task
		task.User = u
		var m ubuf.MMPin
		require.True(t, m.Account(profile(t, tt.profile), &task, tt.size), tt.name)
		require.Equal(t, tt.locked, u.LockedVM, tt.name)
		require.Equal(t, tt.locked, m.NumPg, tt.name)
		m.Unaccount()
		require.Zero(t, u.LockedVM, tt.name)
		require.Equal(t, ubuf.MMPin{}, m, tt.name)
	}
}

// TestAccountPerUser: two tasks of one user share locked_vm; the limit is
// each task's own (FINDINGS §7b, §7d).
func TestAccountPerUser(t *testing.T) {
	p := profile(t, "linux-6.18")
	u := &ubuf.User{UID: 65534}
	holder := &ubuf.Task{Name: "holder", User: u, Memlock: 8 << 20}
	child := &ubuf.Task{Name: "child", User: u, Memlock: 64 << 10}

	var held ubuf.MMPin
	require.True(t, held.Account(p, holder, 40000)) // 9 + 2 = 11 pages
	require.Equal(t, uint64(11), u.LockedVM)

	var m ubuf.MMPin
	require.False(t, m.Account(p, child, 16384), "11 + 6 > 16")
	require.True(t, m.Account(p, child, 16383), "11 + 5 = 16")
	require.Equal(t, uint64(16), u.LockedVM)
	require.True(t, m.Account(p, holder, 100), "the holder's own limit is 8 MiB")
	require.Equal(t, uint64(18), u.LockedVM)
	require.Equal(t, uint64(7), m.NumPg, "extensions add to the same mmpin")

	m.Unaccount()
	require.Equal(t, uint64(11), u.LockedVM)
	held.Unaccount()
	require.Zero(t, u.LockedVM)
	held.Unaccount() // a second unaccount returns nothing
	require.Zero(t, u.LockedVM)
}

// TestAccountRecordedUser: an extension charges the user already recorded
// in the mmpin, not the calling task's.
func TestAccountRecordedUser(t *testing.T) {
	p := profile(t, "linux-6.18")
	first, other := &ubuf.User{UID: 1}, &ubuf.User{UID: 2}
	var m ubuf.MMPin
	require.True(t, m.Account(p, &ubuf.Task{User: first, Memlock: 1 << 20}, 4096))
	require.True(t, m.Account(p, &ubuf.Task{User: other, Memlock: 1 << 20}, 4096))
	require.Equal(t, uint64(6), first.LockedVM)
	require.Zero(t, other.LockedVM)
}

func TestAccountPerProcessBug(t *testing.T) {
	p := profile(t, "linux-6.18", kernel.BugMemlockPerProcess)
	u := &ubuf.User{UID: 65534}
	a := &ubuf.Task{Name: "a", User: u, Memlock: 64 << 10}
	b := &ubuf.Task{Name: "b", User: u, Memlock: 64 << 10}
	var ma, mb ubuf.MMPin
	require.True(t, ma.Account(p, a, 40000))
	require.True(t, mb.Account(p, b, 40000), "each process has its own budget")
	require.False(t, mb.Account(p, b, 40000), "11 + 11 > 16 in one process")
	require.Equal(t, uint64(11), a.PinnedVM)
	require.Equal(t, uint64(11), b.PinnedVM)
	require.Zero(t, u.LockedVM, "the per-user counter is not used")
	require.Same(t, a, ma.Task)
	ma.Unaccount()
	require.Zero(t, a.PinnedVM)
	require.Equal(t, uint64(11), b.PinnedVM)
}

// Refuses asks Account's question with extra pages locked, and charges
// nothing: 16 pages fit a 64 KiB limit for a 61439-byte send, not with
// one more page locked, and never under CAP_IPC_LOCK.
func TestRefuses(t *testing.T) {
	p := profile(t, "linux-6.18")
	u := &ubuf.User{UID: 65534}
	task := &ubuf.Task{User: u, Memlock: 64 << 10}
	require.False(t, ubuf.Refuses(p, task, 61439, 0))
	require.True(t, ubuf.Refuses(p, task, 61439, 1))
	require.Zero(t, u.LockedVM, "nothing charged")
	task.CapIPCLock = true
	require.False(t, ubuf.Refuses(p, task, 61439, 100))
}
