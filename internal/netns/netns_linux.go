//go:build linux

// Package netns runs code in a private network namespace, for the tests
// and probes that compare the model with the live kernel: a locked OS
// thread unshares its network namespace (unshare(CLONE_NEWNET)) and brings
// lo up there. The thread is never unlocked, so it dies with its goroutine
// and the host's namespace is never touched. It needs CAP_SYS_ADMIN.
package netns

import (
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// ErrGoexit is what Run returns when fn ended its goroutine without
// returning (runtime.Goexit, as a test's FailNow or SkipNow does), which
// would otherwise leave Run waiting for ever: fn runs on a goroutine of
// its own, so it must report failure by its error, not through a
// testing.T.
var ErrGoexit = errors.New("netns: the function run in the namespace ended its goroutine without returning (runtime.Goexit: t.FailNow or t.SkipNow called inside it)")

// Run runs fn on a locked OS thread in a new network namespace with lo up,
// and returns fn's error, ErrGoexit, or why the namespace could not be
// made (the message says to run as root).
func Run(fn func() error) error {
	done := make(chan error, 1)
	go func() {
		returned := false
		defer func() {
			if !returned {
				done <- ErrGoexit
			}
		}()
		err := enter(fn)
		returned = true
		done <- err
	}()
	return <-done
}

// enter locks the goroutine to its thread, moves the thread into a new
// network namespace with lo up, and runs fn there.
func enter(fn func() error) error {
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("unshare(CLONE_NEWNET): %w (run as root)", err)
	}
	if err := loUp(); err != nil {
		return err
	}
	return fn()
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
