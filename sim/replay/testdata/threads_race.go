// Two threads over loopback, the server's calls blocking: it sleeps in
// accept, read and poll while the client thread connects and writes,
// so strace -f prints the server's calls in two halves with the
// client's between them. In each round the client writes twice, back
// to back: the first write wakes the server's read, which returns only
// its bytes, and strace often prints that read's result after the
// second write began. Last, the server polls for POLLIN|POLLRDHUP while
// the client writes and then shuts its side down: the write wakes the
// poll (POLLIN), before the FIN comes. threads_race.cmd records how
// threads_race.log was made.
package main

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

const rounds = 20

func server(l int, done chan<- struct{}) {
	runtime.LockOSThread()
	a, _, err := unix.Accept(l)
	must(err)
	buf := make([]byte, 65536)
	for got := 0; got < 3000*rounds; {
		n, err := unix.Read(a, buf)
		must(err)
		if n == 0 {
			panic("EOF before the last round")
		}
		got += n
	}
	_, err = unix.Poll([]unix.PollFd{{Fd: int32(a), Events: unix.POLLIN | unix.POLLRDHUP}}, 10000)
	must(err)
	for {
		n, err := unix.Read(a, buf)
		must(err)
		if n == 0 {
			break
		}
	}
	unix.Close(a)
	close(done)
}

func main() {
	runtime.LockOSThread()
	addr := &unix.SockaddrInet4{Port: 9125, Addr: [4]byte{127, 0, 0, 1}}
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	must(err)
	must(unix.Bind(l, addr))
	must(unix.Listen(l, 4))
	done := make(chan struct{})
	go server(l, done)
	time.Sleep(20 * time.Millisecond)
	c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	must(err)
	must(unix.Connect(c, addr))
	msg := make([]byte, 2000)
	for range rounds {
		time.Sleep(20 * time.Millisecond)
		_, err := unix.Write(c, msg[:1000])
		must(err)
		_, err = unix.Write(c, msg[:2000])
		must(err)
	}
	time.Sleep(20 * time.Millisecond)
	_, err = unix.Write(c, msg[:500])
	must(err)
	must(unix.Shutdown(c, unix.SHUT_WR))
	<-done
	unix.Close(c)
	unix.Close(l)
}
