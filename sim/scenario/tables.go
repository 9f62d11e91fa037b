package scenario

import "sort"

// table is what the parser needs of a name table: whether it knows a name,
// and all its names (for "did you mean" hints). What names the kind of symbol
// in error messages ("flag", "errno").
type table struct {
	what  string
	has   func(string) bool
	names func() []string
}

// symbols is the part of kernel.Symbols[T] the parser uses.
type symbols[T any] interface {
	ByName(name string) (T, bool)
	Names() []string
}

func tableOf[T any](what string, s symbols[T]) table {
	return table{
		what:  what,
		has:   func(n string) bool { _, ok := s.ByName(n); return ok },
		names: s.Names,
	}
}

// nameSet is a fixed set of names with the methods of a kernel.Symbols
// table, for the few tables the kernel package does not export.
type nameSet map[string]int

// ByName reports whether name is in the set; the value is its index.
func (s nameSet) ByName(name string) (int, bool) { v, ok := s[name]; return v, ok }

// Names returns the names, sorted.
func (s nameSet) Names() []string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func setOf(names ...string) nameSet {
	s := make(nameSet, len(names))
	for i, n := range names {
		s[n] = i
	}
	return s
}

// Tables that the kernel package does not export, because they name
// things outside a socket's uapi: the SCM_TSTAMP_* kinds of a timestamp
// record (linux/errqueue.h), shutdown(2)'s how, the rlimit and the
// capability a scenario may change (the model has only CAP_IPC_LOCK).
var (
	tstampKinds = tableOf[int]("timestamp kind", setOf("SCM_TSTAMP_SND", "SCM_TSTAMP_SCHED", "SCM_TSTAMP_ACK", "SCM_TSTAMP_COMPLETION"))
	shutHows    = tableOf[int]("shutdown mode", setOf("SHUT_RD", "SHUT_WR", "SHUT_RDWR"))
	rlimits     = tableOf[int]("resource", setOf("RLIMIT_MEMLOCK"))
	capNames    = tableOf[int]("capability", setOf("CAP_IPC_LOCK", "CAP_NET_ADMIN"))
)
