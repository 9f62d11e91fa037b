// Package replay replays strace logs of real programs on the model: it
// maps every decoded call ([strace.Decode]) onto one sim.World, predicts
// each call's result and each error-queue read from the model alone, and
// reports where the model and the log disagree. The log's results are
// used only for comparison.
//
// # Model
//
// One World runs the default profile (linux-6.18) or [Options.Profile].
// The traced program is one task, "main", of uid 1000, without
// CAP_IPC_LOCK unless [Options.CapIPCLock], with the profile's
// RLIMIT_MEMLOCK; [Options.OptmemMax] sets net.core.optmem_max. Every
// traced socket uses one loopback device, the path of 127.0.0.1 and ::1,
// with loopback's MTU of 65536 or [Options.MTU] (the log does not show
// the MTU, which sets the MSS: tcp_mmap's selftest runs at 49204).
//
// Sockets are followed by fd number in one descriptor table per process
// (files_struct): fork, vfork, clone and clone3 give the child a copy of
// its parent's (copy_files), or share it with CLONE_FILES; a pid whose
// creation the log does not show shares the log's first table. dup, dup2,
// dup3 and fcntl(F_DUPFD) alias a descriptor; close, close_range and a
// process's exit drop descriptors, and the model socket closes with its
// last one (filp_close). A successful execve closes the descriptors
// marked close-on-exec (SOCK_CLOEXEC, O_CLOEXEC, F_DUPFD_CLOEXEC, F_SETFD,
// CLOSE_RANGE_CLOEXEC; do_close_on_exec). A socket(2) creates a model socket named "fdN"
// (then "fdN#2", ... when the number is reused); calls on descriptors the
// replay does not follow (files, pipes, netlink) are listed as ignored.
//
// Both ends of a loopback connection are often traced. A TCP client that
// connects (a non-blocking connect's EINPROGRESS included) to the port of a traced listener (learnt from bind, getsockname
// or, when the log never shows it, any traced listener) is paired with the
// next accept on it: the accepted fd is the client's implicit peer
// (sim.World.AcceptFrom), so reads there return what the client sent. That
// peer is set up as the listener's child before the handshake
// (sock.Sock.CloneFrom, sk_clone_lock): the listener's buffer sizes give
// the window its SYN-ACK offers. The replay keeps where the client's
// sends ended (stream), so a read that ends there is explained even where
// the model's segments run across it. A
// client of an untraced server gets a peer that reads everything. A
// datagram socket bound to the address a traced sender sends to reads the
// datagrams that land on the sender's implicit peer.
//
// # Mapping
//
//	socket                         World.NewSocket (a successful socket keeps the traced fd number)
//	socketpair                     its descriptors are not followed (AF_UNIX only)
//	setsockopt, getsockopt         World.Setsockopt/Getsockopt for the options package kernel names
//	TCP_CONGESTION                 World.SetsockoptName/GetsockoptName of the name (congestion: strace prints a 4-byte buffer as an int)
//	getsockopt TCP_INFO            World.GetsockoptBuf, compared on the model's fields strace's bytes show (tcpInfo)
//	bind, connect, listen          World.Bind/Connect/Listen
//	accept, accept4                World.AcceptFrom, World.Accept, or World.AcceptFallback on an MPTCP listener
//	send, sendto, sendmsg, write   World.Send (iovec lengths, flags)
//	writev, sendfile               World.Send (sendfile: what it returned, at most its count)
//	sendmmsg                       one World.Send per printed message
//	recv, recvfrom, recvmsg, read  World.Recv, or World.Recvmsg with MSG_ERRQUEUE
//	getsockopt TCP_ZEROCOPY_RECEIVE World.ZerocopyReceive (see zcRecv: the request's length and the control buffer's are inferred)
//	mmap, munmap                   World.Mmap/Munmap of a followed socket; the mapping is kept by address
//	close, shutdown                World.Close/Shutdown
//	poll, ppoll                    World.PollSet of the followed sockets, guided (poll)
//	select, pselect6               World.Select of the followed sockets, guided as poll is, on the sets each is left in (selectSyscall)
//	epoll_create, epoll_create1    World.EpollCreate, compared as socket is: the descriptor refers to the instance (dup, fork and close follow it)
//	epoll_ctl                      World.EpollCtl on a followed socket; the interest list by file and fd, with each item's data
//	epoll_wait, epoll_pwait(2)     World.EpollWait of the instance, guided (epollWait)
//	prlimit64, setrlimit           World.Setrlimit of RLIMIT_MEMLOCK; an old limit read back is compared
//
// MPTCP sockets (socket(IPPROTO_MPTCP)) are followed as far as the model
// knows their answers: creation, socket options (sim.World.Setsockopt,
// mptcp_setsockopt), bind, MSG_ERRQUEUE reads (always empty:
// mptcp_sendmsg drops MSG_ZEROCOPY) and close are replayed; a socket the
// log shows refused with ENOPROTOOPT agrees under the assumption that
// net.mptcp.enabled is 0 (mptcpEnabled). Their listen, connect, accept,
// sends, sendfile, reads of data, shutdown and poll are undetermined, as
// are the calls on an MPTCP listener's child and the reads of a TCP
// socket whose far end is MPTCP (mptcp.go): the model has no MPTCP data
// path (subflow scheduling, MPTCP-level ACKs, fallback). A traced plain
// TCP client of a traced MPTCP listener is paired with its accept, whose
// child is the TCP subflow (World.AcceptFallback): that connection is
// replayed as TCP.
//
// Every other call, an option the model does not know and any call on an
// unfollowed fd is counted in [Report.Ignored]; a call on a descriptor the
// log never created (a capture that starts mid-run) in
// [Summary.Unreplayed], with a note listing the descriptors.
//
// Before the model sees a call's buffers, their size_t lengths go through
// the kernel's syscall-entry checks (import_ubuf's clamp to MAX_RW_COUNT,
// vfs_write's access_ok, __copy_msghdr's UIO_MAXIOV, copy_iovec_from_user's
// SSIZE_MAX, __import_iovec's access_ok); an errno of those checks is the
// prediction.
//
// # Observation
//
// The log of one process does not show when the rest of the system did
// its work: the peer's ACKs and reads, softirq, TX completions, timers.
// Reads are guided by what the log observed: an error-queue read
// (errRead) through the replay's view of each error queue (errView),
// which holds back ids the kernel had not completed yet; a read of data
// (guideRead) takes only the segments that had arrived, or none; and the
// model's pending work may run ahead of its clock (runAhead). A zerocopy
// send is guided by what the reads have not reported yet (heldUargs): an
// ENOBUFS the model would not give is explained when the uargs of unread
// ids (a sendmmsg's messages included), not yet completed in the kernel,
// still held the optmem or pages the model gave back (pages: of every
// traced socket, as RLIMIT_MEMLOCK bounds the user's locked_vm); a send the model would refuse is explained when
// its pending work, run ahead, completes sends in time. A non-blocking TCP
// send is guided by what the reads have not shown acknowledged
// (unackedSends): an EAGAIN the model would not give is explained when
// what the sends since the last acknowledged one charged to
// sk_wmem_queued fills sk_sndbuf (their ACKs had not arrived); a send the
// model would make wait (tcp.Conn.SendWouldWait) is explained when its
// pending ACKs, run ahead, free the buffer in time. A
// getsockopt(TCP_ZEROCOPY_RECEIVE) tells what the kernel had queued
// (length + copybuf_len + inq, zcArrival): the model's pending work
// (paced transmissions, ACKs) runs ahead until it has as much, and when
// it has more, the call agrees if only the model's last segments had not
// arrived yet: they stay queued. A blocking TCP send that returned fewer
// bytes than asked was cut short (a signal, SO_SNDTIMEO, an error after
// some data: cutSend); the model sends what it returned. A
// getsockopt(TCP_INFO) is compared on the fields the model keeps that
// strace's 32 bytes show (tcpInfo): segments in flight and the state
// hang on when the peer's ACKs came, the persist and RTO expiries on
// timers, so more in flight than the model (as many more as its peer
// acknowledged at most) or fewer expiries agree under that assumption,
// and the model's pending work runs ahead for the rest. A zerocopy
// send of several iovecs rests on where they lie in user memory, which
// strace does not show: the model lays them back to back (with
// ZerocopyCombinePages one iovec then extends the frag of the one
// before), so such a send agrees under that assumption (backToBack),
// and a note lists the lines it applied to, as the later calls on that
// socket rest on it too. A connected UDP socket's ECONNREFUSED the model would not give is explained when
// its untraced receiver had gone before its last datagram (peerGone): the
// model's peer is closed from then on. A call agrees
// under an assumption the report states whenever some schedule explains
// it; it diverges only when none does.
//
// # Sleeping calls
//
// strace -f prints a call that another pid's line interrupted in two
// halves, "<unfinished ...>" and "<... name resumed>", the other pids'
// calls between them. A blocking send on a followed TCP socket starts at
// its unfinished line (strace.Item.Start, startSend), with the arguments
// strace printed on entry, as a Background call (sim.Asleep): it queues
// what the send buffer takes and sleeps in sk_stream_wait_memory, the
// calls logged after it run while it sleeps, and after every step it goes
// on if the kernel's would have been woken (a wakeup of its wait queue:
// sk_stream_write_space once the queue is writeable, sk_error_report for
// a zerocopy notification; then sk_stream_memory_free) to queue more. It completes
// at its resumed line (resumeSend) with the result the kernel gave: the
// model's result when its call had returned; else its pending work runs
// ahead until it returns (an assumption); with nothing left to wake it,
// the kernel's send buffer was larger (growSndbuf: tcp_sndbuf_expand from
// a congestion window the log does not show, one segment more at a time
// up to tcp_wmem[2]; diverge beyond), and with it the call, which would
// not have slept, goes on without a wakeup. A blocking send that strace
// printed whole and the kernel returned whole, asleep in the model with
// nothing left to wake it, is explained the same way. A send that
// cannot sleep (MSG_DONTWAIT, O_NONBLOCK) starts at its unfinished line
// too when the log shows it took its whole buffer (survey.whole) and the
// model's send buffer has room for it whatever its layout (roomFor): it
// ran somewhere between its halves, and a call between them (another
// thread's read or epoll_wait of the peer) may show its data there. A send that returned part of its
// buffer had its wait ended by a signal or SO_SNDTIMEO: the survey reads
// every result first (survey.cuts), so its call starts with what it
// queued. A split send the replay guides by its result (a zerocopy send
// the model would refuse, abbreviated buffers, control messages,
// sendfile) runs at its resumed line.
//
// A blocking read of data on a TCP or datagram socket (recv, recvfrom,
// recvmsg, read, without MSG_WAITALL), an accept, a poll, a select
// or an epoll_wait with a timeout and a blocking TCP connect sleep from
// their unfinished line too (startWait): the survey keeps each such
// split call whole (survey.waits, the first maxSplit), and the replay
// runs it, after whichever call of another pid makes it so, as soon as
// what the log shows it returned is there in the model (ready: the
// bytes a TCP read returned, the FIN of one that returned 0, a datagram
// for a datagram read (__skb_wait_for_more_packets wakes with the
// first), a traced client queued for the accept, the events a poll or
// an epoll_wait returned, the sets a select left its sockets in; a connect at once, as it sends its SYN before
// it sleeps), so that what it does is there for
// the calls after it and it takes what had arrived when it woke (a
// woken reader takes what is queued when it runs, which may be more
// than the wakeup brought). A call that cannot sleep (MSG_DONTWAIT,
// O_NONBLOCK, a zero timeout), or that finds what it returned at its
// first line, ran somewhere between its halves, and runs at its resumed
// line, as does one whose result is not there before it. Past the first
// maxSplit split calls of each kind (the survey's memory would grow with
// the log: some 1.8 KB a call) the rest run at their resumed lines; a
// note says from which line on, and a send among them that returned
// part of its buffer, started whole, is undetermined.
//
// # Time
//
// Between two replayed calls the network settles (sim.World.Settle),
// unless the log has timestamps (-t, -tt, -ttt or -r): then virtual time
// advances by the real gap between the two calls and the network runs
// only that far (sim.World.Advance), so a delayed ACK still pending in the
// real run is still pending in the model. A -r time counts from the line
// before, whichever pid printed it: the parser sums them over every line
// (strace.Time.Since), so -r places calls, their halves included, as
// -tt does. A call strace split is at its resumed line's time; a
// sleeping call woken from its first line (startWait) at the time of
// the call that woke it. A send that sleeps in the model past its resumed
// line, or that a call runs whole, runs the network until it returns; the
// log's next gap holds that time again, so it is taken off the next gaps
// as the time runAhead ran is.
//
// # Comparison
//
// Observed and predicted results are rendered alike ("4096", "-1 ENOBUFS",
// "0 zerocopy [0,4] COPIED", "0 [1]" for a getsockopt) and must be equal.
// An error-queue read compares the whole sock_extended_err. strace 6.1
// prints no cmsg data for IPV6_RECVERR; such reads are compared on the
// return value only, and the report says so ([Call.Compared] and a note).
// A divergence carries the model's reason ([Call.Why]): the send's
// msg_zerocopy_alloc/realloc outcome ("mm_account_pinned_pages failed"),
// or the model's event for the call.
//
// Where the model notes that a connection's receive buffer may have
// grown otherwise in the kernel (tcp_rcv_space_adjust's RTT gate runs on
// wall-clock microseconds: kernel.OpRcvbufUndetermined), a later call on
// that connection whose result hangs on the buffer (data calls, polls,
// selects and epoll_waits, SO_RCVBUF and zerocopy receives read back) is
// undetermined rather than a divergence.
//
// # Verdicts
//
// Each call is [Agree], [Assumed] (with [Call.Assumption]), [Diverge] or
// [Undetermined]. Undetermined calls
// say why ([Call.Why]) and are either not run ("not replayed") or run on
// an assumption the reason states: a call strace shows without a result
// (ERESTART* of a signal, "= ?", unfinished), an argument strace
// abbreviated ({...}, a cut iovec array: a successful send is then run as
// one buffer of the observed length, to keep the model's state), a length
// whose answer depends on the buffer's address, a call over
// [Options.MaxCallBytes], a port the log does not show (an accept paired
// with a client whose connect cannot be tied to the listener's port; a
// datagram read, with nothing the model delivered, on a socket of unknown
// port), a bind that failed with EADDRINUSE (the model has no ports; the
// holder may be outside the log). [Report.OK] holds when nothing diverges,
// no invariant broke and at least one call agrees, plainly or under an
// assumption: a replay that checked nothing is no success.
//
// # Invariants and historical bugs
//
// The World checks its invariants after every step (sim.World, package
// check); each violation it reports is listed in [Report.Violations] with
// the log line it broke during and the step, and counted in
// [Summary.Violations]. Once the log is replayed, the network settles and
// the World's check at quiescence (sim.World.CheckQuiescent: leaks,
// charges, every id notified) runs, its findings reported at the last
// line read ([EndOfLog]). [Options.Bugs] switches historical kernel bugs
// on (kernel.Profile.Switch), so that a log reproduces one: the broken
// invariant is the bug's symptom the catalog (package bugs) names.
//
// # Environment
//
// A first read of the log (surveyLog) checks every line and collects
// what it shows of the machine: RLIMIT_MEMLOCK read back before it is set,
// CAP_NET_ADMIN from an SO_SNDBUFFORCE or SO_RCVBUFFORCE result, root
// from geteuid() = 0. Each sets the setting of [Options] the caller did
// not fix ([Options.Fixed]) and is listed in [Config.Inferred] with its
// line.
//
// # Streaming
//
// The log is read line by line ([strace.Scanner]) twice, the survey and
// the replay: an input error anywhere stops the replay before anything is
// written, and what the log shows of the machine anywhere sets the model
// up before its first call, so the survey ends before the replay starts,
// and keeping the calls between the two would make memory grow with the
// log. Each read parses a line of a program's loop at most twice and
// decodes it once (the Scanner's memory of recent lines, bounded). With
// [Options.Out] the report is written as it is made and
// [Report.Calls] stays empty, and the lists after the calls keep the
// first [MaxListed] calls of each verdict, so memory does not grow with
// the log. The model's trace goes to a sink that keeps only its last call
// event, the reason of a divergence, and hands its violations to the
// report, which keeps the first MaxListed.
//
// # Errors
//
// A log strace.Parse or strace.Decode rejects is an error naming
// file:line:col (a *strace.ErrorList); nothing is replayed or written. A
// last line cut mid-way (no line end) is not an error: the replay stops
// before it, with a note. Replay never
// panics, its verdict counts add up and two replays of one log print the
// same bytes (FuzzReplay).
package replay
