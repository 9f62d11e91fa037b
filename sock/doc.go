// Package sock models struct sock as far as MSG_ZEROCOPY needs it: the
// zerocopy counter and flag, the socket refcount and SOCK_DEAD, the memory
// charges (optmem, wmem, rmem) with their limits, buffer sizes, timestamp
// settings, and the error queue.
//
// # Model
//
// Sock implements ubuf.Socket and skb.Owner. Omalloc is sock_omalloc's
// admission check, omem + SKB_TRUESIZE(0) > optmem_max ⇒ fail, followed by
// a charge of the skb's real truesize. SetZerocopy applies the profile's
// SO_ZEROCOPY rules; Zerocopy says whether MSG_ZEROCOPY takes effect (it is
// silently ignored otherwise). RecvErrqueue reads one record, returns its
// charge, and fails with EAGAIN when the queue is empty.
//
// # Ownership
//
// A Sock starts with one reference, its descriptor's, dropped by Close,
// which also sets SOCK_DEAD. Each msg_zerocopy uarg holds another until its
// completion. After the last Put the socket lives on while transmitted skbs
// still charge sk_wmem_alloc (the kernel's wmem bias: sk_free leaves the
// struct to the last sock_wfree); then sk_destruct purges the error queue
// and frees it, and a charge still held is reported as a leak. A TCP
// connection's error queue goes earlier since v6.1, when it is destroyed
// (PurgeErrQueue: sk_stream_kill_queues in inet_csk_destroy_sock).
//
// # Invariants
//
//	refcnt ≥ 0; no charge goes below zero;
//	at destruction omem = wmem = wmem_queued = rmem = 0;
//	sk_zckey only changes through ubuf (alloc, realloc, put_abort).
//
// # Linux correspondence
//
// net/ipv4/ip_sockglue.c: do_ip_setsockopt, do_ip_getsockopt (IP_RECVERR,
// IP_HDRINCL), net/ipv6/ipv6_sockglue.c: do_ipv6_setsockopt,
// do_ipv6_getsockopt (IPV6_RECVERR), net/core/skbuff.c:
// skb_errqueue_purge, sock_dequeue_err_skb (sk_err after an error-queue
// read);
// net/core/sock.c: sk_alloc, sock_setsockopt (SO_ZEROCOPY, SO_SNDBUF,
// SO_RCVBUF and the FORCE forms, SO_TIMESTAMPING, SO_RCVLOWAT,
// SO_MAX_PACING_RATE, SO_TIMESTAMP and SO_TIMESTAMPNS old and new:
// sock_set_timestamp, sock_set_timestamping), sock_enable_timestamp,
// sock_disable_timestamp (Rxts; the host's switch is kernel.Netstamp),
// sock_getsockopt, sock_omalloc, sock_ofree, sock_wfree, sock_rfree,
// sock_queue_err_skb, sock_recv_errqueue, sk_destruct, sock_orphan,
// sock_kmalloc, sock_kfree_s, __sock_tx_timestamp, skb_setup_tx_timestamp
// (SetupTxTimestamp); net/core/scm.c: put_cmsg (RecvControl);
// net/socket.c: __sock_recv_timestamp and include/net/sock.h:
// sock_recv_timestamp (DgramRxTimestampCmsgs); net/ipv4/tcp.c:
// tcp_recv_timestamp (RxTimestampCmsgs); sk_clone_lock's copy of sk_flags
// and its net_enable_timestamp (InheritFlags);
// net/core/skbuff.c: __skb_tstamp_tx,
// __skb_complete_tx_timestamp (TstampTx: the key is the packet's tskey,
// less sk_tskey on TCP); sock_cmsg_send and __sock_cmsg_send
// (CmsgSend, SockCmsg: SO_MARK, SO_PRIORITY, SO_TIMESTAMPING, SCM_TXTIME,
// SCM_RIGHTS, SCM_CREDENTIALS into a sockcm_cookie, Sockcm, initialised by
// sockcm_init; SCM_ZC_NOTIFICATION of the unmerged v7 series:
// ZcNotification), sk_setsockopt and sk_getsockopt (SO_MARK);
// include/net/sock.h: sock_hold, sock_put.
package sock
