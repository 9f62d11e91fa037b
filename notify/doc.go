// Package notify models a socket's error queue as MSG_ZEROCOPY uses it, and
// the program-side ledger that maps notification ids back to send calls.
//
// # Model
//
// A Record is one sock_exterr_skb: origin, errno, code, info, data, and its
// charge. Zerocopy notifications (origin SO_EE_ORIGIN_ZEROCOPY, errno 0)
// carry an inclusive id Range [ee_info, ee_data]; TX timestamps (origin
// SO_EE_ORIGIN_TIMESTAMPING, errno ENOMSG) share the queue.
//
// Queue.Zerocopy is the queueing half of __msg_zerocopy_callback: the record
// at the profile's end of the queue (the tail since Linux 4.14, the head in
// the RFC) is extended when it is a zerocopy record, the new range follows
// it exactly (lo == hi + 1 in u32 arithmetic, so ranges wrap at 2^32) and
// the merged range holds fewer than 2^32 ids (skb_zerocopy_notify_extend).
// The code is not compared: the merged record keeps its own, losing a
// COPIED report or a non-COPIED one. Dequeue returns the head record, one
// per recvmsg(MSG_ERRQUEUE).
//
// TakeZerocopy is the other reader, the SCM_ZC_NOTIFICATION handler of the
// unmerged v7 series (seed 003): from the head, it unlinks up to a given
// number of zerocopy completions and leaves every other record in place;
// each becomes a ZcInfoElem {lo, hi, zerocopy = !COPIED}.
//
// # Ownership
//
// The queue owns its records; whoever dequeues or purges one returns its
// charge (the sock package does).
//
// # Invariants
//
//	Range.Len() is in [1, 2^32]; records leave in arrival order;
//	a Ledger reports every gap in ids and every id notified twice or never sent.
//
// # Linux correspondence
//
// net/core/skbuff.c: __msg_zerocopy_callback, skb_zerocopy_notify_extend,
// sock_queue_err_skb; net/core/sock.c: sock_recv_errqueue, and with the v7
// series __sock_cmsg_send (SCM_ZC_NOTIFICATION, struct zc_info_elem);
// include/uapi/linux/errqueue.h: struct sock_extended_err.
package notify
