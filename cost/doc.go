// Package cost is a CPU-cost account of a run: how many times the kernel
// did each costly thing the model records, times what each costs on a
// calibrated machine. It answers "how much CPU does MSG_ZEROCOPY save
// here, and where does it go" in the shape the seeds measured it, not to
// the cycle.
//
// # Model
//
// A run's trace (sim.Trace) is read step by step. Steps that ran on
// another machine — the implicit peer across a NIC or tun
// (sim.Event.FarHost) — are not this host's and cost nothing. Every
// other step is charged to one of two contexts:
//
//   - Process: a system call's step (a call's result, or a send that
//     blocks), with the softirq work it runs on its own stack (loopback
//     delivery at local_bh_enable, release_sock's backlog);
//   - Softirq: a network event or timer of this host (an ACK arriving,
//     a TX completion, a retransmission).
//
// The process column is perf's count for the sending process, the sum of
// both its count for the whole machine (seed 000's "process cycles" and
// "cpu cycles").
//
// # Terms
//
// Each term is counted from a typed record the model made as it ran; the
// account re-derives nothing.
//
//	term           kernel work it stands for                               counted as
//	syscall        entry and exit of a system call (entry_SYSCALL_64,      events with a result (sim.Event.Ret)
//	               fdget, the mitigations on the way)
//	send_call      a send's protocol work beyond the bytes: udp_sendmsg /  send events with a result
//	               tcp_sendmsg_locked, the route, sock_alloc_send_pskb
//	copy_byte      copying user bytes into the kernel (copy_from_iter in   bytes the sends returned, less the bytes
//	               skb_copy_to_page_nocache, ip_generic_getfrag)           zerocopy took from user pages (OpZerocopyFill)
//	pin_page       pinning one user page (get_user_pages_fast via          frags zerocopy added (OpZerocopyFill Args[1]):
//	               iov_iter_get_pages2 in __zerocopy_sg_from_iter)         one pinned page each
//	uarg           a ubuf_info's life: msg_zerocopy_alloc (sock_omalloc,   uargs allocated (OpZerocopyAlloc)
//	               mm_account_pinned_pages) and __msg_zerocopy_callback
//	packet         one packet handled on this host: its sk_buff           frames sent and received and ACKs built or
//	               (alloc_skb, skb_clone), ip_queue_xmit/dev_queue_xmit   processed (sim.Event.Work: TxFrames,
//	               and the driver, or netif_receive_skb/ip_rcv/tcp_v4_rcv RxFrames, Acks)
//	               /udp_rcv, or tcp_ack
//	rx_copy_byte   the private copy of zerocopy frags that loop to a      bytes skb_copy_ubufs copied (OpCopyUbufs
//	               local receiver (skb_orphan_frags_rx → skb_copy_ubufs,  Args[0])
//	               page allocation included)
//	errqueue_read  dequeuing a notification beyond the syscall:           error-queue reads that returned a record
//	               sock_recv_errqueue, put_cmsg of sock_extended_err      (op "recvmsg" with a notification or CTRUNC)
//	read_byte      a local reader copying received bytes to its user      bytes an auto-reading peer of this host read
//	               (skb_copy_datagram_iter in tcp_recvmsg/udp_recvmsg)    (sim.Work.RxReadBytes)
//
// An empty error-queue read costs one syscall and nothing else. Every
// message of a sendmmsg is a send step of its own in the model, so it is
// charged a syscall each (the kernel enters once): sendmmsg is
// over-charged by (messages − 1) syscalls.
//
// # Constants
//
// Constants gives each term a cost in nanoseconds per unit. Calibrated
// (calibration.json, embedded) holds the constants measured on a named
// machine and kernel; Calibrate fits them by least squares (Fit) from
// samples of the live kernel (Sample), UDP sends in a private network
// namespace on two paths: lo delivering to a local receiver, and lo with
// a pfifo qdisc of limit 0, which drops each frame as dev_queue_xmit
// enqueues it — the sender's side of a NIC, where zerocopy frags are never
// copied:
//
//   - syscall: an empty recvmsg(MSG_ERRQUEUE) (EAGAIN);
//   - copy_byte, packet, send_call: copied sends of 64 B to 60 KB over
//     loopback with lo's MTU at 65536 and at 1500, regressed on bytes
//     and packets (each fragment is sent and received here: two);
//   - uarg, pin_page: a zerocopy send less a copied one of the same size
//     on the dropping device, plus the copy it saved, regressed on pages;
//   - rx_copy_byte: a zerocopy send over loopback less one on the
//     dropping device, regressed on bytes;
//   - errqueue_read: a zerocopy send on the dropping device followed by
//     the read of its notification, less the send alone and the syscall;
//   - read_byte: the receiver's recv of a datagram, regressed on bytes.
//
// Times are the sending thread's CPU time (CLOCK_THREAD_CPUTIME_ID) per
// operation of a batch of 128, the least of 15 rounds and of 3 passes
// (interference only adds); the sends read a 64 MiB buffer in turn, as a
// streaming program does, so copies and page walks miss the cache as
// they would. The file keeps the samples beside the constants.
// Recalibrate, as root, with tc (iproute2) installed:
//
//	go test ./internal/kbench -run TestCalibrateCost -v -kbench.calibrate $PWD/cost/calibration.json
//
// # Limits
//
// The constants come from one machine's loopback; a NIC's driver,
// interrupts and IOMMU are not in them (packet stands for every packet
// alike, sent, received or an ACK). Cache effects are not modelled: a copy costs the same per byte
// at 4 KB as at 1 MB. The account is a linear model of what the
// simulator counted, and is exactly as right as those counts.
package cost
