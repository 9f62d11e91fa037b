package ubuf

import (
	"fmt"
	"iter"
	"slices"

	"github.com/zcsim/zcsim/kernel"
)

// Flavour says which ubuf_info_ops a uarg has.
type Flavour uint8

// Flavours.
const (
	// MsgZerocopy is struct ubuf_info_msgzc with msg_zerocopy_ubuf_ops:
	// refcounted, id-numbered, accounted, notified on the error queue.
	MsgZerocopy Flavour = iota
	// Legacy is the 1:1 ubuf of vhost_net and tun: one reference per skb,
	// a completion callback, no id, no page accounting and no zerocopy
	// field (it overlays desc/ctx there).
	Legacy
)

// Socket is the part of struct sock a msg_zerocopy uarg touches. The sock
// package implements it; tests may use a fake.
type Socket interface {
	// Ident identifies the socket in histories.
	Ident() kernel.ObjectID
	// Note appends an entry to the socket's history: why an allocation
	// was refused.
	Note(kernel.Entry)
	// ZCKey returns sk_zckey.
	ZCKey() uint32
	// SetZCKey stores sk_zckey.
	SetZCKey(uint32)
	// Stream reports whether the socket is SOCK_STREAM.
	Stream() bool
	// Dead reports SOCK_DEAD.
	Dead() bool
	// Omalloc models sock_omalloc(sk, 0, GFP_KERNEL): it charges the
	// notification skb to optmem and returns its truesize, or false.
	Omalloc() (truesize int, ok bool)
	// Ofree models sock_ofree: it returns truesize of optmem.
	Ofree(truesize int)
	// Hold and Put model sock_hold and sock_put.
	Hold()
	Put()
	// QueueNotification is the queueing half of __msg_zerocopy_callback:
	// under the error-queue lock, merge n into the queue or append it.
	QueueNotification(n Notification)
	// LiveUarg tells the socket that a msg_zerocopy uarg of it was
	// allocated (n 1) or freed (n -1), of truesize bytes of optmem: the
	// socket counts its live uargs for the invariant checks.
	LiveUarg(n, truesize int)
}

// Notification is what __msg_zerocopy_callback hands to the error queue: the
// inclusive id range [Lo, Lo+Len-1] (mod 2^32), whether any reference drop
// reported a copy, and the notification skb's optmem charge, which travels
// with it until it is read or merged away.
type Notification struct {
	Lo     uint32
	Len    uint32
	Copied bool
	// Why names the code path that first copied, and WhyStep the step it
	// ran at (0 when the copy is the callback's own, CopyOverwritten);
	// NotCopied when Copied is false.
	Why      kernel.CopyWhy
	WhyStep  uint64
	Truesize int
	// Uarg is the uarg that completed, for histories and checkers.
	Uarg kernel.ObjectID
}

// Hi returns the last id of the range.
func (n Notification) Hi() uint32 { return n.Lo + n.Len - 1 }

// infoSlab holds a Host's uargs, holderSlab their lists of holders.
var infoSlab, holderSlab = kernel.SlabSlot[Info](), kernel.SlabSlot[kernel.ObjectID]()

// Info is a struct ubuf_info: a refcounted record of user pages lent to
// the network stack.
//
// Ownership: a new Info has one reference, owned by its creator. Every skb
// that points at it through destructor_arg owns one more (clones share
// their shinfo's). Get records the new holder; Complete drops a holder's
// reference, and the last drop runs the completion. Every holder is
// recorded, so a leak names who still holds a reference.
type Info struct {
	kernel.Tracked
	Flavour Flavour

	// ID, Len and Bytelen are the msgzc fields: the first id, how many send
	// calls share this uarg, and their total bytes.
	ID      uint32
	Len     uint16
	Bytelen uint32
	// Zerocopy is false once any reference drop reported a copy, or the
	// send path copied the data (SetCopied).
	Zerocopy bool
	// Copied says which code path first made Zerocopy false, and
	// CopiedStep at which step; NotCopied while Zerocopy holds.
	Copied     kernel.CopyWhy
	CopiedStep uint64
	// Flags are ORed into each skb's shared info by skb_zcopy_set.
	Flags kernel.SkbFlags
	// Mmp is the locked-page charge.
	Mmp MMPin
	// Truesize is the optmem charge of the skb the uarg lives in.
	Truesize int

	sk      Socket
	refcnt  int
	holders []kernel.ObjectID
	// taken counts the references ever taken (every holder recorded);
	// heldBy counts each holder's references once there are more than
	// fewHolders, so that HeldBy does not scan them (nil until then).
	taken  uint64
	heldBy map[kernel.ObjectID]int32
	// looked is taken at the last Moved, and dropped the holders whose
	// references were dropped since, while the Host keeps its touched
	// list.
	looked  uint64
	dropped []kernel.ObjectID
	// Done and Success record a Legacy completion.
	Done, Success bool
}

// Refcnt returns the number of references.
func (u *Info) Refcnt() int { return u.refcnt }

// Holders returns who holds the references, in the order taken.
func (u *Info) Holders() []kernel.ObjectID { return append([]kernel.ObjectID(nil), u.holders...) }

// AllHolders yields who holds the references, in the order taken, without
// copying them. The uarg must not change while it is iterated.
func (u *Info) AllHolders() iter.Seq[kernel.ObjectID] { return slices.Values(u.holders) }

// Moved returns the holders whose references moved since the last Moved
// call (of none, since the uarg was made): taken the holders of the
// references taken since that are still held, and possibly some older
// ones (the holders list is in the order taken, so these are at its end),
// dropped the holders of the references dropped since (recorded while the
// Host keeps its touched list), oldest first. An invariant check looks at
// a holder when its references move, at the cost of what moved, not of
// what is held. The slices are valid until the uarg changes; one checker
// per Host calls it.
func (u *Info) Moved() (taken, dropped []kernel.ObjectID) {
	n := min(u.taken-u.looked, uint64(len(u.holders)))
	taken, dropped = u.holders[len(u.holders)-int(n):], u.dropped
	u.looked, u.dropped = u.taken, u.dropped[:0]
	return taken, dropped
}

// Free frees the uarg: a msg_zerocopy uarg stops counting on its socket
// (Socket.LiveUarg), and a charge it still holds on what the live uargs
// charge to its user (User.Charged), where locked_vm keeps it.
func (u *Info) Free() {
	if !u.Freed() {
		if u.Flavour == MsgZerocopy && u.sk != nil {
			u.sk.LiveUarg(-1, u.Truesize)
		}
		u.Mmp.forget()
	}
	u.Tracked.Free()
}

// fewHolders is how many holders HeldBy scans before the uarg counts them
// in a map.
const fewHolders = 8

// HeldBy returns how many references holder holds.
func (u *Info) HeldBy(holder kernel.ObjectID) int {
	if u.heldBy != nil {
		return int(u.heldBy[holder])
	}
	n := 0
	for _, h := range u.holders {
		if h == holder {
			n++
		}
	}
	return n
}

// Socket returns the owning socket of a MsgZerocopy uarg.
func (u *Info) Socket() Socket { return u.sk }

// String renders the uarg for a timeline: "uarg#3[id 0..1 refcnt 2]".
func (u *Info) String() string {
	if u.Flavour == Legacy {
		return fmt.Sprintf("%v[legacy refcnt %d]", u.Ident(), u.refcnt)
	}
	return fmt.Sprintf("%v[id %d..%d refcnt %d]", u.Ident(), u.ID, u.ID+uint32(u.Len)-1, u.refcnt)
}

// Get models net_zcopy_get / refcount_inc: holder takes a reference.
// Precondition: the uarg is live and has a reference (no increment from 0).
func (u *Info) Get(holder kernel.ObjectID) {
	if !u.CheckLive("get") {
		return
	}
	if u.refcnt <= 0 {
		u.Violate(kernel.RuleRefcount, "get by %v with refcnt %d (increment from zero)", holder, u.refcnt)
		return
	}
	u.refcnt++
	u.addHolder(holder)
	u.Note(kernel.Entry{Op: kernel.OpUargGet, Holder: holder, Before: int64(u.refcnt - 1), After: int64(u.refcnt)})
}

// Complete models ops->complete (msg_zerocopy_complete for MsgZerocopy):
// holder drops its reference; success false marks the uarg COPIED. The last
// drop runs the completion: __msg_zerocopy_callback, or the legacy callback.
func (u *Info) Complete(holder kernel.ObjectID, success bool) { u.complete(holder, success, 0) }

// CompleteCopied is Complete with success false from a holder whose data
// was copied: why names the code path that copied (skb_copy_ubufs and its
// caller), recorded by SetCopied.
func (u *Info) CompleteCopied(holder kernel.ObjectID, why kernel.CopyWhy) {
	u.complete(holder, false, why)
}

// SetCopied models uarg->zerocopy = 0, set by a send path that copies the
// data (tcp_sendmsg_locked, __ip_append_data) or by the AND of a reference
// drop's success in msg_zerocopy_complete: the notification will report
// SO_EE_CODE_ZEROCOPY_COPIED. The first call records why and the step; a
// uarg already copied, or one that is not a MsgZerocopy uarg, is left alone.
func (u *Info) SetCopied(why kernel.CopyWhy) {
	if u.Flavour != MsgZerocopy || !u.Zerocopy {
		return
	}
	u.Zerocopy = false
	u.Copied, u.CopiedStep = why, u.Host().Step
	u.Note(kernel.Entry{Op: kernel.OpUargCopied, Args: [4]int64{int64(why)}})
}

func (u *Info) complete(holder kernel.ObjectID, success bool, why kernel.CopyWhy) {
	if !u.CheckLive("put") {
		return
	}
	if u.refcnt <= 0 {
		u.Violate(kernel.RuleRefcount, "put by %v with refcnt %d (underflow)", holder, u.refcnt)
		return
	}
	if !u.dropHolder(holder) {
		u.Violate(kernel.RuleRefcount, "put by %v, which holds no reference (holders %v)", holder, u.holders)
	}
	if !success {
		u.SetCopied(why)
	}
	u.refcnt--
	u.Note(kernel.Entry{Op: kernel.OpUargPut, Holder: holder, Before: int64(u.refcnt + 1), After: int64(u.refcnt), Args: [4]int64{kernel.Bool(success), int64(why)}})
	if u.refcnt > 0 {
		return
	}
	if u.Flavour == Legacy {
		if u.Host().Profile.Bugs.Has(kernel.BugLegacyUnaccount) {
			// B20: the generic last put unaccounts before it looks at
			// the callback; a vhost ubuf's mmp was never set.
			u.Violate(kernel.RuleAccounting, "mm_unaccount_pinned_pages on a vhost ubuf, whose mmp was never set: a garbage user_struct (bug legacy-unaccount)")
		}
		u.Done, u.Success = true, success
		u.Free()
		return
	}
	u.callback()
}

// newInfo returns a new ubuf_info of h, tracked as kind: n's fields but
// the Tracked ones and the holders, which are just holder.
func newInfo(h *kernel.Host, kind string, holder kernel.ObjectID, n Info) *Info {
	u := infoSlab.Of(h).New()
	*u = n
	h.Track(&u.Tracked, kind, u)
	u.addHolder(holder)
	return u
}

// addHolder records one more reference held by holder, in the Host's slab.
func (u *Info) addHolder(holder kernel.ObjectID) {
	u.holders = holderSlab.Of(u.Host()).Append(u.holders, holder)
	u.taken++
	switch {
	case u.heldBy != nil:
		u.heldBy[holder]++
	case len(u.holders) > fewHolders:
		u.heldBy = make(map[kernel.ObjectID]int32, 2*len(u.holders))
		for _, h := range u.holders {
			u.heldBy[h]++
		}
	}
}

// dropHolder forgets the oldest reference holder holds, reporting whether
// it held one.
func (u *Info) dropHolder(holder kernel.ObjectID) bool {
	if u.Host().KeepTouched {
		u.dropped = holderSlab.Of(u.Host()).Append(u.dropped, holder)
	}
	if u.heldBy != nil {
		switch n := u.heldBy[holder]; n {
		case 0:
			return false
		case 1:
			delete(u.heldBy, holder)
		default:
			u.heldBy[holder] = n - 1
		}
	}
	for i, h := range u.holders {
		switch {
		case h != holder:
			continue
		case i == 0 && u.heldBy != nil:
			// The oldest of many, as ACKs free a write queue: drop it
			// without moving the others (addHolder moves them to new
			// storage when the end is reached).
			u.holders = u.holders[1:]
		default:
			u.holders = append(u.holders[:i], u.holders[i+1:]...)
		}
		return true
	}
	return false
}

// Transfer moves one reference from one holder to another without touching
// the count, as skb_zcopy_set does when it consumes the caller's reference
// (have_uref).
func (u *Info) Transfer(from, to kernel.ObjectID) {
	if !u.CheckLive("transfer") {
		return
	}
	if !u.dropHolder(from) {
		u.Violate(kernel.RuleRefcount, "%v hands on a reference it does not hold", from)
		return
	}
	u.addHolder(to)
	u.Note(kernel.Entry{Op: kernel.OpUargHandoff, Holder: from, Peer: to})
}

// callback models __msg_zerocopy_callback: unaccount the pinned pages; then,
// unless every call was aborted (len 0) or the socket is dead, hand the
// notification to the error queue, else free the notification skb; finally
// drop the socket reference. Under Profile.NotifyDeadSocket (the RFC v2) a
// dead socket's notification is queued too, and goes when the socket is
// destroyed (sk_destruct purges its error queue).
func (u *Info) callback() {
	u.Mmp.Unaccount()
	sk := u.sk
	p := u.Host().Profile
	copied, why := !u.Zerocopy, u.Copied
	if p.Bugs.Has(kernel.BugCopiedAfterOverwrite) {
		// B11: zerocopy is read after the sock_exterr_skb memset cleared the
		// cb[] bytes it shares, so it always reads as 0: COPIED.
		if !copied {
			why = kernel.CopyOverwritten
		}
		copied = true
	}
	if u.Len == 0 || sk.Dead() && !p.NotifyDeadSocket {
		u.Note(kernel.Entry{Op: kernel.OpUargCompleteSilent, Args: [4]int64{int64(u.Len), kernel.Bool(sk.Dead())}})
		sk.Ofree(u.Truesize)
	} else {
		n := Notification{Lo: u.ID, Len: uint32(u.Len), Copied: copied, Why: why, Truesize: u.Truesize, Uarg: u.Ident()}
		if why != kernel.CopyOverwritten {
			n.WhyStep = u.CopiedStep
		}
		u.Note(kernel.Entry{Op: kernel.OpUargComplete, Args: [4]int64{int64(n.Lo), int64(n.Hi()), kernel.Bool(copied), int64(why)}})
		sk.QueueNotification(n)
	}
	u.Free()
	if !p.Bugs.Has(kernel.BugNoSockRef) {
		sk.Put()
	}
}
