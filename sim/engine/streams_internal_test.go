package engine

import (
	"hash/fnv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFNV1a64MatchesHashFNV(t *testing.T) {
	for _, s := range []string{"", "net", "fault/alloc", "ünïcode"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		require.Equal(t, h.Sum64(), fnv1a64(s), s)
	}
}

func TestSplitmix64ReferenceValues(t *testing.T) {
	var x uint64 // the reference implementation's outputs for seed 0
	for _, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		require.Equal(t, want, splitmix64(&x))
	}
}
