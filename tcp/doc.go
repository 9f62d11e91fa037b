// Package tcp models the TCP send path as MSG_ZEROCOPY sees it:
// tcp_sendmsg_locked building skbs on the write queue, tcp_write_xmit
// sending clones of them, the retransmit queue holding them until they
// are acknowledged, and the receive side of the peer.
//
// # Model
//
// A Conn is one end of a connection. Sendmsg is tcp_sendmsg_locked:
//
//   - MSG_ZEROCOPY with a non-empty payload on a socket where it takes effect
//     first gets a uarg from msg_zerocopy_realloc against the uarg of the
//     write queue's tail skb. Calls therefore share a uarg only while data
//     waits unsent (TCP_CORK, MSG_MORE, Nagle, a closed window). A NULL uarg
//     fails the call with ENOBUFS before anything changes.
//   - Without NETIF_F_SG on the route the uarg is marked copied and the data
//     is copied; the uarg is never attached to an skb, so its COPIED
//     notification is queued when the call returns.
//   - Zerocopy payload becomes frags, one per page chunk
//     (skb_zerocopy_iter_stream → __zerocopy_sg_from_iter): bytes that
//     continue the skb's last frag in the same page extend it, whichever
//     iovec they come from, so iovecs back to back in user memory share
//     frags (from v5.10, Profile.ZerocopyCombinePages; before, one frag
//     per base page chunk); a full skb (MAX_SKB_FRAGS) takes no more,
//     not even those.
//     Where the iovecs lie is the caller's (package sim: back to back in
//     one page-aligned buffer, or apart; measured on Linux 6.18,
//     probe/testdata/tcp-iovec-frags.zcs). Copied payload goes into the
//     socket's page frag (skb_copy_to_page_nocache, skb_can_coalesce),
//     whatever the iovecs. Profiles before v4.18 first fill a small
//     linear area (Profile.TCPLinear), a copy no notification reports.
//   - A full skb (MAX_SKB_FRAGS) or a tail skb holding another uarg (EEXIST)
//     gets PSH and the data goes on in a new skb (tcp_mark_push,
//     new_segment).
//   - Send-buffer pressure (sk_wmem_queued ≥ sk_sndbuf) blocks, or fails
//     with EAGAIN under MSG_DONTWAIT: never ENOBUFS. A blocked call goes
//     on only once woken (sk_stream_wait_memory, sk_wait_event): by any
//     wakeup of the socket's wait queue (woken_wake_function ignores its
//     key) after which the send buffer has room (sk_stream_memory_free),
//     or by an error or a shutdown. An ACK wakes it only when it leaves
//     the queue writeable, its free send buffer at least half of what is
//     queued (tcp_check_space → tcp_new_space → sk_stream_write_space,
//     __sk_stream_is_writeable, tcp_stream_memory_free); a zerocopy
//     notification wakes it too (__msg_zerocopy_callback →
//     sk_error_report). Bytes freed short of that leave it asleep, with
//     whatever room its tail skb has unfilled. Measured on Linux 6.18: a
//     window probe's 1024 bytes acknowledged under a 32768-byte send
//     buffer wake nobody (probe/testdata/tcp-sndbuf-wake.zcs).
//   - A call that queued data marks the write queue's tail skb (or the
//     retransmit queue's last) for the socket's transmit timestamps
//     (tcp_tx_timestamp: tx_flags, txstamp_ack, tskey its last byte), so
//     one call reports once; a split moves the marks to the part holding
//     the key (tcp_fragment_tstamp), a FIN sent alone has none, and the
//     ACK past the key queues SCM_TSTAMP_ACK before the skb is freed
//     (tcp_ack_tstamp), so before its zerocopy notification. Measured on
//     Linux 6.18 (probe/testdata/tcp-tstamp.zcs).
//   - On return the call drops its own uarg reference (net_zcopy_put). A call
//     that queued nothing is aborted instead (net_zcopy_put_abort): its id
//     is rolled back. A call that queued something keeps its id.
//   - MSG_FASTOPEN on a socket never connected is tcp_sendmsg_fastopen
//     (SendmsgTo, with the call's msg_name as a Dest): the call connects,
//     and the SYN carries data when a cookie is cached for the destination
//     (or net.ipv4.tcp_fastopen has TFO_CLIENT_NO_COOKIE) — what the page
//     frag takes (Profile.TCPSynDataFrag), at most the MSS less
//     MAX_TCP_OPTION_SPACE. A non-blocking call returns what the SYN
//     carried, or EINPROGRESS; a blocking one sends the rest after the
//     handshake. Data of a call that began before the socket had a route
//     is copied (sk_route_caps 0: uarg zerocopy 0, kernel.CopyUnrouted).
//     A non-blocking connect or Fast Open leaves sock->state SS_CONNECTING
//     (InProgress), so the next connect returns 0 and the next MSG_FASTOPEN
//     send goes on as any send (FinishConnect), or, while the handshake is
//     still under way (SYN_SENT: a SYN a full accept queue dropped), gets
//     __inet_stream_connect's EALREADY if it does not wait
//     (tcp_sendmsg_fastopen passes MSG_DONTWAIT as O_NONBLOCK); measured
//     on Linux 6.18 (probe/testdata/tcp-fastopen-connecting.zcs).
//
// Every 16 skbs a call allocates (process_backlog), new_segment flushes
// the socket's backlog (sk_flush_backlog: Network.FlushBacklog, the
// packets that arrived while the call owned the socket, its peer's ACKs
// over loopback), and if there were any the call restarts: the MSS and
// the size goal are computed again (tcp_send_mss at the restart label),
// so a window the ACKs widened lets the tail skb grow. On a fresh
// loopback connection with a 49204-byte MTU a 512 KiB send is 16 skbs of
// half the SYN-ACK's window (32767 bytes), then one of 32783: the 16
// bytes left join the last skb at the new, larger size goal.
//
// # Urgent data
//
// A call with MSG_OOB that queued data moves snd_up to write_seq when it
// pushes (tcp_push → tcp_mark_urg, at wait_for_space too), so its last
// byte is urgent; MSG_ZEROCOPY alongside changes nothing. Such a call
// sends nothing while it copies (tcp_sendmsg_locked skips tcp_push_one
// and the forced push for MSG_OOB), so every skb it queued leaves at a
// push, after snd_up moved (probe/testdata/tcp-urgent-sleeping-send.zcs).
// Its skbs are one MSS each: tcp_send_mss asks tcp_xmit_size_goal for a
// large size goal only without MSG_OOB. Each skb is charged its own
// overhead, so a non-blocking MSG_OOB call fills the send buffer with
// fewer bytes than the same call without it: measured on Linux 6.18
// over a loopback with a 2074-byte MTU, 93012 bytes (46 skbs of 2022)
// against 114688 (probe/testdata/tcp-oob-size-goal.zcs).
// While snd_up is
// ahead of snd_una (tcp_urg_mode; an ACK reaching it ends it,
// tcp_clean_rtx_queue) every segment before it carries URG and the urgent
// pointer snd_up - seq, or 0xFFFF when that is 64 KiB or more ahead and
// seq + 0xFFFF is after snd_nxt (__tcp_transmit_skb); tcp_nagle_test lets
// every skb go and tcp_write_xmit sends one MSS at a time (no
// tcp_mss_split_point). The receiver runs tcp_urg before tcp_data_queue
// (Urgent): tcp_check_urg takes the pointer less one (tcp_stdurg 0) as
// urg_seq unless the reader is past it, it is before rcv_nxt or not after
// the urgent byte known, dropping an unread urgent byte the reader stands
// at (copied_seq++); the byte is TCP_URG_NOTYET until a segment holding it
// arrives, then TCP_URG_VALID. tcp_recvmsg_locked stops a read before
// urg_seq and skips the byte at the start of one (not with SO_OOBINLINE,
// SOCK_URGINLINE, which reads it in the stream), and clears urg_data once
// copied_seq is past it, so a byte never read with MSG_OOB is lost.
// recv(MSG_OOB) is tcp_recv_urg (RecvUrgent): EINVAL with SOCK_URGINLINE,
// without a byte or once it was read (TCP_URG_READ), the byte, EAGAIN
// before it came, and it never blocks. tcp_poll adds EPOLLPRI while the
// byte is TCP_URG_VALID and asks for one byte more for EPOLLIN from a
// reader at the byte. Purging the receive queue forgets the byte
// (tcp_disconnect). Measured on Linux
// 6.18 (probe/testdata/tcp-urgent.zcs). SIOCATMARK (tcp_ioctl) and SIGURG
// (sk_send_sigurg) are not modelled.
//
// A segment with URG, and every segment while urg_data is set, misses
// tcp_rcv_established's header prediction (UrgSlowPath: URG is not in
// pred_flags, which tcp_check_urg clears and tcp_fast_path_check leaves
// cleared until tcp_recvmsg_locked clears urg_data). The slow path runs
// tcp_data_snd_check (DataSndCheck) after tcp_data_queue whatever the
// segment acknowledged, so the receiver sends a tail that a MSG_MORE
// call held back (tcp_push_pending_frames under tp->nonagle; TCP_CORK
// still holds it), carrying the ACK tcp_data_queue scheduled; on the
// fast path only a segment that acknowledged new data does. The model does
// not predict headers: it runs DataSndCheck after every segment that
// carries an ACK (sim's receive path), a slow path for all. Of any data
// segment tcp_ack runs first but what it lets go is sent only then
// (AckData, DataSndCheck), so that too carries the ACK. Measured on
// Linux 6.18 (probe/testdata/tcp-urgent-push.zcs).
//
// # Pacing
//
// SO_MAX_PACING_RATE (sock.Sock.MaxPacingRate) switches internal pacing
// on (sk_pacing_status SK_PACING_NEEDED; the model's qdiscs are never fq,
// which would pace instead). tcp_write_xmit then checks the pacing clock
// before each skb (tcp_pacing_check): while tcp_wstamp_ns is ahead of the
// clock it arms the pacing timer for then and sends nothing more; the
// timer (tcp_pace_kick → tcp_tsq_handler) runs tcp_write_xmit again. Each
// data skb sent (__tcp_transmit_skb, tcp_update_skb_after_send) brings
// tcp_wstamp_ns up to the clock and, once data_segs_out reaches ten,
// pushes it on by the skb's length at sk_pacing_rate, less up to half of
// that as the idle time it caught up ("OS jitter"). The model's
// sk_pacing_rate is sk_max_pacing_rate: the rate tcp_update_pacing_rate
// derives from mss·cwnd/srtt is far above any limit a program sets on
// the model's paths (loopback, microseconds of delay), and the model
// keeps no srtt. Measured on Linux 6.18 (probe/testdata/tcp-pacing.zcs):
// at 1000 bytes a second, ten 1000-byte segments arrive at once and the
// eleventh does not.
//
// The MSS is the announced one (dst_metric_advmss: the MTU less the
// headers, an IPv4 MTU counted at most 65535) less the timestamp option
// when the connection uses it (tcp_established_options, tcp_current_mss),
// bounded to half the largest window the peer offered
// (tcp_bound_to_half_wnd in tcp_sync_mss, run again whenever max_window
// grows): over loopback 65483 bytes, 32741 on a fresh connection; under
// net.ipv4.tcp_timestamps 0, 65495 and 32747 (measured on Linux 6.18,
// probe/testdata/tcp-timestamps-off.zcs). An accepted end's largest
// window starts as the window of the ACK that completed the handshake
// (tcp_create_openreq_child, then tcp_sync_mss in tcp_v4_syn_recv_sock),
// rounded up to the client's window scale: 65536 and 32768 over
// loopback. TCP_INFO's tcpi_snd_mss is this MSS (mss_cache;
// probe/testdata/tcp-info-mss.zcs). ACKs that arrive while the sender's
// user holds the socket reach tcp_ack merged (tcp_add_backlog, package
// sim), so a window offered only by an earlier one of them never counts
// towards max_window (probe/testdata/tcp-backlog-coalesce.zcs) — when
// their options are the same: two timestamped ACKs a millisecond apart
// are processed one by one, and where that would move the MSS
// (WindowMovesMSS) the merge is undetermined
// (probe/testdata/tcp-backlog-coalesce-ts.zcs). Nagle
// holds a partial segment only while a short segment is unacknowledged
// (tcp_minshall_check).
//
// Transmission (tcp_write_xmit, tcp_transmit_skb) sends a clone of each
// skb — or a pskb_copy, with its own uarg reference, while an earlier clone
// is still in flight — within the congestion window, the peer's receive
// window and Nagle or corks; an skb larger than what may go is split
// (tso_fragment → skb_split, one more uarg reference; the new skb is
// allocated with MAX_TCP_HEADER of headroom, as tcp_stream_alloc_skb
// does, and charged for it). The congestion
// window lets at most half of itself go in one skb (tcp_cwnd_test: at
// least two GSO packets in flight; a FIN of one segment goes whatever the
// window, and a loss probe as one segment), and every packet of more than
// one segment carries PSH (__tcp_transmit_skb, on the clone's header
// only, so that the receiver's GRO flushes at it; software GSO leaves it
// on the last segment). Both rules are older than every profile's
// kernel. Measured on Linux 6.18 under packetdrill
// (examples/packetdrill/cwnd-split.pkt): a 12000-byte send to a peer
// with a 1000-byte MSS is two PSH packets of 5000 bytes, then, after the
// first ACK, one of 2000. The split point is tcp_mss_split_point's:
// the congestion window's quota is whole segments, while the end of the
// receive window, as the end of the skb, leaves a partial segment that
// goes unless Nagle or a cork holds it. Ack frees every acknowledged skb
// of the retransmit queue, dropping its reference, and trims the
// acknowledged segments off the head of one it covers in part
// (tcp_tso_acked, tcp_trim_head: unshared first, then __pskb_trim_head,
// sk_wmem_queued and the truesize losing the frag bytes); the uarg
// completes when the last skb and the last clone are gone.
// Before sizing the head skb, tcp_write_xmit bounds the congestion
// window's quota by tcp_tso_segs (the whole gso_max_size over the model's
// paths, at least two segments) and, from v6.10 (Profile.TCPGrowSkb),
// fills the head skb up to that quota of MSS from the next one
// (tcp_grow_skb: skb_shift, which moves the bytes' truesize and refuses
// zerocopy skbs; a next skb left empty is freed, its PSH and FIN passed
// on). Measured on Linux 6.18 (probe/testdata/tcp-grow-skb.zcs): a
// copied 100000-byte send over loopback is 32741, 32741 and one
// 34518-byte segment once the first ACK widens the MSS, and the window
// left is 28672 bytes; a zerocopy one keeps its 1777-byte tail skb. Timeout
// retransmits everything unacknowledged. Close orphans the socket: its
// skbs keep their references until acknowledged, and their completions
// queue no notification.
//
// The sysctls net.ipv4.tcp_timestamps and tcp_sack (u8s, 1 by default, any
// value to 255 taken on Linux 6.18; 2 is timestamps without the random
// TSval offset, secure_tcp_ts_off, which the model does not keep) decide
// what this end offers and takes: a SYN offers the timestamp option and
// SACK permitted only when they are not 0 (tcp_syn_options;
// tcp_connect_init sizes tcp_header_len by the same sysctl),
// tcp_parse_options reads neither of a peer's SYN or SYN-ACK when they are
// 0 (saw_tstamp, sack_ok), so a SYN-ACK sends only what the SYN offered
// and the sysctls took (tcp_openreq_init, tcp_synack_options). With
// timestamps every segment carries them (tcp_established_options) and
// tcp_header_len (HeaderLen) is 32 bytes, else 20: the MSS
// (tcp_current_mss), tcp_bound_to_half_wnd's floor, tcp_measure_rcv_mss,
// the window's rounding to whole MSS (tcp_select_initial_window:
// tcp_openreq_init_rwin rounds by the MSS less the timestamps when
// tstamp_ok) and advmss in rcvq_space (tcp_init_buffer_space, set again
// when the handshake completes) follow. The implicit handshake uses this
// end's sysctls as they are when it is made (SynWindow), the implicit peer
// taken to offer both; a later change of the sysctls leaves the connection
// as it is, as in the kernel. The model sends no SACK blocks, so tcp_sack
// changes only the SYNs, whose header tcp_options_write lays out
// (SynHeaderLen: 40 bytes with both, 32 without timestamps).
//
// A handshake on the wire (handshake.go, for a far side a scenario plays)
// negotiates what the implicit one assumes: StartConnect sends a SYN and
// SynAckReceived takes the SYN-ACK (tcp_rcv_synsent_state_process);
// SynAckOffer answers a SYN (tcp_openreq_init_rwin, tcp_synack_options)
// and Accepted completes it (tcp_create_openreq_child). Fast Open on the
// wire: a MSG_FASTOPEN send whose Dest has SynSent puts its data in the
// SYN (tcp_send_syn_data) and the SYN-ACK frees or retransmits it
// (tcp_rcv_fastopen_synack); a listener's child made at the SYN is
// AcceptedAtSyn (tcp_fastopen_create_child), its data queued by
// ReceiveSynData (tcp_fastopen_add_skb). The peer's options
// (tcp_parse_options) then rule the MSS — its MSS option clamps it
// (mss_clamp, TCP_MSS_DEFAULT without one), timestamps take 12 bytes only
// when both ends offered them (tcp_sync_mss) — and the send window: a
// window field after the SYN is shifted by the peer's window scale when
// both ends offered one (tcp_ack_update_window), and without one neither
// end scales and window_clamp stays below 64 KiB.
//
// # Timers and ACKs
//
// A Conn runs its own timers on the virtual clock its Network provides
// (Network.After, which the simulator implements; package sim/engine is
// the shared leaf that defines virtual time):
//
//   - The RTT estimate (rtt.go). An ACK of new data gives a round-trip
//     sample (tcp_clean_rtx_queue, tcp_ack_update_rtt): the time since
//     the oldest newly acknowledged skb was last sent, or, when
//     retransmitted data is among what it acknowledges (Karn's rule),
//     the echoed timestamp's age in whole milliseconds, at least 1
//     (tcp_rtt_tsopt_us), and no sample without timestamps; the
//     handshake gives one too (tcp_ack of the SYN, tcp_synack_rtt_meas;
//     the implicit one's, and any loopback round trip, taken as 1µs).
//     tcp_rtt_estimator keeps srtt (an eighth of each error), mdev (a
//     quarter), and rttvar, which follows the largest mdev of a round of
//     samples up at once and down a quarter of the way when the round
//     ends, and is never below tcp_rto_min (TCP_RTO_MIN, 200ms: mdev_max
//     starts each round there). Each sample sets icsk_rto to srtt +
//     rttvar rounded up to jiffies (tcp_set_rto, __tcp_set_rto), at most
//     tcp_rto_max (tcp_bound_rto), and forgets icsk_backoff. Before the
//     first sample icsk_rto is TCP_TIMEOUT_INIT (1s). Measured on Linux
//     6.18 (probe/testdata/tcp-rto.zcs, TCP_INFO's tcpi_rto): 204ms at
//     both ends of a loopback connection (51 jiffies at HZ 250), 208ms
//     after a sample across a 40ms delayed ACK.
//   - The retransmission timer runs while the retransmit queue holds
//     anything and the connection exists: armed for icsk_rto when new
//     data is sent (tcp_event_new_data_sent), restarted by an ACK that
//     frees something, stopped when nothing is outstanding
//     (tcp_rearm_rto). Each timeout retransmits from snd_una and doubles
//     icsk_rto, up to tcp_rto_max, until an RTT sample sets it again.
//     The connection is given up with ETIMEDOUT (tcp_write_timeout,
//     tcp_write_err) after a time since the first retransmission still
//     outstanding (retrans_stamp, which the tail loss probe does not
//     set; forgotten when the loss state ends), not a count
//     (retransmits_timed_out): tcp_model_timeout of net.ipv4.tcp_retries2
//     from TCP_RTO_MIN (924.6s for 15), an orphan's tcp_orphan_retries,
//     or TCP_USER_TIMEOUT, to which the timer is clamped
//     (tcp_clamp_rto_to_user_timeout; writetimeout.go). Measured on
//     Linux 6.18 with packetdrill (examples/packetdrill/rto-retries2.pkt,
//     rto-user-timeout.pkt): with tcp_retries2 2 a third retransmission
//     goes 1.224s after the first and the timer after it gives up; with
//     TCP_USER_TIMEOUT 1000 the timer after the second ends it 1s after
//     the first. tcp_model_timeout is read as of Linux 6.1 (TCP_RTO_MAX
//     past the doubling, not the socket's tcp_rto_max).
//   - The tail loss probe stands for the RTO while data is out
//     (tcp_schedule_loss_probe, after tcp_write_xmit sent new data and
//     after an ACK that freed some): with net.ipv4.tcp_early_retrans 3
//     or 4, SACK, no loss state from an RTO and no Fast Open handshake
//     pending, it is due after the probe timeout, 2·srtt plus 2ms
//     (TCP_TIMEOUT_MIN_US) rounded up to a jiffy of Profile.HZ, or with
//     one packet out plus TCP_RTO_MIN, and no later than the RTO
//     (icsk_rto from now after an ACK, else the RTO of the retransmit
//     queue's head, tcp_rto_delta_us)
//     (Profile.TCPLossProbe: before v6.6 the floor was two jiffies added
//     after rounding, before bb4d991a28cc 10ms). When it fires
//     (tcp_send_loss_probe) new data goes if the window takes it, else
//     the last MSS of the retransmit queue's last skb is sent again,
//     split off first (tcp_fragment), unless the copy last transmitted
//     is still in the host, alive and charged to the socket in a qdisc
//     or a driver's ring (skb_still_in_host_queue, skb_fclone_busy): a
//     loopback or tun delivery orphans it (loopback_xmit, tun_net_xmit),
//     so the probe goes while the peer's receive queue holds that copy
//     (measured over loopback, probe/testdata/tcp-loss-probe-loopback.zcs:
//     an unread peer's delayed ACK comes after the probe, and
//     tcpi_total_retrans is 1); the RTO restarts from the
//     probe, and no other probe goes until an ACK reaches tlp_high_seq
//     (tcp_process_tlp_ack). srtt is the RTT estimate's. Timers fire at
//     their nominal expiry (see "When a timer fires" below). Measured
//     on Linux 6.18 (probe/testdata/tcp-loss-probe.zcs, packetdrill): an
//     unacknowledged 2000-byte skb's last 1000 bytes go again 4 to 8ms
//     later, a lone segment's at the RTO, 208ms, and the RTO 208ms after
//     that; without SACK the RTO comes instead.
//   - A connect whose SYN the implicit far side dropped (SynDropped: a
//     listener's full accept queue) waits in SYN_SENT on the same timer:
//     the SYN goes again after TCP_TIMEOUT_INIT, the timeout kept for the
//     first net.ipv4.tcp_syn_linear_timeouts retransmissions, then
//     doubling up to TCP_RTO_MAX, until one is answered (SynAcked) or
//     tcp_model_timeout of net.ipv4.tcp_syn_retries has passed since the
//     first SYN (ETIMEDOUT).
//   - Received data is acknowledged by the connection's AckPolicy. The
//     default, AckKernel, is the kernel's delayed-ACK engine (icsk_ack):
//     the first data segment grants rcv_wnd / (2 × rcv_mss) quick ACKs,
//     at least 2 and at most TCP_MAX_QUICKACKS (tcp_incr_quickack), and
//     starts ato at TCP_ATO_MIN; every rise of rcv_ssthresh grants one
//     more (tcp_grow_window: quick |= 1); each ACK of new data uses one
//     (tcp_dec_quickack_mode); a window below half the buffer ends them
//     (__tcp_select_window). Out of quick ACKs, a segment is
//     acknowledged at once only when more than one full segment arrived
//     since the last ACK and the window would move right
//     (__tcp_ack_snd_check); otherwise the delayed-ACK timer runs for ato
//     (tcp_send_delayed_ack, an ato above TCP_DELACK_MIN bounded by
//     srtt; ato adapts to the gap between segments in
//     tcp_event_data_recv and doubles when the timer fires,
//     tcp_delack_timer_handler). rcv_mss follows the segments' gso_size or
//     length (tcp_measure_rcv_mss), and a short or PSH segment marks the
//     ACK pushed, so that a read which empties the receive queue
//     acknowledges at once (tcp_cleanup_rbuf, which also acknowledges a
//     read that doubled a window fallen to half window_clamp). Measured
//     on Linux 6.18 over loopback: sixteen 1000-byte sends are
//     acknowledged at once and the seventeenth after 40ms; 4000-byte
//     sends get 8 + 1 quick ACKs, 2338-byte ones 14.
//   - Pingpong mode (icsk_ack.pingpong at tcp_pingpong_thresh 1): a
//     connection that sends new data or a FIN within ato of the last data
//     segment it received is interactive (tcp_event_data_sent), and so
//     is one a FIN moved to CLOSE_WAIT (tcp_fin); no ACK is quick then,
//     and the delayed-ACK timer ends it (tcp_delack_timer_handler).
//     Every segment sent carries the ACK that was due
//     (tcp_event_ack_sent), so a reply or the peer's own FIN frees the
//     sender's skbs at once. A FIN is tacked on to the write queue's
//     unsent tail skb (tcp_send_fin). Measured on Linux 6.18
//     (tcp-pingpong.zcs, tcp-fin-delack.zcs): after the peer answers,
//     the next zerocopy send's notification waits 40ms; a corked send
//     then shutdown(SHUT_WR) is one segment whose ACK is delayed.
//   - Data received already (a retransmission, a loss probe) enters
//     quickack mode (tcp_data_queue: tcp_enter_quickack_mode) and is
//     acknowledged through __tcp_ack_snd_check (Rejected): at once,
//     unless more than a segment is unacknowledged and the buffer less
//     than half free, where __tcp_select_window ends the quick ACKs and
//     the delayed ACK carries it (measured over loopback: a 64 KiB
//     send's probe waits for it, a pingpong peer's 300-byte one does
//     not).
//   - AckImmediate acknowledges every segment at once, AckQuick too
//     (TCP_QUICKACK); AckDelayed acknowledges every second full-sized
//     segment or after TCP_DELACK_MIN. An out-of-order segment is
//     acknowledged at once under every policy. ACKs leave through
//     Network.SendAck.
//   - The persist timer. When not even one segment fits the peer's
//     window and nothing is in flight, tcp_write_xmit arms the probe
//     timer for tcp_probe0_base, icsk_rto and at least TCP_RTO_MIN, unless a timer
//     of icsk_retransmit_timer runs (tcp_check_probe_timer). When it
//     fires with data in flight or nothing to send it does nothing
//     (tcp_probe_timer); otherwise tcp_send_probe0 runs
//     tcp_write_wakeup: if the window reaches into the write queue's
//     head, its first min(window, MSS) bytes go, cork or Nagle or not,
//     and once data is in flight the probe state is forgotten (measured:
//     three 200000-byte sends to an unread peer over loopback leave it
//     98223 bytes, three 32741-byte skbs, 150ms later; a corked byte
//     reaches the peer 200ms after the send); if the window ends at or
//     before the head, the probe is a segment of no data one byte before
//     snd_una (tcp_xmit_probe_skb), not a byte of data. Each probe that
//     sent no data counts in icsk_probes_out, grows icsk_backoff (up to
//     tcp_retries2) and sets the timer for tcp_probe0_when: the base
//     shifted by the backoff (at most ilog2(TCP_RTO_MAX / TCP_RTO_MIN) + 1
//     places), at most tcp_rto_max — TCP_RTO_MAX, or the socket's
//     TCP_RTO_MAX_MS (Profile.TCPRtoMaxOpt), which caps the RTO too. An
//     ACK resets icsk_probes_out; one that finds nothing in flight stops
//     the timer and forgets the backoff if the window now takes the
//     head, else sets the timer for tcp_probe0_when from now
//     (tcp_ack_probe). The connection is given up (tcp_write_err,
//     ETIMEDOUT) when icsk_probes_out reaches net.ipv4.tcp_retries2
//     (which also caps the backoff), so probes a
//     peer answers go on for ever (Persisting: a settle, and a call that
//     waits for the network, leave them pending), or once
//     TCP_USER_TIMEOUT has passed since the timer first found something
//     to probe (icsk_probes_tstamp, the waits clamped to it:
//     tcp_clamp_probe0_to_user_timeout); an orphan's limit is
//     tcp_orphan_retries, 8 for its default 0 while its backed-off RTO
//     is below tcp_rto_max and none after (the model has no soft errors and no
//     tcp_out_of_resources, and never sees a transmit fail with local
//     congestion, for which the kernel retries after
//     TCP_RESOURCE_PROBE_INTERVAL). The peer answers a probe before its
//     window (tcp_sequence) with a duplicate ACK at most once per
//     net.ipv4.tcp_invalid_ratelimit, 500ms in whole jiffies
//     (tcp_oow_rate_limited). Measured on
//     Linux 6.18 (probe/testdata/tcp-zero-window.zcs; packetdrill,
//     examples/packetdrill/zero-window.pkt): over loopback probes about
//     0.25s, 0.7s, 1.55s and 3.25s after the window closed, the second
//     unanswered (tcpi_probes 1 until the third); with TCP_RTO_MAX_MS
//     1000 one a second after the third, and an orphan given up at the
//     fourth firing, after which the peer's window update is answered
//     with a reset.
//   - When a timer fires. Every TCP timer counts whole jiffies of
//     Profile.HZ (usecs_to_jiffies rounds up: TCP_DELACK_MIN is 10 at
//     HZ 250, the loopback RTO 51) and the model fires it exactly that
//     long after it was armed. The kernel's fires later, by an amount the
//     scenario does not determine: mod_timer files a timer due at jiffy
//     E in the timer wheel's bucket past E (calc_wheel_index,
//     calc_index: (E >> 3k) + 1 << 3k at level k), so one due within 63
//     jiffies runs at the tick after E — between 0 and 1 jiffy after its
//     nominal expiry, depending on where in its jiffy it was armed — and
//     one due later rounds up to a multiple of 8 jiffies (up to 504), 64
//     (to 4032), 512 …, a multiple of absolute jiffies, whose phase at
//     the scenario's start is unknown: up to 32ms late for a timeout of
//     252ms to 2s at HZ 250, 256ms to 16s, 2s beyond. A timer armed from
//     a timer's expiry is armed at a tick, so chained timers (a probe
//     after a delayed ACK, an RTO after a loss probe) come a whole jiffy
//     late each. Measured on Linux 6.18 under packetdrill: the loss
//     probe due after 1 jiffy at 7.75ms (8ms in the model, as 1 + 1
//     jiffies), in one run of ten at 11.77ms (the timer softirq late on
//     a loaded machine); the zero-window probe due after 51 jiffies at
//     207.7ms and the next, due 102 jiffies later, 412ms after it; over
//     loopback (probe/testdata/tcp-zero-window.zcs, tcp-retries2.zcs,
//     tcp-user-timeout.zcs) a delayed ACK 42-45ms after the segment and
//     probes 212ms and 428-448ms apart where the model has 40, 208 and
//     416. The model's times are the lower bound of each window: a
//     prediction of what a live run sees within a few jiffies of a timer
//     is under the assumption that the timer fired on time. The world
//     says so of every call that depends on it (sim/wheel.go,
//     Event.Assumes): a call on the connection made after the model
//     fired one of these timers (the RTO, the SYN retransmission, the
//     zero-window probe, the tail loss probe, the delayed ACK; the pacing
//     timer is an hrtimer) and before the window closes, the window being
//     the wheel level's granularity for the timer's delay, plus the slack
//     of the timer whose firing armed it, plus a round trip of the link.
//   - MSG_PEEK reads from a private copy of copied_seq and consumes
//     nothing (Conn.Peek); a zero-length read returns 0 when data is
//     queued and EAGAIN when none is (sock_rcvlowat's target is at least
//     one byte).
//   - tcp_done stops every timer (inet_csk_clear_xmit_timers).
//
// # TCP_INFO
//
// Conn.Info models tcp_get_info for the struct tcp_info fields the model
// knows exactly (kernel.TCPInfoFields: state, options, receive window
// scale, MSS, segments in flight, window, retransmissions, bytes
// received, bytes not sent, segments delivered); times, the RTT and rates
// hang on wall-clock time and are not offered (probe/testdata/tcp-info.zcs).
//
// # Congestion window
//
// The window starts at TCP_INIT_CWND. Each ACK that frees skbs counts
// their segments into tp->delivered (tcp_count_delivered; the SYN counts
// one) and hands them to the congestion control (tcp_cong_control), the
// connection's own (icsk_ca_ops): the namespace's default when the socket
// was made (net.ipv4.tcp_congestion_control, tcp_assign_congestion_control;
// the profile's TCPCongestion in a fresh namespace), its listener's for an
// accepted child whose listener chose one (tcp_ca_openreq_child), or what
// TCP_CONGESTION chose (tcp_set_congestion_control, Conn.SetCongestion:
// ENOENT for a name the kernel has not, EPERM for a restricted one without
// CAP_NET_ADMIN; probe/testdata/tcp-congestion*.zcs):
//
//   - cubic (the kernel's default) and reno alike: slow start grows the
//     window by the segments acknowledged, but only while
//     tcp_is_cwnd_limited (bictcp_cong_avoid, tcp_slow_start): the last
//     tcp_write_xmit used the whole window, or it is below twice the most
//     packets out (tcp_cwnd_validate's max_packets_out). Over loopback,
//     where few large segments are in flight, it stays at 10.
//   - bbr (linux-6.18, as the calibrated machine runs it): bbr_set_cwnd
//     grows it by the segments acknowledged while tp->delivered is below
//     TCP_INIT_CWND, used or not; measured on Linux 6.18 with one ACK a
//     segment, 11, 12, …, 18 (probe/testdata/tcp-cwnd.zcs). After that it
//     grows while below bbr_bdp's target, from bandwidth and min_rtt
//     estimates the model does not keep: the model takes the target to
//     be above the window exactly when tcp_is_cwnd_limited holds, an
//     assumption. BBR's drain and later cut of the window to its target
//     (measured: to 10–14 within tens of milliseconds over loopback) are
//     not modelled; the send buffer, which never shrinks back, is what
//     that window's peak decides. Nor is its internal pacing (bbr sets
//     SK_PACING_NEEDED, and without an fq qdisc tcp_pacing_check holds
//     every skb after the first of a tcp_write_xmit once ten segments
//     have left, for a wall-clock len/sk_pacing_rate): over loopback
//     with small segments the peer's ACKs then come back between the
//     skbs, and what a read right after the send finds depends on the
//     pacing timer (probe/testdata/tcp-small-mss.zcs, under reno).
//
// The send buffer follows the window only for a writer that found it
// full (SOCK_NOSPACE, set by tcp_poll and sk_stream_wait_memory):
// tcp_check_space after each ACK, and after each skb of new data sent
// (tcp_event_new_data_sent), runs tcp_new_space, which expands it
// while packets in flight are below the window
// (tcp_should_expand_sndbuf, tcp_sndbuf_expand: two windows of
// worst-case skbs, three under bbr, bbr_sndbuf_expand); so the ACK that
// opens the window lets the first skb sent into it grow the buffer for
// that window, and the writer woken with it (sk_stream_write_space
// clears SOCK_NOSPACE) leaves later ACKs nothing to expand. Measured on
// Linux 6.18 (probe/testdata/tcp-sndbuf-expand.zcs: at MTU 4148 under
// reno a blocking send of 190000 bytes or more ends with the buffer of
// a 20-segment window, never that of the 41 segments it reaches). A
// zero-window probe's ACK is such an ACK too: a writer asleep against a
// zero window wakes when the next answered probe grows the buffer for a
// window that grew while nobody waited (Persisting;
// probe/testdata/tcp-sndbuf-probe.zcs).
//
// # Receive window
//
// The window an ACK offers is tcp_select_window to the byte: the free
// buffer's window (tcp_space: tcp_win_from_space of sk_rcvbuf less
// sk_rmem_alloc, scaled by tp->scaling_ratio, the payload per truesize
// of the last segment that changed rcv_mss, or halved on profiles before
// v6.6), at most rcv_ssthresh, rounded up to the window scale, and never
// less than what is left of the window offered before. The SYN's window
// (tcp_select_initial_window) is the buffer's at the default ratio
// rounded down to whole MSS, at most 65535, with the window scale of the
// largest buffer tcp_rmem[2] allows (10 on linux-6.18), or, when the user
// fixed the buffer before the handshake (SOCK_RCVBUF_LOCK:
// tcp_connect_init, tcp_openreq_init_rwin), of the full buffer's window
// alone (0 for SO_RCVBUF 16384). Without a scale __tcp_select_window
// offers whole segments of rcv_mss and keeps the window it offered while
// that is within a segment below the free space
// (probe/testdata/tcp-rcvbuf-noscale.zcs). window_clamp
// starts at the full buffer's window (tcp_init_buffer_space) and follows
// scaling_ratio (tcp_set_window_clamp); rcv_ssthresh starts at the first
// window and grows by tcp_grow_window while the buffer has room. Received
// in-order skbs are appended to the receive queue's tail when
// skb_try_coalesce can (tcp_try_coalesce), charging only their frag
// pages: never to a tail that is a clone (over loopback, while its sender
// still holds the skb it was cloned from), though the arriving skb may be
// one (probe/testdata/tcp-rcv-coalesce-clone.zcs), and a segment that
// waited on the backlog of a socket its user held may arrive merged with
// the ones after it (tcp_add_backlog, package sim;
// probe/testdata/tcp-backlog-merge.zcs); otherwise each is
// charged its whole truesize, whose head is
// Profile.TCPHeadroom more than its linear area (832 bytes on
// linux-6.18). Measured: a 4000-byte send leaves sk_rmem_alloc 4928,
// three leave 13120; the peer's first window is 65483, and one 8185-byte
// segment grows rcv_ssthresh to 110606 and the window to 111616. Over
// loopback an skb tcp_grow_skb made two 65483-byte segments long is too
// long for GSO and arrives as two packets (package sim: gso_features_check),
// each segment of skb_segment charged like an skb the sender built; the
// second coalesces into the first when the first is no clone any more.
// Measured on Linux 6.18 with SO_RCVBUF 100000 and an unread peer
// (probe/testdata/tcp-rcvbuf-window.zcs): the first of two such packets
// is acknowledged at once with what is left of the window offered
// before, aligned up to the scale (67584), the delayed ACK of the second
// offers the 3072 left, which the probe timer fills; a window computed
// with less than half the buffer free is rounded down to the scale
// before rcv_ssthresh bounds it (96256 for 98689 bytes free at ratio
// 252). A segment that arrives while sk_rmem_alloc is over sk_rcvbuf
// (tcp_try_rmem_schedule; tcp_can_ingest, where the source has it, also
// counts the segment's length, which the measurements below do not tell
// apart from this test) first raises sk_rcvbuf to the
// charge, at most tcp_rmem[2] and not past SO_RCVBUF, and ends the quick
// ACKs (tcp_prune_queue, tcp_clamp_window), so the windows offered after
// are the raised buffer's (probe/testdata/tcp-rcvbuf-clamp.zcs,
// tcp-clamp-window.zcs; Conn.tryRmemSchedule); a
// buffer that cannot be raised lowers rcv_ssthresh to two advertised
// segments, and the collapse of the receive queue (tcp_collapse) and the
// drops that can follow are not modelled: the segment is queued.
//
// # Readiness and SO_RCVLOWAT
//
// Poll is tcp_poll, and DataReady the wakeup tcp_data_ready gives a
// reader asleep in tcp_recvmsg: both wait for tcp_epollin_ready at
// SO_RCVLOWAT — that many bytes unread, or the buffer under pressure
// (sk_rmem_alloc above 7/8 of sk_rcvbuf, tcp_rmem_pressure), or what is
// left of the offered window at most rcv_mss — or the FIN. A blocking
// read returns once it has min(SO_RCVLOWAT, len) bytes (RecvTarget,
// sock_rcvlowat); bytes it already copied do not count towards the next
// wakeup. A read sleeps at all only where tcp_recvmsg_locked reaches
// sk_wait_data (ReadSleeps): not after the FIN, a socket error,
// RCV_SHUTDOWN (its own shutdown too) or on a closed socket, where it
// returns at once. SO_RCVLOWAT grows an unlocked receive buffer to hold the mark
// (tcp_set_rcvlowat, in package sock), and below the mark a receiver
// acknowledges at once what it would otherwise delay (__tcp_ack_snd_check).
// Measured on Linux 6.18 (probe/testdata/tcp-rcvlowat.zcs): POLLIN comes
// at the mark and not before, however long poll waits; a lowered mark
// gives it at once; the sender of a FIN in FIN_WAIT2 sees neither POLLIN
// nor POLLHUP, and a reset there is reported (ECONNRESET, POLLERR).
//
// # Zerocopy receive
//
// Mmap is tcp_mmap: an empty read-only area (RxMapping) into which
// ZerocopyReceive, getsockopt(TCP_ZEROCOPY_RECEIVE) around
// tcp_zerocopy_receive, inserts the pages of received frags: whole
// order-0 pages at offset 0 (can_map_frag), from copied_seq on, zapping
// what the area held there before (zap_page_range), as many whole pages
// as the request's length allows within the area and inq: a program
// passes the length it gave mmap (RxMapping.Length), so a 64-byte
// mapping, a page of area, maps nothing until asked for the page
// (probe/testdata/tcp-zerocopy-rx-short-map.zcs). What cannot be mapped
// is reported in recv_skip_hint, to be read with recvmsg or copied into
// the call's copybuf (tcp_zc_handle_leftover; receive_fallback_to_copy
// when all that is unread fits). Bytes mapped or copied are consumed once,
// as a read consumes them (copied_seq, tcp_cleanup_rbuf). A mapped page
// holds a reference of the mapping's (insert_page's get_page) until zapped
// or unmapped, so it outlives its skb and is never reused while mapped.
// Profile.TCPZerocopyRecv is the struct the kernel knows: none (ENODEV,
// ENOPROTOOPT), v4.18's three fields (exact optlen, no copybuf, the
// mapping looked up first), v5.7's inq and err, v5.11's copybuf and
// flags, or the whole struct of v5.12 on, whose optlen decides which
// fields are read (reserved must be 0 and msg_flags 0 or TCP_CMSG_TS as
// far as it reaches; flags are never checked) and which out fields are
// written (err and inq for an optlen that ends at a field from err on;
// the control buffer from msg_flags on). err and inq are written after
// release_sock (ZerocopyReceived), so inq counts what the call's own
// window update let the peer send meanwhile: measured on Linux 6.18 with
// the zerocopy receives of probe/testdata/tcp-backlog-merge.zcs, inq
// 92160 and 63488, where counting under the lock gives 59392 and 32768
// (the probe compares only the call's return). Measured on Linux 6.18
// (probe/testdata/tcp-zerocopy-receive.zcs): over loopback with an MSS of
// twelve pages and a MSG_ZEROCOPY sender every page maps; a copying
// sender's 32 KiB pages never do; writable or executable mappings are
// EPERM; an address outside the mapping is noticed only with a page or
// more unread. MmapConsume is the seed's tcp_mmap (Profile.TCPMmapConsumes,
// bug B8): mmap itself maps and consumes whole pages, or fails consuming
// nothing, with the socket lock taken inside mmap_sem; both adjust the
// receive buffer once (tcp_rcv_space_adjust).
//
// # Receive timestamps of a zerocopy receive
//
// A received skb carries a software timestamp when the host stamped it
// on arrival (skb.Buff.RxTstamp, kernel.Netstamp: the host stamps every
// packet while any socket asks for timestamps), kept through
// tcp_try_coalesce. A zerocopy receive notes TCP_CMSG_TS for each skb it
// takes bytes from: each skb the mapping loop looks at (tcp_recv_skb,
// tcp_update_recv_tstamps), the skbs receive_fallback_to_copy copies
// (tcp_recvmsg_locked), the skb tcp_zc_handle_leftover copies from. With
// an optlen that reaches msg_flags, tcp_zc_finalize_rx_tstamp then has
// tcp_recv_timestamp write the socket's messages (sock.RxTimestampCmsgs:
// SO_TIMESTAMP's or SO_TIMESTAMPNS's 16 bytes, then SO_TIMESTAMPING's
// struct scm_timestamping when it reports software timestamps) into
// msg_control with put_cmsg (sock.RecvControl), which moves msg_control
// and msg_controllen on by what it wrote and sets MSG_CTRUNC in msg_flags
// when a message does not fit or there is no buffer; without a
// timestamped skb msg_flags is 0 and the buffer comes back as it went. A
// call that maps nothing because less than a page is unread looks at no
// skb. TCP_INQ (TCP_CM_INQ) is recvmsg's and plays no part. Measured on
// Linux 6.18 (probe/testdata/tcp-zerocopy-receive-cmsg.zcs). The values
// of the timestamps are wall-clock time, which the model does not
// predict; whether data that arrived as the host switched its timestamps
// was stamped is undetermined.

// # Errnos
//
// What each failure returns under each profile:
//
//	failure                               rfc-v2   linux-4.14  linux-5.0  linux-6.18
//	MSG_ZEROCOPY, not connected           EPIPE    EINVAL      EINVAL     EPIPE
//	MSG_ZEROCOPY in CLOSE_WAIT            ok       EINVAL      ok         ok
//	any send, not connected / SHUT_WR     EPIPE    EPIPE       EPIPE      EPIPE
//	optmem (sock_omalloc) exhausted       ENOBUFS  ENOBUFS     ENOBUFS    ENOBUFS
//	RLIMIT_MEMLOCK exceeded               ENOBUFS  ENOBUFS     ENOBUFS    ENOBUFS
//	send buffer full, MSG_DONTWAIT        EAGAIN   EAGAIN      EAGAIN     EAGAIN
//	SYN unanswered (SYN_SENT), not waiting  EAGAIN (sk_stream_wait_connect; after
//	  MSG_ZEROCOPY's EINVAL where the profile has it)
//	peer reset / retransmissions exhausted  ECONNRESET / ETIMEDOUT, once, then EPIPE
//	  (a call that had queued bytes returns them; the next call gets the error)
//	MSG_FASTOPEN, connected once          EISCONN  EISCONN     EISCONN    EISCONN
//	MSG_FASTOPEN, tcp_fastopen bit 1 off  EOPNOTSUPP (before any other check)
//	MSG_FASTOPEN without a msg_name       EINVAL (tcp_v4_connect), not connected
//	MSG_FASTOPEN, no cookie, non-blocking EINPROGRESS (the handshake still completes)
//	MSG_FASTOPEN in SYN_SENT, not waiting EALREADY (__inet_stream_connect, SS_CONNECTING)
//	MSG_FASTOPEN, listener shut down      EINVAL (as its connect, ListenStopped; where
//	  Profile.ListenStopRefusesConnect, else the socket connects)
//	control message refused               EINVAL   EINVAL      EINVAL     its errno (EPERM, EINVAL)
//	  (sock_cmsg_send, after the wait for the connection; other levels than
//	  SOL_SOCKET are skipped; Profile.TCPCmsgErrno)
//
// In every case no id is consumed. The EINVAL of the older profiles comes
// before any uarg is allocated (Profile.TCPZerocopyStateCheck); EPIPE on
// the newer ones after, with the id rolled back.
//
// # Ownership
//
// A Conn holds one reference on its socket while the connection exists,
// besides the descriptor's. It owns the skbs of its write, retransmit and
// receive queues and its sk_page_frag page; the clones it transmits belong
// to the Network. A SendCall owns the call's uarg reference until it
// returns.
//
// # Simplifications
//
// ACKs are cumulative. A data segment carries this end's window only
// with an ACK that was due, so the far end takes its window
// (tcp_ack_update_window, and the MSS bound to half of it) only from
// those: on Linux every segment offers tcp_select_window's, and a client
// that has only received data has an MSS of 32768 over loopback where
// the model keeps 32741. There is no
// SACK, no fast retransmit or RACK, no autocorking or TCP Small Queues:
// a loss probe's episode ends with the ACK that reaches tlp_high_seq,
// with none of the window reduction the kernel makes when the peer's
// SACK blocks show the probe repaired a loss (tcp_process_tlp_ack). The
// connection whose FIN is acknowledged while its user holds it is
// half-closed, TCP_FIN_WAIT2: it takes and acknowledges the peer's data
// (resets on it when shut down for reading: AbortOnData) until the peer's
// FIN ends it (tcp_fin, tcp_time_wait); a simultaneous close goes through
// TCP_CLOSING. Once gone (tcp_done) a socket still holds what it
// received for its user to read. There are no FIN_WAIT2 or TIME_WAIT
// timers: an orphan whose FIN is acknowledged, or the end of a close in
// CLOSING whether or not the user holds the socket, leaves a time-wait
// socket (TimeWait) that takes a bare ACK and answers anything else with
// an ACK (TimeWaitAcks) offering the window left when it took over,
// after the ACK then due (tw_rcv_wnd, TimeWaitWindow:
// tcp_v4_timewait_ack; measured on Linux 6.18 with packetdrill,
// examples/packetdrill/simultaneous-close.pkt: win 63 over IPv4, 64 over
// IPv6 at wscale 10, where the live socket's window would be 63 for
// both); LAST_ACK leaves none.
//
// Receive-buffer autotuning (rcvspace.go) runs on the simulation's clock,
// which no call advances: only wait, settle and timers move it.
//
//   - tcp_rcv_rtt_measure samples the receive RTT when rcv_nxt reaches
//     the right edge of the window offered when the sample began, at
//     least 1µs, keeping the least (tcp_rcv_rtt_update); no timestamp
//     samples (tcp_rcv_rtt_measure_ts: 0 ms over loopback without a wait,
//     which Linux 6.16 on ignores; after a wait the kernel's would raise
//     its estimate).
//   - tcp_rcv_space_adjust runs after each skb a read copies from
//     (tcp_recvmsg_locked) and once after a zerocopy receive or the
//     seed's tcp_mmap. With an RTT sample and at least that long since
//     the last measurement (rcvq_space.time), the bytes copied since
//     (less those still queued, Profile.TCPRcvbufGrow RcvbufWindow)
//     become the measurement; more than the last one (rcvq_space.space,
//     from tcp_init_buffer_space) grows sk_rcvbuf in tcp_rcvbuf_grow —
//     tcp_space_from_win(2n + 4n(n − space)/space) at scaling_ratio, at
//     most tcp_rmem[2], window_clamp its window — unless
//     net.ipv4.tcp_moderate_rcvbuf is 0 or SO_RCVBUF locked the size.
//   - SO_RCVLOWAT grows an unlocked buffer to tcp_space_from_win of the
//     mark and sets window_clamp to it (tcp_set_rcvlowat).
//
// On the kernel the RTT and the time between reads are wall-clock
// microseconds, so whether a read grows the buffer depends on timing no
// scenario shows: measured over loopback, a streaming reader's buffer
// grew within its first six 64 KiB reads, to between 370761 and 1972842
// bytes from run to run, while the model, whose calls take no time,
// grows it only across a wait. Scenarios whose reads come a wait after
// the last measurement, after a burst that arrived within one window,
// agree to the byte (probe/testdata/tcp-rcvbuf-grow.zcs). Where the two
// may part, the socket's history says so (rcvbuf_undetermined): a read
// with the model's gate closed and more than the last measurement copied,
// which the kernel grows from if its RTT has passed, and a growth from
// bytes copied across such reads, at which the kernel may have restarted
// its measurement; zcsim probe then compares nothing on the pair that
// depends on the buffer.
//
// Under BBR the congestion window past TCP_INIT_CWND segments delivered
// grows toward a target of bandwidth and min_rtt estimates of wall-clock
// time (bbr_set_cwnd), which the model does not keep (Conn.congControl);
// the first ACK past that point notes it in the socket's history
// (cwnd_undetermined), and zcsim probe then compares nothing on the pair
// that depends on the window or the send buffer tcp_sndbuf_expand sizes
// from it (non-blocking sends, SO_SNDBUF, TCP_INFO, reads, poll).
//
// # Linux correspondence
//
// net/ipv4/tcp.c: tcp_sendmsg_locked, tcp_sendmsg_fastopen,
// tcp_send_syn_data (tcp_output.c), __inet_stream_connect (af_inet.c),
// tcp_push, tcp_mark_push, forced_push,
// tcp_remove_empty_skb, tcp_close, tcp_shutdown, tcp_disconnect (of a
// listener; its connect refused after, ListenStopped),
// inet_child_forget (inet_connection_sock.c: a child its listener's close
// resets, Conn.Forget), inet_csk_destroy_sock and sk_stream_kill_queues
// (net/core/stream.c: the receive queue of the destroyed connection
// purged, and its error queue since v6.1, Profile.TCPPurgeErrQueue),
// inet_listen (af_inet.c: the backlog, and fastopen_queue_tune under
// TFO_SERVER_WO_SOCKOPT1); net/ipv4/tcp_timer.c: tcp_retransmit_timer
// and tcp_write_timeout in SYN_SENT, tcp_model_timeout (synsent.go);
// tcp_recvmsg_locked (the order of its empty-queue answers: SOCK_DONE,
// sk_err, RCV_SHUTDOWN, TCP_CLOSE);
// net/ipv4/tcp_output.c: tcp_write_xmit, tcp_cwnd_test, __tcp_transmit_skb,
// tcp_grow_skb, tcp_tso_segs,
// tcp_tso_autosize, tcp_transmit_skb, tso_fragment,
// tcp_fragment, tcp_nagle_test, tcp_mss_split_point, tcp_xmit_size_goal,
// tcp_send_fin, tcp_event_data_sent, tcp_pacing_check,
// tcp_update_skb_after_send, tcp_pace_kick, tcp_tsq_handler,
// tcp_fragment_tstamp; net/ipv4/tcp.c: tcp_tx_timestamp;
// net/core/sock.c: sk_flush_backlog; net/ipv4/tcp_ipv4.c: tcp_add_backlog;
// net/ipv4/tcp_input.c: tcp_fin, tcp_ack, tcp_clean_rtx_queue, tcp_ack_tstamp,
// tcp_rcv_established (its header prediction and slow path),
// tcp_data_snd_check, tcp_fast_path_check (include/net/tcp.h),
// tcp_sndbuf_expand, tcp_check_space, tcp_new_space,
// tcp_event_new_data_sent (tcp_output.c: its tcp_check_space),
// tcp_should_expand_sndbuf, tcp_cong_control, tcp_data_queue, tcp_reset, __tcp_ack_snd_check,
// tcp_rearm_rto, tcp_event_data_recv, tcp_incr_quickack, tcp_tso_acked,
// tcp_trim_head (tcp_output.c), __pskb_trim_head, tcp_mss_split_point,
// tcp_measure_rcv_mss, tcp_grow_window, __tcp_grow_window,
// tcp_init_buffer_space, tcp_queue_rcv, tcp_try_coalesce,
// tcp_try_rmem_schedule, tcp_prune_queue, tcp_clamp_window,
// tcp_rcv_rtt_measure, tcp_rcv_rtt_update, tcp_rcv_space_adjust,
// tcp_rcvbuf_grow; include/net/tcp.h: tcp_win_from_space,
// tcp_space_from_win, tcp_space, tcp_full_space; net/ipv4/tcp.c:
// tcp_set_rcvlowat,
// tcp_cleanup_rbuf, tcp_set_window_clamp; net/ipv4/tcp_output.c:
// tcp_send_ack, tcp_send_delayed_ack, tcp_event_new_data_sent,
// tcp_select_window, __tcp_select_window, tcp_select_initial_window,
// tcp_sync_mss, tcp_minshall_update, tcp_nagle_check;
// tcp_poll, tcp_stream_is_readable, tcp_data_ready, sock_rcvlowat,
// tcp_mmap, tcp_zerocopy_receive, do_tcp_getsockopt (TCP_ZEROCOPY_RECEIVE),
// receive_fallback_to_copy, tcp_zc_handle_leftover, tcp_zc_finalize_rx_tstamp,
// tcp_recv_timestamp, tcp_update_recv_tstamps, tcp_try_coalesce (tcp_input.c),
// tcp_zerocopy_set_hint_for_skb, skb_advance_to_frag, can_map_frag,
// find_next_mappable_frag, tcp_inq_hint;
// include/net/tcp.h: tcp_epollin_ready, tcp_rmem_pressure;
// include/net/tcp.h: tcp_dec_quickack_mode, tcp_event_ack_sent,
// tcp_bound_to_half_wnd; net/ipv4/tcp_output.c: tcp_schedule_loss_probe,
// tcp_send_loss_probe, skb_still_in_host_queue, tcp_rearm_rto,
// tcp_event_new_data_sent; net/ipv4/tcp_input.c: tcp_process_tlp_ack,
// tcp_set_xmit_timer, tcp_rtt_estimator, tcp_synack_rtt_meas,
// tcp_enter_quickack_mode, tcp_send_dupack;
// net/ipv4/tcp_timer.c: tcp_retransmit_timer,
// tcp_write_err, tcp_delack_timer_handler, tcp_probe_timer;
// net/ipv4/tcp_output.c: tcp_write_wakeup, tcp_check_probe_timer,
// tcp_xmit_probe_skb, tcp_send_probe0; net/ipv4/tcp_timer.c:
// tcp_orphan_retries; net/ipv4/tcp_input.c: tcp_ack_probe,
// tcp_validate_incoming, tcp_sequence, tcp_oow_rate_limited;
// include/net/tcp.h: tcp_probe0_base, tcp_probe0_when, tcp_rto_max;
// include/net/inet_connection_sock.h: inet_csk_rto_backoff;
// tcp_cwnd_validate; include/net/tcp.h: tcp_is_cwnd_limited;
// net/ipv4/tcp_cubic.c: bictcp_cong_avoid; net/ipv4/tcp_cong.c:
// tcp_slow_start; net/ipv4/tcp_bbr.c: bbr_main, bbr_set_cwnd,
// bbr_sndbuf_expand; net/core/stream.c: sk_stream_wait_memory.
package tcp
