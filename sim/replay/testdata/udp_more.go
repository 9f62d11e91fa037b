// A zerocopy UDP sender on loopback corks a datagram with two
// MSG_ZEROCOPY|MSG_MORE sends and ends it with a MSG_ZEROCOPY send; its
// receiver, in the same program, reads the datagram, then the sender
// reads its error queue and both close. Before 100f6d8e0990 (v5.0, v5.1:
// B6, udp-more-refcnt) the corked appends took uarg references nobody
// dropped: no notification came. udp_more.cmd records how udp_more.log
// was made.
package main

import (
	"time"

	"golang.org/x/sys/unix"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func main() {
	addr := &unix.SockaddrInet4{Port: 9124, Addr: [4]byte{127, 0, 0, 1}}
	r, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	must(err)
	must(unix.Bind(r, addr))
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	must(err)
	must(unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_ZEROCOPY, 1))
	must(unix.Connect(s, addr))
	buf := make([]byte, 1000)
	for _, flags := range []int{unix.MSG_MORE, unix.MSG_MORE, 0} {
		_, err := unix.SendmsgN(s, buf, nil, nil, unix.MSG_ZEROCOPY|flags)
		must(err)
	}
	rbuf := make([]byte, 65536)
	_, _, err = unix.Recvfrom(r, rbuf, 0)
	must(err)
	time.Sleep(10 * time.Millisecond)
	oob := make([]byte, 128)
	_, _, _, _, err = unix.Recvmsg(s, nil, oob, unix.MSG_ERRQUEUE)
	must(err)
	must(unix.Close(s))
	must(unix.Close(r))
}
