// Package scenario parses zcsim's scenario language: a line-oriented text
// format, written by hand and read aloud in a lecture, that drives a
// simulated Linux kernel through socket calls, time steps and network
// control, and states inline what each call must return.
//
//	profile linux-6.18
//	socket s AF_INET SOCK_STREAM IPPROTO_TCP
//	setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
//	send s 64K MSG_ZEROCOPY => 65536
//	settle
//	recvmsg s MSG_ERRQUEUE => zerocopy [0,0] copied   # loopback copies
//
// [Parse] turns a file into a typed syntax tree, one struct per statement
// kind ([*Send], [*Recvmsg], …), all implementing [Stmt]. [Format] prints
// statements back in canonical form. The parser checks syntax and the names
// the kernel spells (flags, errnos, levels, options, families, types,
// protocols, SOF_TIMESTAMPING_* flags, from package kernel's symbol tables);
// whether a socket, device or task exists, or a bug or fault site is known,
// is for the simulator to check, at the positions the tree records. The
// language reference with the kernel meaning of every statement is
// docs/scenario-language.md.
//
// # Lexical structure
//
// A file is a sequence of lines; each holds at most one statement. "#"
// starts a comment that runs to the end of the line. Blanks (space, tab,
// carriage return) separate tokens; "[", "]", ",", "=", "|" and "=>" are
// tokens of their own, so "[4K,4K]" and "[4K, 4K]" are the same; so are
// "{" and "}", which only a repeat uses. Every other run of bytes is a
// word. Columns count bytes from 1.
//
// # Grammar
//
//	file      = { line "\n" } .
//	line      = [ stmt [ "=>" outcome ] | repeat | "}" ] [ "#" text ] .
//	repeat    = "repeat" [ var ] count "{" [ stmt [ "=>" outcome ] "}" ] .
//	stmt      = "profile" dotted | "bug" dotted
//	          | "sysctl" dotted number [ number [ number ] ]
//	          | "user" name options | "task" name options
//	          | "device" name ( "nic" | "loopback" | "tun" ) options
//	          | "tap" name options
//	          | "socket" name FAMILY union [ PROTOCOL | number ] options
//	          | "setsockopt" sock LEVEL OPTNAME ( number | union )
//	          | "getsockopt" sock LEVEL OPTNAME
//	          | ( "connect" | "close" ) sock | ( "listen" | "bind" ) sock options
//	          | "accept" sock name | "shutdown" sock SHUT
//	          | ( "send" | "sendto" ) sock operand flags
//	          | "sendmsg" sock iovec flags { cmsg } options
//	          | "sendmmsg" sock iovec { iovec } flags
//	          | "recvmsg" sock flags options | "recv" sock operand [ flags ]
//	          | "poll" sock union [ duration ]
//	          | "mmap" sock [ operand ] [ union ] | "munmap" sock
//	          | "setrlimit" name "RLIMIT_MEMLOCK" ( number | "unlimited" )
//	          | ( "capset" | "capdrop" ) name CAP
//	          | "wait" duration | "settle"
//	          | ( "hold" | "release" ) sock dir | "drop" sock dir [ operand ]
//	          | "complete" name [ operand ] | "txerror" name [ operand ]
//	          | "vhost_send" name operand options | "fault" name rule
//	          | "zckey" sock operand
//	          | "epoll_create" name | "epoll_ctl" name EPOLL_CTL sock [ flags ]
//	          | "epoll_wait" name integer [ duration | "-1" ]
//	          | "fcntl" sock ( "F_GETFL" | "F_SETFL" flags )
//	          | "expect" sock check { check }
//	          | "note" text .
//	outcome   = [ "-1" ] ERRNO | "-1" "any" | ( integer | "ctrunc" ) { field | eefield } | expr
//	          | integer "[" [ sock flags { "," sock flags } ] "]"
//	          | "zerocopy" "[" id "," id "]" [ "copied" | "any" ] { field }
//	          | "timestamp" SCM_TSTAMP [ "key" "=" id ] { field }
//	          | ( "icmp" | "icmp6" ) ERRNO "type" "=" number "code" "=" number { field } .
//	field     = "msg_flags" "=" flags | "cmsg_level" "=" LEVEL
//	          | "cmsg_type" "=" ( "IP_RECVERR" | "IPV6_RECVERR" | "PACKET_TX_TIMESTAMP" ) .
//	eefield   = ( "ee_errno" | "ee_origin" | "ee_type" | "ee_code" | "ee_info" | "ee_data" )
//	            "=" ( number | ERRNO | SO_EE_ORIGIN | SO_EE_CODE ) .
//	cmsg      = "cmsg" ( LEVEL | number ) ( CMSG_TYPE | number ) ( number | union )
//	            [ "len" "=" number ] .
//	check     = option | "notified" "=" "[" id "," id "]" .
//	options   = { option } .
//	option    = key [ "=" value ] .
//	flags     = "0" | union .
//	union     = SYMBOL { "|" SYMBOL } .
//	iovec     = "[" [ operand { "," operand } ] "]" .
//	operand   = number | expr .
//	sock      = name [ ".peer" ] .
//	dir       = "data" | "ack" .
//	rule      = key [ "=" word ] .
//	number    = digits [ "K" | "M" | "G" ] | "0x" hexdigits .
//	integer   = [ "-" ] number .
//	id        = number | expr .               (a number at most 0xffffffff)
//	count     = number .                      (at most 0xffffffff)
//	var       = ( letter | "_" ) { letter | digit | "_" } .
//	expr      = term { ( "+" | "-" ) term } .  (one word: no blanks inside)
//	term      = factor { "*" factor } .
//	factor    = number | var | "(" expr ")" .
//	duration  = digits ( "ns" | "us" | "ms" | "s" ) .
//	name      = ( letter | "_" ) { letter | digit | "_" | "-" } .
//	dotted    = name that may also hold "." .
//
// Upper-case nonterminals are kernel names: FAMILY (AF_*), the union after
// socket (SOCK_*), PROTOCOL (IPPROTO_*), LEVEL (SOL_*, IPPROTO_*), OPTNAME
// (SO_*, TCP_*, UDP_*, IP_*, IPV6_*), flags (MSG_*), the union after
// SO_TIMESTAMPING (SOF_TIMESTAMPING_*; also after a cmsg of that type),
// CMSG_TYPE (a sendmsg control message type at the cmsg's LEVEL:
// UDP_SEGMENT, SO_TIMESTAMPING, SO_MARK, SCM_RIGHTS, …), ERRNO (E*), SHUT (SHUT_RD, SHUT_WR,
// SHUT_RDWR), CAP (CAP_IPC_LOCK, the one
// capability the model has) and SCM_TSTAMP
// (SCM_TSTAMP_SND, _SCHED, _ACK, _COMPLETION). K, M and G mean KiB, MiB and
// GiB: 64K is 65536. Durations are whole numbers; there are no fractions.
//
// Each statement takes a fixed set of options; the parser rejects unknown
// and repeated keys, checks each value's form and requires the mandatory
// ones:
//
//	user    uid=N (required)
//	task    user=NAME (required), memlock=SIZE|unlimited, cap_ipc_lock, cap_net_admin,
//	        hugepages
//	device  sg=on|off, csum=on|off, gso=on|off, tso=on|off,
//	        gso_max_size=SIZE, mtu=N, delay=DUR, loss=P (0 to 1),
//	        txcomplete=DUR|manual
//	vhost_send  gso_size=N
//	listen  backlog=N (an int, maybe negative)
//	bind    proto=N, dev=DEVICE
//	tap     on=DEVICE (required)
//	socket  via=DEVICE, task=TASK, peer_ack=kernel|immediate|delayed|quickack,
//	        peer_rcvbuf=SIZE, peer_read=manual|auto, mapped, ihl=N, to=SOCKET
//	expect  any key, each value a number or a word
//
// # Rules beyond the grammar
//
//   - profile appears at most once, before every statement but comments;
//     neither profile nor bug may be in a repeat.
//   - A "}" closes the innermost open repeat and stands alone on its line,
//     but for a comment; a repeat takes no "=>" expectation.
//   - A "|"-union names each symbol once; "0" stands alone.
//   - setsockopt and getsockopt reject an option at a level it does not
//     belong to (SO_ZEROCOPY is SOL_SOCKET, TCP_CORK is IPPROTO_TCP), and
//     a cmsg a type name at another level than its own; numbers are
//     taken as they are.
//   - An errno outcome may be written "ENOBUFS" or "-1 ENOBUFS"; Format
//     writes the latter.
//   - An outcome names each field once; a field is "key=value" (a word
//     that is not followed by "=" is no field).
//   - note takes the rest of the line, up to a "#" comment, as its text;
//     "=>" there is text.
//
// # Repeat
//
// A repeat runs its body, the lines up to its "}", count times; on one
// line, "repeat 31 { send s 1000 MSG_ZEROCOPY }" holds one statement. The
// body may hold anything a file may, nested repeats too (at most
// [MaxDepth] deep), except profile and bug, which stay at the top. The
// header may name a variable that holds the iteration, 0 to count-1, in
// the expressions of the body: a length, an iovec entry, a count, the
// zckey value, and in the outcome a return value, a range bound or a
// timestamp key:
//
//	repeat i 1000 {
//	  repeat 31 { send s 1000 MSG_ZEROCOPY }
//	  send s 1000 MSG_ZEROCOPY => 1000
//	  recvmsg s MSG_ERRQUEUE => zerocopy [32*i,32*i+31] copied
//	}
//
// An expression ([Expr]) is one word, so it has no blanks inside:
// "32*i+31", not "32*i + 31". A word in a number's place is an expression
// when it holds an operator or a parenthesis, or names a loop variable in
// scope; a variable cannot be shadowed. [Instantiate] evaluates a
// statement's expressions for one iteration: ids wrap modulo 2^32, other
// values are 64-bit signed and must not overflow; lengths and counts must
// not be negative. [ParseEach] hands a repeat to its function whole, when
// its "}" is read, so a loop body is parsed once however many times it
// runs.
//
// # Errors
//
// [Parse] reports every bad line of a file, one error per line and at most
// [MaxErrors], in an [ErrorList]. Each [Error] reads, netip-style,
//
//	file:line:col: what is wrong (at "offending text")
//
// and names a near miss where one exists ("unknown flag, did you mean
// MSG_ZEROCOPY?"). Parse never panics; it is fuzzed (FuzzParse).
//
// # Families
//
// [Retarget] rewrites a scenario written for IPv4 to run with IPv6
// sockets ([Inet6]) or IPv6 sockets with v4-mapped peers ([Mapped]):
// the sockets, and what their options and outcomes spell per family.
//
// # Canonical form
//
// [Format] writes one statement per line with single blanks, key=value
// options, unions without blanks, "[a, b]" iovecs, the outcome after " => "
// as [Outcome.String] gives it, trailing comments after " # ", one blank
// line where the source had any, and every repeat as a block whose body is
// indented by two blanks a level. Numbers, durations and words keep their
// spelling. For any file Parse accepts, Parse∘Format returns the same tree
// (positions aside) and Format∘Parse∘Format = Format: a property test over
// random trees and the fuzz target check both.
package scenario
