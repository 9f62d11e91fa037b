package scenario

// Stmt is one statement of a scenario: one of the pointer types of this
// package (*Profile, *Send, *Comment, …). Every statement embeds a [Line].
type Stmt interface {
	// Pos returns the position of the statement's keyword.
	Pos() Pos
	// Expectation returns the outcome written after "=>", or the zero
	// Outcome.
	Expectation() Outcome
	line() *Line
}

// Line holds what every statement has: the position of its keyword, the
// expectation after "=>", the text of a trailing "#" comment, and whether
// blank lines preceded it (Format keeps one blank line there, so paragraphs
// survive formatting).
type Line struct {
	At      Pos
	Want    Outcome
	Comment string
	Gap     bool
}

// Pos returns the position of the statement's keyword.
func (l *Line) Pos() Pos { return l.At }

// Expectation returns the outcome written after "=>".
func (l *Line) Expectation() Outcome { return l.Want }

func (l *Line) line() *Line { return l }

// Comment is a line holding only a "#" comment. Text is what follows "#",
// trimmed of blanks.
type Comment struct {
	Line
	Text string
}

// Note is "note TEXT": a narration line the run prints in its timeline.
// Text is the rest of the line up to a "#" comment, trimmed of blanks; "=>"
// in it is text, not an expectation.
type Note struct {
	Line
	Text string
}

// Profile is "profile NAME": run under the named kernel profile. At most one,
// before every other statement.
type Profile struct {
	Line
	Name Ident
}

// Bug is "bug NAME": switch on a named historical kernel bug in the profile.
type Bug struct {
	Line
	Name Ident
}

// Sysctl is "sysctl KEY VALUE...": set a sysctl such as net.core.optmem_max
// (one value) or net.ipv4.tcp_wmem (three values: min, default, max).
type Sysctl struct {
	Line
	Key    Ident
	Values []Value
}

// User is "user NAME uid=N": a user_struct, the holder of locked_vm.
type User struct {
	Line
	Name    Ident
	Options Options // uid (required)
}

// Task is "task NAME user=USER [memlock=SIZE|unlimited] [cap_ipc_lock]": a
// process with credentials, an RLIMIT_MEMLOCK and maybe CAP_IPC_LOCK.
type Task struct {
	Line
	Name    Ident
	Options Options // user (required), memlock, cap_ipc_lock, cap_net_admin, hugepages
}

// Device is "device NAME KIND [options]": a network device of KIND nic,
// loopback or tun.
type Device struct {
	Line
	Name    Ident
	Kind    Ident
	Options Options // sg, csum, gso, tso, gso_max_size, mtu, delay, loss, txcomplete
}

// Tap is "tap NAME on=DEVICE [delay=DUR]": a packet socket (tcpdump)
// attached to a device, which clones every skb the device transmits and
// reads each copy after DUR (at once when not given).
type Tap struct {
	Line
	Name    Ident
	Options Options // on (required), delay
}

// Socket is "socket NAME FAMILY TYPE [PROTOCOL] [options]": socket(2).
// Protocol is zero when not given, else a symbol (a ValueWord) or a number.
type Socket struct {
	Line
	Name     Ident
	Family   Ident
	Type     Flags
	Protocol Value
	Options  Options // via, task, peer_ack, peer_rcvbuf, peer_read
}

// Setsockopt is "setsockopt S LEVEL OPTNAME VALUE": setsockopt(2). VALUE is
// a number (Value), for SO_TIMESTAMPING a "|"-union of SOF_TIMESTAMPING_*
// names (Flags, with Value zero), and for PACKET_TX_RING a struct
// tpacket_req "[BLOCK_SIZE, BLOCK_NR, FRAME_SIZE, FRAME_NR]" (Req; a
// number there is an int too short for the struct: EINVAL).
type Setsockopt struct {
	Line
	Sock  Sock
	Level Ident
	Opt   Ident
	Value Value // may be negative: Value.Int
	Flags Flags
	// Options describe the buffer: optlen=N (an int's 4 bytes when
	// absent; may be negative), null (optval is NULL).
	Options Options
	// Req is PACKET_TX_RING's struct tpacket_req.
	Req []Value
}

// Getsockopt is "getsockopt S LEVEL OPTNAME": getsockopt(2); its outcome is
// the option's value.
type Getsockopt struct {
	Line
	Sock  Sock
	Level Ident
	Opt   Ident
	// Options describe the buffer, as Setsockopt's do; for
	// TCP_ZEROCOPY_RECEIVE also the struct: length=, copybuf=, offset=,
	// flags=, msg_flags=, reserved=, control=.
	Options Options
}

// Connect is "connect S": connect(2) to the socket's implicit peer.
type Connect struct {
	Line
	Sock Sock
}

// Listen is "listen S [backlog=N]": listen(2) with backlog N, or
// DefaultBacklog without one.
type Listen struct {
	Line
	Sock    Sock
	Options Options // backlog
}

// DefaultBacklog is the backlog a listen statement without backlog=
// passes, the one packetdrill's scripts and the kernel's selftests
// write: listen(fd, 1).
const DefaultBacklog = 1

// Backlog returns the backlog the statement passes to listen(2).
func (s *Listen) Backlog() int64 {
	if o, ok := s.Options.Lookup("backlog"); ok {
		return o.Value.Int()
	}
	return DefaultBacklog
}

// Accept is "accept S NEWNAME": accept(2), naming the new socket.
type Accept struct {
	Line
	Sock Sock
	New  Ident
}

// Bind is "bind S [proto=N] [dev=DEVICE]": bind(2) to the socket's
// implicit local address; for a packet socket, to protocol N (0 or left
// out: the socket's) and DEVICE (left out: every device).
type Bind struct {
	Line
	Sock    Sock
	Options Options // proto, dev
}

// Shutdown is "shutdown S HOW": shutdown(2) with SHUT_RD, SHUT_WR or
// SHUT_RDWR.
type Shutdown struct {
	Line
	Sock Sock
	How  Ident
}

// Close is "close S": close(2).
type Close struct {
	Line
	Sock Sock
}

// Send is "send S LEN FLAGS": send(2) of LEN bytes.
type Send struct {
	Line
	Sock  Sock
	Len   Value
	Flags Flags
}

// Sendto is "sendto S LEN FLAGS": sendto(2) of LEN bytes to the socket's
// implicit peer address.
type Sendto struct {
	Line
	Sock  Sock
	Len   Value
	Flags Flags
}

// Sendmsg is "sendmsg S [LEN, ...] FLAGS {cmsg LEVEL TYPE VALUE [len=N]}
// [zc_info=N [zc_len=BYTES]] [iov=packed|apart]": sendmsg(2) with one
// iovec of each length and the control messages Cmsgs, in order. With
// zc_info it also carries, last, an SCM_ZC_NOTIFICATION control message
// (the unmerged v7 series) whose struct zc_info has room for N
// completions; zc_len overrides the cmsg data length, 4 + 12×N when not
// given. The iovecs lie back to back in one page-aligned buffer, or with
// iov=apart each at the start of a page of its own (IovApart).
type Sendmsg struct {
	Line
	Sock    Sock
	Iov     []Value
	Flags   Flags
	Cmsgs   []Cmsg
	Options Options // zc_info, zc_len, iov
}

// Sendmmsg is "sendmmsg S [LEN, ...] [LEN, ...] ... FLAGS": sendmmsg(2), one
// message per bracketed iovec list.
type Sendmmsg struct {
	Line
	Sock  Sock
	Msgs  [][]Value
	Flags Flags
}

// Recvmsg is "recvmsg S FLAGS [control=N]": recvmsg(2); with MSG_ERRQUEUE
// it reads one error-queue record.
type Recvmsg struct {
	Line
	Sock  Sock
	Flags Flags
	// Options: control=N, the msg_controllen of the read (room for any
	// record when absent).
	Options Options
}

// Recv is "recv S LEN [FLAGS]": recv(2) of at most LEN bytes.
type Recv struct {
	Line
	Sock  Sock
	Len   Value
	Flags Flags
}

// Poll is "poll S EVENTS [TIMEOUT]": poll(2) of S for a union of POLL*
// events, waiting at most TIMEOUT (0 when absent).
type Poll struct {
	Line
	Sock    Sock
	Events  Flags
	Timeout Value
}

// Setrlimit is "setrlimit TASK RESOURCE LIMIT": setrlimit(2) of
// RLIMIT_MEMLOCK to a size or unlimited (a ValueWord).
type Setrlimit struct {
	Line
	Task     Ident
	Resource Ident
	Limit    Value // the soft limit
	// Max is the hard limit, zero to keep the task's.
	Max Value
}

// Capdrop is "capdrop TASK CAP": remove a capability from the task.
type Capdrop struct {
	Line
	Task Ident
	Cap  Ident
}

// Capset is "capset TASK CAP": grant a capability to the task.
type Capset struct {
	Line
	Task Ident
	Cap  Ident
}

// Wait is "wait DUR": let virtual time pass, running due events.
type Wait struct {
	Line
	Dur Value
}

// Settle is "settle": run the network until no event is pending.
type Settle struct {
	Line
}

// Hold is "hold S DIR": stop delivery on S's path in direction data or ack.
type Hold struct {
	Line
	Sock Sock
	Dir  Ident
}

// Release is "release S DIR": resume delivery held by Hold.
type Release struct {
	Line
	Sock Sock
	Dir  Ident
}

// Drop is "drop S DIR [N]": drop the next N segments (default 1) on S's path
// in direction data or ack. Count is zero when not given.
type Drop struct {
	Line
	Sock  Sock
	Dir   Ident
	Count Value
}

// Complete is "complete DEVICE [N]": finish N pending transmits of the
// device (default all). Count is zero when not given.
type Complete struct {
	Line
	Device Ident
	Count  Value
}

// Txerror is "txerror DEVICE [N]": the driver fails the next N pending
// transmits of the device (default all): skb_tx_error, then the skb is
// freed. Count is zero when not given.
type Txerror struct {
	Line
	Device Ident
	Count  Value
}

// VhostSend is "vhost_send DEVICE LEN [options]": a vhost-net guest
// transmits LEN bytes through a tun device into the host stack, which sends
// them out of DEVICE as one GSO skb whose frags are the guest's pinned
// pages under a legacy ubuf (handle_tx_zerocopy, tun_sendmsg).
type VhostSend struct {
	Line
	Device  Ident
	Len     Value
	Options Options // gso_size
}

// Fault is "fault SITE RULE": arm a named fault site. Rule is kept as text
// ("always", "never", "nth=3", "from=2", "next=1", "p=0.25") for the
// simulator to validate.
type Fault struct {
	Line
	Site Ident
	Rule Ident
}

// Zckey is "zckey S N": set the socket's sk_zckey to N, as if N zerocopy
// sends had already happened on it; the shortcut a lesson on the 2^32 wrap
// needs.
type Zckey struct {
	Line
	Sock  Sock
	Value Value
}

// Mmap is "mmap S [LEN] [PROT]": mmap(2) of a packet socket's ring, or of
// LEN bytes of a TCP socket for zerocopy receive. LEN is zero when absent
// (the ring's size, one page on TCP); PROT is a union of PROT_* flags,
// PROT_READ|PROT_WRITE when absent.
type Mmap struct {
	Line
	Sock Sock
	Len  Value
	Prot Flags
}

// Munmap is "munmap S": munmap(2) of the ring's mapping.
type Munmap struct {
	Line
	Sock Sock
}

// Txframe is "txframe S I LEN": the program writes LEN bytes into TX ring
// frame I through the mapping and sets its tp_status to
// TP_STATUS_SEND_REQUEST.
type Txframe struct {
	Line
	Sock       Sock
	Frame, Len Value
}

// Txstatus is "txstatus S I": the program reads frame I's tp_status; its
// outcome is the status (0 AVAILABLE, 1 SEND_REQUEST, 2 SENDING, 4
// WRONG_FORMAT).
type Txstatus struct {
	Line
	Sock  Sock
	Frame Value
}

// Txskew is "txskew S N CPU": set S's per-CPU TX ring pending counters
// as if N frames had been sent on its task's CPU and completed on CPU: the
// shortcut a lesson on wrapped counters needs.
type Txskew struct {
	Line
	Sock   Sock
	Frames Value
	CPU    Value
}

// Migrate is "migrate TASK CPU": sched_setaffinity moves the task to CPU.
type Migrate struct {
	Line
	Task Ident
	CPU  Value
}

// Expect is "expect S key=value ...": check the socket's state (zckey,
// optmem, wmem, errqueue, locked_vm, refcnt, …). Keys and word values are
// validated by the simulator. Notified, unless zero, is the check
// notified=[LO,HI] among them.
type Expect struct {
	Line
	Sock     Sock
	Checks   Options
	Notified IDs
}

// IDs is "notified=[LO,HI]" in an expect statement: the ids whose
// completion the program has received on the socket so far, across every
// record it read, are exactly LO to HI (HI < LO when they wrapped at
// 2^32), each once, however the kernel split them into records. Lo and Hi
// are ids, numbers at most 0xffffffff or expressions; Pos is the key's.
type IDs struct {
	Pos    Pos
	Lo, Hi Value
}

// IsZero reports whether ids is absent.
func (ids IDs) IsZero() bool { return ids.Lo.IsZero() }

// String renders ids as "[lo,hi]", each bound as written.
func (ids IDs) String() string { return "[" + ids.Lo.Text + "," + ids.Hi.Text + "]" }

// SockOf returns the socket a statement acts on, if it acts on one.
func SockOf(st Stmt) (Sock, bool) {
	switch s := st.(type) {
	case *Setsockopt:
		return s.Sock, true
	case *Getsockopt:
		return s.Sock, true
	case *Connect:
		return s.Sock, true
	case *Listen:
		return s.Sock, true
	case *Bind:
		return s.Sock, true
	case *Shutdown:
		return s.Sock, true
	case *Accept:
		return s.Sock, true
	case *Close:
		return s.Sock, true
	case *Send:
		return s.Sock, true
	case *Sendto:
		return s.Sock, true
	case *Sendmsg:
		return s.Sock, true
	case *Sendmmsg:
		return s.Sock, true
	case *Recvmsg:
		return s.Sock, true
	case *Recv:
		return s.Sock, true
	case *Poll:
		return s.Sock, true
	case *Hold:
		return s.Sock, true
	case *Release:
		return s.Sock, true
	case *Drop:
		return s.Sock, true
	case *Zckey:
		return s.Sock, true
	case *Mmap:
		return s.Sock, true
	case *Munmap:
		return s.Sock, true
	case *Txframe:
		return s.Sock, true
	case *Txstatus:
		return s.Sock, true
	case *Txskew:
		return s.Sock, true
	case *Expect:
		return s.Sock, true
	case *Inject:
		return s.Sock, true
	case *EpollCtl:
		return s.Sock, true
	case *Fcntl:
		return s.Sock, true
	}
	return Sock{}, false
}
