package kernel

// stored is an Event as a history keeps it: the objects' kinds and the
// entry's name are indices into the Host's tables of them (names), so a
// history holds no pointer. The garbage collector neither scans histories
// nor runs write barriers when entries are noted, and an entry takes 80
// bytes instead of 128.
type stored struct {
	step          uint64
	holder, peer  uint64 // serials
	before, after int64
	args          [4]int64
	str           uint32 // index into names.strs
	op            Op
	holderKind    uint8 // index into names.kinds
	peerKind      uint8
	_             uint8
}

// names interns the few strings history entries carry: object kinds
// ("skb", "uarg", "sendmsg": a handful, found by a scan) and Entry.Str
// (device and tap names and cold-path texts, found by a map). Index 0 of
// each is "".
type names struct {
	kinds []string
	strs  []string
	strAt map[string]uint32
}

// maxKinds is how many object kinds one Host's histories can name: the
// model has about a dozen.
const maxKinds = 1 << 8

// kind returns the index of an object kind.
func (n *names) kind(k string) uint8 {
	if k == "" {
		return 0
	}
	for i, s := range n.kinds {
		if s == k {
			return uint8(i)
		}
	}
	if len(n.kinds) == 0 {
		n.kinds = append(n.kinds, "")
	}
	if len(n.kinds) == maxKinds {
		panic("kernel: more than 255 object kinds in one Host's histories")
	}
	n.kinds = append(n.kinds, k)
	return uint8(len(n.kinds) - 1)
}

// str returns the index of an entry's name.
func (n *names) str(s string) uint32 {
	if s == "" {
		return 0
	}
	if i, ok := n.strAt[s]; ok {
		return i
	}
	if n.strAt == nil {
		n.strAt = map[string]uint32{}
		n.strs = append(n.strs, "")
	}
	n.strs = append(n.strs, s)
	i := uint32(len(n.strs) - 1)
	n.strAt[s] = i
	return i
}

// store writes e, as a history keeps it, to s.
func (n *names) store(s *stored, step uint64, e *Entry) {
	*s = stored{
		step: step, op: e.Op,
		holder: e.Holder.Serial, holderKind: n.kind(e.Holder.Kind),
		peer: e.Peer.Serial, peerKind: n.kind(e.Peer.Kind),
		before: e.Before, after: e.After, args: e.Args,
		str: n.str(e.Str),
	}
}

// load is the Event s stores.
func (n *names) load(s *stored) Event {
	id := func(kind uint8, serial uint64) ObjectID {
		if kind == 0 {
			return ObjectID{Serial: serial}
		}
		return ObjectID{Kind: n.kinds[kind], Serial: serial}
	}
	e := Event{Step: s.step, Entry: Entry{
		Op:     s.op,
		Holder: id(s.holderKind, s.holder), Peer: id(s.peerKind, s.peer),
		Before: s.before, After: s.after, Args: s.args,
	}}
	if s.str != 0 {
		e.Str = n.strs[s.str]
	}
	return e
}
