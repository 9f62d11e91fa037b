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
//   - Zerocopy payload becomes frags, one per page chunk of each iovec
//     (skb_zerocopy_iter_stream). Profiles before v4.18 first fill a small
//     linear area (Profile.TCPLinear), a copy no notification reports.
//   - A full skb (MAX_SKB_FRAGS) or a tail skb holding another uarg (EEXIST)
//     gets PSH and the data goes on in a new skb (tcp_mark_push,
//     new_segment).
//   - Send-buffer pressure (sk_wmem_queued ≥ sk_sndbuf) blocks, or fails
//     with EAGAIN under MSG_DONTWAIT: never ENOBUFS.
//   - On return the call drops its own uarg reference (net_zcopy_put). A call
//     that queued nothing is aborted instead (net_zcopy_put_abort): its id
//     is rolled back. A call that queued something keeps its id.
//
// Transmission (tcp_write_xmit, tcp_transmit_skb) sends a clone of each
// skb — or a pskb_copy, with its own uarg reference, while an earlier clone
// is still in flight — within the congestion window, the peer's receive
// window and Nagle or corks; an skb larger than what may go is split
// (tso_fragment → skb_split, one more uarg reference). Ack frees every
// acknowledged skb of the retransmit queue, dropping its reference; the
// uarg completes when the last skb and the last clone are gone. Timeout
// retransmits everything unacknowledged. Close orphans the socket: its
// skbs keep their references until acknowledged, and their completions
// queue no notification.
//
// # Timers and ACKs
//
// A Conn runs its own timers on the virtual clock its Network provides
// (Network.After, which the simulator implements; package sim/engine is
// the shared leaf that defines virtual time):
//
//   - The retransmission timer runs while the retransmit queue holds
//     anything and the connection exists: armed when new data is sent
//     (tcp_event_new_data_sent), restarted from TCP_RTO_MIN with its backoff
//     forgotten by an ACK that frees something, stopped when nothing is
//     outstanding (tcp_rearm_rto). Each timeout retransmits from snd_una
//     and doubles the next, up to TCP_RTO_MAX; after tcp_retries2 (15)
//     timeouts the connection is given up with ETIMEDOUT
//     (tcp_retransmit_timer, tcp_write_err).
//   - Received data is acknowledged by the connection's AckPolicy
//     (__tcp_ack_snd_check): at once, or, delayed, on every second
//     full-sized segment, a FIN, or the delayed-ACK timer after
//     TCP_DELACK_MIN (tcp_send_delayed_ack). An out-of-order segment and an
//     application read (tcp_cleanup_rbuf) send an ACK at once. ACKs leave
//     through Network.SendAck.
//   - tcp_done stops every timer (inet_csk_clear_xmit_timers).
//
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
//	peer reset / retransmissions exhausted  ECONNRESET / ETIMEDOUT, once, then EPIPE
//	MSG_FASTOPEN, connected once          EISCONN  EISCONN     EISCONN    EISCONN
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
// ACKs are cumulative and acknowledge whole transmitted skbs; there is no
// SACK, no fast retransmit, no autocorking or TCP Small Queues, and a
// connection is gone once its FIN is acknowledged (no FIN_WAIT2 or
// TIME_WAIT timers; such a connection drops the peer's data, except that
// one shut down for reading resets on it, as FIN_WAIT2 does: AbortOnData).
//
// # Linux correspondence
//
// net/ipv4/tcp.c: tcp_sendmsg_locked, tcp_push, tcp_mark_push, forced_push,
// tcp_remove_empty_skb, tcp_close, tcp_shutdown, tcp_disconnect (of a listener),
// tcp_recvmsg_locked (the order of its empty-queue answers: SOCK_DONE,
// sk_err, RCV_SHUTDOWN, TCP_CLOSE);
// net/ipv4/tcp_output.c: tcp_write_xmit, tcp_transmit_skb, tso_fragment,
// tcp_fragment, tcp_nagle_test, tcp_mss_split_point, tcp_xmit_size_goal,
// tcp_send_fin; net/ipv4/tcp_input.c: tcp_ack, tcp_clean_rtx_queue,
// tcp_sndbuf_expand, tcp_data_queue, tcp_reset, __tcp_ack_snd_check,
// tcp_rearm_rto; net/ipv4/tcp_output.c: tcp_send_ack,
// tcp_send_delayed_ack, tcp_event_new_data_sent; net/ipv4/tcp_timer.c:
// tcp_retransmit_timer, tcp_write_err.
package tcp
