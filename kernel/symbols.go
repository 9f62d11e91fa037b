package kernel

import (
	"fmt"
	"sort"
)

// Symbol pairs a Linux name with its value, as a uapi header spells it.
type Symbol[T comparable] struct {
	Name  string
	Value T
}

// Symbols is a two-way table between Linux names and values. The zero value
// is an empty table. Aliases (two names, one value) are allowed; Name returns
// the first name given for a value.
type Symbols[T comparable] struct {
	byName  map[string]T
	byValue map[T]string
	names   []string
}

// NewSymbols builds a table from name/value pairs. A name given twice is a
// programming error and panics at package initialisation.
func NewSymbols[T comparable](pairs ...Symbol[T]) Symbols[T] {
	s := Symbols[T]{byName: make(map[string]T, len(pairs)), byValue: make(map[T]string, len(pairs))}
	for _, p := range pairs {
		if _, dup := s.byName[p.Name]; dup {
			panic(fmt.Sprintf("kernel: symbol %q defined twice", p.Name))
		}
		s.byName[p.Name] = p.Value
		if _, ok := s.byValue[p.Value]; !ok {
			s.byValue[p.Value] = p.Name
		}
		s.names = append(s.names, p.Name)
	}
	sort.Strings(s.names)
	return s
}

// ByName returns the value of a name and whether the name is known.
func (s Symbols[T]) ByName(name string) (T, bool) {
	v, ok := s.byName[name]
	return v, ok
}

// Name returns the canonical name of a value, or "" if it has none.
func (s Symbols[T]) Name(v T) string { return s.byValue[v] }

// Names returns every name in the table, sorted. The caller may modify it.
func (s Symbols[T]) Names() []string { return append([]string(nil), s.names...) }
