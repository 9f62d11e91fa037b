package kernel_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

func TestLookup(t *testing.T) {
	p, err := kernel.Lookup(kernel.DefaultProfile)
	require.NoError(t, err)
	require.Equal(t, "linux-6.18", p.Name)

	_, err = kernel.Lookup("linux-9.9")
	require.EqualError(t, err, `unknown profile "linux-9.9" (known: rfc-v2, linux-4.14, linux-5.0, linux-6.18)`)
}

// knobs is the part of a profile whose values come from kernel sources and
// live measurements; the numbers are pinned so that a change is deliberate.
type knobs struct {
	OptIn                 bool
	Classes               []kernel.SocketClass
	OptRefusal            kernel.Errno
	OptClosedOnly         bool
	OptmemMax             int
	OmallocTruesize       int
	OmallocEstimate       int
	MemlockDefault        uint64
	MemlockInfinityExempt bool
	NotifyMergeEnd        kernel.QueueEnd
	CopyUbufsHighOrder    bool
}

func TestProfileKnobs(t *testing.T) {
	want := map[string]knobs{
		"rfc-v2": {false, []kernel.SocketClass{kernel.ClassTCP, kernel.ClassUDP, kernel.ClassRAW, kernel.ClassPacket},
			kernel.ENOPROTOOPT, false, 20480, 768, 576, 64 << 10, false, kernel.QueueHead, false},
		"linux-4.14": {true, []kernel.SocketClass{kernel.ClassTCP},
			kernel.ENOTSUPP, true, 20480, 768, 576, 64 << 10, false, kernel.QueueTail, false},
		"linux-5.0": {true, []kernel.SocketClass{kernel.ClassTCP, kernel.ClassUDP, kernel.ClassRDS},
			kernel.ENOTSUPP, false, 20480, 768, 576, 64 << 10, true, kernel.QueueTail, false},
		// Measured on Linux 6.18 (probes/FINDINGS.md §6): 832 bytes charged,
		// 576 admitted, optmem_max 131072.
		"linux-6.18": {true, []kernel.SocketClass{kernel.ClassTCP, kernel.ClassUDP, kernel.ClassRDS},
			kernel.EOPNOTSUPP, false, 131072, 832, 576, 8 << 20, true, kernel.QueueTail, true},
	}
	var names []string
	for _, p := range kernel.Profiles() {
		names = append(names, p.Name)
		got := knobs{p.OptIn, p.ZerocopyClasses, p.OptRefusal, p.OptClosedOnly, p.OptmemMax,
			p.OmallocTruesize, p.OmallocEstimate, p.MemlockDefault, p.MemlockInfinityExempt,
			p.NotifyMergeEnd, p.CopyUbufsHighOrder}
		if d := cmp.Diff(want[p.Name], got); d != "" {
			t.Errorf("%s knobs (-want +got):\n%s", p.Name, d)
		}
		require.Equal(t, uint32(1<<19), p.UargByteLimit, p.Name)
		require.Equal(t, uint16(65534), p.UargLenLimit, p.Name)
		require.Empty(t, p.Bugs.Sorted(), p.Name)
		require.NotEmpty(t, p.Describe, p.Name)
	}
	require.Equal(t, []string{"rfc-v2", "linux-4.14", "linux-5.0", "linux-6.18"}, names)
}

func TestProfilesAreCopies(t *testing.T) {
	ps := kernel.Profiles()
	last := ps[len(ps)-1]
	last.OptmemMax = 1
	last.ZerocopyClasses[0] = kernel.ClassPacket
	last.Bugs[kernel.BugID16] = true

	p, err := kernel.Lookup(last.Name)
	require.NoError(t, err)
	require.Equal(t, 131072, p.OptmemMax)
	require.Equal(t, kernel.ClassTCP, p.ZerocopyClasses[0])
	require.False(t, p.Bugs.Has(kernel.BugID16))

	p.Bugs[kernel.BugAbortGap] = true
	q, _ := kernel.Lookup(last.Name)
	require.False(t, q.Bugs.Has(kernel.BugAbortGap), "Lookup returns a fresh copy each time")
}

func TestClone(t *testing.T) {
	p, _ := kernel.Lookup("linux-6.18")
	p.Bugs[kernel.BugNoSockRef] = true
	q := p.Clone()
	require.Equal(t, p, q)
	q.Bugs[kernel.BugID16] = true
	q.Bugs[kernel.BugNoSockRef] = false
	q.ZerocopyClasses[1] = kernel.ClassRAW
	q.ZerocopyClasses = append(q.ZerocopyClasses, kernel.ClassPacket)
	require.Equal(t, []kernel.Bug{kernel.BugNoSockRef}, p.Bugs.Sorted())
	require.Equal(t, []kernel.SocketClass{kernel.ClassTCP, kernel.ClassUDP, kernel.ClassRDS}, p.ZerocopyClasses)
	require.Equal(t, []kernel.Bug{kernel.BugID16}, q.Bugs.Sorted())
}

func TestBugSet(t *testing.T) {
	s := kernel.BugSet{kernel.BugTxErrorClone: true, kernel.BugAbortGap: true, kernel.BugID16: false, kernel.BugCopiedAfterOverwrite: true}
	require.Equal(t, []kernel.Bug{kernel.BugAbortGap, kernel.BugCopiedAfterOverwrite, kernel.BugTxErrorClone}, s.Sorted())
	require.True(t, s.Has(kernel.BugAbortGap))
	require.False(t, s.Has(kernel.BugID16))
	require.False(t, s.Has(kernel.BugNoSockRef))
	var zero kernel.BugSet
	require.Nil(t, zero.Sorted())
	require.False(t, zero.Has(kernel.BugID16))
}

func TestAccepts(t *testing.T) {
	p, _ := kernel.Lookup("linux-4.14")
	require.True(t, p.Accepts(kernel.ClassTCP))
	require.False(t, p.Accepts(kernel.ClassUDP))
	require.False(t, p.Accepts(kernel.ClassOther))
	rfc, _ := kernel.Lookup("rfc-v2")
	require.True(t, rfc.Accepts(kernel.ClassPacket))
	require.False(t, rfc.Accepts(kernel.ClassRDS))
}
