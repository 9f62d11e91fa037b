//go:build linux

package kbench

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zcsim/zcsim/cost"
)

// Batch is how many operations one timed batch of the cost calibration
// makes; its time per operation is the batch's divided by Batch.
const Batch = 128

// udpHeader is the UDP header an IPv4 fragment's payload carries first.
const udpHeader = 8

// CalibrationSamples measures the samples cost.Calibrate fits, on the
// live kernel, in the calling thread's network namespace (which must
// have lo up and nothing else using it): UDP over loopback, each figure
// the least over rounds of a batch's sending-thread CPU time
// (CLOCK_THREAD_CPUTIME_ID) per operation. The sends read from a 64 MiB
// buffer in turn, as a streaming program does, so the copies and the
// page walks do not find everything in cache.
//
// Two paths are measured: lo delivering to the receiver, and lo with a
// pfifo qdisc of limit 0 (tc), which drops every frame when
// dev_queue_xmit enqueues it — a device that transmits at no cost, like
// a NIC seen from the sender's CPU, and where zerocopy frags are never
// copied. It changes lo's MTU and qdisc and puts them back.
func CalibrationSamples(rounds int) ([]cost.Sample, error) {
	c, err := newCalibrator()
	if err != nil {
		return nil, err
	}
	defer c.close()
	var out []cost.Sample
	measure := func(s cost.Sample, batch func() (float64, error)) error {
		t, err := c.least(rounds, batch)
		s.Nanos = t
		out = append(out, s)
		return err
	}
	if err := measure(cost.Sample{Kind: cost.EmptyRead}, c.emptyReads); err != nil {
		return nil, err
	}
	sizes := []int{64, 1024, 4096, 8192, 16384, 32768, 61440}
	for _, mtu := range []int{65536, 1500} {
		if err := setMTU("lo", mtu); err != nil {
			return nil, err
		}
		for _, size := range sizes {
			if err := measure(cost.Sample{Kind: cost.CopySend, Bytes: size, Packets: 2 * fragments(size, mtu)},
				func() (float64, error) { return c.sends(size, 0) }); err != nil {
				return nil, err
			}
		}
	}
	if err := setMTU("lo", 65536); err != nil {
		return nil, err
	}
	for _, size := range sizes[1:] {
		if err := measure(cost.Sample{Kind: cost.Recv, Bytes: size}, func() (float64, error) { return c.recvs(size) }); err != nil {
			return nil, err
		}
		if err := measure(cost.Sample{Kind: cost.LoopZerocopySend, Bytes: size, Pages: pages(size), Packets: 2},
			func() (float64, error) { return c.sends(size, unix.MSG_ZEROCOPY) }); err != nil {
			return nil, err
		}
	}
	if err := tc("qdisc", "add", "dev", "lo", "root", "pfifo", "limit", "0"); err != nil {
		return nil, err
	}
	defer tc("qdisc", "del", "dev", "lo", "root")
	for _, size := range sizes[1:] {
		if err := measure(cost.Sample{Kind: cost.DropCopySend, Bytes: size, Packets: 1},
			func() (float64, error) { return c.sends(size, 0) }); err != nil {
			return nil, err
		}
		if err := measure(cost.Sample{Kind: cost.DropZerocopySend, Bytes: size, Pages: pages(size), Packets: 1},
			func() (float64, error) { return c.sends(size, unix.MSG_ZEROCOPY) }); err != nil {
			return nil, err
		}
	}
	if err := measure(cost.Sample{Kind: cost.SendRead, Bytes: pairSize, Pages: pages(pairSize), Packets: 1}, c.sendAndRead); err != nil {
		return nil, err
	}
	return out, nil
}

// pages is how many pages size bytes from the start of a page span.
func pages(size int) int { return (size + pageSize - 1) / pageSize }

// tc runs tc(8) with args, in the calling thread's network namespace
// (a child inherits the namespace of the thread that forks it).
func tc(args ...string) error {
	out, err := exec.Command("tc", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("tc %s: %v: %s (the calibration needs tc, from iproute2)", strings.Join(args, " "), err, out)
	}
	return nil
}

// LeastOf merges two passes over the same figures (in the same order),
// keeping each figure's least time; a nil first pass is the second.
func LeastOf(a, b []cost.Sample) []cost.Sample {
	if a == nil {
		return b
	}
	out := slices.Clone(a)
	for i := range out {
		out[i].Nanos = min(out[i].Nanos, b[i].Nanos)
	}
	return out
}

// fragments is how many IPv4 fragments a UDP datagram of size bytes is
// sent as over a device of MTU mtu (ip_fragment: 8-byte multiples of
// mtu less the 20-byte header).
func fragments(size, mtu int) int {
	per := (mtu - 20) &^ 7
	return (size + udpHeader + per - 1) / per
}

const pageSize = 4096

// bufferSize is the buffer the calibration's sends read in turn.
const bufferSize = 64 << 20

// pairSize is the size of the sends whose notification is read at once:
// a size the zerocopy sends on the dropping device are measured at too.
const pairSize = 1024

// calibrator is a UDP socket connected over loopback to a receiver,
// with a page-aligned buffer to send from and where the next send
// starts in it.
type calibrator struct {
	tx, rx int
	buf    []byte
	next   int
	oob    []byte
}

func newCalibrator() (*calibrator, error) {
	tx, rx, err := connectPair(false)
	if err != nil {
		return nil, err
	}
	c := &calibrator{tx: tx, rx: rx, oob: make([]byte, 128)}
	// Room for a batch of the largest datagrams, so none is dropped.
	if err := unix.SetsockoptInt(rx, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 64<<20); err != nil {
		c.close()
		return nil, fmt.Errorf("SO_RCVBUFFORCE: %w (run as root)", err)
	}
	if err := unix.SetsockoptInt(tx, unix.SOL_SOCKET, unix.SO_ZEROCOPY, 1); err != nil {
		c.close()
		return nil, fmt.Errorf("%w: SO_ZEROCOPY: %v", ErrNoZerocopy, err)
	}
	c.buf, err = unix.Mmap(-1, 0, bufferSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *calibrator) close() {
	unix.Close(c.tx)
	unix.Close(c.rx)
	if c.buf != nil {
		unix.Munmap(c.buf)
	}
}

// at is the next size bytes of the buffer, from the start of a page.
func (c *calibrator) at(size int) []byte {
	if c.next+size > len(c.buf) {
		c.next = 0
	}
	b := c.buf[c.next : c.next+size]
	c.next += pages(size) * pageSize
	return b
}

// least runs one timed batch per round after a warm-up batch and
// returns the lowest time per operation, in nanoseconds: what another
// program's interference adds (interrupts, evicted caches) only ever
// adds.
func (c *calibrator) least(rounds int, batch func() (float64, error)) (float64, error) {
	if _, err := batch(); err != nil {
		return 0, err
	}
	ts := make([]float64, rounds)
	for i := range ts {
		t, err := batch()
		if err != nil {
			return 0, err
		}
		ts[i] = t
	}
	return slices.Min(ts), nil
}

// sends times Batch sends of size bytes with flags, then drains the
// error queue and the receiver outside the timing.
func (c *calibrator) sends(size, flags int) (float64, error) {
	t, err := timed(func() error { return c.send(c.at(size), flags) })
	drain(c.tx, c.oob)
	c.flushRx()
	return t, err
}

// send sends one datagram, draining the error queue while optmem is
// exhausted (ENOBUFS).
func (c *calibrator) send(b []byte, flags int) error {
	for {
		_, err := unix.SendmsgN(c.tx, b, nil, nil, flags)
		if err == nil {
			return nil
		}
		if err != unix.ENOBUFS && err != unix.EINTR {
			return fmt.Errorf("calibration send: %w", err)
		}
		drain(c.tx, c.oob)
	}
}

// recvs sends Batch datagrams of size bytes untimed, then times reading
// them into the buffer.
func (c *calibrator) recvs(size int) (float64, error) {
	for range Batch {
		if err := c.send(c.at(size), 0); err != nil {
			return 0, err
		}
	}
	return timed(func() error {
		if _, err := unix.Read(c.rx, c.at(1<<16)); err != nil {
			return fmt.Errorf("calibration recv: %w", err)
		}
		return nil
	})
}

// emptyReads times Batch error-queue reads of an empty queue.
func (c *calibrator) emptyReads() (float64, error) {
	drain(c.tx, c.oob)
	return timed(func() error {
		if err := c.readErrqueue(); err != unix.EAGAIN {
			return fmt.Errorf("calibration: an empty error-queue read returned %v", err)
		}
		return nil
	})
}

// sendAndRead times Batch pairs of a zerocopy send and the error-queue
// read of its notification (a frame dropped at the qdisc completes it
// within the send).
func (c *calibrator) sendAndRead() (float64, error) {
	drain(c.tx, c.oob)
	t, err := timed(func() error {
		if err := c.send(c.at(pairSize), unix.MSG_ZEROCOPY); err != nil {
			return err
		}
		if err := c.readErrqueue(); err != nil {
			return fmt.Errorf("calibration: no notification right after a send the qdisc dropped: %w", err)
		}
		return nil
	})
	c.flushRx()
	return t, err
}

// readErrqueue reads one error-queue record without waiting.
func (c *calibrator) readErrqueue() error {
	_, _, _, _, err := unix.Recvmsg(c.tx, nil, c.oob, unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
	return err
}

// timed runs op Batch times and returns the calling thread's CPU time
// per operation, in nanoseconds.
func timed(op func() error) (float64, error) {
	start := threadTime()
	for range Batch {
		if err := op(); err != nil {
			return 0, err
		}
	}
	return float64((threadTime() - start).Nanoseconds()) / Batch, nil
}

// flushRx reads what the receiver holds.
func (c *calibrator) flushRx() {
	buf := make([]byte, 1<<16)
	for {
		if _, _, err := unix.Recvfrom(c.rx, buf, unix.MSG_DONTWAIT); err != nil && err != unix.EINTR {
			return
		}
	}
}

// threadTime is the calling thread's CPU time.
func threadTime() time.Duration {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// setMTU sets a device's MTU (SIOCSIFMTU).
func setMTU(dev string, mtu int) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq(dev)
	if err != nil {
		return err
	}
	ifr.SetUint32(uint32(mtu))
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFMTU, ifr); err != nil {
		return fmt.Errorf("SIOCSIFMTU %s %d: %w", dev, mtu, err)
	}
	return nil
}
