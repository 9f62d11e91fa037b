//go:build linux

// Package netns runs code in a private network namespace, for the tests
// and probes that compare the model with the live kernel: a locked OS
// thread unshares its network namespace (unshare(CLONE_NEWNET)) and brings
// lo up there. The thread is never unlocked, so it dies with its goroutine
// and the host's namespace is never touched. It needs CAP_SYS_ADMIN.
package netns

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// Run runs fn on a locked OS thread in a new network namespace with lo up,
// and returns fn's error, or why the namespace could not be made (the
// message says to run as root).
func Run(fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("unshare(CLONE_NEWNET): %w (run as root)", err)
			return
		}
		if err := loUp(); err != nil {
			done <- err
			return
		}
		done <- fn()
	}()
	return <-done
}

// loUp brings the loopback device of the current namespace up
// (SIOCSIFFLAGS with IFF_UP).
func loUp() error {
	return withLo(func(fd int, ifr *unix.Ifreq) error {
		if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
			return fmt.Errorf("SIOCGIFFLAGS lo: %w", err)
		}
		ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
			return fmt.Errorf("bringing lo up: %w", err)
		}
		return nil
	})
}

// SetLoMTU sets the MTU of the current namespace's lo (SIOCSIFMTU); call
// it inside Run.
func SetLoMTU(mtu int) error {
	return withLo(func(fd int, ifr *unix.Ifreq) error {
		ifr.SetUint32(uint32(mtu))
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFMTU, ifr); err != nil {
			return fmt.Errorf("setting lo's mtu to %d: %w", mtu, err)
		}
		return nil
	})
}

// withLo runs fn with a socket to issue interface ioctls on and an ifreq
// naming lo.
func withLo(fn func(fd int, ifr *unix.Ifreq) error) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	return fn(fd, ifr)
}
