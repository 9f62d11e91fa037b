package engine

import (
	"math/rand/v2"
	"slices"
)

// Streams hands out named pseudo-random streams derived from one root seed, in the
// style of TigerBeetle's VOPR: each subsystem draws from its own stream ("net",
// "fault/<site>", …), so adding a stream, or drawing more from one, never changes the
// numbers another stream produces.
//
// The stream called name is a math/rand/v2 PCG seeded with (a, b), where
//
//	x := root ^ FNV-1a-64(name)
//	a := splitmix64(&x)
//	b := splitmix64(&x)
//
// This derivation is part of the reproducibility contract: changing it changes every
// recorded run.
//
// The zero Streams derives from root seed 0. Streams must not be copied after first use.
type Streams struct {
	root   uint64
	byName map[string]*rand.Rand
}

// NewStreams returns the streams derived from root.
func NewStreams(root uint64) *Streams { return &Streams{root: root} }

// Seed returns the root seed.
func (s *Streams) Seed() uint64 { return s.root }

// Rand returns the stream called name, creating it on first use. The same name always
// returns the same *rand.Rand, which carries on where it left off.
func (s *Streams) Rand(name string) *rand.Rand {
	if r, ok := s.byName[name]; ok {
		return r
	}
	if s.byName == nil {
		s.byName = make(map[string]*rand.Rand)
	}
	x := s.root ^ fnv1a64(name)
	a := splitmix64(&x)
	r := rand.New(rand.NewPCG(a, splitmix64(&x)))
	s.byName[name] = r
	return r
}

// Names returns the names of the streams created so far, sorted.
func (s *Streams) Names() []string {
	names := make([]string, 0, len(s.byName))
	for name := range s.byName {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// fnv1a64 is the 64-bit FNV-1a hash of s (hash/fnv's New64a, without allocating).
func fnv1a64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// splitmix64 advances *x and returns the next output of Steele, Lea and Flood's
// SplitMix64 generator.
func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
