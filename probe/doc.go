// Package probe holds the model to the live kernel: it runs a scenario
// through real sockets on the host's loopback and on the model, and
// compares what each answered, statement by statement.
//
// # Live run
//
// [Run] moves a locked OS thread into a new network namespace
// (unshare(CLONE_NEWNET)), brings lo up there and writes
// net.core.optmem_max and net.ipv4.ping_group_range there if the
// scenario sets them; the host's
// namespace and sysctls are never touched, and the thread is never
// unlocked, so it dies with its goroutine. The live runs of all the
// host's processes take turns (a lock file, flock): what a namespace does
// not separate — the host-wide receive timestamp switch
// netstamp_needed_key, the child user's locked_vm — would otherwise
// leak from one run into another. Each scenario socket is a real
// socket; its implicit peer "S.peer" is a real socket on 127.0.0.1 (::1
// for AF_INET6; 127.0.0.1 reached at ::ffff:127.0.0.1 for a socket made
// with mapped): for TCP a listener whose connection is accepted at
// connect (also after a non-blocking connect's EINPROGRESS), for UDP a
// bound receiver with the default receive buffer, as the model's. RAW sockets connect and send to 127.0.0.1 (::1), as
// the model's do, their peer too, which is a RAW socket of the same
// family and protocol; PF_PACKET and AF_UNIX sockets have neither. A
// TCP socket made with to=L has no peer of its own: its connect goes to
// L's port on loopback (the one L had, once L is closed), and accept on
// L pairs each connection with the client whose address it has. A listener's peer is its next client, a
// TCP socket made at listen and after each accept, as the model's is,
// and connected by connect S.peer or accept. Every peer is blocking.
//
// settle polls SIOCOUTQ of every stream socket (a datagram socket's
// counts a corked datagram, which waits for its sender; nothing else of
// it stays in flight over loopback; a TCP socket a reset closed, whose
// SIOCOUTQ tcp_ioctl still reports as write_seq - snd_una after tcp_done
// purged its queue, is skipped: tcp-settle-reset.zcs) until nothing is in flight twice
// in a row, for at most 500ms (loopback completes in microseconds, a
// delayed ACK in about 40ms); wait sleeps, at most 2s. A blocking recv
// (neither MSG_DONTWAIT nor on an O_NONBLOCK descriptor, whose read
// lets no time pass: tcp-more-inprogress.zcs, nor MSG_OOB, which never
// sleeps: recv-oob-nowait.zcs) that would wait settles
// first and then reads without blocking, as the model lets the network
// run until the socket is readable; one that finds data or the end of
// the stream (POLLIN, POLLHUP), or whose descriptor names nothing, reads
// at once and lets no time pass (tcp-read-at-once.zcs,
// tcp-zerocopy-merge.zcs). A blocking stream read that copies less than
// its target (all of it with MSG_WAITALL, else min(SO_RCVLOWAT, len))
// reads on as data arrives, as tcp_recvmsg sleeps in sk_wait_data, until
// nothing readable comes for 500ms, at most 2s (tcp-read-on.zcs). Every
// loop is bounded.
// Where the model's settle or wait lets the network run longer than that
// (a dropped SYN sent again for two minutes until the connect times
// out), or a call that sleeps longer than the live run's SO_SNDTIMEO
// (1s, below), nothing later on the pair whose event came late is
// compared: it is undetermined, the live run did not wait for it.
// A statement the model answers after one of its connection's TCP timers
// fired but before the kernel's timer wheel may have fired it
// (sim.Event.Assumes, tcp/doc.go "When a timer fires") is compared, under
// the assumption that the kernel's fired as early: the text lists it
// first ("assuming line N (statement): …"), marks it "ok~" where it
// agrees, and the summary counts it; [Stmt.Assumes] carries it in JSON.
//
// # Bounds: no scenario hangs a live run
//
// Every socket the run opens — the scenario's, their peers, the
// listeners behind them, a listener's clients — has SO_SNDTIMEO and
// SO_RCVTIMEO of 1s, so a connect or send (sock_sndtimeo) and an accept
// (sock_rcvtimeo) that would wait for ever return. A connect, accept or
// send that took that long was ended by the bound, not by the kernel
// alone (EINPROGRESS, EAGAIN, a partial count, where the model waits on):
// it is not compared (Obs.Cut, undetermined, "??"), nor is anything later
// on its socket. Beyond that, three bounds end the run itself
// with a timeout (Obs.Timeout, [Result.TimedOut], "time" in the text):
// a watchdog wakes a call that has not returned after 5s by shutting
// every socket of the run down (SHUT_RDWR wakes a sleeper in connect,
// accept, send or recv); the statements get 30s together, and one that
// would start later is not run; and an unprivileged child still running
// after 40s is killed (a call the shutdown does not wake, such as a
// close lingering under SO_LINGER, which the scenario language cannot
// set, is bounded so only in the child). The child writes each answer as it has it, one
// JSON line, so the answers before a kill are kept. The statement at the
// timeout is undetermined and nothing after it is compared; what was not
// run is listed as such.
//
// A scenario that drops CAP_IPC_LOCK or sets RLIMIT_MEMLOCK runs in a
// re-executed child (the same binary, [ChildEnv] set, started from the
// namespaced thread so it inherits the namespace) as uid and gid 65534
// ([Options.ChildUID] chooses another: locked pages are charged per
// user, so probes running at once as one uid share that account) with no
// capabilities; capdrop is then a no-op returning 0. Other
// scenarios run as the caller, which for a probe is root with
// CAP_IPC_LOCK: they must not depend on RLIMIT_MEMLOCK.
//
// # Plan: what the kernel runs, what it skips
//
// The kernel runs socket (through a loopback device, with no option but
// via=, peer_read=manual and ihl=, whose IP header byte starts every
// send buffer of the socket), setsockopt, getsockopt, connect, listen,
// accept (the child's peer is a client that connect S.peer, or else the
// accept itself, connected to the listener), send,
// sendto, sendmsg (its cmsg control messages laid out as a program does),
// sendmmsg (sendmmsg(2) itself), recvmsg (MSG_ERRQUEUE reads one record), recv (on a socket or
// its peer), shutdown, close, setrlimit and capdrop of the task main,
// settle, wait, and the sysctl of every key a network namespace has its
// own of (sock.SysctlKey.Netns: net.core.optmem_max and somaxconn, the
// net.ipv4.tcp_* keys; net.ipv4.ping_group_range only as a range with no
// group, or from 0 to at least 65534, so that every run's task is in it
// or none is) before the first socket, and a packet
// socket's TX ring: setsockopt PACKET_TX_RING with its tpacket_req, mmap,
// munmap, txframe (a write into the mapping) and txstatus (a read),
// epoll_create, epoll_ctl (the socket's descriptor as the event's data),
// epoll_wait (its events rendered "1 [s EPOLLERR]"; a wait for ever
// bounded by SO_SNDTIMEO's 1s), poll and fcntl. An error-queue read also
// decodes the msghdr it wrote (Obs.Msg) for the outcome's field checks. A
// packet socket is set to TPACKET_V2 and bound to lo when it is made, as
// the model's sends through its device without a bind.
// Every other statement the model acts on is skipped ([Skip], with why),
// and so is what a skip makes incomparable, in three degrees:
//
//   - no consequence: a profile line (the model runs the live kernel's
//     profile; the kernel is then not held to expectations written for
//     another), bug (the model runs without it: the live kernel has it
//     fixed), expect (model internals), user and task definitions, a
//     loopback device is nothing to skip at all;
//   - one socket spoilt: hold, release, drop, zckey, txskew and bind on S,
//     a socket with task=, peer_ack= or peer_rcvbuf=, or through a device
//     the host does not have (nic, tun), and every socket through a device
//     with a tap or driven by complete, txerror or vhost_send: nothing on
//     S or S.peer is compared from that statement on;
//   - everything spoilt: fault, accept (it renumbers descriptors), capset
//     (but capset main CAP_NET_ADMIN runs, as a no-op, when the kernel run
//     is root's, which has it),
//     repeat (the live run has no loops), any other sysctl or optmem_max
//     after a socket: the comparison stops there ([Result.StoppedAt]) and
//     every later statement is a skip.
//
// A statement whose result the model marks undetermined (an IP_HDRINCL
// send on a socket without ihl=: the kernel reads bytes the scenario does
// not show) runs on the kernel but is not compared, and is listed with
// the skips, why included, as undetermined (Skip.Undetermined, "??" in
// the text); after an undetermined send nothing later on its socket or
// its peer is compared, nor an epoll_wait of an epoll watching it, as
// whether and what it sent is unknown. So is, once the model's run says a connection's receive
// buffer may have grown on the kernel and not in the model (its socket's
// history notes tcp_rcv_space_adjust as undetermined: the kernel's gate
// is an RTT of wall-clock microseconds), what on that pair depends on the
// buffer — SO_RCVBUF, reads, zerocopy receives, poll, non-blocking sends,
// error-queue reads — from the next statement on. Likewise, once a BBR
// connection's history notes bbr_set_cwnd as undetermined (its window
// past TCP_INIT_CWND segments delivered follows wall-clock bandwidth and
// RTT estimates), what on that pair depends on the congestion window or
// the send buffer sized from it (cwndPairs: non-blocking sends, also on
// a SOCK_NONBLOCK or O_NONBLOCK socket, SO_SNDBUF, TCP_INFO, reads and
// error-queue reads, TCP_ZEROCOPY_RECEIVE, poll, an epoll_wait watching
// the pair; tcp-bbr-cwnd.zcs). Where the model merged
// two timestamped ACKs on a backlog that the kernel merges only when no
// millisecond began between them (its socket's history notes
// tcp_add_backlog as undetermined), the model runs again with the two
// apart, and a statement the two runs answer differently is undetermined,
// its reason naming both answers.
//
// A skipped socket or close still takes or frees its program descriptor,
// so later sockets get the model's numbers. Nothing in the plan depends
// on the kernel's answers; an unprivileged child plans the same way.
//
// On a system other than Linux, [Run], [Supported] and [Child] return
// [ErrNotLinux]; only the planning and the model side build there.
//
// # Model run and comparison
//
// The same source runs on interp.Run under linux-6.18 (or
// [Options.Profile]), with the host's net.core.rmem_max, wmem_max,
// rmem_default and wmem_default ([HostSysctl]) where they differ from the
// profile's: these are global, so the private namespace has the host's
// and cannot change them (read-only there, measured on Linux 6.18), and
// the kernel clamps SO_RCVBUF and SO_SNDBUF to them (sk_setsockopt). The
// probe reads them and never writes them; the header line names each one
// the model ran with ([Result.Host]; this machine has 4194304 for both
// maxima, where the kernel's default is 212992). Results are rendered as the scenario language
// writes outcomes ("4096", "-1 ENOBUFS", "zerocopy [0,3] copied",
// "timestamp SCM_TSTAMP_SND key=999", a getsockopt's value; a socket is
// the program's lowest free descriptor on both sides) and compared by
// line. The scenario's own "=>"
// expectations are checked against the kernel too ([Stmt.MeetsExpectation]).
//
// # Calibration
//
// testdata/*.zcs is the calibration suite: UDP and TCP sends, corking,
// zero-length sends, MSG_PEEK and zero-length reads (udp-peek.zcs,
// tcp-peek.zcs), a cork's probe timer (tcp-cork-probe.zcs), mixed copy
// and zerocopy sends, failing sends, sendmmsg's count (sendmmsg.zcs),
// MSG_ZEROCOPY without SO_ZEROCOPY, shutdown of every socket kind and what
// later sends and reads see, calls on closed descriptors, UDP to a closed
// port (ICMP errors and what they quote, icmp-quoted.zcs), RAW datagrams
// read back over loopback (raw-rcv.zcs), RAW ICMP and ICMPv6 messages
// too short for their header (raw-short.zcs), the implicit peer's file
// flags and a listener's client before it connects (peer-fd.zcs), the
// receive timestamps recvmsg writes on TCP, UDP and RAW and an accepted
// socket inherits, rendered after the length as the model renders them
// (recv-timestamp.zcs), the TCP segments a RAW IPPROTO_TCP socket reads
// (raw-tcp.zcs), when a zerocopy UDP datagram fragmented over loopback
// is notified (udp-frag-notify.zcs), a RAW socket's peer and the UDP
// datagrams and ICMP errors RAW sockets read (raw-peer.zcs), socket(2) across families, types and protocols,
// SO_ZEROCOPY on RAW, PF_PACKET and
// AF_UNIX, optmem exhaustion with TX timestamps between notifications,
// RLIMIT_MEMLOCK edges and setrlimit's own, option buffers and levels,
// error-queue reads into small control buffers and what they write into
// the msghdr per family, v4-mapped too (errqueue-cmsg.zcs), epoll's
// EPOLLERR per batch of completions under EPOLLET, level-triggered,
// EPOLLONESHOT and epoll_ctl's errors, and fcntl (epoll.zcs), the TCP receive window of
// a peer that does not read, TX ring setup, mapping, frame status and
// teardown, and the timing of loopback: notifications readable as a TCP
// or UDP send returns (tcp-inline.zcs, udp-inline.zcs), the receiver's
// quick ACKs and their number by segment size (tcp-quickack.zcs), and the
// delayed ACK, half-window segments, reads that acknowledge and
// Minshall's Nagle (tcp-delack.zcs), SO_RCVLOWAT's buffer growth, POLLIN
// at the mark and its immediate ACKs (tcp-rcvlowat.zcs), TCP zerocopy
// receive over loopback with a page-aligned MSS (tcp-zerocopy-receive.zcs,
// which sets lo's MTU in the namespace: a loopback device declared with
// mtu= alone before any socket), its reserved and msg_flags checks and the
// receive timestamps it writes into msg_control, with what of it the call
// wrote rendered after the length (tcp-zerocopy-receive-cmsg.zcs), where an unread peer's window ends
// (tcp-window-edge.zcs), SO_MAX_PACING_RATE and the ten segments TCP's
// internal pacing lets go at once (tcp-pacing.zcs), TX_SCHED timestamps
// before SND ones and the notification (tx-sched.zcs), TCP's per-call
// timestamps, SCM_TSTAMP_ACK before the notification and a lone FIN
// unstamped (tcp-tstamp.zcs), the
// SO_EE_ORIGIN_LOCAL record of a datagram too long for IP, per family
// (udp-local-error.zcs), a half-closed peer that still acknowledges data
// (tcp-half-close.zcs), TCP_CONGESTION and net.ipv4.tcp_congestion_control
// with and without CAP_NET_ADMIN (tcp-congestion*.zcs), the struct tcp_info
// fields the model knows (tcp-info.zcs: getsockopt(TCP_INFO) decodes them
// into Obs.Msg for the outcome's field checks), and the control messages of one sendmsg:
// UDP_SEGMENT per call, corked appends that skip them, SO_TIMESTAMPING per
// call, unknown levels and types, TCP's order and errnos
// (sendmsg-cmsg.zcs), SO_MARK and SO_PRIORITY with and without
// CAP_NET_ADMIN (so-mark.zcs, so-mark-admin.zcs), listen's backlog
// against net.core.somaxconn, negative and relistened, as the Fast Open
// queue shows it (listen-backlog.zcs), and the accept queue full: the
// dropped SYN of a client, EALREADY, its retransmission after accept,
// ETIMEDOUT under tcp_syn_retries 1, a refused connect, also to a closed
// listener
// (listen-queue.zcs). Its expectations hold on the model
// everywhere and, when root on a kernel with loopback MSG_ZEROCOPY
// ([Supported]),
// on the kernel, with 100% agreement on what is compared.
//
// Receive-buffer autotuning (tcp-rcvbuf-grow.zcs, tcp-rcvbuf-moderate.zcs,
// tcp-rcvlowat-ratio.zcs) is calibrated only where no answer depends on
// timing: the kernel grows a reader's buffer at most once per receive RTT
// of wall-clock microseconds, the model in its own time, in which calls
// take none. A peer that reads 40000-byte sends as they come grows its
// buffer on Linux (and then acknowledges them at once from the fourth
// on), never in the model: from its third read, once 120000 bytes were
// copied with the model's gate closed, what depends on the buffer is
// undetermined, not a divergence.
package probe
