package kernel

// RxStamp is whether a received skb carries a software receive timestamp
// (skb->tstamp set by net_timestamp_check as the packet enters the stack;
// TCP keeps it as TCP_SKB_CB(skb)->has_rxtstamp). The zero value is no
// timestamp.
type RxStamp uint8

// Receive timestamp states.
const (
	RxStampNone RxStamp = iota
	// RxStampUndetermined: the packet arrived while the static key that
	// decides it was being switched by a work item whose timing the
	// model does not have.
	RxStampUndetermined
	// RxStampSet: the packet was stamped.
	RxStampSet
)

// Merge returns what an skb carries that took the bytes of one with
// stamp from (tcp_try_coalesce: a stamped from stamps to); over a set of
// skbs, whether any was stamped.
func (s RxStamp) Merge(from RxStamp) RxStamp { return max(s, from) }

// Netstamp models netstamp_needed_key, the host-wide switch of software
// receive timestamps (net/core/dev.c): each socket that asks for them
// (sock_enable_timestamp with SOCK_TIMESTAMP or
// SOCK_TIMESTAMPING_RX_SOFTWARE) holds one count (netstamp_wanted) from
// then until it asks no more or is destroyed (sock_disable_timestamp,
// sk_destruct). Every packet that enters the stack while the key is on is
// stamped (net_timestamp_check in netif_rx and __netif_receive_skb), for
// every socket, whether its own socket asked or not. The first count and
// the last are deferred to a work item (net_enable_timestamp,
// net_disable_timestamp: schedule_work(&netstamp_work)): a packet that
// arrives at the same instant as either may or may not be stamped
// (measured on Linux 6.18: data sent right after the first SO_TIMESTAMPING
// of the host was stamped in some runs and not in others). The model
// assumes that nothing outside it holds the key (on the calibration
// machine nothing did: with no socket asking, nothing was stamped; the
// prober's live runs take turns, so that one does not hold it for
// another).
// The zero value is off.
type Netstamp struct {
	wanted int
	// flipped is when the count last went from 0 to 1 or back, valid if
	// ever.
	flipped int64
	ever    bool
}

// Enable models net_enable_timestamp at time now (nanoseconds).
func (n *Netstamp) Enable(now int64) {
	n.wanted++
	if n.wanted == 1 {
		n.flipped, n.ever = now, true
	}
}

// Disable models net_disable_timestamp at time now.
func (n *Netstamp) Disable(now int64) {
	if n.wanted == 0 {
		return
	}
	n.wanted--
	if n.wanted == 0 {
		n.flipped, n.ever = now, true
	}
}

// Stamp returns what net_timestamp_check gives a packet arriving at now.
func (n *Netstamp) Stamp(now int64) RxStamp {
	switch {
	case n.ever && n.flipped == now:
		return RxStampUndetermined
	case n.wanted > 0:
		return RxStampSet
	}
	return RxStampNone
}
