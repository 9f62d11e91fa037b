package strace

import (
	"net/netip"
	"time"
)

// Header is what every decoded operation carries from its [Call]: where it
// came from, who made it, when, and what it returned.
type Header struct {
	Lines    []int         `json:"lines"`
	Pid      int           `json:"pid,omitempty"`
	Time     Time          `json:"time,omitzero"`
	End      Time          `json:"-"` // the resumed line's time (Call.End)
	Duration time.Duration `json:"duration,omitempty"`
	Syscall  string        `json:"syscall"`
	Result   Result        `json:"result"`
}

// Head returns h; it makes every operation type an [Op].
func (h *Header) Head() *Header { return h }

// Op is one decoded call: a *Socket, *SocketPair, *Bind, *Listen, *Accept,
// *Connect, *SockOpt, *Send, *SendMmsg, *Recv, *Close, *Shutdown, *Rlimit,
// *Dup, *Fork, *CloseRange, *ZcRecv, *Mmap, *Munmap, *Poll, *Select or
// *Ignored.
type Op interface {
	Head() *Header
}

// Socket is socket(domain, type, protocol); the result is the new fd.
// Type holds the type and its flags (SOCK_DGRAM, SOCK_CLOEXEC); CloExec
// is SOCK_CLOEXEC (the descriptor closes at execve).
type Socket struct {
	Header
	Domain   string   `json:"domain"`
	Type     []string `json:"type"`
	Protocol string   `json:"protocol"`
	CloExec  bool     `json:"cloexec,omitempty"`
}

// SocketPair is socketpair(domain, type, protocol, [fd0, fd1]): the
// arguments of a socket call, and the two descriptors.
type SocketPair struct {
	Socket
	Fds [2]int `json:"fds"`
}

// SockAddr is a decoded socket address. For AF_INET and AF_INET6 Addr
// holds address and port; for AF_UNIX Path the path (abstract names start
// with "@"). The zero SockAddr means no address (NULL).
type SockAddr struct {
	Family string         `json:"family,omitempty"`
	Addr   netip.AddrPort `json:"addr,omitzero"`
	Path   string         `json:"path,omitempty"`
}

// Bind is bind(fd, addr, len).
type Bind struct {
	Header
	Fd   int      `json:"fd"`
	Addr SockAddr `json:"addr"`
}

// Connect is connect(fd, addr, len).
type Connect struct {
	Header
	Fd   int      `json:"fd"`
	Addr SockAddr `json:"addr"`
}

// Listen is listen(fd, backlog).
type Listen struct {
	Header
	Fd      int   `json:"fd"`
	Backlog int64 `json:"backlog"`
}

// Accept is accept(fd, addr, len) or accept4(fd, addr, len, flags); the
// result is the new fd and Peer the peer's address when strace printed it;
// CloExec is accept4's SOCK_CLOEXEC.
type Accept struct {
	Header
	Fd      int      `json:"fd"`
	Peer    SockAddr `json:"peer,omitzero"`
	Flags   []string `json:"flags,omitempty"`
	CloExec bool     `json:"cloexec,omitempty"`
}

// OptValue is the value of a socket option: Int for integer options
// ([1], [1048576]), Flags for flag-valued ones (SO_TIMESTAMPING's
// [SOF_TIMESTAMPING_TX_SOFTWARE|...] or {flags=..., bind_phc=0}), Str for
// a buffer strace prints as bytes (TCP_CONGESTION's "reno\0", TCP_INFO's
// "\1\0\0\0..."), Text as strace printed it. HasInt says whether Int is
// meaningful, HasStr whether Str is; a NULL or unreadable value has
// neither Int nor Flags nor Str, and Addr is set when strace printed the
// buffer's address instead of its contents (0x7ffc1062fb30: a failed
// call, or nothing to show).
type OptValue struct {
	Int    int64    `json:"int,omitempty"`
	HasInt bool     `json:"has_int,omitempty"`
	Flags  []string `json:"flags,omitempty"`
	Str    string   `json:"str,omitempty"`
	HasStr bool     `json:"has_str,omitempty"`
	// Cut is set when strace printed only the first -s bytes of Str
	// ("..." after it: 32 by default).
	Cut  bool   `json:"cut,omitempty"`
	Addr bool   `json:"addr,omitempty"`
	Text string `json:"text"`
	// Req is a struct tpacket_req (PACKET_TX_RING, PACKET_RX_RING), as
	// strace prints it: {tp_block_size=4096, tp_block_nr=1, ...}.
	Req *TpacketReq `json:"tpacket_req,omitempty"`
}

// TpacketReq is struct tpacket_req.
type TpacketReq struct {
	BlockSize uint32 `json:"tp_block_size"`
	BlockNr   uint32 `json:"tp_block_nr"`
	FrameSize uint32 `json:"tp_frame_size"`
	FrameNr   uint32 `json:"tp_frame_nr"`
}

// SockOpt is setsockopt or getsockopt (Get tells which). Level and Name
// are as strace printed them (SOL_SOCKET, SO_ZEROCOPY; "0x1" under
// -X raw); for getsockopt Value is what the kernel wrote back. Len is
// optlen, for getsockopt as the kernel wrote it back; BufLen is optlen as
// the program passed it (getsockopt's [300 => 280] has BufLen 300, Len
// 280; [16] both 16).
type SockOpt struct {
	Header
	Get    bool     `json:"get,omitempty"`
	Fd     int      `json:"fd"`
	Level  string   `json:"level"`
	Name   string   `json:"name"`
	Value  OptValue `json:"value"`
	Len    int64    `json:"len"`
	BufLen int64    `json:"buf_len"`
}

// Send is send, sendto, sendmsg or write. Iov holds the length of each
// buffer (one for send, sendto and write) as the size_t the kernel reads,
// Len their sum (saturating at 2^64-1), Flags the flags (none for write),
// ZeroCopy whether MSG_ZEROCOPY (0x4000000) is among them, To the
// destination of sendto/sendmsg when given. Abbrev, when set, says why
// the lengths are not known (strace printed the msghdr as {...}, cut the
// iovec array, printed an address): Iov then holds only what was printed
// and must not be read as the call's buffers.
type Send struct {
	Header
	Fd       int      `json:"fd"`
	Iov      []uint64 `json:"iov"`
	Len      uint64   `json:"len"`
	Flags    []string `json:"flags,omitempty"`
	ZeroCopy bool     `json:"zerocopy,omitempty"`
	To       SockAddr `json:"to,omitzero"`
	Abbrev   string   `json:"abbrev,omitempty"`
	// ZcInfo is the SCM_ZC_NOTIFICATION control message a sendmsg
	// carried (the unmerged v7 series), nil without one.
	ZcInfo *ZcInfo `json:"zc_info,omitempty"`
	// Control are the sendmsg's other control messages, in order.
	Control []SendCmsg `json:"control,omitempty"`
}

// SendCmsg is a control message of a sendmsg as strace printed it on
// entry. Level and Type are cmsg_level and cmsg_type, unless strace
// printed a name this package does not know: Name holds it then. DataLen
// is cmsg_len less the cmsghdr, -1 when cmsg_len is missing or shorter
// than the header. Data is the data when strace printed it as bytes (a
// string or an array of bytes), nil otherwise: strace 6.1 prints no data
// for the types it has no decoder for (UDP_SEGMENT, SO_MARK, a 4-byte
// SO_TIMESTAMPING_OLD), only "cmsg_type=0x67".
type SendCmsg struct {
	Level   int32  `json:"level"`
	Type    int32  `json:"type"`
	Name    string `json:"name,omitempty"`
	DataLen int    `json:"data_len"`
	Data    []byte `json:"data,omitempty"`
}

// ZcInfo is an SCM_ZC_NOTIFICATION cmsg as strace printed it on entry to
// sendmsg: before the kernel filled it, so it shows the program's request,
// never the completions returned. DataLen is cmsg_len minus the cmsghdr;
// Size is the zc_info's size field when strace printed its first 4 bytes
// (SizeKnown), else 0.
type ZcInfo struct {
	DataLen   int    `json:"data_len"`
	Size      uint32 `json:"size"`
	SizeKnown bool   `json:"size_known"`
}

// Mmsg is one message of a sendmmsg: its buffer lengths and, when the
// call returned, how many bytes the kernel took (msg_len).
type Mmsg struct {
	Iov    []uint64 `json:"iov"`
	MsgLen uint64   `json:"msg_len"`
}

// SendMmsg is sendmmsg(fd, msgs, vlen, flags); the result is the number
// of messages sent, and strace prints only those. Abbrev, when set, says
// why some message's lengths are not known, as for [Send].
type SendMmsg struct {
	Header
	Fd       int      `json:"fd"`
	Msgs     []Mmsg   `json:"msgs"`
	Vlen     int64    `json:"vlen"`
	Flags    []string `json:"flags,omitempty"`
	ZeroCopy bool     `json:"zerocopy,omitempty"`
	Abbrev   string   `json:"abbrev,omitempty"`
}

// ExtErr is a struct sock_extended_err as carried by an IP_RECVERR or
// IPV6_RECVERR control message. For a zerocopy notification Origin is
// SO_EE_ORIGIN_ZEROCOPY (5), [Info, Data] the inclusive id range and Code
// SO_EE_CODE_ZEROCOPY_COPIED (1) when the kernel copied.
type ExtErr struct {
	Errno  uint32 `json:"ee_errno"`
	Origin uint8  `json:"ee_origin"`
	Type   uint8  `json:"ee_type"`
	Code   uint8  `json:"ee_code"`
	Info   uint32 `json:"ee_info"`
	Data   uint32 `json:"ee_data"`
}

// Cmsg is one received control message. Ext is the decoded
// sock_extended_err of an IP_RECVERR/IPV6_RECVERR message, nil when
// strace did not print its data (strace 6.1 prints none for IPV6_RECVERR).
type Cmsg struct {
	Level string  `json:"level"`
	Type  string  `json:"type"`
	Ext   *ExtErr `json:"ext,omitempty"`
}

// Recv is recv, recvfrom or recvmsg. Len is the buffer size asked for, a
// size_t (the saturating sum of the iov lengths for recvmsg, whose Iov
// lists them), Flags the call's flags, ErrQueue whether MSG_ERRQUEUE
// (0x2000) is among them, Cmsgs the control messages received. Abbrev,
// when set, says why a recvmsg's lengths are not known, as for [Send].
type Recv struct {
	Header
	Fd       int      `json:"fd"`
	Len      uint64   `json:"len"`
	Iov      []uint64 `json:"iov,omitempty"`
	Abbrev   string   `json:"abbrev,omitempty"`
	Flags    []string `json:"flags,omitempty"`
	ErrQueue bool     `json:"errqueue,omitempty"`
	Cmsgs    []Cmsg   `json:"cmsgs,omitempty"`
}

// Close is close(fd).
type Close struct {
	Header
	Fd int `json:"fd"`
}

// Shutdown is shutdown(fd, how).
type Shutdown struct {
	Header
	Fd  int    `json:"fd"`
	How string `json:"how"`
}

// Limit is one resource limit value; Infinity stands for
// RLIM_INFINITY / RLIM64_INFINITY and then Value is 0.
type Limit struct {
	Value    uint64 `json:"value,omitempty"`
	Infinity bool   `json:"infinity,omitempty"`
}

// Rlimits is a soft and hard limit pair.
type Rlimits struct {
	Cur Limit `json:"cur"`
	Max Limit `json:"max"`
}

// Rlimit is prlimit64(pid, resource, new, old) or setrlimit(resource,
// new); New is nil when the call only reads (prlimit64 with NULL), Old is
// what prlimit64 reported back.
type Rlimit struct {
	Header
	Pid      int64    `json:"target_pid,omitempty"`
	Resource string   `json:"resource"`
	New      *Rlimits `json:"new,omitempty"`
	Old      *Rlimits `json:"old,omitempty"`
}

// Ignored is a call zcsim does not model, or one it could not decode
// (Reason says why). A report lists them by name.
type Ignored struct {
	Header
	Name   string `json:"name"`
	Reason string `json:"reason,omitempty"`
}
