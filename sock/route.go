package sock

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/ubuf"
)

// Route is what a socket's cached route tells its send path about the
// device below (sk_route_caps, the dst MTU). The zero value is a device
// without any offload.
type Route struct {
	// SG is NETIF_F_SG: the device takes paged skbs. Without it TCP copies
	// MSG_ZEROCOPY data at once and UDP copies it with the uarg attached.
	SG bool
	// Csum is NETIF_F_HW_CSUM or NETIF_F_IP(V6)_CSUM: checksum offload,
	// which UDP needs to put zerocopy data in frags.
	Csum bool
	// GSO is the size an skb may grow to before segmentation
	// (gso_max_size, 64 KiB); 0 means no GSO: one MSS per skb.
	GSO int
	// MTU is the path MTU.
	MTU int
}

// Packet is an skb a socket hands to the layers below: ip_queue_xmit for
// TCP (a clone of a retransmit-queue skb), ip_send_skb for UDP.
//
// Ownership: the Network owns the Skb's user and must free it exactly once.
type Packet struct {
	Skb *skb.Buff
	// From is the sending socket.
	From *Sock
	// Seq and EndSeq are the TCP sequence range the skb carries.
	Seq, EndSeq uint32
	// Retransmit marks a TCP retransmission, Fin a segment carrying FIN
	// (which takes one sequence number after the data).
	Retransmit bool
	Fin        bool
	// Push is TCPHDR_PSH on a TCP segment; Urg its urgent pointer with
	// TCPHDR_URG, 0 without.
	Push bool
	Urg  uint16
	// Acks marks a TCP segment that carries an ACK the sender owed, of
	// Ack with window Win (tcp_transmit_skb → tcp_event_ack_sent): the
	// receiver takes it as it takes an ACK (tcp_ack) before the data.
	Acks bool
	Ack  uint32
	Win  int
	// MoreFrags is IP_MF: an IP fragment that is not the datagram's last;
	// the receiver reassembles the fragments (ip_defrag).
	MoreFrags bool
	// IPID is the IP identification of the datagram a fragment belongs
	// to, and FragOff the fragment's offset in its payload: what ip_defrag
	// reassembles by.
	IPID    uint32
	FragOff int
}

// Network is where sockets send packets: routing, devices, links and
// receivers. The simulator implements it.
type Network interface {
	Xmit(p Packet)
}

// ChargeW models skb_set_owner_w: charge b's truesize to sk_wmem_alloc until
// the skb is freed (sock_wfree).
func (s *Sock) ChargeW(b *skb.Buff) {
	s.WmemAlloc += b.Truesize
	b.SetOwner(s, skb.SockWfree)
}

// ChargeQueued models sk_wmem_queued_add plus the sk_wmem_free_skb
// destructor of TCP's write and retransmit queues.
func (s *Sock) ChargeQueued(b *skb.Buff) {
	s.GrowQueued(b.Truesize)
	b.SetOwner(s, skb.WmemQueued)
}

// GrowQueued charges n more bytes of truesize to sk_wmem_queued: an skb
// already queued grew (sk_wmem_queued_add in tcp_sendmsg_locked).
func (s *Sock) GrowQueued(n int) {
	s.WmemQueued += n
	s.WmemQueuedCharged += uint64(max(n, 0))
}

// NoWait reports whether a call with flags returns at once instead of
// sleeping (sock_sndtimeo and sock_rcvtimeo are zero): MSG_DONTWAIT, or
// a socket with O_NONBLOCK.
func (s *Sock) NoWait(flags kernel.MsgFlags) bool {
	return flags&kernel.MSG_DONTWAIT != 0 || s.Type&kernel.SOCK_NONBLOCK != 0
}

// IPv6 reports whether the socket's traffic is IPv6: an AF_INET6 socket
// whose peer address is not v4-mapped.
func (s *Sock) IPv6() bool { return s.Family == kernel.AF_INET6 && !s.V4Mapped }

// IPHeaderLen returns the IP header length of the socket's traffic.
func (s *Sock) IPHeaderLen() int {
	if s.IPv6() {
		return 40
	}
	return 20
}

// SendResult is what one sendmsg call did, for the caller and for the
// checkers: the return value or errno, and whether the call consumed a
// notification id.
type SendResult struct {
	// N is the number of bytes accepted; Err the errno when N is -1.
	N   int
	Err kernel.Errno
	// ZC is set when the call consumed a notification id, ID.
	ZC bool
	ID uint32
	// Uarg is the uarg the call used, extended or new (nil if none).
	Uarg *ubuf.Info
	// Outcome says what msg_zerocopy_alloc/realloc did, when it ran.
	Outcome ubuf.Outcome
	// Copied is set when zerocopy was requested but the data was copied
	// (no scatter-gather, no checksum offload, MSG_MORE, fragmentation).
	Copied bool
	// FailedAfterID is set when the call failed after its skb had taken
	// the id (udp_send_skb's UDP_SEGMENT checks free the built datagram):
	// the kernel then consumes and notifies the id of a failing call
	// (measured on Linux 6.18: UDP_SEGMENT 1, 255 bytes: EINVAL, and the
	// next send gets id 1).
	FailedAfterID bool
	// Undetermined, when set, says what the result depends on that the
	// model was not told (the IP header raw_send_hdrinc reads from the
	// user's buffer), and what it assumed to go on.
	Undetermined string
}

// Fail returns the result of a call that failed with err.
func Fail(err kernel.Errno) SendResult { return SendResult{N: -1, Err: err} }
