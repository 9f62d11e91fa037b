// Package strace reads strace(1) text logs for zcsim's replay importer.
//
// It has two layers. [Parse] turns the text into a [Log]: a list of [Call]
// records, each with its source line numbers, pid, timestamp, a generic
// [Value] tree for the arguments, the [Result] and the -T duration, plus
// the [Note] lines (signals, exits, strace's own messages). [Decode] then
// recognises the calls zcsim models and turns each into a typed [Op]
// (*Socket, *Send, *Recv with its decoded sock_extended_err, ...); all
// other calls become *Ignored with their name, and [IgnoredNames] lists
// them for a report. Names stay strings ("SOL_SOCKET", "SO_ZEROCOPY",
// "MSG_ZEROCOPY"); mapping them to kernel constants is the replay layer's
// job.
//
// # Accepted input
//
// Any mix of the output options people use when capturing a program:
//
//	-f        4007  sendto(...) = 4096           (-o FILE form)
//	          [pid  4023] sendto(...) = 4096      (stderr form)
//	-t        21:18:13 close(3) = 0
//	-tt       21:17:54.188243 close(3) = 0
//	-ttt      1795987092.696665 close(3) = 0
//	-r             0.000182 close(3) = 0          (seconds since the previous line)
//	-T        close(3) = 0 <0.000032>
//	-y, -yy   close(3<TCP:[127.0.0.1:41234->127.0.0.1:8000]>) = 0
//	-X raw    setsockopt(4, 0x1, 0x3c, [1], 4) = 0
//	-X verbose setsockopt(4, 0x1 /* SOL_SOCKET */, 0x3c /* SO_ZEROCOPY */, [1], 4) = 0
//
// A timestamp "N.frac" is read as -ttt when N is at least 10^8 seconds
// (after 1973) and as -r otherwise. strace -r prints each line's time
// since the line before, whichever pid printed it; [Time].Since sums
// them over every line (halves of unfinished calls and notes included)
// and [Time.At] gives a line's place in time in every form.
//
// Line forms:
//
//	name(args) = result [(comment)] [<duration>]
//	name(args <unfinished ...>                  first half, kept per pid
//	<... name resumed>rest of args) = result    joined to the first half
//	--- SIGPIPE {si_signo=SIGPIPE, ...} ---     Note, NoteSignal
//	+++ exited with 0 +++                       Note, NoteExit (also "killed by SIG")
//	strace: Process 4024 attached               Note, NoteMessage
//
// An unfinished call and its resumed half become one Call with both line
// numbers and the resumed line's time as End; the text of the two halves
// is joined and parsed as one line. Calls are listed in the order they
// completed, so a blocking accept that a connect on another thread
// unblocked comes after the connect. [Scanner.ReportStarts] also yields
// the first half of every unfinished call at its line ([Item].Start; a
// send's is decoded by [Decoder.Start] from the arguments strace prints
// on entry), so that a replay can start the call where it began. A call
// still unfinished when its process exits or the log ends gets a
// [ResultUnfinished] result and stands where the exit or the end is. A
// resumed half without a first half (a capture that starts mid-call) is
// kept with Orphan set. When strace writes to stderr, an "strace: Process
// N attached" message can cut a call line in two ("accept4(3, strace:
// Process 4024 attached" then " <unfinished ...>"); the parser splits off
// the message and joins the call with the next line.
//
// Argument values ([Kind]):
//
//	4096  -1  0x7ffc1062fb30  0644          KindInt
//	MSG_ZEROCOPY|MSG_DONTWAIT  S_IFREG|0644 KindFlags (names, numeric remainder)
//	NULL                                    KindFlags with the one name NULL
//	AT_FDCWD</home/u>                       KindFlags with its -y decoration in Decor
//	"abc"  "zzz"...  @"abstract"            KindString (C escapes decoded; ... sets Truncated)
//	[1]  [{...}, {...}]  [HUP INT]  [...]   KindArray (... is a KindOmitted element)
//	{msg_name=NULL, msg_iov=[...], ...}     KindStruct (ordered; unnamed members allowed)
//	htons(8000)  inet_addr("127.0.0.1")     KindMacro
//	8192*1024  sizeof(struct x)  &sin6_addr KindExpr (text kept; AsInt evaluates products)
//	3<socket:[12345]>                       KindFd (number and decoration)
//	28 => 0                                 KindInOut (entry and exit value)
//	0x3c /* SO_ZEROCOPY */                  any value; the comment is kept in Comment
//
// Results: "= 4096", "= 3<TCP:[5218]>", "= 0x7f5ed3c4e000", "= -1 EAGAIN
// (Resource temporarily unavailable)" ([ResultErrno]), "= ?"
// ([ResultUnknown]), "= ? ERESTARTSYS (To be restarted if SA_RESTART is
// set)" and the other ERESTART* codes of a call a signal interrupted
// ([ResultInterrupted]), each optionally followed by a parenthesised
// comment and a -T duration or "<unavailable>".
//
// # Errors
//
// Anything else (comments, garbage, a call cut off mid-line) is an
// [*Error] printed like net/netip's parse errors:
//
//	trace.log:12:9: expected "," or ")" after argument (at "= 0")
//
// with 1-based line and byte column. Parse and Decode report every error,
// up to [MaxErrors], in one [*ErrorList], keep everything that did parse,
// and never panic (FuzzParse checks this).
//
// # Decoded calls
//
// socket, socketpair, bind, listen, accept, accept4, connect, setsockopt,
// getsockopt, send, sendto, sendmsg, sendmmsg, write, writev and sendfile
// (a [Send] of their lengths), recv, recvfrom, recvmsg, close, shutdown,
// prlimit64, setrlimit and getrlimit, poll and ppoll ([Poll], with the
// revents strace lists after the result), select and pselect6 ([Select],
// with the sets strace lists after the result), epoll_create and epoll_create1
// ([EpollCreate]), epoll_ctl ([EpollCtl], with the event's data) and
// epoll_wait, epoll_pwait and epoll_pwait2 ([EpollWait], with the events
// strace prints on exit); and what the descriptor tables of a
// multi-process log need: dup, dup2, dup3 and fcntl's F_DUPFD and
// F_DUPFD_CLOEXEC ([Dup]), fcntl's F_SETFD ([SetFd]), fork, vfork, clone
// and clone3 ([Fork], with CLONE_FILES), close_range ([CloseRange]),
// execve and execveat ([Exec]); getsockopt(SOL_TCP, TCP_ZEROCOPY_RECEIVE)
// ([ZcRecv]: the struct's fields that strace's bytes show, through
// msg_control, msg_controllen, msg_flags and reserved under -s 64), mmap of a
// descriptor ([Mmap]; an anonymous one is ignored), munmap ([Munmap]) and
// read (a [Recv] without flags); the close-on-exec flag of each new
// descriptor (SOCK_CLOEXEC, O_CLOEXEC) is decoded with it. For recvmsg the
// control messages are decoded; an (SOL_IP, IP_RECVERR) or (SOL_IPV6,
// IPV6_RECVERR) message yields an [ExtErr] (struct sock_extended_err) read
// either from strace's struct form
//
//	cmsg_data={ee_errno=0, ee_origin=SO_EE_ORIGIN_ZEROCOPY, ee_type=0,
//	    ee_code=SO_EE_CODE_ZEROCOPY_COPIED, ee_info=0, ee_data=1, offender=...}
//
// (strace 6.1 prints ee_origin=5, ee_code=1) or from a hex form
// (cmsg_data="\x00\x00..." or an array of bytes: u32 ee_errno, u8 origin,
// u8 type, u8 code, u8 pad, u32 info, u32 data, little-endian). strace 6.1
// prints no cmsg_data at all for IPV6_RECVERR ("cmsg_type=0x19}"): the
// [Cmsg] is then kept with a nil Ext, so the replay knows a notification
// was read but not its range. For a zerocopy notification, [ee_info,
// ee_data] is the inclusive id range (Documentation/networking/msg_zerocopy.rst,
// the read side of __msg_zerocopy_callback and sock_recv_errqueue).
//
// For sendmsg an (SOL_SOCKET, SCM_ZC_NOTIFICATION) message (type 78, the
// unmerged v7 series; strace prints "0x4e /* SCM_??? */" or the name it
// knows for 78) yields a [ZcInfo]: the data length from cmsg_len and, when
// cmsg_data shows at least 4 bytes, the zc_info's size. strace decodes
// sendmsg on entry, so the log shows the program's request and never the
// completions the kernel wrote back. Every other control message of a
// sendmsg is a [SendCmsg] in Send.Control: its level and type as numbers
// (strace's names, kernel.LevelNames and kernel.CmsgTypeNames, or the hex
// it prints for a type it cannot name: "cmsg_type=0x67" for UDP_SEGMENT,
// "0x24 /* SCM_??? */" for SO_MARK; a name neither knows is kept as
// text), the data length from cmsg_len, and the data when strace printed
// it as bytes. strace 6.1 prints none for a type it has no decoder for
// (UDP_SEGMENT, SO_MARK, SO_PRIORITY, a 4-byte SO_TIMESTAMPING_OLD).
//
// A setsockopt's struct tpacket_req (PACKET_TX_RING, strace's
// {tp_block_size=4096, tp_block_nr=1, tp_frame_size=2048, tp_frame_nr=2})
// is decoded into OptValue.Req. The frames a program writes into the ring
// are memory, not calls: no log shows them.
//
// MSG_ZEROCOPY (0x4000000) and MSG_ERRQUEUE (0x2000) are recognised by
// name or by bit, so Send.ZeroCopy and Recv.ErrQueue are right under -X raw.
//
// # Example
//
//	log, err := strace.ParseFile("app.strace")
//	if err != nil {
//		return err // every bad line, file:line:col
//	}
//	ops, err := strace.Decode(log)
//	for _, op := range ops {
//		if s, ok := op.(*strace.Send); ok && s.ZeroCopy {
//			fmt.Println(s.Lines, s.Fd, s.Len, s.Result)
//		}
//	}
package strace
