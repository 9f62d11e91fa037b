// A TCP sender with an 8192-byte send buffer and non-blocking MSG_ZEROCOPY
// sends over loopback; its receiver, in the same program, reads 3000 bytes
// after every eighth send and falls behind. sndbuf_slowread.cmd records
// how sndbuf_slowread.log was made.
package main

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func main() {
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	must(err)
	must(unix.Bind(l, &unix.SockaddrInet4{Port: 9123, Addr: [4]byte{127, 0, 0, 1}}))
	must(unix.Listen(l, 4))
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	must(err)
	must(unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_SNDBUF, 8192))
	must(unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_ZEROCOPY, 1))
	must(unix.Connect(s, &unix.SockaddrInet4{Port: 9123, Addr: [4]byte{127, 0, 0, 1}}))
	c, _, err := unix.Accept(l)
	must(err)
	buf := make([]byte, 1000)
	rbuf := make([]byte, 65536)
	oob := make([]byte, 128)
	eagain, ok := 0, 0
	for i := 0; i < 400; i++ {
		_, err := unix.SendmsgN(s, buf, nil, nil, unix.MSG_ZEROCOPY|unix.MSG_DONTWAIT)
		if err == unix.EAGAIN {
			eagain++
			if len(os.Args) > 1 {
				unix.Read(c, rbuf)
			}
			time.Sleep(200 * time.Microsecond)
		} else {
			ok++
		}
		if i%8 == 7 {
			unix.Read(c, rbuf[:3000])
		}
		if i%32 == 31 {
			for {
				if _, _, _, _, err := unix.Recvmsg(s, nil, oob, unix.MSG_ERRQUEUE); err != nil {
					break
				}
			}
		}
	}
	fmt.Fprintln(os.Stderr, "ok", ok, "eagain", eagain)
}
