// Package packet models the AF_PACKET send paths: packet_snd, which copies
// (and, in the 2017 RFC, could send MSG_ZEROCOPY), and tpacket_snd, which
// transmits frames of a PACKET_TX_RING by reference and reports completion
// through the frame status, not the error queue.
//
// # Model
//
// packet_snd: a packet under a page is linear; a larger one keeps the
// link-layer header linear and the rest in kernel page frags into which
// the data is copied. Merged kernels refuse SO_ZEROCOPY on packet sockets,
// so MSG_ZEROCOPY is ignored. Under rfc-v2 (patch 11) MSG_ZEROCOPY keeps at
// most MAX_HEADER bytes linear, pins the rest of the user's pages as frags,
// and only then allocates the uarg for the whole length — even for an
// empty packet; a later error aborts the id.
//
// tpacket_snd: each frame in TP_STATUS_SEND_REQUEST, from the ring's head,
// becomes an skb whose frags reference the ring pages the frame's data
// spans (the SOCK_RAW link-layer header is copied). The skb is marked
// zerocopy without a uarg (skb_zcopy_set_nouarg, v4.20), so a clone or an
// orphan copies its frags first; its destructor (tpacket_destruct_skb)
// marks the frame TP_STATUS_AVAILABLE and decrements the pending count.
// kernel.BugRingNoCopy (B3) removes the mark: the frame is then given back while
// a clone still reads it, which the destructor reports.
//
//	frame:  AVAILABLE ─Request→ SEND_REQUEST ─tpacket_snd→ SENDING ─destructor→ AVAILABLE
//	                                         └─bad length→ WRONG_FORMAT
//
// MSG_DONTWAIT (seed 002): tpacket_snd returns once no frame is in
// SEND_REQUEST; without it, it also waits until no frame is pending. With
// PACKET_LOSS a malformed frame is given back and skipped instead.
//
// Pending frames (seed 002) are counted per CPU: the increment on the CPU
// tpacket_snd runs on, the decrement on the CPU the destructor runs on
// (Sock.CPU), each an unsigned int that may wrap; packet_read_pending sums
// them modulo 2^32 (ReadPending). kernel.BugPendingSigned sums them as
// signed ints in a wider type, the posted patch's mistake. The ring can be
// set up or torn down only while it is unmapped and nothing is pending.
//
// bind (seed 002): packet_do_bind skips unregister_prot_hook, its
// synchronize_net and the new registration when the protocol and the
// device are those already hooked (Sock.Bind, Sock.Hook).
//
// # Ownership
//
// Transmitted skbs belong to the Network. Ring memory belongs to the
// process's mapping; an skb holds a page reference per frag. After Close
// the ring is gone and late destructors only return the wmem charge; the
// socket stays allocated until the last charged skb is freed.
//
// # Invariants
//
//	pending = number of frames in TP_STATUS_SENDING;
//	a frame is AVAILABLE only when no skb can reach its pages;
//	the TX ring never queues an error-queue notification;
//	rfc-v2 packet_snd: one id per successful MSG_ZEROCOPY call.
//
// # Errors
//
//	failure                               rfc-v2      4.14        5.0         6.18
//	SO_ZEROCOPY                           ENOPROTOOPT ENOTSUPP    ENOTSUPP    EOPNOTSUPP
//	packet_snd: > MTU + header + VLAN     EMSGSIZE    EMSGSIZE    EMSGSIZE    EMSGSIZE
//	packet_snd: SOCK_RAW < 14 bytes       EINVAL      EINVAL      EINVAL      EINVAL
//	packet_snd: optmem/memlock (uarg)     ENOMEM      —           —           —
//	packet_snd: frags exhausted (zc)      EMSGSIZE    —           —           —
//	send buffer full, cannot wait         EAGAIN      EAGAIN      EAGAIN      EAGAIN
//	skb allocation failure                ENOBUFS     ENOBUFS     ENOBUFS     ENOBUFS
//	PACKET_TX_RING: ring exists, mapped,
//	  or frames pending                   EBUSY       EBUSY       EBUSY       EBUSY
//	PACKET_TX_RING: teardown naming frames EINVAL     EINVAL      EINVAL      EINVAL
//	PACKET_LOSS once a ring exists        EBUSY       EBUSY       EBUSY       EBUSY
//	mmap without a ring                   EINVAL      EINVAL      EINVAL      EINVAL
//	PACKET_TX_RING above MaxRing (model)  ENOMEM      ENOMEM      ENOMEM      ENOMEM
//	PACKET_TX_RING: bad geometry          EINVAL      EINVAL      EINVAL      EINVAL
//	tpacket_snd: frame too long           EMSGSIZE    EMSGSIZE    EMSGSIZE    EMSGSIZE
//	tpacket_snd: SOCK_RAW < 14 bytes      EINVAL      EINVAL      EINVAL      EINVAL
//	tpacket_snd: blocking wait ends       ETIMEDOUT   ETIMEDOUT   ETIMEDOUT   ETIMEDOUT
//	tpacket_snd: skb alloc after a frame  bytes sent so far (any profile)
//
// # Linux correspondence
//
// net/packet/af_packet.c: packet_sendmsg, packet_snd, packet_alloc_skb,
// tpacket_snd, tpacket_fill_skb, tpacket_parse_header,
// tpacket_destruct_skb, packet_set_ring, packet_current_frame,
// packet_increment_head, packet_inc_pending/packet_dec_pending/
// packet_read_pending, packet_mmap, packet_do_bind, packet_release; the RFC's
// packet_zerocopy_sg_from_iovec; include/linux/skbuff.h:
// skb_zcopy_set_nouarg.
package packet
