// Package sim is zcsim's discrete-event simulator: a World that owns one
// simulated machine — its kernel Host, its virtual clock and event queue,
// its PRNG streams and fault sites, the users, tasks, devices and sockets
// a scenario names — and drives it step by step, checking every invariant
// after every step.
//
// # Model
//
// A step is either a system call (World.NewSocket, Send, Recvmsg, Close, …,
// each recording its result) or a network event the calls scheduled: a
// frame delivered after the link delay, an ACK, a device's TX completion,
// a delayed-ACK or retransmission timer. Steps are numbered from 1; the
// number is stamped on every history entry and violation, and is the
// address of an event in a trace.
//
// Below the socket layer the World stands in for the kernel outside the
// socket: dev_queue_xmit with its TX timestamps (__skb_tstamp_tx:
// SCM_TSTAMP_SCHED in __dev_queue_xmit, SCM_TSTAMP_SND in the driver, each
// for a packet whose tx_flags ask for it), packet
// taps (dev_queue_xmit_nit), linearization for devices without
// scatter-gather and software segmentation (validate_xmit_skb,
// skb_segment); devices that hold frames until TX completion (a NIC),
// deliver locally (loopback_xmit, then skb_orphan_frags_rx in
// __netif_receive_skb, inside the call; on Linux 6.18 in
// ip_local_deliver_finish, after an IPv4 datagram's reassembly, which
// keeps the fragments chained on its frag_list and their uarg references
// until it is read: reasmKeep) or hand them to user space
// (tun_net_xmit); links
// with delay and seeded loss; TCP peers that acknowledge as the kernel
// does (or at once, or with a plain delayed-ACK timer) and hold data until
// read; UDP receivers that
// reassemble IP fragments. Package tcp owns TCP's timers and ACK policy;
// the World is the clock they run on and the path their ACKs take.
//
// Work on the receive side of a loopback path runs inside the step that
// caused it, in the kernel's order (softirq.go): loopback_xmit queues
// each frame on the CPU's backlog (__netif_rx), which runs to empty when
// the transmit path re-enables bottom halves (process_backlog at
// local_bh_enable), work it queues joining its tail; a segment for a
// socket whose user holds it (lock_sock: a call on it in progress) waits
// on the socket's backlog (sk_add_backlog) until release_sock processes
// it, after everything the call did — tcp_sendmsg's net_zcopy_put
// included. So over loopback a TCP send's segments are received and
// acknowledged and the ACKs processed before send returns, and a UDP
// datagram is received before sendmsg returns; a blocking send that runs
// out of send buffer first processes its backlog (sk_wait_event releases
// the socket) and sleeps only if that freed nothing. A loopback device
// given a link delay, a NIC and a tun deliver as events of their own.
// Across a NIC the TCP frames one socket put on the link at one instant
// arrive as one event, one NAPI poll of the receiving host, whose GRO
// (Device.GRO, on by default) merges their in-order wire segments up to
// 64 KiB before tcp_v4_rcv, so the receiver acknowledges each merged
// packet (dev_gro_receive → tcp_gro_receive, napi_gro_flush; the rules
// and the assumption about the batch are in gro.go).
//
// A TCP timer on the kernel's timer wheel (mod_timer, calc_wheel_index)
// fires up to its level's granularity after it was due, where the
// model's fires on time: a call on the timer's connection between the
// two is predicted under the assumption that it fired first, and its
// event says which timer and until when (Event.Assumes; wheel.go). A
// settle closes every such window, and so does a call that slept through
// the firing, for itself and the calls after it.
//
// A TCP send that sleeps in sk_stream_wait_memory goes on after each
// event that wakes it, in the sender's context: what it then queues and
// sends is a step of its own ("goes on, then blocks again"), or the step
// that returns its result.
//
// Each step also counts the packets this host handled (Event.Work:
// frames sent and received, ACKs built and processed), which no object
// history records, for the cost model (package cost); an implicit peer
// across a NIC or tun stands for another machine (Socket.Far), whose
// steps say so (Event.FarHost).
//
// A TCP or UDP socket "s" gets an implicit peer "s.peer" on the far side of
// its device, a socket of that side's own, opened without SOCK_NONBLOCK
// whatever s was (F_GETFL: O_RDWR; measured on Linux 6.18). On loopback the peer is on this host and receives the
// sender's own skbs (after their frags were copied); across a NIC or tun it
// receives skbs the far side builds in its own memory. A RAW socket's
// peer is a RAW socket of the same family and protocol: on loopback no
// packet is addressed to it, but raw_local_deliver hands it, like every
// RAW socket of the protocol, a copy of each datagram a RAW socket sends
// (reassembled: ip_defrag comes first), of each UDP datagram (rawCopy),
// of each ICMP error (icmpRaw), of each TCP segment and ACK (tcpRaw) and
// of a completed implicit handshake's SYN, SYN-ACK and ACK (handshakeRaw). On a device whose
// far side the scenario plays (Device.Scripted, script.go) a TCP socket
// has no implicit peer: its handshake is on the wire, every segment it
// transmits is kept as a Packet, in sequence numbers relative to its ISN,
// as a tap sees it (a TSO skb whole), and World.Inject brings the far
// side's segments: a SYN to a listener (tcp_conn_request, tcp_check_req),
// a SYN-ACK to a SYN_SENT socket (tcp_rcv_synsent_state_process), ACKs
// (tcp_ack), data, FIN and RST.
//
// A listener's accept queue holds the children whose handshake completed
// until accept takes them; it is full once it holds more than the
// backlog of the last listen (sk_acceptq_is_full: sk_ack_backlog >
// sk_max_ack_backlog, after __sys_listen capped the backlog at
// net.core.somaxconn, a negative one included). On a scripted listener a
// SYN then is dropped unanswered (tcp_conn_request), and the ACK that
// would complete a half-open connection is dropped too, or under
// net.ipv4.tcp_abort_on_overflow answered with a RST (tcp_check_req's
// listen_overflow after tcp_v4_syn_recv_sock's exit_overflow). A
// listener's implicit peer is one client at a time (a fresh one after
// each accept), so its connect always finds room; further clients are
// sockets made with the listener as PeerOptions.To, whose connect
// (connectTo, tcp_v4_connect) completes the handshake at once or, with
// the queue full, leaves them in SYN_SENT for their SYN retransmission
// timer (tcp.Conn.SynDropped), a blocking connect sleeping meanwhile
// (inet_wait_for_connect). The implicit peer is a socket of its own from
// the first listen on (Socket.client): the listener's close or SHUT_RD
// leaves it, and its connect to a listener that no longer listens is
// answered with a RST (tcp_v4_send_reset; ECONNREFUSED, connectClient).
// The listener's close or SHUT_RD resets each connection its accept queue
// still holds (inet_csk_listen_stop, inet_child_forget; listenStop). The
// listener SHUT_RD stopped may listen again, but until it does its own
// connect is EINVAL (measured on Linux 6.18, which refuses it in
// __inet_stream_connect's path where 6.1 connects: the profile knob
// ListenStopRefusesConnect, tcp.Conn.ListenStopped). A
// child is a copy of its listener made at the handshake (sk_clone_lock):
// its zerocopy and timestamping flags, its buffer sizes and their locks,
// its SO_RCVLOWAT.
//
// # Socket calls
//
// The calls are the socket layer above the protocols: every call on a
// descriptor the program closed, or on a socket whose creation failed,
// is EBADF and changes nothing (fdget); close of a TCP socket with a
// zerocopy-receive mapping frees only the descriptor, the mapping's
// vm_file keeping the socket open until exit (sock_close at the last
// fput); shutdown is inet_shutdown (sk_shutdown set even where it returns
// ENOTCONN; a connect still SS_CONNECTING becomes SS_CONNECTED, or
// SS_DISCONNECTING once refused: tcp.Conn.ShutdownConnecting),
// unix_shutdown or sock_no_shutdown (World.Shutdown); socket is __sock_create and the
// families' create functions (protocolLookup); an MPTCP socket has the
// creation, buffers and socket options of mptcp_init_sock,
// mptcp_setsockopt and mptcp_getsockopt, and no data path: its listen,
// connect, accept, sends, reads of data and shutdown are undetermined
// (mptcp.go); an error-queue read is
// ip_recv_error or ipv6_recv_error, whose put_cmsg truncates into a small
// control buffer with MSG_CTRUNC (World.RecvmsgControl); a UDP datagram to
// a closed port is answered with an ICMP port unreachable
// (__udp4_lib_rcv, icmp_send), which __udp4_lib_err hands to the sender;
// a RAW datagram over loopback goes to every RAW socket of its family and
// protocol, the sender too (raw_local_deliver, World.rawLocalDeliver).
// The error quotes up to 576 bytes in all (1280 for ICMPv6) and its skb's
// truesize is kmalloc_reserve's (skb.AllocHead). Over loopback no ICMP
// rate limit applies (icmpv4_xrlim_allow; measured on Linux 6.18). Over
// other devices the model assumes every error is sent: whether
// icmp_global_allow or the per-peer icmp_ratelimit bucket drops one after
// a burst depends on wall-clock time the scenario does not show.
// poll is do_pollfd over tcp_poll or datagram_poll (World.Poll); a
// blocking TCP read sleeps in sk_wait_data until tcp_data_ready
// (World.Recv); a read's flags are refused first where the protocol's
// recvmsg does so (MSG_OOB on RAW and AF_UNIX datagram sockets: raw_recvmsg,
// __unix_dgram_recvmsg; any flag but MSG_PEEK, MSG_DONTWAIT, MSG_TRUNC and
// MSG_ERRQUEUE on a packet socket: packet_recvmsg), blocking or not
// (recvFlagsRefused); a UDP read reports and clears a pending sk_err
// before it looks for a datagram (__skb_recv_udp's sock_error); mmap is vm_mmap_pgoff under mmap_lock calling
// packet_mmap or tcp_mmap, and getsockopt(TCP_ZEROCOPY_RECEIVE) is
// do_tcp_getsockopt around tcp_zerocopy_receive (World.Mmap,
// World.ZerocopyReceive). lock_sock and every copy to or from user memory
// (might_fault) feed the Host's lock-order check (kernel.Lockdep).
// The read writes msg_flags and the control message's header as
// put_cmsg does (Result.MsgFlags, Result.Cmsg): SOL_IP/IP_RECVERR on
// AF_INET, SOL_IPV6/IPV6_RECVERR on every AF_INET6 socket, a v4-mapped
// one too (inet_recv_error), whose traffic is otherwise IPv4
// (sock.Sock.V4Mapped).
//
// # Readiness
//
// A socket's wait queue (sock.Sock.Wake) is woken by sk_error_report
// (sock_def_error_report: every zerocopy completion, from
// __msg_zerocopy_callback, merged or not; every record sock_queue_err_skb
// queues; every sk_err an ICMP error or a reset sets; a read that leaves
// an ICMP error at the head, sock_dequeue_err_skb), sk_data_ready
// (sock_def_readable for a datagram, tcp_data_ready once
// tcp_epollin_ready holds, tcp_child_process for a listener),
// sk_write_space (sock_def_write_space from sock_wfree; TCP's
// tcp_check_space when SOCK_NOSPACE is set, sk_stream_write_space) and
// sk_state_change at a FIN (tcp_fin). poll(2) reads the poll mask (tcp_poll,
// datagram_poll); epoll (Epoll) hangs ep_poll_callback on the wait queue
// and reports with ep_send_events; fcntl F_SETFL changes O_NONBLOCK (setfl).
//
// # Determinism
//
// The same scenario, profile and seed give the same trace, byte for byte:
// time is an integer, events are ordered by (time, sequence), every random
// choice comes from a named stream of the root seed (engine.Streams), and
// no output depends on map order, pointers or the wall clock.
//
// # Invariants
//
// After every step the check.Monitor fed by the World reports every broken
// invariant (docs/invariants.md) at once: gapless ids, each id notified
// once and only after its pages are free, no refcount misuse, conserved
// accounting, COPIED exactly when a copy happened, user pages never on a
// receive queue, locks taken in one order. The check after a step examines what the step touched
// (check.Monitor's incremental mode), so a step costs the same however
// much is alive; Monitor.Full sweeps everything after every step instead.
// At the end of a scenario the network settles and the checks run at
// quiescence, a full sweep; then the program exits (every open socket is
// closed), the network settles again, and nothing but user memory may be
// left.
//
// # Front ends
//
// Front ends sit above the World and drive it through its exported calls:
// the scenario interpreter (package sim/interp), the strace replay
// (package sim/replay) and property tests. They add their own records to
// the trace (Emit: a config, mismatches, a summary). Trace renders as a
// timeline for people or as JSON Lines, whose schema is documented on the
// record types (SchemaVersion). A long run streams: with Trace.Sink set
// (NewTextSink, NewJSONSink) each record is rendered as it is made and
// none is kept, so memory stays flat in the length of the trace. What a
// step did to each object is a typed kernel.Entry, formatted only when a
// sink renders it.
package sim
