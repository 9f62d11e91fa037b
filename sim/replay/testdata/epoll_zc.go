// A TCP client and server and a pair of UDP sockets over loopback,
// watched with epoll. The server thread sleeps in epoll_wait,
// epoll_pwait and epoll_pwait2 and in a blocking UDP recvfrom while
// the main thread writes and sends, so strace -f prints those calls in
// two halves with the main thread's between them; the blocking
// recvfrom wakes with the first of two datagrams sent back to back. The client's
// MSG_ZEROCOPY sends are reaped through EPOLLERR; epoll_ctl adds,
// modifies and deletes (EEXIST, ENOENT included); a socket watched
// under one descriptor is dup'ed and that descriptor closed, so the
// epoll set still reports it by the data it was added with, until its
// last descriptor closes. epoll_zc.cmd records how epoll_zc.log was
// made.
package main

import (
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func ev(events uint32, fd int) *unix.EpollEvent {
	return &unix.EpollEvent{Events: events, Fd: int32(fd)}
}

func wait(ep, ms int) int {
	evs := make([]unix.EpollEvent, 8)
	n, err := unix.EpollWait(ep, evs, ms)
	must(err)
	return n
}

// pwait is epoll_pwait(ep, evs, len(evs), ms, NULL, 8).
func pwait(ep int, evs []unix.EpollEvent, ms int) {
	unix.Syscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), uintptr(ms), 0, 8)
}

// pwait2 is epoll_pwait2(ep, evs, len(evs), ts, NULL, 8).
func pwait2(ep int, evs []unix.EpollEvent, ts *unix.Timespec) {
	unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(ep), uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), uintptr(unsafe.Pointer(ts)), 0, 8)
}

// server sleeps in each wait until the main thread makes it ready, told
// to go on through step.
func server(ep1, a, u int, step chan<- int, done chan<- struct{}) {
	runtime.LockOSThread()
	buf := make([]byte, 65536)
	evs := make([]unix.EpollEvent, 8)
	for i := 0; i < 3; i++ {
		step <- i
		_, err := unix.EpollWait(ep1, evs, 5000) // woken by the client's write
		must(err)
		_, err = unix.Read(a, buf)
		must(err)
	}
	step <- 3
	pwait(ep1, evs, -1) // woken by the client's zerocopy send
	_, err := unix.Read(a, buf)
	must(err)
	step <- 4
	_, _, err = unix.Recvfrom(u, buf, 0) // woken by the first datagram
	must(err)
	_, _, err = unix.Recvfrom(u, buf, 0)
	must(err)
	close(done)
}

func main() {
	addr := &unix.SockaddrInet4{Port: 9131, Addr: [4]byte{127, 0, 0, 1}}
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	must(err)
	must(unix.Bind(l, addr))
	must(unix.Listen(l, 4))
	c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	must(err)
	must(unix.SetsockoptInt(c, unix.SOL_SOCKET, unix.SO_ZEROCOPY, 1))
	must(unix.Connect(c, addr))
	a, _, err := unix.Accept(l)
	must(err)
	uaddr := &unix.SockaddrInet4{Port: 9132, Addr: [4]byte{127, 0, 0, 1}}
	u, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	must(err)
	must(unix.Bind(u, uaddr))
	us, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	must(err)
	must(unix.Connect(us, uaddr))

	ep1, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	must(err)
	ep2, err := unix.EpollCreate1(0)
	must(err)
	must(unix.EpollCtl(ep1, unix.EPOLL_CTL_ADD, a, ev(unix.EPOLLIN, a)))
	unix.EpollCtl(ep1, unix.EPOLL_CTL_ADD, a, ev(unix.EPOLLIN, a)) // EEXIST
	unix.EpollCtl(ep1, unix.EPOLL_CTL_MOD, c, ev(unix.EPOLLIN, c)) // ENOENT
	must(unix.EpollCtl(ep2, unix.EPOLL_CTL_ADD, c, ev(unix.EPOLLOUT|unix.EPOLLET, c)))
	wait(ep2, 0) // EPOLLOUT: the connection is writable
	wait(ep2, 0) // nothing: edge-triggered, no wakeup since
	wait(ep1, 0) // nothing to read
	wait(ep1, 3) // nothing to read: the timeout passes

	step := make(chan int)
	done := make(chan struct{})
	go server(ep1, a, u, step, done)
	msg := make([]byte, 1000)
	for i := 0; i < 3; i++ {
		<-step
		time.Sleep(20 * time.Millisecond)
		_, err := unix.Write(c, msg)
		must(err)
	}
	<-step
	time.Sleep(20 * time.Millisecond)
	must(unix.Sendto(c, msg, unix.MSG_ZEROCOPY, nil))

	// The completion wakes the edge-triggered set with EPOLLERR (and
	// EPOLLOUT, as the socket is writable).
	must(unix.EpollCtl(ep2, unix.EPOLL_CTL_MOD, c, ev(unix.EPOLLET, c)))
	<-step // the server read it
	evs := make([]unix.EpollEvent, 8)
	pwait(ep2, evs, 1000)
	oob := make([]byte, 128)
	unix.Recvmsg(c, nil, oob, unix.MSG_ERRQUEUE)

	// Level-triggered EPOLLERR, again until the error queue is read.
	must(unix.EpollCtl(ep2, unix.EPOLL_CTL_MOD, c, ev(0, c)))
	must(unix.Sendto(c, msg, unix.MSG_ZEROCOPY, nil))
	must(unix.Sendto(c, msg, unix.MSG_ZEROCOPY, nil))
	wait(ep2, 1000)
	wait(ep2, 1000)
	unix.Recvmsg(c, nil, oob, unix.MSG_ERRQUEUE)
	wait(ep2, 0)
	must(unix.EpollCtl(ep2, unix.EPOLL_CTL_DEL, c, nil))
	unix.EpollCtl(ep2, unix.EPOLL_CTL_DEL, c, nil) // ENOENT

	// The server reads nothing more: the main thread reads the rest.
	_, err = unix.Write(c, msg[:500])
	must(err)
	must(unix.EpollCtl(ep2, unix.EPOLL_CTL_ADD, a, ev(unix.EPOLLIN|unix.EPOLLRDHUP, a)))
	wait(ep2, 0)
	buf := make([]byte, 65536)
	unix.Recvfrom(a, buf, unix.MSG_DONTWAIT)
	// a stays in ep2 under a dup'ed descriptor after its own closes.
	a2, err := unix.Dup(a)
	must(err)
	must(unix.Close(a))
	// epoll_pwait2 with a 2 ms timeout: nothing to read.
	pwait2(ep2, evs, &unix.Timespec{Nsec: 2000000})
	must(unix.Shutdown(c, unix.SHUT_WR))
	wait(ep2, 1000) // EPOLLIN|EPOLLRDHUP, reported with a's old number
	must(unix.Close(a2))
	wait(ep2, 0) // nothing: the socket closed with its last descriptor

	time.Sleep(20 * time.Millisecond)
	_, err = unix.Write(us, msg)
	must(err)
	_, err = unix.Write(us, msg[:300])
	must(err)
	<-done
	unix.Close(ep1)
	unix.Close(ep2)
}
