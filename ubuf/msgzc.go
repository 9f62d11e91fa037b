package ubuf

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
)

// Outcome says what msg_zerocopy_alloc or msg_zerocopy_realloc did, so a
// timeline can say why a send got a new id or failed.
type Outcome uint8

// Outcomes of Alloc and Realloc.
const (
	// NoUarg: no allocation was attempted (the zero value).
	NoUarg Outcome = iota
	// Allocated: a new uarg with a new id.
	Allocated
	// Extended: the tail skb's uarg now also covers this call.
	Extended
	// FailOptmem: sock_omalloc refused (optmem_max) or its allocation failed.
	FailOptmem
	// FailMemlock: mm_account_pinned_pages refused (RLIMIT_MEMLOCK).
	FailMemlock
	// FailLimit: a datagram uarg reached the byte or call limit.
	FailLimit
	// FailForeign: the tail skb's uarg is not a msg_zerocopy uarg.
	FailForeign
	// FailNotContiguous: under kernel.BugReallocFails, the tail's ids are
	// not the latest, and the RFC v1 code failed instead of allocating.
	FailNotContiguous
)

var outcomeNames = [...]string{
	NoUarg:            "no uarg",
	Allocated:         "allocated a new uarg",
	Extended:          "extended the tail uarg",
	FailOptmem:        "sock_omalloc failed (optmem)",
	FailMemlock:       "mm_account_pinned_pages failed (RLIMIT_MEMLOCK)",
	FailLimit:         "the tail uarg reached its byte or call limit",
	FailForeign:       "the tail skb's uarg is not a msg_zerocopy uarg",
	FailNotContiguous: "the tail uarg's ids are not the latest",
}

// String says what happened in words.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome %d", o)
}

// Failed reports whether the outcome left the caller without a uarg; the
// send then fails with ENOBUFS.
func (o Outcome) Failed() bool { return o >= FailOptmem }

// Alloc models msg_zerocopy_alloc(sk, size): charge a zero-payload skb to
// optmem (sock_omalloc), account the pinned pages of size bytes to the
// calling task's user, then take the id sk_zckey++ and a socket reference.
// The new uarg has len 1, bytelen size, zerocopy set, the flags
// SKBFL_ZEROCOPY_FRAG|SKBFL_DONT_ORPHAN, and one reference held by holder.
// On failure nothing changes: no id is consumed, no optmem stays charged.
func Alloc(h *kernel.Host, sk Socket, task *Task, size uint32, holder kernel.ObjectID) (*Info, Outcome) {
	truesize, ok := sk.Omalloc()
	if !ok {
		return nil, FailOptmem
	}
	var mmp MMPin
	if why, ok := mmp.account(h.Profile, task, uint64(size)); !ok {
		sk.Note(why)
		sk.Ofree(truesize)
		return nil, FailMemlock
	}
	u := newInfo(h, "uarg", holder, Info{
		Flavour:  MsgZerocopy,
		ID:       sk.ZCKey(),
		Len:      1,
		Bytelen:  byteCount(h.Profile, size),
		Zerocopy: true,
		Flags:    kernel.SKBFL_ZEROCOPY_FRAG | kernel.SKBFL_DONT_ORPHAN,
		Mmp:      mmp,
		Truesize: truesize,
		sk:       sk,
		refcnt:   1,
	})
	sk.LiveUarg(1, truesize)
	sk.SetZCKey(nextID(h.Profile, u.ID))
	if !h.Profile.Bugs.Has(kernel.BugNoSockRef) {
		sk.Hold()
	}
	u.Note(kernel.Entry{Op: kernel.OpZerocopyAlloc, Holder: holder, Peer: sk.Ident(), After: int64(u.refcnt),
		Args: [4]int64{int64(u.ID), int64(size), int64(mmp.NumPg), int64(truesize)}})
	return u, Allocated
}

// nextID is the id after id.
func nextID(p *kernel.Profile, id uint32) uint32 { return wrapID(p, id+1) }

// wrapID reduces an id to the counter's width: u32, or u16 under
// kernel.BugID16.
func wrapID(p *kernel.Profile, id uint32) uint32 {
	if p.Bugs.Has(kernel.BugID16) {
		return uint32(uint16(id))
	}
	return id
}

// Realloc models msg_zerocopy_realloc(sk, size, uarg), where tail is the
// uarg of the socket's tail skb (nil if none). It extends tail to cover one
// more call when tail's ids end exactly at sk_zckey (no other uarg was
// allocated since) and the byte and call limits allow: len++, bytelen +=
// size, sk_zckey++, the pages accounted into the same mmpin, and, only on a
// SOCK_STREAM socket, one more reference for holder (datagram appends hand
// no reference: bugs B6/B7). Otherwise a stream socket allocates a new
// uarg, and a datagram socket over the limit fails.
//
// Preconditions: the caller holds the socket lock (tcp_sendmsg_locked, or a
// corked UDP append).
func Realloc(h *kernel.Host, sk Socket, task *Task, size uint32, tail *Info, holder kernel.ObjectID) (*Info, Outcome) {
	if tail == nil {
		return Alloc(h, sk, task, size, holder)
	}
	if tail.Flavour != MsgZerocopy {
		return nil, FailForeign
	}
	p := h.Profile
	switch Extends(p, sk, tail, size) {
	case FailLimit:
		if !sk.Stream() {
			return nil, FailLimit
		}
		return newAfterTail(h, sk, task, size, holder, FailLimit)
	case FailNotContiguous:
		return newAfterTail(h, sk, task, size, holder, FailNotContiguous)
	}
	next := wrapID(p, tail.ID+uint32(tail.Len))
	if why, ok := tail.Mmp.account(p, task, uint64(size)); !ok {
		sk.Note(why)
		return nil, FailMemlock
	}
	tail.Len++
	tail.Bytelen += byteCount(p, size)
	sk.SetZCKey(nextID(p, next))
	if sk.Stream() {
		tail.Get(holder)
	}
	tail.Note(kernel.Entry{Op: kernel.OpZerocopyRealloc, Args: [4]int64{int64(tail.ID), int64(next), int64(tail.Bytelen)}})
	return tail, Extended
}

// Extends reports whether msg_zerocopy_realloc would extend tail, a
// MsgZerocopy uarg, for one more call of size bytes (Extended, RLIMIT_MEMLOCK
// aside), or why not: the byte or call limit (FailLimit), or another uarg
// allocated since (FailNotContiguous).
func Extends(p *kernel.Profile, sk Socket, tail *Info, size uint32) Outcome {
	if uint64(tail.Bytelen)+uint64(byteCount(p, size)) > uint64(p.UargByteLimit/p.UargByteUnit) || tail.Len >= p.UargLenLimit {
		return FailLimit
	}
	if wrapID(p, tail.ID+uint32(tail.Len)) != sk.ZCKey() {
		return FailNotContiguous
	}
	return Extended
}

// byteCount is what a call of size bytes adds to a uarg's Bytelen: size
// (bytelen), or under the RFC v2's kbytelen (Profile.UargByteUnit 1024)
// DIV_ROUND_UP(size, 1024), which its u16 field caps at USHRT_MAX.
func byteCount(p *kernel.Profile, size uint32) uint32 {
	if p.UargByteUnit <= 1 {
		return size
	}
	return min((size+p.UargByteUnit-1)/p.UargByteUnit, kernel.UshrtMax)
}

// newAfterTail allocates a fresh uarg when the tail cannot be extended; the
// RFC v1 code (kernel.BugReallocFails) failed the send instead.
func newAfterTail(h *kernel.Host, sk Socket, task *Task, size uint32, holder kernel.ObjectID, why Outcome) (*Info, Outcome) {
	if h.Profile.Bugs.Has(kernel.BugReallocFails) {
		return nil, why
	}
	return Alloc(h, sk, task, size, holder)
}

// PutAbort models msg_zerocopy_put_abort(uarg, have_uref): the call that
// got this uarg failed before queuing any byte, so roll back the id it
// consumed (sk_zckey--, len--) and, if holder still owns its reference,
// drop it. For a fresh uarg that is the last reference: the completion runs
// with len 0 and queues no notification. Under kernel.BugAbortGap sk_zckey is
// not rolled back, so the aborted id is never notified: a gap.
func (u *Info) PutAbort(holder kernel.ObjectID, haveRef bool) {
	if u.Flavour != MsgZerocopy {
		// net_zcopy_put_abort on other ubufs is a plain put.
		if haveRef {
			u.Complete(holder, true)
		}
		return
	}
	if !u.Host().Profile.Bugs.Has(kernel.BugAbortGap) {
		u.sk.SetZCKey(u.sk.ZCKey() - 1)
	}
	u.Len--
	u.Note(kernel.Entry{Op: kernel.OpPutAbort, Holder: holder, Args: [4]int64{int64(u.Len)}})
	if haveRef {
		u.Complete(holder, true)
	}
}

// NewLegacy returns a legacy (vhost/tun) ubuf with one reference held by
// holder. It has no id, no socket and no page accounting.
func NewLegacy(h *kernel.Host, holder kernel.ObjectID) *Info {
	u := newInfo(h, "ubuf", holder, Info{Flavour: Legacy, Flags: kernel.SKBFL_ZEROCOPY_FRAG, refcnt: 1})
	u.Note(kernel.Entry{Op: kernel.OpLegacyAlloc, Holder: holder, After: 1})
	return u
}
