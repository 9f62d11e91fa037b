// Package gen generates random, well-formed scenarios in zcsim's scenario
// language, for property testing the model against its invariants, and
// shrinks a failing scenario to a minimal reproducer. It is the engine of
// random exploration: fuzz targets feed it seeds, and a checker runs its
// scenarios and reports what the invariants catch.
//
//	src := gen.Scenario(seed, gen.Config{Profile: "linux-6.18"})
//	tr, err := interp.Run("gen.zcs", src, interp.Options{})  // err is always nil
//	small := gen.Shrink(src, func(c []byte) bool { return sameViolation(c) })
//
// # Contract
//
// [Scenario] returns, for every seed and [Config]:
//
//   - a file that parses (package sim/scenario) and passes the
//     interpreter's semantic checks: every name is defined before use,
//     every size, MTU, counter and option value is within what the
//     interpreter accepts. A run of it never fails with an input error.
//   - the same bytes for the same seed and Config; the randomness is one
//     PCG stream of the seed, and nothing depends on map order or time.
//   - no expectations ("=>"): the invariants checked after every step are
//     the oracle. expect statements, when drawn, state guessed values, so
//     their mismatches mean nothing.
//   - a leading comment with the seed, the drawn features and the action
//     weights, then "profile NAME" and a "bug NAME" line per Config.Bugs.
//
// Every scenario is bounded: the body has between Stmts/4 and Stmts+5
// statements, the setup at most 14 + 6×Sockets and the final drain at most
// 1 + 3 per socket; the payloads of all sends and vhost_send together are at
// most Bytes, one call's at most CallBytes (SmallCallBytes unless the Big
// feature is drawn), one vhost_send makes at most 256 segments.
//
// # Swarm testing
//
// Each scenario first draws a random subset of the allowed [Features]
// (each with probability 1/2, at least one socket kind), then a weight for
// each action the drawn features enable (its base weight times 0 to 4,
// sends never 0). So one file is all UDP on loopback, the next TCP across
// a NIC with held ACKs, manual TX completion and armed faults; features
// that would mask each other rarely meet in one file.
//
// # What is generated
//
// The setup: sysctls (tcp_timestamps and tcp_sack off now and then, and
// then a page-sized MSS's MTU is 12 bytes less; optmem_max, wmem/rmem
// defaults and maxima, tcp_wmem/tcp_rmem, and with TCP
// tcp_congestion_control and tcp_early_retrans, with Listen somaxconn
// and tcp_abort_on_overflow), users and tasks (memlock sizes or
// unlimited, cap_ipc_lock, cap_net_admin, hugepages), devices (nic, tun, a second
// loopback; sg, csum, gso, tso, gso_max_size, mtu from 1280 to 65536,
// delay, loss, txcomplete as a delay or manual, orphan_rx on a loopback or
// tun device; with ZcRecv a loopback lz and NICs with header_split whose
// MTU makes the MSS whole pages, 4096 or 49152 bytes, so that a receiver
// can map what arrives), taps, and sockets of
// every modelled kind (TCP, UDP and RAW over AF_INET and AF_INET6, RAW with
// IP_HDRINCL and most often the header's ihl, AF_PACKET, AF_UNIX,
// combinations socket(2) refuses, SOCK_NONBLOCK, with Mapped AF_INET6 TCP
// and UDP sockets with v4-mapped peers) with via, task and peer options,
// each followed by SO_ZEROCOPY before or after connect, a few options, bind
// and listen, with ZcRecv sometimes an mmap of a TCP socket's receiving
// side, and now and then SO_OOBINLINE on that side. With Listen a TCP socket may be a listener (listen with
// a backlog= of 0 to 128, -1, or none) and a later one a client of it
// (to=, of its family, connecting in its setup; it has no implicit peer,
// so what would go to S.peer goes to it).
//
// The body: send, sendto, sendmsg with 0 to 64 iovecs (under a profile
// with SCM_ZC_NOTIFICATION, half of them with zc_info=, and put_cmsg among
// the fault sites), sendmmsg, with
// copy and zerocopy mixed, MSG_MORE, MSG_DONTWAIT and rarer flags; sizes
// from 0 to CallBytes weighted toward small ones, with the boundaries that
// matter (MSS, PAGE_SIZE ± 1, 64K ± 1, the MTU ± 1, UDP's largest
// datagram), on TCP senders MSG_OOB more often than the other rarer
// flags. recvmsg MSG_ERRQUEUE at random moments, recv and recvmsg on
// peers (MSG_OOB and MSG_OOB|MSG_PEEK among their flags), setsockopt and
// getsockopt (SO_ZEROCOPY, buffer sizes and their
// FORCE forms, TCP_CORK, UDP_CORK, UDP_SEGMENT, SO_TIMESTAMPING with flag
// unions or numbers, SO_TIMESTAMP and SO_TIMESTAMPNS, IP_RECVERR,
// IPV6_RECVERR, SO_RCVLOWAT, SO_REUSEADDR, SO_REUSEPORT, TCP_CONGESTION
// by name (one the kernel lacks too, and an optlen that cuts it),
// TCP_INQ, options on the wrong socket), sendmsg control messages
// (SO_TIMESTAMPING for one call, rarely another level's or a short
// one), connect, bind, listen, accept, shutdown, close, new
// sockets, setrlimit, capset, capdrop, wait, settle, hold, release, drop,
// complete, txerror, fault rules on every site, zckey near the 2^32 wrap,
// vhost_send, expect, note and comments, with Listen a second listen
// of a listener, a new client or accept from its queue, and repeat loops (Loops: 2 to 64
// iterations of one to three sends, reads or time steps, a send's length
// sometimes an expression of the variable i; the byte budget counts every
// iteration), and TX rings on packet sockets (TxRing: a valid
// PACKET_TX_RING set up and mapped, frames written with txframe, their
// status read with txstatus, sends from the ring, the sender migrating
// between CPUs and per-CPU pending counters skewed near their wrap
// (txskew); never through a
// loopback device, whose loopback_xmit gives a frame back while it is
// still being delivered; on a NIC with manual TX completion a ring send
// may still be pending at the end, its frame TP_STATUS_SENDING). Taps
// may read their copies after a delay.
//
// Receiving: with ZcRecv, mmap of a TCP socket or, mostly, its peer
// (mostly PROT_READ, sometimes a protection or a length tcp_mmap
// refuses), getsockopt(TCP_ZEROCOPY_RECEIVE) with length=, copybuf=,
// offset=, with Timestamps control= (after the receiver asked for
// receive timestamps), rarely msg_flags=, reserved= or flags=, a short
// optlen or NULL into a mapped area, munmap, often after
// a poll for POLLIN, as a program waits for data before it maps it; and
// TCP sends of whole pages through a device whose MSS is whole pages,
// which keep the receiver's read position mappable. Under a profile
// whose tcp_mmap itself maps and consumes (the seed's, tcp-mmap-rfc,
// catalog entry B8, or with that bug among Config.Bugs) mmap is most of
// them. With Poll: poll of a socket or its peer for a union of events,
// at once or with a timeout, SO_RCVLOWAT on either side, and fcntl
// F_GETFL and F_SETFL. With Epoll: at most two instances, each created
// with a socket added, then epoll_ctl ADD, MOD and DEL of sockets and
// peers with event unions and EPOLLET, EPOLLONESHOT, EPOLLEXCLUSIVE and
// EPOLLWAKEUP, epoll_wait for 1 to 64 events (rarely 0 or -1, which it
// refuses) at once, with a timeout or for ever, and close of an
// instance.
// Some files end by settling and reading the error queues.
//
// Some bugs need several features at once, too rare a conjunction for
// independent draws. BigTCP draws one: lo redefined with a gso_max_size
// above 64 KiB, tcp_wmem of megabytes, a task "big" with huge pages and
// an unlimited (or 16 MiB) memlock, TCP sockets on lo that run as it with
// a 4 MiB peer receive buffer read automatically, and half their sends
// over 64 KiB (catalog entry B15 needs exactly that).
//
// # Host
//
// With Config.Host the scenarios are those a program can run on a real
// host, for zcsim diff to hold the model to the live kernel: sockets on
// the loopback device lo (via=lo and peer_read=manual their only
// options), no PF_PACKET sockets (the live run leaves them unbound) and
// no AF_RDS (a host may lack the module); peers only for TCP and UDP
// sockets, and only to send (not sendto) on and read from (poll, epoll,
// mmap and TCP_ZEROCOPY_RECEIVE among the reads); SO_ZEROCOPY,
// options, connect, calls, shutdown and close, settle and waits of at
// most 250ms, no epoll_wait for ever, net.core.optmem_max and the TCP
// sysctls before the first socket (tcp_congestion_control only reno, the
// one a namespace but the first may always make its default), listeners
// and their clients, always non-blocking (no accept), TCP_CONGESTION
// cubic only in a file that runs unprivileged (Memlock); with ZcRecv sometimes a loopback lz with a page-sized
// MSS declared before any socket, whose MTU the live run gives the
// namespace's lo, and every socket through it. With Memlock
// the file drops task main's CAP_IPC_LOCK first (the live run is then
// unprivileged, without capabilities, so it opens no RAW socket) and sets
// its RLIMIT_MEMLOCK to at most 8 MiB, the host's hard limit; only such a
// file forces buffer sizes (SO_SNDBUFFORCE), which root on the host may
// and the model's main may not. Everything only the model has is never
// written: other devices, taps, users and tasks, hold, release, drop,
// complete, txerror, vhost_send, fault, zckey, bind, accept,
// capset, BIG TCP and repeat loops.
//
// # Shrinking
//
// [Shrink] is delta debugging over the text: it deletes runs of lines
// (halving the run length down to one), then single tokens (options, union
// members, iovec entries, counts), and replaces numbers by 0 or half of
// themselves, keeping each change for which the caller's predicate still
// holds, until nothing more can be removed or [MaxShrinkTries] candidates
// were tried. The predicate decides what "the same failure" means (the
// same violation rule, the same panic); a candidate that no longer parses
// simply fails it.
package gen
