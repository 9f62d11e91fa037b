package kernel

import "fmt"

// Memory geometry of an x86_64 kernel with 4 KiB pages
// (arch/x86/include/asm/page_types.h, include/linux/skbuff.h).
const (
	PageShift = 12
	PageSize  = 1 << PageShift
	// UioMaxiov is UIO_MAXIOV: the most iovecs one call takes
	// (import_iovec: EINVAL beyond) and the most messages one sendmmsg
	// sends (__sys_sendmmsg caps vlen to it).
	UioMaxiov = 1024
	// MaxRWCount is MAX_RW_COUNT (INT_MAX & PAGE_MASK): the most one read
	// or write moves. import_ubuf clamps a buffer's length to it and
	// __import_iovec the running total of an iovec array.
	MaxRWCount = 0x7ffff000
	// MaxSkbFrags is MAX_SKB_FRAGS with CONFIG_MAX_SKB_FRAGS=17, the default.
	MaxSkbFrags = 17
	// UshrtMax is USHRT_MAX; msg_zerocopy_realloc stops extending a uarg at
	// UshrtMax-1 calls.
	UshrtMax = 1<<16 - 1
	// MaxHeader is MAX_HEADER on a distribution x86_64 config
	// (LL_MAX_HEADER 128 + 48 for tunnels): the linear part the RFC's
	// datagram and packet zerocopy paths give their skbs.
	MaxHeader = 128 + 48
)

// MsgFlags are the flags of send(2), sendmsg(2) and recvmsg(2)
// (include/linux/socket.h).
type MsgFlags uint32

// Message flags.
const (
	MSG_OOB          MsgFlags = 0x1
	MSG_PEEK         MsgFlags = 0x2
	MSG_DONTROUTE    MsgFlags = 0x4
	MSG_CTRUNC       MsgFlags = 0x8
	MSG_TRUNC        MsgFlags = 0x20
	MSG_DONTWAIT     MsgFlags = 0x40
	MSG_EOR          MsgFlags = 0x80
	MSG_WAITALL      MsgFlags = 0x100
	MSG_CONFIRM      MsgFlags = 0x800
	MSG_ERRQUEUE     MsgFlags = 0x2000
	MSG_NOSIGNAL     MsgFlags = 0x4000
	MSG_MORE         MsgFlags = 0x8000
	MSG_WAITFORONE   MsgFlags = 0x10000
	MSG_ZEROCOPY     MsgFlags = 0x4000000
	MSG_FASTOPEN     MsgFlags = 0x20000000
	MSG_CMSG_CLOEXEC MsgFlags = 0x40000000
)

// MsgFlagNames names each single message flag.
var MsgFlagNames = NewSymbols(
	Symbol[MsgFlags]{"MSG_OOB", MSG_OOB}, Symbol[MsgFlags]{"MSG_PEEK", MSG_PEEK},
	Symbol[MsgFlags]{"MSG_DONTROUTE", MSG_DONTROUTE}, Symbol[MsgFlags]{"MSG_CTRUNC", MSG_CTRUNC},
	Symbol[MsgFlags]{"MSG_TRUNC", MSG_TRUNC}, Symbol[MsgFlags]{"MSG_DONTWAIT", MSG_DONTWAIT},
	Symbol[MsgFlags]{"MSG_EOR", MSG_EOR}, Symbol[MsgFlags]{"MSG_WAITALL", MSG_WAITALL},
	Symbol[MsgFlags]{"MSG_CONFIRM", MSG_CONFIRM}, Symbol[MsgFlags]{"MSG_ERRQUEUE", MSG_ERRQUEUE},
	Symbol[MsgFlags]{"MSG_NOSIGNAL", MSG_NOSIGNAL}, Symbol[MsgFlags]{"MSG_MORE", MSG_MORE},
	Symbol[MsgFlags]{"MSG_WAITFORONE", MSG_WAITFORONE}, Symbol[MsgFlags]{"MSG_ZEROCOPY", MSG_ZEROCOPY},
	Symbol[MsgFlags]{"MSG_FASTOPEN", MSG_FASTOPEN}, Symbol[MsgFlags]{"MSG_CMSG_CLOEXEC", MSG_CMSG_CLOEXEC},
)

// String renders flags as Linux prints them: "MSG_ZEROCOPY|MSG_MORE", "0" for
// none, and any bit without a name as a trailing hex number.
func (f MsgFlags) String() string { return unionString(f, MsgFlagNames) }

// Family is an address family (include/linux/socket.h).
type Family uint16

// Address families.
const (
	AF_UNSPEC  Family = 0
	AF_UNIX    Family = 1
	AF_INET    Family = 2
	AF_IPX     Family = 4 // removed in v4.18: EAFNOSUPPORT
	AF_INET6   Family = 10
	AF_DECnet  Family = 12 // removed in v6.1: EAFNOSUPPORT
	AF_NETLINK Family = 16
	AF_PACKET  Family = 17
	AF_RDS     Family = 21
	AF_VSOCK   Family = 40
	AF_XDP     Family = 44
)

// FamilyNames names the address families zcsim knows.
var FamilyNames = NewSymbols(
	Symbol[Family]{"AF_UNSPEC", AF_UNSPEC}, Symbol[Family]{"AF_UNIX", AF_UNIX},
	Symbol[Family]{"AF_LOCAL", AF_UNIX}, Symbol[Family]{"AF_INET", AF_INET},
	Symbol[Family]{"AF_INET6", AF_INET6}, Symbol[Family]{"AF_PACKET", AF_PACKET},
	Symbol[Family]{"AF_RDS", AF_RDS}, Symbol[Family]{"AF_IPX", AF_IPX},
	Symbol[Family]{"AF_DECnet", AF_DECnet}, Symbol[Family]{"AF_NETLINK", AF_NETLINK},
	Symbol[Family]{"AF_VSOCK", AF_VSOCK}, Symbol[Family]{"AF_XDP", AF_XDP},
)

// SockType is a socket type with its creation flags (include/linux/net.h).
type SockType uint32

// Socket types and the flags socket(2) accepts in the type argument.
const (
	SOCK_STREAM    SockType = 1
	SOCK_DGRAM     SockType = 2
	SOCK_RAW       SockType = 3
	SOCK_RDM       SockType = 4
	SOCK_SEQPACKET SockType = 5
	SOCK_DCCP      SockType = 6 // no protocol since DCCP's removal in v6.16
	SOCK_PACKET    SockType = 10
	SOCK_NONBLOCK  SockType = 0x800
	SOCK_CLOEXEC   SockType = 0x80000
	// SockTypeMask is SOCK_TYPE_MASK: the bits that are the type proper.
	SockTypeMask SockType = 0xf
)

// SockTypeNames names socket types and creation flags.
var SockTypeNames = NewSymbols(
	Symbol[SockType]{"SOCK_STREAM", SOCK_STREAM}, Symbol[SockType]{"SOCK_DGRAM", SOCK_DGRAM},
	Symbol[SockType]{"SOCK_RAW", SOCK_RAW}, Symbol[SockType]{"SOCK_SEQPACKET", SOCK_SEQPACKET},
	Symbol[SockType]{"SOCK_RDM", SOCK_RDM}, Symbol[SockType]{"SOCK_DCCP", SOCK_DCCP},
	Symbol[SockType]{"SOCK_PACKET", SOCK_PACKET},
	Symbol[SockType]{"SOCK_NONBLOCK", SOCK_NONBLOCK}, Symbol[SockType]{"SOCK_CLOEXEC", SOCK_CLOEXEC},
)

// Base returns the type without its creation flags.
func (t SockType) Base() SockType { return t & SockTypeMask }

// String renders a type with its flags, "SOCK_DGRAM|SOCK_NONBLOCK".
func (t SockType) String() string {
	s := SockTypeNames.Name(t.Base())
	if s == "" {
		s = fmt.Sprintf("%#x", uint32(t.Base()))
	}
	if flags := t &^ SockTypeMask; flags != 0 {
		s += "|" + unionString(flags, SockTypeNames)
	}
	return s
}

// Protocol is an IP protocol number (include/uapi/linux/in.h).
type Protocol uint16

// Protocols.
const (
	IPPROTO_IP      Protocol = 0
	IPPROTO_ICMP    Protocol = 1
	IPPROTO_TCP     Protocol = 6
	IPPROTO_UDP     Protocol = 17
	IPPROTO_IPV6    Protocol = 41
	IPPROTO_ICMPV6  Protocol = 58
	IPPROTO_SCTP    Protocol = 132
	IPPROTO_MH      Protocol = 135 // the IPv6 mobility header (<linux/in6.h>)
	IPPROTO_UDPLITE Protocol = 136
	IPPROTO_RAW     Protocol = 255
	IPPROTO_MPTCP   Protocol = 262
	// IPProtoMax is IPPROTO_MAX: inet_create refuses a protocol at or
	// above it (EINVAL). It was 256 until IPPROTO_MPTCP (v5.6).
	IPProtoMax Protocol = 263
)

// ProtocolNames names the protocols of <linux/in.h> and <linux/in6.h>
// (the IPv6 extension headers aside): a raw socket takes any of them.
var ProtocolNames = NewSymbols(
	Symbol[Protocol]{"IPPROTO_IP", IPPROTO_IP}, Symbol[Protocol]{"IPPROTO_ICMP", IPPROTO_ICMP},
	Symbol[Protocol]{"IPPROTO_TCP", IPPROTO_TCP}, Symbol[Protocol]{"IPPROTO_UDP", IPPROTO_UDP},
	Symbol[Protocol]{"IPPROTO_IPV6", IPPROTO_IPV6}, Symbol[Protocol]{"IPPROTO_ICMPV6", IPPROTO_ICMPV6},
	Symbol[Protocol]{"IPPROTO_RAW", IPPROTO_RAW}, Symbol[Protocol]{"IPPROTO_SCTP", IPPROTO_SCTP},
	Symbol[Protocol]{"IPPROTO_UDPLITE", IPPROTO_UDPLITE}, Symbol[Protocol]{"IPPROTO_MPTCP", IPPROTO_MPTCP},
	Symbol[Protocol]{"IPPROTO_IGMP", 2}, Symbol[Protocol]{"IPPROTO_IPIP", 4},
	Symbol[Protocol]{"IPPROTO_EGP", 8}, Symbol[Protocol]{"IPPROTO_PUP", 12},
	Symbol[Protocol]{"IPPROTO_IDP", 22}, Symbol[Protocol]{"IPPROTO_TP", 29},
	Symbol[Protocol]{"IPPROTO_DCCP", 33}, Symbol[Protocol]{"IPPROTO_RSVP", 46},
	Symbol[Protocol]{"IPPROTO_GRE", 47}, Symbol[Protocol]{"IPPROTO_ESP", 50},
	Symbol[Protocol]{"IPPROTO_AH", 51}, Symbol[Protocol]{"IPPROTO_MTP", 92},
	Symbol[Protocol]{"IPPROTO_BEETPH", 94}, Symbol[Protocol]{"IPPROTO_ENCAP", 98},
	Symbol[Protocol]{"IPPROTO_PIM", 103}, Symbol[Protocol]{"IPPROTO_COMP", 108},
	Symbol[Protocol]{"IPPROTO_L2TP", 115}, Symbol[Protocol]{"IPPROTO_MPLS", 137},
	Symbol[Protocol]{"IPPROTO_ETHERNET", 143},
)

// Level is a setsockopt level.
type Level int32

// Socket option levels.
const (
	SOL_IP     Level = 0
	SOL_SOCKET Level = 1
	SOL_TCP    Level = 6
	SOL_UDP    Level = 17
	SOL_IPV6   Level = 41
	SOL_PACKET Level = 263
)

// LevelNames names option levels; the IPPROTO_ spellings are aliases.
var LevelNames = NewSymbols(
	Symbol[Level]{"SOL_IP", SOL_IP}, Symbol[Level]{"IPPROTO_IP", SOL_IP},
	Symbol[Level]{"SOL_SOCKET", SOL_SOCKET}, Symbol[Level]{"SOL_TCP", SOL_TCP},
	Symbol[Level]{"IPPROTO_TCP", SOL_TCP}, Symbol[Level]{"SOL_UDP", SOL_UDP},
	Symbol[Level]{"IPPROTO_UDP", SOL_UDP}, Symbol[Level]{"SOL_IPV6", SOL_IPV6},
	Symbol[Level]{"IPPROTO_IPV6", SOL_IPV6}, Symbol[Level]{"SOL_PACKET", SOL_PACKET},
)

// SockOpt identifies a socket option by level and number.
type SockOpt struct {
	Level Level
	Name  int32
}

// Socket options zcsim models (asm-generic/socket.h, uapi/linux/tcp.h,
// uapi/linux/udp.h, uapi/linux/in.h, uapi/linux/in6.h).
var (
	SO_REUSEADDR         = SockOpt{SOL_SOCKET, 2}
	SO_SNDBUF            = SockOpt{SOL_SOCKET, 7}
	SO_REUSEPORT         = SockOpt{SOL_SOCKET, 15}
	SO_OOBINLINE         = SockOpt{SOL_SOCKET, 10}
	SO_RCVBUF            = SockOpt{SOL_SOCKET, 8}
	SO_RCVLOWAT          = SockOpt{SOL_SOCKET, 18}
	SO_SNDBUFFORCE       = SockOpt{SOL_SOCKET, 32}
	SO_RCVBUFFORCE       = SockOpt{SOL_SOCKET, 33}
	SO_MARK              = SockOpt{SOL_SOCKET, 36}
	SO_TIMESTAMP_OLD     = SockOpt{SOL_SOCKET, 29}
	SO_TIMESTAMPNS_OLD   = SockOpt{SOL_SOCKET, 35}
	SO_TIMESTAMPING      = SockOpt{SOL_SOCKET, 37}
	SO_TIMESTAMP_NEW     = SockOpt{SOL_SOCKET, 63}
	SO_TIMESTAMPNS_NEW   = SockOpt{SOL_SOCKET, 64}
	SO_TIMESTAMPING_NEW  = SockOpt{SOL_SOCKET, 65}
	SO_MAX_PACING_RATE   = SockOpt{SOL_SOCKET, 47}
	SO_ZEROCOPY          = SockOpt{SOL_SOCKET, 60}
	TCP_NODELAY          = SockOpt{SOL_TCP, 1}
	TCP_CORK             = SockOpt{SOL_TCP, 3}
	TCP_INFO             = SockOpt{SOL_TCP, 11}
	TCP_QUICKACK         = SockOpt{SOL_TCP, 12}
	TCP_USER_TIMEOUT     = SockOpt{SOL_TCP, 18}
	TCP_CONGESTION       = SockOpt{SOL_TCP, 13}
	TCP_FASTOPEN         = SockOpt{SOL_TCP, 23}
	TCP_NOTSENT_LOWAT    = SockOpt{SOL_TCP, 25}
	TCP_ZEROCOPY_RECEIVE = SockOpt{SOL_TCP, 35}
	TCP_INQ              = SockOpt{SOL_TCP, 36}
	TCP_RTO_MAX_MS       = SockOpt{SOL_TCP, 44}
	UDP_CORK             = SockOpt{SOL_UDP, 1}
	UDP_SEGMENT          = SockOpt{SOL_UDP, 103}
	IP_HDRINCL           = SockOpt{SOL_IP, 3}
	IP_RECVERR           = SockOpt{SOL_IP, 11}
	IPV6_RECVERR         = SockOpt{SOL_IPV6, 25}
	PACKET_TX_RING       = SockOpt{SOL_PACKET, 13}
	PACKET_LOSS          = SockOpt{SOL_PACKET, 14}
)

// SockOptNames names the socket options zcsim models.
var SockOptNames = NewSymbols(
	Symbol[SockOpt]{"SO_SNDBUF", SO_SNDBUF}, Symbol[SockOpt]{"SO_RCVBUF", SO_RCVBUF},
	Symbol[SockOpt]{"SO_RCVLOWAT", SO_RCVLOWAT}, Symbol[SockOpt]{"SO_SNDBUFFORCE", SO_SNDBUFFORCE},
	Symbol[SockOpt]{"SO_RCVBUFFORCE", SO_RCVBUFFORCE},
	Symbol[SockOpt]{"SO_TIMESTAMPING", SO_TIMESTAMPING}, Symbol[SockOpt]{"SO_ZEROCOPY", SO_ZEROCOPY},
	Symbol[SockOpt]{"SO_TIMESTAMP", SO_TIMESTAMP_OLD}, Symbol[SockOpt]{"SO_TIMESTAMP_OLD", SO_TIMESTAMP_OLD},
	Symbol[SockOpt]{"SO_TIMESTAMPNS", SO_TIMESTAMPNS_OLD}, Symbol[SockOpt]{"SO_TIMESTAMPNS_OLD", SO_TIMESTAMPNS_OLD},
	Symbol[SockOpt]{"SO_TIMESTAMP_NEW", SO_TIMESTAMP_NEW}, Symbol[SockOpt]{"SO_TIMESTAMPNS_NEW", SO_TIMESTAMPNS_NEW},
	Symbol[SockOpt]{"SO_TIMESTAMPING_NEW", SO_TIMESTAMPING_NEW},
	Symbol[SockOpt]{"SO_MAX_PACING_RATE", SO_MAX_PACING_RATE},
	Symbol[SockOpt]{"SO_MARK", SO_MARK},
	Symbol[SockOpt]{"SO_REUSEADDR", SO_REUSEADDR}, Symbol[SockOpt]{"SO_REUSEPORT", SO_REUSEPORT},
	Symbol[SockOpt]{"SO_OOBINLINE", SO_OOBINLINE},
	Symbol[SockOpt]{"TCP_NODELAY", TCP_NODELAY}, Symbol[SockOpt]{"TCP_CORK", TCP_CORK},
	Symbol[SockOpt]{"TCP_QUICKACK", TCP_QUICKACK}, Symbol[SockOpt]{"TCP_FASTOPEN", TCP_FASTOPEN},
	Symbol[SockOpt]{"TCP_NOTSENT_LOWAT", TCP_NOTSENT_LOWAT}, Symbol[SockOpt]{"TCP_CONGESTION", TCP_CONGESTION},
	Symbol[SockOpt]{"TCP_INFO", TCP_INFO},
	Symbol[SockOpt]{"TCP_ZEROCOPY_RECEIVE", TCP_ZEROCOPY_RECEIVE}, Symbol[SockOpt]{"TCP_INQ", TCP_INQ},
	Symbol[SockOpt]{"TCP_RTO_MAX_MS", TCP_RTO_MAX_MS}, Symbol[SockOpt]{"TCP_USER_TIMEOUT", TCP_USER_TIMEOUT},
	Symbol[SockOpt]{"UDP_CORK", UDP_CORK}, Symbol[SockOpt]{"UDP_SEGMENT", UDP_SEGMENT},
	Symbol[SockOpt]{"IP_HDRINCL", IP_HDRINCL}, Symbol[SockOpt]{"IP_RECVERR", IP_RECVERR},
	Symbol[SockOpt]{"IPV6_RECVERR", IPV6_RECVERR}, Symbol[SockOpt]{"PACKET_TX_RING", PACKET_TX_RING},
	Symbol[SockOpt]{"PACKET_LOSS", PACKET_LOSS},
)

// Timestamping holds SOF_TIMESTAMPING_* flags (include/uapi/linux/net_tstamp.h).
type Timestamping uint32

// SO_TIMESTAMPING flags.
const (
	SOF_TIMESTAMPING_TX_HARDWARE  Timestamping = 1 << 0
	SOF_TIMESTAMPING_TX_SOFTWARE  Timestamping = 1 << 1
	SOF_TIMESTAMPING_RX_HARDWARE  Timestamping = 1 << 2
	SOF_TIMESTAMPING_RX_SOFTWARE  Timestamping = 1 << 3
	SOF_TIMESTAMPING_SOFTWARE     Timestamping = 1 << 4
	SOF_TIMESTAMPING_RAW_HARDWARE Timestamping = 1 << 6
	SOF_TIMESTAMPING_OPT_ID       Timestamping = 1 << 7
	SOF_TIMESTAMPING_TX_SCHED     Timestamping = 1 << 8
	SOF_TIMESTAMPING_TX_ACK       Timestamping = 1 << 9
	SOF_TIMESTAMPING_OPT_CMSG     Timestamping = 1 << 10
	SOF_TIMESTAMPING_OPT_TSONLY   Timestamping = 1 << 11
	SOF_TIMESTAMPING_OPT_STATS    Timestamping = 1 << 12
	SOF_TIMESTAMPING_OPT_ID_TCP   Timestamping = 1 << 16
)

// TimestampingNames names the SO_TIMESTAMPING flags.
var TimestampingNames = NewSymbols(
	Symbol[Timestamping]{"SOF_TIMESTAMPING_TX_HARDWARE", SOF_TIMESTAMPING_TX_HARDWARE},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_TX_SOFTWARE", SOF_TIMESTAMPING_TX_SOFTWARE},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_RX_HARDWARE", SOF_TIMESTAMPING_RX_HARDWARE},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_RX_SOFTWARE", SOF_TIMESTAMPING_RX_SOFTWARE},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_SOFTWARE", SOF_TIMESTAMPING_SOFTWARE},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_RAW_HARDWARE", SOF_TIMESTAMPING_RAW_HARDWARE},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_OPT_ID", SOF_TIMESTAMPING_OPT_ID},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_TX_SCHED", SOF_TIMESTAMPING_TX_SCHED},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_TX_ACK", SOF_TIMESTAMPING_TX_ACK},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_OPT_CMSG", SOF_TIMESTAMPING_OPT_CMSG},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_OPT_TSONLY", SOF_TIMESTAMPING_OPT_TSONLY},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_OPT_STATS", SOF_TIMESTAMPING_OPT_STATS},
	Symbol[Timestamping]{"SOF_TIMESTAMPING_OPT_ID_TCP", SOF_TIMESTAMPING_OPT_ID_TCP},
)

// String renders the flags as a union of names.
func (t Timestamping) String() string { return unionString(t, TimestampingNames) }

// Extended-error origins and codes (include/uapi/linux/errqueue.h).
const (
	SO_EE_ORIGIN_NONE         = 0
	SO_EE_ORIGIN_LOCAL        = 1
	SO_EE_ORIGIN_ICMP         = 2
	SO_EE_ORIGIN_ICMP6        = 3
	SO_EE_ORIGIN_TIMESTAMPING = 4
	SO_EE_ORIGIN_ZEROCOPY     = 5
	SO_EE_ORIGIN_TXTIME       = 6

	SO_EE_CODE_ZEROCOPY_COPIED = 1

	// PACKET_TX_TIMESTAMP is the cmsg_type of a packet socket's
	// error-queue record (include/uapi/linux/if_packet.h).
	PACKET_TX_TIMESTAMP = 16

	SCM_TSTAMP_SND   = 0
	SCM_TSTAMP_SCHED = 1
	SCM_TSTAMP_ACK   = 2
)

// SCM_ZC_NOTIFICATION and its argument, from the unmerged v7 series "net:
// A lightweight zero-copy notification" (seed 003): a sendmsg control
// message (level SOL_SOCKET, type 78 in asm-generic/socket.h) whose data is
// a struct zc_info, a u32 size followed by size struct zc_info_elem {u32
// lo, u32 hi, u8 zerocopy} (12 bytes each with padding). The kernel fills
// the array with completions and rewrites size. CmsgHdrLen is sizeof(struct
// cmsghdr) and CmsgStackCtl the control buffer ____sys_sendmsg keeps on
// its stack (sizeof(struct cmsghdr) + 20); a larger one is sock_kmalloc'd
// from optmem.
const (
	SCM_ZC_NOTIFICATION = 78
	ZcInfoHdrLen        = 4
	ZcInfoElemLen       = 12
	CmsgHdrLen          = 16
	CmsgStackCtl        = CmsgHdrLen + 20
)

// ZcInfoLen is the cmsg data length of a zc_info with size entries, the
// only length the v7 handler accepts.
func ZcInfoLen(size uint32) int { return ZcInfoHdrLen + int(size)*ZcInfoElemLen }

// CmsgType identifies a control message a sendmsg carries by cmsg_level
// and cmsg_type, as SockOpt identifies an option; several types share the
// number of the socket option they stand for.
type CmsgType = SockOpt

// Control message types of sendmsg that __sock_cmsg_send (SOL_SOCKET) and
// udp_cmsg_send (SOL_UDP) know on Linux 6.18 (asm-generic/socket.h,
// uapi/linux/udp.h); SO_TIMESTAMPING is SO_TIMESTAMPING_OLD.
var (
	SCM_RIGHTS           = CmsgType{SOL_SOCKET, 1}
	SCM_CREDENTIALS      = CmsgType{SOL_SOCKET, 2}
	SCM_PRIORITY         = CmsgType{SOL_SOCKET, 12} // SO_PRIORITY
	SCM_MARK             = CmsgType{SOL_SOCKET, 36} // SO_MARK
	SCM_TIMESTAMPING     = CmsgType{SOL_SOCKET, 37} // SO_TIMESTAMPING_OLD
	SCM_TXTIME           = CmsgType{SOL_SOCKET, 61} // SO_TXTIME
	SCM_TIMESTAMPING_NEW = CmsgType{SOL_SOCKET, 65} // SO_TIMESTAMPING_NEW
	SCM_DEVMEM_DMABUF    = CmsgType{SOL_SOCKET, 79}
	SCM_TS_OPT_ID        = CmsgType{SOL_SOCKET, 81}
	SCM_UDP_SEGMENT      = CmsgType{SOL_UDP, 103} // UDP_SEGMENT
)

// ErrqueueCmsgNames names the control messages an error-queue read
// writes its record in, by level and type: ip_recv_error's IP_RECVERR,
// ipv6_recv_error's IPV6_RECVERR, packet_recvmsg's PACKET_TX_TIMESTAMP.
var ErrqueueCmsgNames = NewSymbols(
	Symbol[CmsgType]{"IP_RECVERR", IP_RECVERR}, Symbol[CmsgType]{"IPV6_RECVERR", IPV6_RECVERR},
	Symbol[CmsgType]{"PACKET_TX_TIMESTAMP", CmsgType{Level: SOL_PACKET, Name: PACKET_TX_TIMESTAMP}},
)

// CmsgTypeNames names the sendmsg control message types, as a program
// spells them in cmsg_type.
var CmsgTypeNames = NewSymbols(
	Symbol[CmsgType]{"SCM_RIGHTS", SCM_RIGHTS}, Symbol[CmsgType]{"SCM_CREDENTIALS", SCM_CREDENTIALS},
	Symbol[CmsgType]{"SO_PRIORITY", SCM_PRIORITY}, Symbol[CmsgType]{"SO_MARK", SCM_MARK},
	Symbol[CmsgType]{"SO_TIMESTAMPING", SCM_TIMESTAMPING}, Symbol[CmsgType]{"SO_TIMESTAMPING_OLD", SCM_TIMESTAMPING},
	Symbol[CmsgType]{"SO_TIMESTAMPING_NEW", SCM_TIMESTAMPING_NEW}, Symbol[CmsgType]{"SCM_TXTIME", SCM_TXTIME},
	Symbol[CmsgType]{"SCM_DEVMEM_DMABUF", SCM_DEVMEM_DMABUF}, Symbol[CmsgType]{"SCM_TS_OPT_ID", SCM_TS_OPT_ID},
	Symbol[CmsgType]{"UDP_SEGMENT", SCM_UDP_SEGMENT},
)

// CmsgLen is the data length a program gives a control message of type t,
// the size of the field its handler reads: a u16 for UDP_SEGMENT, a u64
// for SCM_TXTIME, an int for the others.
func CmsgLen(t CmsgType) int {
	switch t {
	case SCM_UDP_SEGMENT:
		return 2
	case SCM_TXTIME:
		return 8
	}
	return 4
}

// CmsgSpace is CMSG_SPACE(n): the header plus n bytes, aligned to 8.
func CmsgSpace(n int) int { return CmsgHdrLen + (n+7)&^7 }

// RLIMIT_MEMLOCK is the resource number of the locked-memory limit, and
// RLIM_INFINITY its "no limit" value (include/uapi/asm-generic/resource.h).
const (
	RLIMIT_MEMLOCK = 8
	RLIM_INFINITY  = ^uint64(0)
)

// SkbTx is skb_shared_info.tx_flags as far as software timestamps go
// (include/linux/skbuff.h): which transmit timestamps the packet asks for,
// set from the socket's SO_TIMESTAMPING when it is built
// (__sock_tx_timestamp) and shared by its clones.
type SkbTx uint8

// Software transmit timestamp requests.
const (
	// SKBTX_SW_TSTAMP asks for SCM_TSTAMP_SND (SOF_TIMESTAMPING_TX_SOFTWARE).
	SKBTX_SW_TSTAMP SkbTx = 1 << 1
	// SKBTX_SCHED_TSTAMP asks for SCM_TSTAMP_SCHED (SOF_TIMESTAMPING_TX_SCHED).
	SKBTX_SCHED_TSTAMP SkbTx = 1 << 6
	// SKBTX_ANY_TSTAMP is either (the model has no hardware timestamps).
	SKBTX_ANY_TSTAMP = SKBTX_SW_TSTAMP | SKBTX_SCHED_TSTAMP
)

// SkbFlags are the zerocopy flags of skb_shared_info (SKBFL_*,
// include/linux/skbuff.h); a uarg carries the ones it ORs into every skb it
// is attached to.
type SkbFlags uint8

// Shared-info zerocopy flags.
const (
	SKBFL_ZEROCOPY_ENABLE   SkbFlags = 1 << 0
	SKBFL_SHARED_FRAG       SkbFlags = 1 << 1
	SKBFL_PURE_ZEROCOPY     SkbFlags = 1 << 2
	SKBFL_DONT_ORPHAN       SkbFlags = 1 << 3
	SKBFL_MANAGED_FRAG_REFS SkbFlags = 1 << 4

	SKBFL_ZEROCOPY_FRAG = SKBFL_ZEROCOPY_ENABLE | SKBFL_SHARED_FRAG
	SKBFL_ALL_ZEROCOPY  = SKBFL_ZEROCOPY_FRAG | SKBFL_PURE_ZEROCOPY | SKBFL_DONT_ORPHAN | SKBFL_MANAGED_FRAG_REFS
)

// SkbFlagNames names the shared-info flags.
var SkbFlagNames = NewSymbols(
	Symbol[SkbFlags]{"SKBFL_ZEROCOPY_ENABLE", SKBFL_ZEROCOPY_ENABLE},
	Symbol[SkbFlags]{"SKBFL_SHARED_FRAG", SKBFL_SHARED_FRAG},
	Symbol[SkbFlags]{"SKBFL_PURE_ZEROCOPY", SKBFL_PURE_ZEROCOPY},
	Symbol[SkbFlags]{"SKBFL_DONT_ORPHAN", SKBFL_DONT_ORPHAN},
	Symbol[SkbFlags]{"SKBFL_MANAGED_FRAG_REFS", SKBFL_MANAGED_FRAG_REFS},
)

// String renders the flags as a union of names.
func (f SkbFlags) String() string { return unionString(f, SkbFlagNames) }
