// Package udp models the datagram send paths of UDP over IPv4 and IPv6,
// with corking, and of RAW IP sockets, which share UDP's IP append path:
// which send gets a notification id, which skb holds which uarg
// reference, and when the notification comes and why it says COPIED.
//
// # Model
//
// A Sock wraps a sock.Sock of class UDP or RAW with its route (device
// features, MTU) and the sock.Network that transmits. Sendmsg follows
// udp_sendmsg: without corking, ip_make_skb appends the datagram to a
// private queue and udp_send_skb transmits it; with MSG_MORE or UDP_CORK
// the appends build one pending datagram on sk_write_queue, pushed by the
// first uncorked send (or UDP_CORK=0) and discarded on any error.
//
// __ip_append_data is modelled step by step (ipAppendData):
//
//	length      = payload + 8 on a datagram's first append, payload later
//	              (RAW: payload); > 65535 bytes of IP packet ⇒ EMSGSIZE,
//	              and with RECVERR a SO_EE_ORIGIN_LOCAL record of
//	              ee_errno EMSGSIZE, ee_info the path MTU (IPv4 at most
//	              65535) on the error queue (ip_local_error,
//	              ipv6_local_error)
//	csum        = PARTIAL ⇔ first append ∧ no fragmentation ∧ offload
//	              ∧ (¬MSG_MORE ∨ UDP_SEGMENT)
//	MSG_ZEROCOPY ∧ length > 0 ∧ Sk.Zerocopy():
//	              uarg = msg_zerocopy_realloc(length, skb_zcopy(tail))
//	              (NULL ⇒ ENOBUFS, no id); extra_uref = ¬skb_zcopy(tail)
//	              SG ∧ csum PARTIAL ⇒ payload in zerocopy frags
//	              else uarg->zerocopy = 0, copied, uarg on the tail skb
//	new skb     ⇒ skb_zcopy_set(skb, uarg, &extra_uref): first takes the
//	              allocation's reference, each further fragment +1
//	copied data ⇒ page frags that never coalesce into a zerocopy skb:
//	              the 18th copied append to a zerocopy cork (17th with
//	              UDP_SEGMENT) finds MAX_SKB_FRAGS used: EMSGSIZE
//	error       ⇒ net_zcopy_put_abort(uarg, extra_uref): id rolled back
//
// The pushed datagram (__ip_make_skb: fragments on the frag_list) is split
// by ip_do_fragment's fast path when it exceeds the MTU, or, with
// UDP_SEGMENT, marked with gso_size and gso_segs for the device to segment
// (skb.Segment). Every skb is charged to sk_wmem_alloc (skb_set_owner_w)
// and handed to Net.Xmit; the network frees it.
//
// A fragmented datagram's skbs each hold a uarg reference (skb_zcopy_set
// in __ip_append_data) and go out as fragments of their own
// (ip_do_fragment's fast path). When they loop back, when the last
// reference drops is the receive path's (package sim: World.wire, the
// reassembly of reasmKeep, under kernel.Profile.OrphanRxAtLocalDeliver):
// on Linux 6.18 an IPv4 datagram fragmented over loopback (MTU 1500, no
// UDP_SEGMENT) is notified (COPIED) as the send returns when every
// fragment after the first fits the first one's tailroom (1473 to 1684
// bytes), else once the receiver has read it (1685, 2952, 10000 bytes);
// IPv6 as the send returns (probe/testdata/udp-frag-notify.zcs).
//
// RAW: raw_sendmsg uses the same append path with no transport header and
// MSG_MORE corking; with IP_HDRINCL, raw_send_hdrinc. On merged kernels
// SO_ZEROCOPY is refused on RAW sockets, so MSG_ZEROCOPY is ignored there.
// Under rfc-v2 (no opt-in) the RFC's rule applies instead: a uarg only
// when the data can go into frags (SG, and for UDP a CHECKSUM_PARTIAL
// skb), then everything past MAX_HEADER bytes zerocopy, on corked appends
// too; raw_send_hdrinc puts MAX_HEADER bytes in the linear part and the
// rest in frags (patch 10).
//
// Bugs: kernel.BugUDPMoreRefcnt (B6) and kernel.BugUDPAppendRefcnt (B7) re-introduce the
// two historical extra_uref leaks.
//
// # Ownership
//
// The pending datagram's skbs belong to the Sock until pushed or flushed;
// transmitted skbs belong to the Network. Each send call is a holder
// ("sendmsg#N", the call of step N: kernel.SendmsgCall) of the uarg reference it allocated until an skb takes it.
// A closed Sock keeps its socket allocated while transmitted skbs are
// still charged (the sk_wmem_alloc bias), and frees it with the last.
//
// An skb's truesize, charged to sk_wmem_alloc here and to the
// receiver's sk_rmem_alloc over loopback, is that of the head
// sock_alloc_send_skb or __ip_append_data allocates, room for the link
// layer and alignment included, as kmalloc_reserve sizes it (newSkb: 832
// bytes for a 10-byte datagram on Linux 6.18, 2304 for 1000 bytes).
//
// # Invariants
//
//	a call that fails before its append completes consumes no id;
//	one id per successful zerocopy call; corked appends extend one uarg;
//	the uarg's references = skbs pointing at it (+ the call while appending);
//	Sk.WmemAlloc = Σ truesize of skbs charged to the socket.
//
// One exception is the kernel's own: with UDP_SEGMENT, udp_send_skb fails
// a call after its append succeeded (EINVAL, EMSGSIZE); the skb is freed,
// and the id the call consumed is notified (not COPIED: it was never
// orphaned). SendResult then has ZC set and Err non-zero.
//
// # Errors
//
// Which errno each failure gives, by profile (— : cannot happen there):
//
//	failure                              rfc-v2      4.14        5.0         6.18
//	SO_ZEROCOPY on UDP                   ENOPROTOOPT ENOTSUPP    0           0
//	SO_ZEROCOPY on RAW                   ENOPROTOOPT ENOTSUPP    ENOTSUPP    EOPNOTSUPP
//	MSG_ZEROCOPY without SO_ZEROCOPY     —           ignored     ignored     ignored
//	payload > 65535 (UDPv4, RAW)         EMSGSIZE    EMSGSIZE    EMSGSIZE    EMSGSIZE
//	  (RAW IPv6: ip6_append_data's bound; with IP_HDRINCL, IPPROTO_RAW's
//	  default, rawv6_sendmsg checks INT_MAX only and rawv6_send_hdrinc
//	  the device MTU, 65536 bytes on loopback)
//	  (these two before EDESTADDRREQ on AF_INET; udpv6_sendmsg, for a
//	  v4-mapped socket too, says EDESTADDRREQ before udp_sendmsg runs)
//	datagram > 65507 v4 / 65527 v6       EMSGSIZE    EMSGSIZE    EMSGSIZE    EMSGSIZE
//	optmem, sock_omalloc failure         ENOBUFS     —           ENOBUFS     ENOBUFS
//	RLIMIT_MEMLOCK                       ENOBUFS     —           ENOBUFS     ENOBUFS
//	frags of a zerocopy cork exhausted   EMSGSIZE    —           EMSGSIZE    EMSGSIZE
//	send buffer full, cannot wait        EAGAIN      EAGAIN      EAGAIN      EAGAIN
//	skb allocation (alloc_skb) failure   ENOBUFS     ENOBUFS     ENOBUFS     ENOBUFS
//	ICMP error pending (connected)       ECONNREFUSED (any profile)
//	UDP_SEGMENT: segment > MTU           EMSGSIZE    EMSGSIZE    EMSGSIZE    EMSGSIZE
//	UDP_SEGMENT: > 128 segments          EINVAL      EINVAL      EINVAL      EINVAL
//	MSG_OOB (UDPv4, RAW; UDPv6 ignores)  EOPNOTSUPP  EOPNOTSUPP  EOPNOTSUPP  EOPNOTSUPP
//	IP_HDRINCL: > MTU / < IP header      EMSGSIZE / EINVAL (any profile)
//	IP_HDRINCL: ihl past the packet      EINVAL (any profile; IPv4, ihl= in the scenario)
//	IP_HDRINCL: ihl below 5 (IPv4)       sent        sent        sent        EINVAL (HdrinclMinIHL)
//	IP_HDRINCL: uarg alloc failure       EINVAL      —           —           —
//	IP_HDRINCL: frags exhausted          EMSGSIZE    —           —           —
//	RAW ENOBUFS without IP_RECVERR       0 (success, any profile)
//	RAW ICMP < 2 bytes (IPv6 MH < 4)     EFAULT (raw_probe_proto_opt, any profile)
//	RAW ICMPv6 < 4 bytes (MH < 6)        EINVAL (rawv6_push_pending_frames, any profile)
//	SOL_UDP control message not a u16    —           —           EINVAL      EINVAL
//	  UDP_SEGMENT, or another SOL_UDP type (udp_cmsg_send; skipped before)
//	SOL_SOCKET control message refused   EINVAL / EPERM (__sock_cmsg_send, any profile)
//
// (UDP_SEGMENT did not exist before v4.18, and the 128-segment limit was 64
// before v6.x; the model applies today's rules to every profile.)
//
// # Linux correspondence
//
// net/ipv4/udp.c: udp_sendmsg, udp_send_skb, udp_push_pending_frames,
// udp_flush_pending_frames, udp_lib_setsockopt (UDP_CORK, UDP_SEGMENT),
// udp_cmsg_send and __udp_cmsg_send (UDP_SEGMENT per call: cmsgSend);
// net/ipv4/ip_sockglue.c: ip_cmsg_send; net/ipv6/datagram.c:
// ip6_datagram_send_ctl (their SOL_SOCKET part);
// udp_destroy_sock; net/ipv6/udp.c: udpv6_sendmsg, udp_v6_send_skb;
// net/ipv4/ip_output.c: ip_append_data, __ip_append_data, ip_make_skb,
// __ip_make_skb, ip_setup_cork, ip_flush_pending_frames, ip_send_skb,
// ip_do_fragment; net/ipv6/ip6_output.c: __ip6_append_data;
// net/ipv4/ip_sockglue.c: ip_local_error; net/ipv6/datagram.c:
// ipv6_local_error;
// net/ipv4/raw.c: raw_sendmsg, raw_probe_proto_opt, raw_send_hdrinc;
// net/ipv6/raw.c: rawv6_probe_proto_opt, rawv6_push_pending_frames (its
// checksum offset check); net/core/sock.c:
// sock_alloc_send_pskb, skb_page_frag_refill, sock_wfree;
// net/core/skbuff.c: msg_zerocopy_realloc, skb_zerocopy_iter_dgram,
// net_zcopy_put_abort.
package udp
