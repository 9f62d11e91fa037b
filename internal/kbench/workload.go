package kbench

import (
	"fmt"
	"strings"
)

// DrainEvery is how many sends a workload makes between two reads of
// its error queue.
const DrainEvery = 32

// Workload is one socket sending MSG_ZEROCOPY messages of one size over
// loopback.
type Workload struct {
	Name string
	TCP  bool
	Size int
}

// Workloads are the four the simulator is measured on.
func Workloads() []Workload {
	return []Workload{
		{"udp-1000", false, 1000},
		{"tcp-1000", true, 1000},
		{"udp-60k", false, 60000},
		{"tcp-64k", true, 65536},
	}
}

func (w Workload) sockType() string {
	if w.TCP {
		return "SOCK_STREAM"
	}
	return "SOCK_DGRAM"
}

// Scenario is the workload as a scenario of sends sends: a NIC-less
// loopback socket whose peer reads everything, the network settling and
// the error queue read twice every DrainEvery sends (zerocopy ranges
// coalesce, so one read usually takes them all). It is written with
// repeat, as a user writes a long workload, so its length does not grow
// with sends.
func (w Workload) Scenario(sends int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "socket s AF_INET %s via=lo peer_read=auto\n", w.sockType())
	b.WriteString("setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0\nconnect s => 0\n")
	send := fmt.Sprintf("send s %d MSG_ZEROCOPY => %d", w.Size, w.Size)
	if rounds := sends / DrainEvery; rounds > 0 {
		fmt.Fprintf(&b, "repeat %d {\n  repeat %d { %s }\n  settle\n  recvmsg s MSG_ERRQUEUE\n  recvmsg s MSG_ERRQUEUE\n}\n",
			rounds, DrainEvery, send)
	}
	if rest := sends % DrainEvery; rest > 0 {
		fmt.Fprintf(&b, "repeat %d { %s }\n", rest, send)
	}
	b.WriteString("settle\n")
	return []byte(b.String())
}

// ScaleScenario keeps sockets×inFlight sends in flight at once: every
// socket's ACKs are held while each sends inFlight messages of size bytes
// (round robin), then released; rounds times. Its cost per send, compared
// with one socket's, shows whether a step costs in proportion to what is
// alive.
func ScaleScenario(sockets, inFlight, rounds, size int) []byte {
	var b strings.Builder
	// Every socket's pinned pages are charged to one user: exempt the
	// task from RLIMIT_MEMLOCK, or the sends in flight exhaust it.
	b.WriteString("device eth0 nic\nuser u uid=1000\ntask main user=u cap_ipc_lock\n")
	for i := range sockets {
		fmt.Fprintf(&b, "socket s%d AF_INET SOCK_STREAM via=eth0 peer_read=auto\n", i)
		fmt.Fprintf(&b, "setsockopt s%d SOL_SOCKET SO_ZEROCOPY 1 => 0\nconnect s%d => 0\n", i, i)
		// Room for every send in flight, so none waits for an ACK.
		fmt.Fprintf(&b, "setsockopt s%d SOL_SOCKET SO_SNDBUF 1048576 => 0\n", i)
	}
	for range rounds {
		for i := range sockets {
			fmt.Fprintf(&b, "hold s%d ack\n", i)
		}
		for range inFlight {
			for i := range sockets {
				fmt.Fprintf(&b, "send s%d %d MSG_ZEROCOPY => %d\n", i, size, size)
			}
		}
		for i := range sockets {
			fmt.Fprintf(&b, "release s%d ack\n", i)
		}
		b.WriteString("settle\n")
		for i := range sockets {
			fmt.Fprintf(&b, "recvmsg s%d MSG_ERRQUEUE\n", i)
		}
	}
	return []byte(b.String())
}
