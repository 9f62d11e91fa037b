//go:build linux

package kbench

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// ErrNoZerocopy says the kernel refused SO_ZEROCOPY or MSG_ZEROCOPY.
var ErrNoZerocopy = errors.New("the kernel has no MSG_ZEROCOPY for this socket")

// Kernel runs the workload on the live kernel, in the calling thread's
// network namespace: a socket connected over loopback to a peer that a
// goroutine reads, sends zerocopy sends of the workload's size from one
// buffer, and reads the error queue without waiting every DrainEvery
// sends (and whenever optmem runs out: ENOBUFS). It returns the time the
// sends took.
func Kernel(w Workload, sends int) (time.Duration, error) {
	tx, rx, err := connectPair(w.TCP)
	if err != nil {
		return 0, err
	}
	reader := make(chan struct{})
	go func() {
		defer close(reader)
		buf := make([]byte, 1<<20)
		for {
			if n, err := unix.Read(rx, buf); n <= 0 && err != unix.EINTR {
				return
			}
		}
	}()
	defer func() {
		unix.Close(tx)
		unix.Shutdown(rx, unix.SHUT_RDWR) // wakes the reader, UDP too
		<-reader
		unix.Close(rx)
	}()
	if err := unix.SetsockoptInt(tx, unix.SOL_SOCKET, unix.SO_ZEROCOPY, 1); err != nil {
		return 0, fmt.Errorf("%w: SO_ZEROCOPY: %v", ErrNoZerocopy, err)
	}
	buf := make([]byte, w.Size)
	oob := make([]byte, 128)
	start := time.Now()
	for i := 1; i <= sends; i++ {
		for {
			_, err := unix.SendmsgN(tx, buf, nil, nil, unix.MSG_ZEROCOPY)
			if err == nil {
				break
			}
			if err != unix.ENOBUFS && err != unix.EINTR {
				return 0, fmt.Errorf("%w: send: %v", ErrNoZerocopy, err)
			}
			drain(tx, oob)
		}
		if i%DrainEvery == 0 {
			drain(tx, oob)
		}
	}
	return time.Since(start), nil
}

// drain reads the error queue until it is empty.
func drain(fd int, oob []byte) {
	for {
		if _, _, _, _, err := unix.Recvmsg(fd, nil, oob, unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT); err != nil && err != unix.EINTR {
			return
		}
	}
}

// connectPair returns a sending socket connected over loopback and its
// receiving end (the accepted socket, for TCP).
func connectPair(tcp bool) (tx, rx int, err error) {
	typ := unix.SOCK_DGRAM
	if tcp {
		typ = unix.SOCK_STREAM
	}
	lo := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	srv, err := unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, 0, err
	}
	fail := func(err error) (int, int, error) {
		unix.Close(srv)
		return 0, 0, err
	}
	if err := unix.Bind(srv, lo); err != nil {
		return fail(err)
	}
	sa, err := unix.Getsockname(srv)
	if err != nil {
		return fail(err)
	}
	if tcp {
		if err := unix.Listen(srv, 1); err != nil {
			return fail(err)
		}
	}
	tx, err = unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	if err := unix.Connect(tx, sa); err != nil {
		unix.Close(tx)
		return fail(err)
	}
	if !tcp {
		return tx, srv, nil
	}
	rx, _, err = unix.Accept4(srv, unix.SOCK_CLOEXEC)
	unix.Close(srv)
	if err != nil {
		unix.Close(tx)
		return 0, 0, err
	}
	return tx, rx, nil
}
