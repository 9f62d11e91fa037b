// Package pktdrill translates packetdrill scripts into scenarios, so the
// model runs them as the kernel runs them under packetdrill: the script is
// the far side of the connections over a tun device, tun0, scripted
// (peer=script).
//
// # What it translates
//
// A script is a sequence of events, one a line (a system call may go on
// over several lines until its brackets close), each with a time: 0 or
// 0.250 (absolute), +0 or +.1 (after the previous event), * (whenever).
// Time that passes becomes wait; then
//
//   - a system call becomes the statement of the same name on the socket
//     named fdN after its descriptor, with its result as the expectation
//     ("= -1 EAGAIN (text)" is "=> -1 EAGAIN"): socket (on tun0; ... as the
//     family is AF_INET, or AF_INET6 under --ip_version=ipv6, AF_INET6
//     and mapped under ipv4-mapped-ipv6), setsockopt and getsockopt ([V] is V, a length
//     other than 4 is optlen=), bind, listen (its backlog as backlog=, left
//     out for 1), connect, accept, shutdown,
//     close, send, sendto, write, sendmsg (its iovec lengths, and each
//     {cmsg_level=L, cmsg_type=T, cmsg_data=V} of its msg_control with an
//     integer V, which packetdrill's cmsg_new writes as an int: "cmsg L T
//     V", with len=4 where the type's own data is shorter, so a
//     UDP_SEGMENT goes as a u32; several iovecs as iov=apart, since
//     packetdrill callocs each one), recv, read,
//     and recvmsg, whose zerocopy notification (a control message of level
//     SOL_IP or SOL_IPV6 and type IP_RECVERR or IPV6_RECVERR with
//     ee_origin SO_EE_ORIGIN_ZEROCOPY) becomes "zerocopy [ee_info,ee_data]"
//     with copied for SO_EE_CODE_ZEROCOPY_COPIED, and the read's msg_flags,
//     cmsg_level and cmsg_type checked (CMSG_LEVEL_IP and
//     CMSG_TYPE_RECVERR are the script family's); packetdrill sizes the
//     control buffer to the control messages the script lists (cmsg_new),
//     which holds the record listed, so the read gets the scenario's
//     default buffer, except one whose msg_flags say MSG_CTRUNC: that gets
//     control= of packetdrill's size and the outcome ctrunc;
//   - fcntl(fd, F_GETFL) and fcntl(fd, F_SETFL, FLAGS) become fcntl;
//   - poll([{fd=S, events=EVENTS, revents=REVENTS}], 1, MS) = K becomes
//     poll fdS EVENTS MSms => K revents=REVENTS (0 when left out, as
//     packetdrill checks it); a poll of more descriptors, or forever
//     (MS < 0), is refused;
//   - epoll_create(N) names the instance fdN after its descriptor;
//     epoll_ctl(E, OP, S, {events=EVENTS, fd=S}) and epoll_wait(E,
//     {events=EVENTS, fd=S}, MAXEVENTS, MS) = K become epoll_ctl and
//     epoll_wait (MS in milliseconds) with the event listed; the data may
//     be u32=, u64= or ptr= a value instead, which names the socket
//     epoll_ctl gave it on that instance (a value two sockets share is
//     refused): packetdrill
//     checks the first event only, so a wait for K > 1 is refused, and one
//     for K = 0 is written {events=0, u32=0}, the zeroed event it compares;
//   - "< FLAGS SEQ:END(LEN) [ack N] [win N] [<options>]", a packet the
//     script sends, becomes inject (a SYN to the last listener, anything
//     else to the last accepted or connected socket, or the last one a
//     sendto with MSG_FASTOPEN connected), "> ..." a packet the
//     kernel must send becomes packet tun0; flags S . P F R are SYN ACK
//     PSH FIN RST, options mss, sackOK, wscale and TS (whose values the
//     model does not keep), FO and FOEXP with or without a cookie's hex
//     digits (fo and foexp) the statements' options, and <...> none (an
//     outbound packet written without options is then not checked for
//     them either, where packetdrill wants none);
//   - a shell command "sysctl [-q] [-w] KEY=V" becomes sysctl KEY V for
//     the keys of one value the scenario language has whose network
//     namespace has its own (sock.SysctlKey.Netns: net.core.optmem_max
//     and somaxconn, the single-valued net.ipv4.tcp_* keys);
//   - what the model cannot run becomes a note and is listed in
//     Result.NotRun: other shell commands (`...`), --tolerance_usecs (the
//     model's times are exact), --send_omit_free (every send of the model
//     has a buffer of its own).
//
// Anything else — another system call, option, flag or TCP option, a
// time that goes backwards — is an input error naming file:line:col, and
// so is a translation the scenario language refuses (an unknown socket
// option), reported at the script line it comes from. Nothing is dropped
// silently.
//
// # Export
//
// Export is the way back: a scenario that says only what packetdrill can
// (one scripted device, TCP sockets on it, epoll instances, calls with
// their expected results, waits, inject with its sequence numbers, packet
// with its range and the Fast Open option as tcp_options_write lays it
// out, sendto, getsockopt into an int (its expected value in the buffer),
// a sendmsg whose control messages have 4 bytes of data each
// (msg_control with an integer cmsg_data; no zc_info), a sysctl of one
// value as a shell command, poll with its revents, an error-queue read
// with control=0 that loses its record to MSG_CTRUNC, which packetdrill
// gives no control buffer, or with control=N at least the buffer
// packetdrill gives the record it lists, 48 bytes on AF_INET and 64 on
// AF_INET6, that returns it)
// becomes a script for a packetdrill binary and the live kernel.
// A packet statement naming no option checks none, written <...>; one
// naming some writes them in the order Linux sends them. Anything else is
// an error naming the statement.
//
// # What differs from packetdrill
//
// Outbound packets are checked in order, not at their time: packet takes
// the oldest packet the device sent. Blocking calls run to completion
// before the next event, where packetdrill runs them in a thread of their
// own: a blocking call that waits for a later inbound packet never
// returns, so scripts connect and accept on non-blocking sockets, or after
// the packets they wait for. The model has no tail loss probe: Linux
// 6.18 resends the last segment of unacknowledged data about 8ms after
// sending it (tcp_send_loss_probe, measured under packetdrill), so a
// script that should run on both acknowledges sooner.
package pktdrill
