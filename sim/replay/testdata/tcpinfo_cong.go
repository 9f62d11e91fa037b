// A TCP client and server over loopback set and read TCP_CONGESTION
// (names the kernel has and has not, optlens from 0 to 16) and read
// TCP_INFO before and after the handshake, on the listener, with data
// in flight and after it was read. tcpinfo_cong.cmd records how
// tcpinfo_cong.log was made.
package main

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// setName is setsockopt(TCP_CONGESTION) of an n-byte buffer holding name
// and NULs after it.
func setName(fd int, name string, n int) {
	b := make([]byte, 16)
	copy(b, name)
	unix.Syscall6(unix.SYS_SETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, uintptr(unsafe.Pointer(&b[0])), uintptr(n), 0)
}

// get is getsockopt(opt) into an n-byte buffer.
func get(fd, opt, n int) {
	b := make([]byte, 512)
	l := uint32(n)
	unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, uintptr(opt), uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&l)), 0)
}

func main() {
	addr := &unix.SockaddrInet4{Port: 9124, Addr: [4]byte{127, 0, 0, 1}}
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	must(err)
	must(unix.Bind(l, addr))
	must(unix.Listen(l, 4))
	c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	must(err)
	get(c, unix.TCP_INFO, 280)
	get(c, unix.TCP_CONGESTION, 16)
	setName(c, "reno", 4)
	get(c, unix.TCP_CONGESTION, 16)
	setName(c, "bbr", 3)
	setName(c, "cubic", 5)
	setName(c, "vegas", 5)
	setName(c, "cub", 3)
	setName(c, "reno", 2)
	setName(c, "", 0)
	setName(c, "bbr", 16)
	get(c, unix.TCP_CONGESTION, 4)
	get(c, unix.TCP_CONGESTION, 2)
	get(c, unix.TCP_CONGESTION, 0)
	setName(l, "reno", 5)
	get(l, unix.TCP_INFO, 280)
	must(unix.Connect(c, addr))
	a, _, err := unix.Accept(l)
	must(err)
	get(c, unix.TCP_INFO, 280)
	get(a, unix.TCP_INFO, 280)
	get(a, unix.TCP_CONGESTION, 16)
	get(c, unix.TCP_CONGESTION, 16)
	buf := make([]byte, 200000)
	n, err := unix.Write(c, buf)
	must(err)
	get(c, unix.TCP_INFO, 280)
	get(a, unix.TCP_INFO, 280)
	for got := 0; got < n; {
		m, err := unix.Read(a, buf)
		must(err)
		got += m
	}
	get(c, unix.TCP_INFO, 280)
	get(a, unix.TCP_INFO, 280)
	get(c, unix.TCP_INFO, 8)
	get(c, unix.TCP_INFO, 1)
	u, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	must(err)
	get(u, unix.TCP_INFO, 280)
	setName(u, "reno", 4)
	must(unix.Shutdown(c, unix.SHUT_WR))
	get(c, unix.TCP_INFO, 280)
	get(a, unix.TCP_INFO, 280)
	unix.Close(a)
	unix.Close(c)
	unix.Close(l)
	unix.Close(u)
}
