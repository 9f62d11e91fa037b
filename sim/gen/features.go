package gen

import (
	"math/bits"
	"strings"
)

// Features is a set of language features a scenario may exercise, one bit
// each. Swarm testing draws a random subset of the allowed features for
// every scenario, so that one file is all UDP on loopback and the next is
// TCP over a NIC with held ACKs and armed faults. The zero value is the
// empty set; [Config.Allow] treats it as [AllFeatures].
type Features uint64

// The features. Socket kinds (TCP … Unix) decide which sockets exist; the
// others enable statements or options.
const (
	TCP        Features = 1 << iota // SOCK_STREAM sockets of AF_INET and AF_INET6
	UDP                             // SOCK_DGRAM sockets, UDP_CORK, UDP_SEGMENT
	Raw                             // SOCK_RAW sockets, IP_HDRINCL
	Packet                          // AF_PACKET sockets
	Unix                            // AF_UNIX sockets
	Inet6                           // AF_INET6 for TCP, UDP and RAW sockets, IPV6_RECVERR
	Nonblock                        // SOCK_NONBLOCK and MSG_DONTWAIT
	NIC                             // nic devices with random sg, csum, gso, tso, mtu
	Tun                             // tun devices
	Tap                             // tap statements
	ManualTX                        // txcomplete=manual or a delay, complete, txerror
	Link                            // delay=, loss=
	Hold                            // hold and release
	Drop                            // drop
	Faults                          // fault statements
	Memlock                         // users, tasks, setrlimit, capset, capdrop, hugepages
	Sysctl                          // sysctl statements
	Timestamps                      // SO_TIMESTAMPING
	Cork                            // TCP_CORK, UDP_CORK, MSG_MORE
	Buffers                         // SO_SNDBUF, SO_RCVBUF and their FORCE forms, SO_RCVLOWAT, peer_rcvbuf
	Sockopts                        // getsockopt, TCP_NODELAY, IP_RECVERR and options on the wrong kind of socket
	Connect                         // bind, listen, accept and connect in unusual orders
	Close                           // shutdown and close
	Big                             // calls of up to Config.CallBytes (multi-MiB)
	Iovecs                          // sendmsg and sendmmsg with many iovecs
	Vhost                           // vhost_send
	Zckey                           // zckey near the 2^32 wrap
	Peer                            // calls on S.peer besides recv, peer_ack, peer_read
	Narrate                         // note, comments and expect
	BigTCP                          // BIG TCP: lo with gso_max_size over 64 KiB, a huge-page task with unlimited memlock, TCP sends over 64 KiB
	Loops                           // repeat loops of sends, reads and time steps
	TxRing                          // PACKET_TX_RING on packet sockets: ring, mmap, txframe, txstatus, sends from the ring
	ZcRecv                          // TCP zerocopy receive: mmap and munmap of TCP sockets, TCP_ZEROCOPY_RECEIVE, devices whose MSS is whole pages
	Poll                            // poll, SO_RCVLOWAT on receivers, fcntl O_NONBLOCK
	Epoll                           // epoll_create, epoll_ctl, epoll_wait and close of an epoll instance
	Mapped                          // AF_INET6 TCP and UDP sockets whose peers have v4-mapped addresses
	Listen                          // TCP listeners with backlog=, clients made with to= them, accept of their connections, somaxconn and tcp_abort_on_overflow

	numFeatures = iota
)

// AllFeatures is every feature.
const AllFeatures Features = 1<<numFeatures - 1

// HostFeatures are the features a scenario for a real host (Config.Host)
// may draw: everything but the model's devices and network control (NIC,
// Tun, Tap, ManualTX, Link, Hold, Drop), its fault sites, vhost, a
// hand-set sk_zckey, BIG TCP and loops, and PF_PACKET sockets (the live
// run leaves them unbound, where the model's are on their device). Even
// these mean less on a host: Memlock is only setrlimit and capdrop of the
// task main, Sysctl only the namespace's sysctls the live run sets,
// Connect only connect, Listen no accept and only non-blocking clients,
// Peer only sends and reads on S.peer, and ZcRecv's one device is a
// loopback whose MTU the namespace's lo takes.
const HostFeatures = TCP | UDP | Raw | Unix | Inet6 | Nonblock | Memlock | Sysctl | Timestamps |
	Cork | Buffers | Sockopts | Connect | Close | Big | Iovecs | Peer | Narrate | ZcRecv | Poll | Epoll | Mapped | Listen

// sockKinds are the features that create sockets; a scenario has at least
// one of them.
const sockKinds = TCP | UDP | Raw | Packet | Unix

var featureNames = [numFeatures]string{
	"tcp", "udp", "raw", "packet", "unix", "inet6", "nonblock", "nic", "tun", "tap",
	"manualtx", "link", "hold", "drop", "faults", "memlock", "sysctl", "timestamps",
	"cork", "buffers", "sockopts", "connect", "close", "big", "iovecs", "vhost", "zckey",
	"peer", "narrate", "bigtcp", "loops", "txring", "zcrecv", "poll", "epoll", "mapped",
	"listen",
}

// Has reports whether every feature of g is in f.
func (f Features) Has(g Features) bool { return f&g == g }

// String lists the features by name, separated by blanks, in bit order;
// the empty set is "none".
func (f Features) String() string {
	var names []string
	for i := range numFeatures {
		if f&(1<<i) != 0 {
			names = append(names, featureNames[i])
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, " ")
}

// ParseFeatures reads a blank- or comma-separated list of feature names, as
// String writes it; "all" is AllFeatures. It reports the first unknown name.
func ParseFeatures(s string) (Features, error) {
	var f Features
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
		if w == "all" {
			f |= AllFeatures
			continue
		}
		i := indexOf(featureNames[:], w)
		if i < 0 {
			return 0, &UnknownFeatureError{Name: w}
		}
		f |= 1 << i
	}
	return f, nil
}

func indexOf(names []string, w string) int {
	for i, n := range names {
		if n == w {
			return i
		}
	}
	return -1
}

// UnknownFeatureError is ParseFeatures' error for a name it does not know.
type UnknownFeatureError struct{ Name string }

// Error names the feature and lists the known ones.
func (e *UnknownFeatureError) Error() string {
	return "unknown feature " + e.Name + " (known: all " + AllFeatures.String() + ")"
}

// count is the number of features in f.
func (f Features) count() int { return bits.OnesCount64(uint64(f)) }
