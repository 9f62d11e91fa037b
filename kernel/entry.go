package kernel

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Op names what one entry of an object's history records: the kernel
// operation applied to the object. Each Op fixes which fields of an Entry
// it uses, the kernel function it models, and how it reads as text.
//
// The zero value, OpText, is an entry whose meaning is all in Entry.Str:
// for rare, cold paths whose wording is built once.
type Op uint8

// The operations an object's history records. The comment of each gives
// its timeline text, with the Entry fields it reads.
const (
	// OpText: Str.
	OpText Op = iota
	// OpFreed: "freed".
	OpFreed
	// OpOmitted: "… Args[0] entries omitted …", the gap of a bounded history.
	OpOmitted
	// OpSocket: "socket(family Args[0], type Args[1], protocol Args[2])".
	OpSocket
	// OpSetsockopt: "setsockopt SockOpt{Args[0], Args[1]} = Args[2]".
	OpSetsockopt
	// OpSoZerocopy: "SO_ZEROCOPY = Args[0]".
	OpSoZerocopy
	// OpConnect: "connect".
	OpConnect
	// OpConnected: "connected, window Args[0], sndbuf Args[1]".
	OpConnected
	// OpTCPDone: "tcp_done".
	OpTCPDone
	// OpOrphan: "sock_orphan: SOCK_DEAD".
	OpOrphan
	// OpOmallocRefused: "sock_omalloc refused: omem Args[0] + Args[1] > optmem_max Args[2]".
	OpOmallocRefused
	// OpNotified: "notification [Args[0],Args[1]] copied=Args[2]
	// merged=…: why", Args[3] the Merge that says whether it merged and
	// why.
	OpNotified
	// OpUargGet: "get by Holder → refcnt After".
	OpUargGet
	// OpUargPut: "put by Holder success=Args[0] → refcnt After", with
	// "(copied: Args[1])" after success=false when a CopyWhy is known.
	OpUargPut
	// OpUargHandoff: "reference of Holder handed to Peer".
	OpUargHandoff
	// OpUargComplete: "completed: notify [Args[0],Args[1]] copied=Args[2]",
	// with "(Args[3])", the CopyWhy, when copied.
	OpUargComplete
	// OpUargCompleteSilent: "completed without notification (len Args[0], dead Args[1])".
	OpUargCompleteSilent
	// OpZerocopyAlloc: "msg_zerocopy_alloc on Peer: id Args[0], Args[1] bytes,
	// Args[2] pinned pages, optmem Args[3], held by Holder".
	OpZerocopyAlloc
	// OpZerocopyRealloc: "msg_zerocopy_realloc: extended to id Args[0]..Args[1], Args[2] bytes".
	OpZerocopyRealloc
	// OpPutAbort: "put_abort by Holder: len Args[0]".
	OpPutAbort
	// OpLegacyAlloc: "legacy ubuf allocated, held by Holder".
	OpLegacyAlloc
	// OpZcopySet: "skb_zcopy_set Holder[id Args[0]..Args[1] refcnt After]", or
	// "skb_zcopy_set Holder[legacy refcnt After]" when Args[2] is 1.
	OpZcopySet
	// OpZcopyClear: "skb_zcopy_clear success=Args[0]".
	OpZcopyClear
	// OpZerocopyFill: "zerocopy Args[0] bytes from user pages, Args[1] frags".
	OpZerocopyFill
	// OpClone: "skb_clone of Holder, dataref After" (on the clone).
	OpClone
	// OpClonedAs: "cloned as Holder" (on the original).
	OpClonedAs
	// OpPskbCopy: "pskb_copy of Holder".
	OpPskbCopy
	// OpExpandHead: "pskb_expand_head: private shared info Holder".
	OpExpandHead
	// OpSplit: "skb_split at Args[0] into Holder".
	OpSplit
	// OpSegment: "skb_segment mss Args[0] into Args[1] segments".
	OpSegment
	// OpCopyUbufsFailed: "skb_copy_ubufs (Args[0]): page allocation
	// failed", Args[0] the CopyWhy of the caller.
	OpCopyUbufsFailed
	// OpCopyUbufs: "skb_copy_ubufs (Args[3]): Args[0] bytes into Args[1]
	// order-Args[2] pages", Args[3] the CopyWhy of the caller.
	OpCopyUbufs
	// OpPullTail: "__pskb_pull_tail Args[0] bytes, data_len Args[1]".
	OpPullTail
	// OpAllocSkb: "alloc_skb linear Args[0]".
	OpAllocSkb
	// OpReleaseData: "skb_release_data: dataref After".
	OpReleaseData
	// OpMakeSkb: "__ip_make_skb: Args[0] bytes, Args[1] fragments".
	OpMakeSkb
	// OpFragment: "ip_do_fragment: Args[0] fragments".
	OpFragment
	// OpTapDeliver: "delivered to tap Str".
	OpTapDeliver
	// OpXmitFailed: "Str: transmit failed" (Str names the device).
	OpXmitFailed
	// OpTunFailed: "tun_get_user failed: freed".
	OpTunFailed
	// OpTunGetUser: "tun_get_user: Args[0] bytes of guest pages, Holder attached".
	OpTunGetUser
	// OpTxRing: "PACKET_TX_RING Args[0] frames of Args[1] bytes".
	OpTxRing
	// OpZcNotification: "SCM_ZC_NOTIFICATION took Args[0] completions,
	// Args[1] records left".
	OpZcNotification
	// OpUargCopied: "zerocopy = 0, the notification will say COPIED:
	// Args[0]" (a CopyWhy in words).
	OpUargCopied
	// OpMemlockRefused: "mm_account_pinned_pages refused: locked_vm
	// Args[0] + Args[1] pages > RLIMIT_MEMLOCK Args[2] pages"; pinned_vm
	// instead of locked_vm when Args[3] is 1 (the per-process counter of
	// BugMemlockPerProcess).
	OpMemlockRefused
	// OpStreamNoSpace: "sk_stream_memory_free: wmem_queued Args[0] >=
	// sndbuf Args[1]", a stream send that cannot wait for space (EAGAIN).
	OpStreamNoSpace
	// OpSendNoSpace: "sock_alloc_send_pskb: wmem_alloc Args[0] >= sndbuf
	// Args[1]", a datagram send that cannot wait for space (EAGAIN).
	OpSendNoSpace
	// OpSendPipe: "tcp_sendmsg_locked: EPIPE, Str" (Str says which state).
	OpSendPipe
	// OpFaultFailed: "Str failed: the scenario's fault site" (Str names
	// the fault site, kernel.FaultSites).
	OpFaultFailed
	// OpAppendNoSpace: "__ip_append_data: wmem_alloc Args[0] > 2 × sndbuf
	// Args[1]", a later fragment's alloc_skb refused (ENOBUFS).
	OpAppendNoSpace
	// OpTooLong: "Str: Args[0] bytes > Args[1]", a send longer than its
	// bound (EMSGSIZE); Str names the check.
	OpTooLong
	// OpCoalesce: "skb_try_coalesce: took the frags of Holder, truesize +Args[0]".
	OpCoalesce
	// OpFastOpen: "tcp_sendmsg_fastopen: Args[0] bytes of data in the
	// SYN, Str", a MSG_FASTOPEN send connecting (Str says why that much).
	OpFastOpen
	// OpRcvbufGrow: "tcp_rcvbuf_grow: sk_rcvbuf Args[0] → Args[1],
	// window_clamp Args[2], after Args[3] bytes in a receive RTT".
	OpRcvbufGrow
	// OpRcvbufUndetermined: "tcp_rcv_space_adjust: undetermined: …", what
	// the kernel may do here that the model's time does not (Args[0]: 1,
	// it may grow the buffer from Args[1] bytes above Args[2]; 2, it may
	// have restarted the measurement this growth of Args[1] bytes counts
	// from).
	OpRcvbufUndetermined
	// OpBacklogUndetermined: "tcp_add_backlog: undetermined: …", a merge
	// of two timestamped pure ACKs on a socket's backlog that the kernel
	// may not have made, which dropped the largest window (Args[0]: 1).
	OpBacklogUndetermined
	// OpCwndUndetermined: "bbr_set_cwnd: undetermined: …", the first ACK
	// of a BBR connection after which tp->delivered (Args[1]) is at least
	// TCP_INIT_CWND, the window it left being Args[0] segments: from here
	// the kernel sizes the window from bandwidth and min_rtt estimates of
	// wall-clock time, which the model does not have.
	OpCwndUndetermined
	// OpShift: "skb_shift: took Args[0] bytes of frags from Holder", or
	// with Args[1] 1 (on the source) "gave them to Holder".
	OpShift
	opCount
)

// Entry is one typed record of what happened to an object: the operation,
// the other objects it involved, the refcount it left, and its numeric
// arguments. It is recorded with no formatting; Text renders it, and
// AppendJSON writes its fields by name. Which fields an Op uses is said by
// the Op's comment; the others are zero.
type Entry struct {
	// Op is the operation.
	Op Op
	// Holder is the object on the other side of the operation: the holder
	// of a reference taken or dropped, the skb cloned or copied, the uarg
	// attached.
	Holder ObjectID
	// Peer is a second object: the new holder of a handed-off reference,
	// the socket a uarg was allocated on.
	Peer ObjectID
	// Before and After are the object's refcount (refcnt or dataref)
	// before and after the operation, for the Ops that change one.
	Before, After int64
	// Args are the operation's numeric arguments; booleans are 0 or 1.
	Args [4]int64
	// Str is a name the operation refers to (a device, a tap) or, for
	// OpText, the whole text. It is never built on a hot path.
	Str string
}

// arg describes one element of Entry.Args for JSON.
type arg struct {
	name string
	kind argKind
}

type argKind uint8

const (
	argInt argKind = iota
	argBool
	argFamily
	argSockType
	argProtocol
	// argCopyWhy is a CopyWhy: its Name, omitted when NotCopied.
	argCopyWhy
	// argMerge is a Merge: the boolean Merged under the arg's name, then
	// "merge", its Name.
	argMerge
)

// opSpec is what an Op means: its JSON name, the kernel function it
// models, which fields it uses, and its text.
type opSpec struct {
	name, fn       string
	holder, peer   string // JSON names of Holder and Peer; "" when unused
	refcnt         bool   // Before and After are used
	str            string // JSON name of Str; "" when unused
	args           []arg
	text           func(e *Entry) string
	sockoptInArgs0 bool // Args[0..1] are a SockOpt, Args[2] its value
}

// Reasons of an OpRcvbufUndetermined entry (Args[0]).
const (
	// RcvbufMayGrow: the model's gate was closed, the kernel's may not be.
	RcvbufMayGrow = 1
	// RcvbufMayHaveRestarted: the model grew from bytes copied across
	// reads at which the kernel may have started a new measurement.
	RcvbufMayHaveRestarted = 2
)

// BacklogMergedAcks is what an OpBacklogUndetermined entry merged
// (Args[0]): two pure ACKs.
const BacklogMergedAcks = 1

// Bool is a boolean argument of an Entry: 1 for true, 0 for false.
func Bool(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

// flag reads a boolean argument.
func flag(v int64) bool { return v != 0 }

var opSpecs = [opCount]opSpec{
	OpText: {name: "text", str: "text", text: func(e *Entry) string { return e.Str }},
	OpFreed: {name: "freed", fn: "kfree",
		text: func(*Entry) string { return "freed" }},
	OpOmitted: {name: "omitted", args: []arg{{"entries", argInt}},
		text: func(e *Entry) string { return fmt.Sprintf("… %d entries omitted …", e.Args[0]) }},
	OpSocket: {name: "socket", fn: "__sock_create",
		args: []arg{{"family", argFamily}, {"type", argSockType}, {"protocol", argProtocol}},
		text: func(e *Entry) string {
			return fmt.Sprintf("socket(%v, %v, %v)", FamilyNames.Name(Family(e.Args[0])), SockType(e.Args[1]), Protocol(e.Args[2]))
		}},
	OpSetsockopt: {name: "setsockopt", fn: "sock_setsockopt", sockoptInArgs0: true,
		text: func(e *Entry) string {
			return fmt.Sprintf("setsockopt %s = %d", SockOptNames.Name(e.sockOpt()), e.Args[2])
		}},
	OpSoZerocopy: {name: "so_zerocopy", fn: "sock_setsockopt", args: []arg{{"value", argInt}},
		text: func(e *Entry) string { return fmt.Sprintf("SO_ZEROCOPY = %d", e.Args[0]) }},
	OpConnect: {name: "connect", fn: "ip4_datagram_connect",
		text: func(*Entry) string { return "connect" }},
	OpConnected: {name: "connected", fn: "tcp_finish_connect", args: []arg{{"window", argInt}, {"sndbuf", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("connected, window %d, sndbuf %d", e.Args[0], e.Args[1])
		}},
	OpTCPDone: {name: "tcp_done", fn: "tcp_done", text: func(*Entry) string { return "tcp_done" }},
	OpOrphan: {name: "orphan", fn: "sock_orphan",
		text: func(*Entry) string { return "sock_orphan: SOCK_DEAD" }},
	OpOmallocRefused: {name: "omalloc_refused", fn: "sock_omalloc",
		args: []arg{{"omem", argInt}, {"size", argInt}, {"optmem_max", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("sock_omalloc refused: omem %d + %d > optmem_max %d", e.Args[0], e.Args[1], e.Args[2])
		}},
	OpNotified: {name: "notified", fn: "__msg_zerocopy_callback",
		args: []arg{{"lo", argInt}, {"hi", argInt}, {"copied", argBool}, {"merged", argMerge}},
		text: func(e *Entry) string {
			m := Merge(e.Args[3])
			return fmt.Sprintf("notification [%d,%d] copied=%t merged=%t: %v", e.Args[0], e.Args[1], flag(e.Args[2]), m.Merged(), m)
		}},
	OpUargGet: {name: "get", fn: "net_zcopy_get", holder: "holder", refcnt: true,
		text: func(e *Entry) string { return fmt.Sprintf("get by %v → refcnt %d", e.Holder, e.After) }},
	OpUargPut: {name: "put", fn: "net_zcopy_put", holder: "holder", refcnt: true, args: []arg{{"success", argBool}, {"copied_by", argCopyWhy}},
		text: func(e *Entry) string {
			return fmt.Sprintf("put by %v success=%t%s → refcnt %d", e.Holder, flag(e.Args[0]), copiedBy(e.Args[1]), e.After)
		}},
	OpUargHandoff: {name: "handoff", fn: "skb_zcopy_set", holder: "from", peer: "to",
		text: func(e *Entry) string { return fmt.Sprintf("reference of %v handed to %v", e.Holder, e.Peer) }},
	OpUargComplete: {name: "complete", fn: "__msg_zerocopy_callback",
		args: []arg{{"lo", argInt}, {"hi", argInt}, {"copied", argBool}, {"copied_by", argCopyWhy}},
		text: func(e *Entry) string {
			return fmt.Sprintf("completed: notify [%d,%d] copied=%t%s", e.Args[0], e.Args[1], flag(e.Args[2]), whyName(e.Args[3]))
		}},
	OpUargCompleteSilent: {name: "complete_silent", fn: "__msg_zerocopy_callback",
		args: []arg{{"len", argInt}, {"dead", argBool}},
		text: func(e *Entry) string {
			return fmt.Sprintf("completed without notification (len %d, dead %t)", e.Args[0], flag(e.Args[1]))
		}},
	OpZerocopyAlloc: {name: "msg_zerocopy_alloc", fn: "msg_zerocopy_alloc", holder: "holder", peer: "sock", refcnt: true,
		args: []arg{{"id", argInt}, {"bytes", argInt}, {"pinned_pages", argInt}, {"optmem", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("msg_zerocopy_alloc on %v: id %d, %d bytes, %d pinned pages, optmem %d, held by %v",
				e.Peer, e.Args[0], e.Args[1], e.Args[2], e.Args[3], e.Holder)
		}},
	OpZerocopyRealloc: {name: "msg_zerocopy_realloc", fn: "msg_zerocopy_realloc",
		args: []arg{{"id", argInt}, {"next", argInt}, {"bytelen", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("msg_zerocopy_realloc: extended to id %d..%d, %d bytes", e.Args[0], e.Args[1], e.Args[2])
		}},
	OpPutAbort: {name: "put_abort", fn: "msg_zerocopy_put_abort", holder: "holder", args: []arg{{"len", argInt}},
		text: func(e *Entry) string { return fmt.Sprintf("put_abort by %v: len %d", e.Holder, e.Args[0]) }},
	OpLegacyAlloc: {name: "legacy_alloc", fn: "vhost_net_ubuf_get", holder: "holder", refcnt: true,
		text: func(e *Entry) string { return fmt.Sprintf("legacy ubuf allocated, held by %v", e.Holder) }},
	OpZcopySet: {name: "skb_zcopy_set", fn: "skb_zcopy_set", holder: "uarg", refcnt: true,
		args: []arg{{"id", argInt}, {"hi", argInt}, {"legacy", argBool}},
		text: func(e *Entry) string {
			if flag(e.Args[2]) {
				return fmt.Sprintf("skb_zcopy_set %v[legacy refcnt %d]", e.Holder, e.After)
			}
			return fmt.Sprintf("skb_zcopy_set %v[id %d..%d refcnt %d]", e.Holder, e.Args[0], e.Args[1], e.After)
		}},
	OpZcopyClear: {name: "skb_zcopy_clear", fn: "skb_zcopy_clear", args: []arg{{"success", argBool}},
		text: func(e *Entry) string { return fmt.Sprintf("skb_zcopy_clear success=%t", flag(e.Args[0])) }},
	OpZerocopyFill: {name: "zerocopy_sg", fn: "__zerocopy_sg_from_iter", args: []arg{{"bytes", argInt}, {"frags", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("zerocopy %d bytes from user pages, %s", e.Args[0], count(e.Args[1], "frag"))
		}},
	OpClone: {name: "clone", fn: "skb_clone", holder: "of", refcnt: true,
		text: func(e *Entry) string { return fmt.Sprintf("skb_clone of %v, dataref %d", e.Holder, e.After) }},
	OpClonedAs: {name: "cloned_as", fn: "skb_clone", holder: "clone",
		text: func(e *Entry) string { return fmt.Sprintf("cloned as %v", e.Holder) }},
	OpPskbCopy: {name: "pskb_copy", fn: "pskb_copy", holder: "of",
		text: func(e *Entry) string { return fmt.Sprintf("pskb_copy of %v", e.Holder) }},
	OpExpandHead: {name: "pskb_expand_head", fn: "pskb_expand_head", holder: "shinfo",
		text: func(e *Entry) string { return fmt.Sprintf("pskb_expand_head: private shared info %v", e.Holder) }},
	OpSplit: {name: "skb_split", fn: "skb_split", holder: "into", args: []arg{{"at", argInt}},
		text: func(e *Entry) string { return fmt.Sprintf("skb_split at %d into %v", e.Args[0], e.Holder) }},
	OpSegment: {name: "skb_segment", fn: "skb_segment", args: []arg{{"mss", argInt}, {"segments", argInt}},
		text: func(e *Entry) string { return fmt.Sprintf("skb_segment mss %d into %d segments", e.Args[0], e.Args[1]) }},
	OpCopyUbufsFailed: {name: "skb_copy_ubufs_failed", fn: "skb_copy_ubufs", args: []arg{{"copied_by", argCopyWhy}},
		text: func(e *Entry) string { return "skb_copy_ubufs" + whyName(e.Args[0]) + ": page allocation failed" }},
	OpCopyUbufs: {name: "skb_copy_ubufs", fn: "skb_copy_ubufs",
		args: []arg{{"bytes", argInt}, {"pages", argInt}, {"order", argInt}, {"copied_by", argCopyWhy}},
		text: func(e *Entry) string {
			return fmt.Sprintf("skb_copy_ubufs%s: %d bytes into %s", whyName(e.Args[3]), e.Args[0], count(e.Args[1], fmt.Sprintf("order-%d page", e.Args[2])))
		}},
	OpPullTail: {name: "pskb_pull_tail", fn: "__pskb_pull_tail", args: []arg{{"bytes", argInt}, {"data_len", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("__pskb_pull_tail %d bytes, data_len %d", e.Args[0], e.Args[1])
		}},
	OpAllocSkb: {name: "alloc_skb", fn: "alloc_skb", args: []arg{{"linear", argInt}},
		text: func(e *Entry) string { return fmt.Sprintf("alloc_skb linear %d", e.Args[0]) }},
	OpReleaseData: {name: "skb_release_data", fn: "skb_release_data", refcnt: true,
		text: func(e *Entry) string { return fmt.Sprintf("skb_release_data: dataref %d", e.After) }},
	OpMakeSkb: {name: "ip_make_skb", fn: "__ip_make_skb", args: []arg{{"bytes", argInt}, {"fragments", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("__ip_make_skb: %d bytes, %s", e.Args[0], count(e.Args[1], "fragment"))
		}},
	OpFragment: {name: "ip_do_fragment", fn: "ip_do_fragment", args: []arg{{"fragments", argInt}},
		text: func(e *Entry) string { return "ip_do_fragment: " + count(e.Args[0], "fragment") }},
	OpTapDeliver: {name: "tap_deliver", fn: "dev_queue_xmit_nit", str: "tap",
		text: func(e *Entry) string { return "delivered to tap " + e.Str }},
	OpXmitFailed: {name: "xmit_failed", fn: "dev_hard_start_xmit", str: "device",
		text: func(e *Entry) string { return e.Str + ": transmit failed" }},
	OpTunFailed: {name: "tun_get_user_failed", fn: "tun_get_user",
		text: func(*Entry) string { return "tun_get_user failed: freed" }},
	OpTunGetUser: {name: "tun_get_user", fn: "tun_get_user", holder: "uarg", args: []arg{{"bytes", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("tun_get_user: %d bytes of guest pages, %v attached", e.Args[0], e.Holder)
		}},
	OpCoalesce: {name: "coalesce", fn: "skb_try_coalesce", holder: "from", args: []arg{{"delta", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("skb_try_coalesce: took the frags of %v, truesize +%d", e.Holder, e.Args[0])
		}},
	OpTxRing: {name: "packet_tx_ring", fn: "packet_set_ring", args: []arg{{"frames", argInt}, {"frame_size", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("PACKET_TX_RING %d frames of %d bytes", e.Args[0], e.Args[1])
		}},
	OpZcNotification: {name: "zc_notification", fn: "__sock_cmsg_send", args: []arg{{"taken", argInt}, {"left", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("SCM_ZC_NOTIFICATION took %s, %s left", count(e.Args[0], "completion"), count(e.Args[1], "record"))
		}},
	OpMemlockRefused: {name: "memlock_refused", fn: "mm_account_pinned_pages",
		args: []arg{{"locked_vm", argInt}, {"pages", argInt}, {"limit", argInt}, {"per_process", argBool}},
		text: func(e *Entry) string {
			counter := "locked_vm"
			if flag(e.Args[3]) {
				counter = "pinned_vm"
			}
			return fmt.Sprintf("mm_account_pinned_pages refused: %s %d + %d pages > RLIMIT_MEMLOCK %d pages", counter, e.Args[0], e.Args[1], e.Args[2])
		}},
	OpStreamNoSpace: {name: "stream_no_space", fn: "sk_stream_memory_free", args: []arg{{"wmem_queued", argInt}, {"sndbuf", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("sk_stream_memory_free: wmem_queued %d >= sndbuf %d", e.Args[0], e.Args[1])
		}},
	OpSendNoSpace: {name: "send_no_space", fn: "sock_alloc_send_pskb", args: []arg{{"wmem_alloc", argInt}, {"sndbuf", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("sock_alloc_send_pskb: wmem_alloc %d >= sndbuf %d", e.Args[0], e.Args[1])
		}},
	OpSendPipe: {name: "send_pipe", fn: "tcp_sendmsg_locked", str: "state",
		text: func(e *Entry) string { return "tcp_sendmsg_locked: EPIPE, " + e.Str }},
	OpAppendNoSpace: {name: "append_no_space", fn: "__ip_append_data", args: []arg{{"wmem_alloc", argInt}, {"sndbuf", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("__ip_append_data: wmem_alloc %d > 2 × sndbuf %d", e.Args[0], e.Args[1])
		}},
	OpTooLong: {name: "too_long", str: "check", args: []arg{{"bytes", argInt}, {"limit", argInt}},
		text: func(e *Entry) string { return fmt.Sprintf("%s: %d bytes > %d", e.Str, e.Args[0], e.Args[1]) }},
	OpRcvbufGrow: {name: "rcvbuf_grow", fn: "tcp_rcvbuf_grow",
		args: []arg{{"rcvbuf_before", argInt}, {"rcvbuf", argInt}, {"window_clamp", argInt}, {"copied", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("tcp_rcvbuf_grow: sk_rcvbuf %d → %d, window_clamp %d, after %d bytes in a receive RTT", e.Args[0], e.Args[1], e.Args[2], e.Args[3])
		}},
	OpRcvbufUndetermined: {name: "rcvbuf_undetermined", fn: "tcp_rcv_space_adjust",
		args: []arg{{"reason", argInt}, {"copied", argInt}, {"space", argInt}},
		text: func(e *Entry) string {
			if e.Args[0] == RcvbufMayGrow {
				return fmt.Sprintf("tcp_rcv_space_adjust: undetermined: the kernel grows sk_rcvbuf here (%d bytes copied, above %d) if its receive RTT, wall-clock microseconds, has passed since the last measurement", e.Args[1], e.Args[2])
			}
			return fmt.Sprintf("tcp_rcv_space_adjust: undetermined: the kernel may have restarted the measurement at an earlier read, once its receive RTT of wall-clock microseconds had passed, and not grow by these %d bytes", e.Args[1])
		}},
	OpBacklogUndetermined: {name: "backlog_undetermined", fn: "tcp_add_backlog",
		args: []arg{{"merged", argInt}},
		text: func(e *Entry) string {
			return "tcp_add_backlog: undetermined: the kernel merges two pure ACKs only when their TCP options are the same, and their timestamps count milliseconds of wall-clock time, one of which may have begun between them; apart, the first one's larger window would have been seen"
		}},
	OpCwndUndetermined: {name: "cwnd_undetermined", fn: "bbr_set_cwnd",
		args: []arg{{"cwnd", argInt}, {"delivered", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("bbr_set_cwnd: undetermined: with %d segments delivered, TCP_INIT_CWND or more, the kernel grows the window (here %d segments) only while it is below a target of its bandwidth and min_rtt estimates, measured in wall-clock time, and cuts it to that target once the pipe is full; the model grows it while the window is used (tcp_is_cwnd_limited)", e.Args[1], e.Args[0])
		}},
	OpShift: {name: "skb_shift", fn: "skb_shift", holder: "with", args: []arg{{"bytes", argInt}, {"gave", argInt}},
		text: func(e *Entry) string {
			if e.Args[1] != 0 {
				return fmt.Sprintf("skb_shift: gave %d bytes of frags to %v", e.Args[0], e.Holder)
			}
			return fmt.Sprintf("skb_shift: took %d bytes of frags from %v", e.Args[0], e.Holder)
		}},
	OpFastOpen: {name: "fastopen", fn: "tcp_sendmsg_fastopen", str: "why", args: []arg{{"syn_data", argInt}},
		text: func(e *Entry) string {
			return fmt.Sprintf("tcp_sendmsg_fastopen: %d bytes of data in the SYN, %s", e.Args[0], e.Str)
		}},
	OpFaultFailed: {name: "fault", str: "site",
		text: func(e *Entry) string { return e.Str + " failed: the scenario's fault site" }},
	OpUargCopied: {name: "copied", args: []arg{{"copied_by", argCopyWhy}},
		text: func(e *Entry) string {
			if CopyWhy(e.Args[0]) == NotCopied {
				return "zerocopy = 0, the notification will say COPIED"
			}
			return "zerocopy = 0, the notification will say COPIED: " + CopyWhy(e.Args[0]).String()
		}},
}

// whyName renders a CopyWhy argument as " (loopback)", or "" for
// NotCopied.
func whyName(v int64) string {
	if CopyWhy(v) == NotCopied {
		return ""
	}
	return " (" + CopyWhy(v).Name() + ")"
}

// copiedBy renders a put's CopyWhy argument as " (copied: loopback)", or
// "" for NotCopied.
func copiedBy(v int64) string {
	if CopyWhy(v) == NotCopied {
		return ""
	}
	return " (copied: " + CopyWhy(v).Name() + ")"
}

// Refusal reports whether the Op records why a call fails: a budget
// refused with its numbers (optmem, RLIMIT_MEMLOCK, the send buffer), the
// state that makes a stream send fail with EPIPE, or a fault site.
func (o Op) Refusal() bool {
	switch o {
	case OpOmallocRefused, OpMemlockRefused, OpStreamNoSpace, OpSendNoSpace, OpSendPipe, OpFaultFailed, OpAppendNoSpace, OpTooLong:
		return true
	}
	return false
}

// Refcount returns the refcount (a uarg's refcnt, a shared info's dataref)
// the entry reports before and after its operation, and whether its Op
// reports one.
func (e Entry) Refcount() (before, after int64, ok bool) {
	if e.Op >= opCount || !opSpecs[e.Op].refcnt {
		return 0, 0, false
	}
	return e.Before, e.After, true
}

// Ops lists every Op in order, for documentation and tests.
func Ops() []Op {
	out := make([]Op, opCount)
	for i := range out {
		out[i] = Op(i)
	}
	return out
}

// String is the Op's JSON name, e.g. "get".
func (o Op) String() string {
	if o >= opCount {
		return "op" + strconv.Itoa(int(o))
	}
	return opSpecs[o].name
}

// Func names the kernel function the Op models, or "" for none.
func (o Op) Func() string {
	if o >= opCount {
		return ""
	}
	return opSpecs[o].fn
}

// Text renders the entry as the timeline prints it.
func (e Entry) Text() string {
	if e.Op >= opCount {
		return e.Op.String()
	}
	return opSpecs[e.Op].text(&e)
}

// String is Text.
func (e Entry) String() string { return e.Text() }

// sockOpt is the option an OpSetsockopt entry set.
func (e *Entry) sockOpt() SockOpt { return SockOpt{Level: Level(e.Args[0]), Name: int32(e.Args[1])} }

// AppendJSON appends the entry's fields as JSON object members (without
// braces, each preceded by a comma): "op", "func", the objects it
// involved, "refcnt_before" and "refcnt" when it changed a refcount, and
// its named arguments as numbers, booleans or Linux names.
func (e Entry) AppendJSON(dst []byte) []byte {
	if e.Op >= opCount {
		return append(dst, `,"op":"`+e.Op.String()+`"`...)
	}
	s := &opSpecs[e.Op]
	dst = append(dst, `,"op":"`...)
	dst = append(dst, s.name...)
	dst = append(dst, '"')
	if s.fn != "" {
		dst = append(dst, `,"func":"`...)
		dst = append(dst, s.fn...)
		dst = append(dst, '"')
	}
	dst = appendIDField(dst, s.holder, e.Holder)
	dst = appendIDField(dst, s.peer, e.Peer)
	if s.refcnt {
		dst = append(dst, `,"refcnt_before":`...)
		dst = strconv.AppendInt(dst, e.Before, 10)
		dst = append(dst, `,"refcnt":`...)
		dst = strconv.AppendInt(dst, e.After, 10)
	}
	if s.sockoptInArgs0 {
		dst = appendStrField(dst, "optname", SockOptNames.Name(e.sockOpt()))
		dst = append(dst, `,"level":`...)
		dst = strconv.AppendInt(dst, e.Args[0], 10)
		dst = append(dst, `,"value":`...)
		dst = strconv.AppendInt(dst, e.Args[2], 10)
	}
	for i, a := range s.args {
		v := e.Args[i]
		switch a.kind {
		case argBool:
			dst = append(dst, `,"`+a.name+`":`...)
			dst = strconv.AppendBool(dst, v != 0)
		case argFamily:
			dst = appendStrField(dst, a.name, FamilyNames.Name(Family(v)))
		case argSockType:
			dst = appendStrField(dst, a.name, fmt.Sprint(SockType(v)))
		case argProtocol:
			dst = appendStrField(dst, a.name, fmt.Sprint(Protocol(v)))
		case argMerge:
			dst = append(dst, `,"`+a.name+`":`...)
			dst = strconv.AppendBool(dst, Merge(v).Merged())
			dst = appendStrField(dst, "merge", Merge(v).Name())
		case argCopyWhy:
			if CopyWhy(v) != NotCopied {
				dst = appendStrField(dst, a.name, CopyWhy(v).Name())
			}
		default:
			dst = append(dst, `,"`+a.name+`":`...)
			dst = strconv.AppendInt(dst, v, 10)
		}
	}
	if s.str != "" {
		dst = appendStrField(dst, s.str, e.Str)
	}
	return dst
}

func appendIDField(dst []byte, name string, id ObjectID) []byte {
	if name == "" || id == (ObjectID{}) {
		return dst
	}
	return appendStrField(dst, name, id.String())
}

// appendStrField appends ,"name":"v" with v quoted as JSON quotes it.
func appendStrField(dst []byte, name, v string) []byte {
	dst = append(dst, `,"`...)
	dst = append(dst, name...)
	dst = append(dst, `":`...)
	q, _ := json.Marshal(v) // a string always marshals
	return append(dst, q...)
}

// count renders n things: "1 frag", "2 frags".
func count(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
