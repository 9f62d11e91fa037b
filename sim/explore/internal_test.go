package explore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The shards of one root seed run disjoint seeds that together are every
// seed from the root on.
func TestShardsPartition(t *testing.T) {
	const root, n, span = 1001, 3, 60
	got := map[uint64]int{}
	for shard := uint64(0); shard < n; shard++ {
		x := newExplorer(Config{Seed: root, Shard: shard, Shards: n})
		for s := x.first(); s < root+span; s += x.stride() {
			require.Equal(t, shard, s%n, "shard %d runs seed %d", shard, s)
			got[s]++
		}
	}
	for s := uint64(root); s < root+span; s++ {
		require.Equal(t, 1, got[s], "seed %d", s)
	}
	require.Len(t, got, span)
}

func boom() {
	var m map[string]int
	m["x"] = 1
}

// A panic is a failure named by the function that panicked.
func TestCrashNamesThePanic(t *testing.T) {
	var f *failure
	func() {
		defer func() { f = crash(recover()) }()
		boom()
	}()
	require.Equal(t, "panic", f.kind)
	require.Equal(t, "panic in explore.boom: assignment to entry in nil map", f.message)
	require.Equal(t, "panic: panic in explore.boom: assignment to entry in nil map", f.key)
}

// Keys ignore numbers and bracketed lists.
func TestKeyOf(t *testing.T) {
	a := keyOf("refcount", "uarg#25: leaked at quiescence: uarg#25[id 0..1 refcnt 1], holders [sendmsg#6]")
	b := keyOf("refcount", "uarg#3: leaked at quiescence: uarg#3[id 7..7 refcnt 2], holders [shinfo#4 shinfo#9]")
	require.Equal(t, a, b)
	require.Equal(t, "refcount: uarg#N: leaked at quiescence: uarg#N[…], holders […]", a)
	require.NotEqual(t, a, keyOf("accounting", "uarg#3: leaked at quiescence: uarg#3[id 7..7 refcnt 2], holders [shinfo#4 shinfo#9]"))
}
