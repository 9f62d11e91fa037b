package kernel

import "strconv"

// CopyWhy says which code path copied data a zerocopy send lent, and so
// made its notification report SO_EE_CODE_ZEROCOPY_COPIED: either the send
// path itself set the uarg's zerocopy to 0 and copied the data into the
// skb, or skb_copy_ubufs replaced the user frags by kernel pages and
// dropped its uarg reference with success false. The path that decides
// records its CopyWhy; nothing derives one afterwards.
//
// The zero value, NotCopied, says that nothing copied.
type CopyWhy uint8

// The reasons for a copy, each named after the code path that decides it.
const (
	// NotCopied: the data stayed in the user's pages.
	NotCopied CopyWhy = iota
	// CopyNoSG: the route has no NETIF_F_SG, so tcp_sendmsg_locked or
	// __ip_append_data sets uarg->zerocopy = 0 and copies into the skb.
	CopyNoSG
	// CopyUnrouted: tcp_sendmsg_locked of a Fast Open send on a socket
	// that is not connected yet: sk_route_caps is 0 before
	// tcp_sendmsg_fastopen connects, so uarg->zerocopy = 0 and the data
	// is copied, into the SYN (tcp_send_syn_data) or after the handshake.
	CopyUnrouted
	// CopyNoCsum: __ip_append_data, the device has no checksum offload:
	// the skb is not CHECKSUM_PARTIAL, so zerocopy = 0.
	CopyNoCsum
	// CopyMore: __ip_append_data, MSG_MORE without UDP_SEGMENT: a corked
	// datagram is checksummed in software, so zerocopy = 0.
	CopyMore
	// CopyCorkedAppend: __ip_append_data, an append to a corked datagram
	// carries no transport header (transhdrlen 0), so zerocopy = 0.
	CopyCorkedAppend
	// CopyFragmented: __ip_append_data, the datagram is longer than the
	// MTU: IP fragments are not CHECKSUM_PARTIAL, so zerocopy = 0.
	CopyFragmented
	// CopyRaw: __ip_append_data for a RAW socket without IP_HDRINCL: no
	// transport header of its own, CHECKSUM_NONE, so zerocopy = 0.
	CopyRaw
	// CopyLoopback: loopback_xmit loops the skb to a local receiver and
	// __netif_receive_skb_core runs skb_orphan_frags_rx → skb_copy_ubufs
	// (6.1's source).
	CopyLoopback
	// CopyLocalDeliver: loopback_xmit loops the skb to a local receiver
	// and ip_local_deliver_finish (ip6_input_finish for IPv6) runs
	// skb_orphan_frags_rx → skb_copy_ubufs, under
	// Profile.OrphanRxAtLocalDeliver (6.18's source). Its JSON name is
	// CopyLoopback's: the same copy, made one function later.
	CopyLocalDeliver
	// CopyTun: tun_net_xmit hands the skb to a tun reader after
	// skb_orphan_frags_rx → skb_copy_ubufs.
	CopyTun
	// CopyTap: dev_queue_xmit_nit gives a packet tap a clone, and
	// deliver_skb runs skb_orphan_frags_rx → skb_copy_ubufs on it.
	CopyTap
	// CopyTstamp: __skb_tstamp_tx queues a clone of the packet on the
	// error queue after skb_orphan_frags_rx → skb_copy_ubufs.
	CopyTstamp
	// CopyForward: a forwarded frame leaves by a loopback or tun device,
	// which runs skb_orphan_frags_rx → skb_copy_ubufs.
	CopyForward
	// CopyPullTail: __pskb_pull_tail (skb_linearize, for a device without
	// NETIF_F_SG, or in skb_checksum_help for a TCP skb with zerocopy
	// frags and a device without checksum offload) pulled every frag into
	// the linear part and ran skb_zcopy_clear(skb, false).
	CopyPullTail
	// CopyOrphan: skb_orphan_frags → skb_copy_ubufs before a clone, copy,
	// head expansion or segmentation, for a uarg without
	// SKBFL_DONT_ORPHAN (a vhost ubuf, a PACKET_TX_RING frame).
	CopyOrphan
	// CopyZerocopyClone: skb_zerocopy_clone found the skb holding another
	// uarg and ran skb_copy_ubufs on it first.
	CopyZerocopyClone
	// CopyOverwritten: kernel.BugCopiedAfterOverwrite (B11):
	// __msg_zerocopy_callback read zerocopy after the memset of the
	// sock_exterr_skb cleared it, so it always reports COPIED.
	CopyOverwritten
	copyWhyCount
)

var copyWhys = [copyWhyCount]struct{ name, text string }{
	NotCopied:         {"", "not copied"},
	CopyNoSG:          {"no_sg", "the route has no NETIF_F_SG: the send path copies the data into the skb (uarg zerocopy = 0)"},
	CopyUnrouted:      {"unrouted", "a Fast Open send before the connection has a route: sk_route_caps is 0, so the send path copies (uarg zerocopy = 0)"},
	CopyNoCsum:        {"no_csum", "no checksum offload: __ip_append_data's skb is not CHECKSUM_PARTIAL (uarg zerocopy = 0)"},
	CopyMore:          {"msg_more", "MSG_MORE without UDP_SEGMENT: __ip_append_data checksums a corked datagram in software (uarg zerocopy = 0)"},
	CopyCorkedAppend:  {"corked_append", "an append to a corked datagram has no transport header: __ip_append_data's skb is not CHECKSUM_PARTIAL (uarg zerocopy = 0)"},
	CopyFragmented:    {"fragmented", "the datagram exceeds the MTU: __ip_append_data's IP fragments are not CHECKSUM_PARTIAL (uarg zerocopy = 0)"},
	CopyRaw:           {"raw", "a RAW socket's datagram is CHECKSUM_NONE in __ip_append_data (uarg zerocopy = 0)"},
	CopyLoopback:      {"loopback", "loopback_xmit loops the skb to a local receiver: skb_orphan_frags_rx in __netif_receive_skb_core"},
	CopyLocalDeliver:  {"loopback", "loopback_xmit loops the skb to a local receiver: skb_orphan_frags_rx in ip_local_deliver_finish (ip6_input_finish for IPv6)"},
	CopyTun:           {"tun", "tun_net_xmit hands the skb to a tun reader: skb_orphan_frags_rx"},
	CopyTap:           {"tap", "a packet tap gets a clone: skb_orphan_frags_rx in deliver_skb (dev_queue_xmit_nit)"},
	CopyTstamp:        {"tx_timestamp", "the TX timestamp's clone goes to the error queue: skb_orphan_frags_rx in __skb_tstamp_tx"},
	CopyForward:       {"forward", "a forwarded frame leaves by a loopback or tun device: skb_orphan_frags_rx"},
	CopyPullTail:      {"pull_tail", "__pskb_pull_tail (skb_linearize: a device without NETIF_F_SG, or skb_checksum_help without checksum offload) pulled every frag into the linear part"},
	CopyOrphan:        {"orphan", "skb_orphan_frags: the uarg lacks SKBFL_DONT_ORPHAN, so clone, copy or segment copies the frags first"},
	CopyZerocopyClone: {"zerocopy_clone", "skb_zerocopy_clone: the skb already held another uarg"},
	CopyOverwritten:   {"overwritten", "bug copied-after-overwrite: __msg_zerocopy_callback read zerocopy after sock_exterr_skb's memset cleared it"},
}

// Name is the reason's JSON name ("loopback"), "" for NotCopied.
func (w CopyWhy) Name() string {
	if w >= copyWhyCount {
		return "copy" + strconv.Itoa(int(w))
	}
	return copyWhys[w].name
}

// String says in words which code path copied and why.
func (w CopyWhy) String() string {
	if w >= copyWhyCount {
		return w.Name()
	}
	return copyWhys[w].text
}

// CopyWhys lists every reason, NotCopied first, for documentation and
// tests.
func CopyWhys() []CopyWhy {
	out := make([]CopyWhy, copyWhyCount)
	for i := range out {
		out[i] = CopyWhy(i)
	}
	return out
}

// Merge says what __msg_zerocopy_callback did with a notification at
// the error queue: merged it into the record at the profile's end of the
// queue, or appended it, and why. The zero value, Appended, is a
// notification queued on a queue with no record.
type Merge uint8

// The outcomes of notify.Queue.Zerocopy.
const (
	// Appended: the queue held no record, so n became the first.
	Appended Merge = iota
	// Merged: skb_zerocopy_notify_extend grew the record at the queue's
	// end by n's ids, which follow its range exactly.
	Merged
	// NotZerocopy: the record at the queue's end is not a zerocopy one
	// (a timestamp), so n was appended.
	NotZerocopy
	// NotAdjacent: n's first id does not follow the last id of the record
	// at the queue's end, so n was appended.
	NotAdjacent
	// TooMany: the merged range would cover 2^32 ids, so n was appended.
	TooMany
)

var merges = [...]struct{ name, text string }{
	Appended:    {"appended", "the error queue held no record"},
	Merged:      {"merged", "its ids follow the queued record's (skb_zerocopy_notify_extend)"},
	NotZerocopy: {"not_zerocopy", "the record at the queue's end is not a zerocopy record"},
	NotAdjacent: {"not_adjacent", "its ids do not follow the queued record's"},
	TooMany:     {"too_many", "the merged range would cover 2^32 ids"},
}

// Merged reports whether the notification was merged into a queued record.
func (m Merge) Merged() bool { return m == Merged }

// Name is the outcome's JSON name ("not_adjacent").
func (m Merge) Name() string {
	if int(m) < len(merges) {
		return merges[m].name
	}
	return "merge" + strconv.Itoa(int(m))
}

// String says in words what happened and why.
func (m Merge) String() string {
	if int(m) < len(merges) {
		return merges[m].text
	}
	return m.Name()
}

// Merges lists every Merge, for documentation and tests.
func Merges() []Merge {
	out := make([]Merge, len(merges))
	for i := range out {
		out[i] = Merge(i)
	}
	return out
}

// Rules lists every Rule, for documentation and tests.
func Rules() []Rule {
	var out []Rule
	for r := RuleIDs; r <= RuleLockOrder; r++ {
		out = append(out, r)
	}
	return out
}
