//go:build linux

package kbench

import (
	"fmt"
	"slices"
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
// (CLOCK_THREAD_CPUTIME_ID) per operation. It changes lo's MTU and puts
// it back.
func CalibrationSamples(rounds int) ([]cost.Sample, error) {
	c, err := newCalibrator()
	if err != nil {
		return nil, err
	}
	defer c.close()
	var out []cost.Sample
	empty, err := c.least(rounds, c.emptyReads)
	if err != nil {
		return nil, err
	}
	out = append(out, cost.Sample{Kind: cost.EmptyRead, Nanos: empty})
	for _, mtu := range []int{65536, 1500} {
		if err := setMTU("lo", mtu); err != nil {
			return nil, err
		}
		for _, size := range []int{64, 1024, 4096, 8192, 16384, 32768, 61440} {
			iov := c.contiguous(size)
			send, err := c.least(rounds, func() (float64, error) { return c.sends(iov, 0) })
			if err != nil {
				return nil, err
			}
			out = append(out, cost.Sample{Kind: cost.CopySend, Bytes: size, Packets: 2 * fragments(size, mtu), Nanos: send})
			if mtu != 65536 {
				continue
			}
			recv, err := c.least(rounds, func() (float64, error) { return c.recvs(iov) })
			if err != nil {
				return nil, err
			}
			out = append(out, cost.Sample{Kind: cost.Recv, Bytes: size, Nanos: recv})
		}
	}
	if err := setMTU("lo", 65536); err != nil {
		return nil, err
	}
	zc := func(iov [][]byte, pages int) error {
		n := 0
		for _, b := range iov {
			n += len(b)
		}
		t, err := c.least(rounds, func() (float64, error) { return c.sends(iov, unix.MSG_ZEROCOPY) })
		if err != nil {
			return err
		}
		out = append(out, cost.Sample{Kind: cost.ZerocopySend, Bytes: n, Pages: pages, Packets: 2, Nanos: t})
		return nil
	}
	for _, size := range []int{1024, 4096, 8192, 16384, 32768, 61440} {
		if err := zc(c.contiguous(size), (size+pageSize-1)/pageSize); err != nil {
			return nil, err
		}
	}
	for _, pages := range []int{1, 2, 4, 8, 16} {
		if err := zc(c.scattered(pages, 256), pages); err != nil {
			return nil, err
		}
	}
	pair, err := c.least(rounds, c.sendAndRead)
	if err != nil {
		return nil, err
	}
	alone, err := c.least(rounds, func() (float64, error) { return c.sends(c.contiguous(1024), unix.MSG_ZEROCOPY) })
	if err != nil {
		return nil, err
	}
	out = append(out, cost.Sample{Kind: cost.Drain, Nanos: pair - alone})
	return out, nil
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

// calibrator is a UDP socket connected over loopback to a receiver,
// with a page-aligned buffer to send from.
type calibrator struct {
	tx, rx int
	buf    []byte
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
	c.buf, err = unix.Mmap(-1, 0, 64*pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_POPULATE)
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

// contiguous is one iovec of size bytes from the start of a page.
func (c *calibrator) contiguous(size int) [][]byte { return [][]byte{c.buf[:size]} }

// scattered is pages iovecs of n bytes, each at the start of a page of
// its own.
func (c *calibrator) scattered(pages, n int) [][]byte {
	iov := make([][]byte, pages)
	for i := range iov {
		off := 2 * i * pageSize // a gap page between, so no two are adjacent
		iov[i] = c.buf[off : off+n]
	}
	return iov
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

// sends times Batch sends of iov with flags, then drains the error queue
// and the receiver outside the timing.
func (c *calibrator) sends(iov [][]byte, flags int) (float64, error) {
	start := threadTime()
	for range Batch {
		if err := c.send(iov, flags); err != nil {
			return 0, err
		}
	}
	t := threadTime() - start
	drain(c.tx, c.oob)
	c.flushRx()
	return perOp(t), nil
}

// send sends one datagram, draining the error queue while optmem is
// exhausted (ENOBUFS).
func (c *calibrator) send(iov [][]byte, flags int) error {
	for {
		_, err := unix.SendmsgBuffers(c.tx, iov, nil, nil, flags)
		if err == nil {
			return nil
		}
		if err != unix.ENOBUFS && err != unix.EINTR {
			return fmt.Errorf("calibration send: %w", err)
		}
		drain(c.tx, c.oob)
	}
}

// recvs sends Batch datagrams of iov untimed, then times reading them.
func (c *calibrator) recvs(iov [][]byte) (float64, error) {
	for range Batch {
		if err := c.send(iov, 0); err != nil {
			return 0, err
		}
	}
	buf := make([]byte, 1<<16)
	start := threadTime()
	for range Batch {
		if _, err := unix.Read(c.rx, buf); err != nil {
			return 0, fmt.Errorf("calibration recv: %w", err)
		}
	}
	return perOp(threadTime() - start), nil
}

// emptyReads times Batch error-queue reads of an empty queue.
func (c *calibrator) emptyReads() (float64, error) {
	drain(c.tx, c.oob)
	start := threadTime()
	for range Batch {
		if _, _, _, _, err := unix.Recvmsg(c.tx, nil, c.oob, unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT); err != unix.EAGAIN {
			return 0, fmt.Errorf("calibration: an empty error-queue read returned %v", err)
		}
	}
	return perOp(threadTime() - start), nil
}

// sendAndRead times Batch pairs of a 1 KB zerocopy send and the
// error-queue read of its notification (loopback completes it within
// the send).
func (c *calibrator) sendAndRead() (float64, error) {
	iov := c.contiguous(1024)
	drain(c.tx, c.oob)
	start := threadTime()
	for range Batch {
		if err := c.send(iov, unix.MSG_ZEROCOPY); err != nil {
			return 0, err
		}
		if _, _, _, _, err := unix.Recvmsg(c.tx, nil, c.oob, unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT); err != nil {
			return 0, fmt.Errorf("calibration: no notification right after a loopback send: %w", err)
		}
	}
	t := threadTime() - start
	c.flushRx()
	return perOp(t), nil
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

func perOp(d time.Duration) float64 { return float64(d.Nanoseconds()) / Batch }

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
