package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// pageMSS is a route whose MSS (less timestamps) is twelve pages, as
// loopback with an MTU of 49204.
func pageMSS(_ *kernel.Profile, r *sock.Route) { r.MTU = 12*kernel.PageSize + 20 + 20 + 12 }

// Mapped pages outlive the skbs they came from, each byte is taken once
// (by mapping or by the copy of the straggler), and munmap frees the
// pages.
func TestZerocopyReceiveMapsOnce(t *testing.T) {
	p := newPair(t, "linux-6.18", true, pageMSS)
	require.Zero(t, p.peer.Mmap(1<<20, kernel.PROT_READ))
	p.send(kernel.MSG_ZEROCOPY, 3*kernel.PageSize+100)
	p.deliverKernel()
	r, err := zcReceive(p.peer, ZcArgs{Length: 1 << 20, Optlen: 64})
	require.Zero(t, err)
	require.Equal(t, ZcResult{Length: 3 * kernel.PageSize, Inq: 100, Cmsg: true, Optlen: 64}, r,
		"all that was asked (the whole pages) was mapped: no hint")
	pages := p.peer.RxMap().Pages()
	require.Len(t, pages, 3)
	for _, pg := range pages {
		require.Equal(t, 2, pg.Refs(), "the mapping and the skb, 100 bytes still unread, hold %v", pg)
	}
	r, err = zcReceive(p.peer, ZcArgs{Length: 1 << 20, CopybufLen: 4096, Optlen: 64})
	require.Zero(t, err)
	require.Equal(t, ZcResult{CopybufLen: 100, Cmsg: true, Optlen: 64}, r, "what fits copybuf is copied")
	for _, pg := range pages {
		require.Equal(t, 1, pg.Refs(), "the skb is gone, only the mapping holds %v", pg)
	}
	require.Zero(t, p.peer.Queued())
	require.Len(t, p.peer.RxMap().Pages(), 3, "a copy leaves the mapping alone")
	p.peer.Munmap()
	for _, pg := range pages {
		require.True(t, pg.Freed(), "%v", pg)
	}
	p.closeAll()
}

// A later call zaps the pages it maps over; data in compound pages (a
// copying send's sk_page_frag) is never mapped: recv_skip_hint covers it.
func TestZerocopyReceiveZapAndSkip(t *testing.T) {
	p := newPair(t, "linux-6.18", true, pageMSS)
	require.Zero(t, p.peer.Mmap(2*kernel.PageSize, kernel.PROT_READ))
	p.send(kernel.MSG_ZEROCOPY, 4*kernel.PageSize)
	p.deliverKernel()
	r, _ := zcReceive(p.peer, ZcArgs{Length: 1 << 20, Optlen: 64})
	require.Equal(t, uint32(2*kernel.PageSize), r.Length, "the mapping's size bounds it")
	first := p.peer.RxMap().Pages()
	r, _ = zcReceive(p.peer, ZcArgs{Length: 1 << 20, Optlen: 64})
	require.Equal(t, uint32(2*kernel.PageSize), r.Length)
	for _, pg := range first {
		require.True(t, pg.Freed(), "zapped: %v", pg)
	}
	p.send(0, 3*kernel.PageSize)
	p.deliverKernel()
	r, err := zcReceive(p.peer, ZcArgs{Length: 1 << 20, Optlen: 64})
	require.Zero(t, err)
	require.Equal(t, ZcResult{RecvSkipHint: 3 * kernel.PageSize, Inq: 3 * kernel.PageSize, Cmsg: true, Optlen: 64}, r)
	p.peer.Munmap()
	p.closeAll()
}

// optlen decides what is read and written back: v4.18's exact size, and
// on later kernels err and inq only for an optlen that ends at err or
// later (inq alone when it ends at inq).
func TestZerocopyReceiveOptlen(t *testing.T) {
	for _, tt := range []struct {
		profile string
		optlen  int
		err     kernel.Errno
		inq     bool
	}{
		{"linux-4.14", 64, kernel.ENOPROTOOPT, false},
		{"linux-5.0", 16, 0, false},
		{"linux-5.0", 64, kernel.EINVAL, false},
		{"linux-6.18", 8, kernel.EINVAL, false},
		{"linux-6.18", 12, 0, false},
		{"linux-6.18", 20, 0, true},
		{"linux-6.18", 28, 0, false},
		{"linux-6.18", 36, 0, true},
		{"linux-6.18", 44, 0, false},
		{"linux-6.18", 56, 0, true},
		{"linux-6.18", 62, 0, true},
		{"linux-6.18", 200, 0, true},
	} {
		p := newPair(t, tt.profile, true, pageMSS)
		p.peer.Mmap(4096, kernel.PROT_READ)
		p.send(0, 100)
		p.deliverKernel()
		r, err := zcReceive(p.peer, ZcArgs{Optlen: tt.optlen})
		require.Equal(t, tt.err, err, "%s optlen %d", tt.profile, tt.optlen)
		if err == 0 {
			require.Equal(t, tt.inq, r.Inq == 100, "%s optlen %d: inq %d", tt.profile, tt.optlen, r.Inq)
			require.Equal(t, min(tt.optlen, p.h.Profile.TCPZerocopyRecv), r.Optlen)
		}
	}
}

// The struct as it grew: v5.7's 24 bytes write inq and err back but
// read no copybuf; v5.11's 40 copy into copybuf but have no msg_flags;
// v5.12's check reserved and msg_flags as far as optlen reaches, and
// never flags.
func TestZerocopyReceiveStructVersions(t *testing.T) {
	size := func(n int) func(*kernel.Profile, *sock.Route) {
		return func(p *kernel.Profile, r *sock.Route) { pageMSS(p, r); p.TCPZerocopyRecv = n }
	}
	for _, tt := range []struct {
		size    int
		args    ZcArgs
		err     kernel.Errno
		copied  int32
		optlen  int
		hasCmsg bool
	}{
		{kernel.TCPZerocopyRecv24, ZcArgs{CopybufLen: 4096, Optlen: 64}, 0, 0, 24, false},
		{kernel.TCPZerocopyRecv40, ZcArgs{CopybufLen: 4096, Reserved: 1, Optlen: 64}, 0, 100, 40, false},
		{kernel.TCPZerocopyRecvFull, ZcArgs{CopybufLen: 4096, Reserved: 1, Optlen: 64}, kernel.EINVAL, 0, 0, false},
		{kernel.TCPZerocopyRecvFull, ZcArgs{CopybufLen: 4096, Reserved: 0x100, Optlen: 61}, 0, 100, 61, true},
		{kernel.TCPZerocopyRecvFull, ZcArgs{CopybufLen: 4096, Reserved: 0x100, Optlen: 62}, kernel.EINVAL, 0, 0, false},
		{kernel.TCPZerocopyRecvFull, ZcArgs{CopybufLen: 4096, MsgFlags: 8, Optlen: 64}, kernel.EINVAL, 0, 0, false},
		{kernel.TCPZerocopyRecvFull, ZcArgs{CopybufLen: 4096, MsgFlags: 8, Optlen: 56}, 0, 100, 56, false},
		{kernel.TCPZerocopyRecvFull, ZcArgs{CopybufLen: 4096, MsgFlags: 2, Flags: 0xffffffff, Optlen: 64}, 0, 100, 64, true},
	} {
		p := newPair(t, "linux-6.18", true, size(tt.size))
		p.peer.Mmap(4096, kernel.PROT_READ)
		p.send(0, 100)
		p.deliverKernel()
		r, err := zcReceive(p.peer, tt.args)
		require.Equal(t, tt.err, err, "%d bytes, %+v", tt.size, tt.args)
		require.Equal(t, tt.copied, r.CopybufLen, "%d bytes, %+v", tt.size, tt.args)
		require.Equal(t, tt.optlen, r.Optlen, "%d bytes, %+v", tt.size, tt.args)
		require.Equal(t, tt.hasCmsg, r.Cmsg, "%d bytes, %+v", tt.size, tt.args)
		if err == 0 {
			require.Equal(t, uint32(100-tt.copied), r.Inq, "inq written back from 24 bytes on")
		}
	}
}

// The errnos: an unaligned address, no mapping, no tcp_mmap, a writable
// mapping, nothing left after the FIN.
func TestZerocopyReceiveErrnos(t *testing.T) {
	p := newPair(t, "linux-6.18", true, pageMSS)
	_, err := zcReceive(p.peer, ZcArgs{Offset: 100, Optlen: 64})
	require.Equal(t, kernel.EINVAL, err, "unaligned address")
	p.send(kernel.MSG_ZEROCOPY, 2*kernel.PageSize)
	p.deliverKernel()
	_, err = zcReceive(p.peer, ZcArgs{Length: 8192, Optlen: 64})
	require.Equal(t, kernel.EINVAL, err, "no mapping")
	require.Equal(t, kernel.ENODEV, newPair(t, "linux-4.14", true).peer.Mmap(4096, kernel.PROT_READ))
	require.Equal(t, kernel.EPERM, p.peer.Mmap(4096, kernel.PROT_READ|kernel.PROT_WRITE))
	require.Zero(t, p.peer.Mmap(4096, kernel.PROT_READ))
	r, err := zcReceive(p.peer, ZcArgs{Length: 8192, Optlen: 64})
	require.Zero(t, err)
	require.Equal(t, uint32(kernel.PageSize), r.Length)
	p.c.Shutdown()
	p.deliverKernel()
	r, err = zcReceive(p.peer, ZcArgs{Length: 8192, Optlen: 64})
	require.Zero(t, err, "a page still queued")
	require.Equal(t, uint32(kernel.PageSize), r.Length)
	r, err = zcReceive(p.peer, ZcArgs{Length: 8192, Optlen: 64})
	require.Equal(t, kernel.EIO, err, "nothing left after the FIN")
	p.peer.Munmap()
	p.closeAll()
}

// The seed's tcp_mmap maps and consumes whole pages or fails without
// consuming: EAGAIN short of data, EINVAL for bytes in a linear head (B18's
// 1408 linear bytes), EPERM for a writable mapping, EIO after the FIN.
func TestMmapConsume(t *testing.T) {
	locked := 0
	lock := func() { locked++ }
	p := newPair(t, "tcp-mmap-rfc", true, pageMSS)
	p.send(kernel.MSG_ZEROCOPY, 2*kernel.PageSize)
	p.deliverKernel()
	require.Equal(t, kernel.EINVAL, p.peer.MmapConsume(kernel.PageSize, kernel.PROT_READ, lock), "the head holds 1408 bytes")
	require.Equal(t, 2*kernel.PageSize, p.peer.Queued(), "nothing consumed")

	q := newPair(t, "tcp-mmap-rfc", true, pageMSS, func(pr *kernel.Profile, _ *sock.Route) { pr.Switch(kernel.BugTCPLinear, false) })
	q.send(kernel.MSG_ZEROCOPY, 2*kernel.PageSize+10)
	q.deliverKernel()
	require.Equal(t, kernel.EPERM, q.peer.MmapConsume(kernel.PageSize, kernel.PROT_READ|kernel.PROT_WRITE, lock))
	require.Equal(t, kernel.EAGAIN, q.peer.MmapConsume(3*kernel.PageSize, kernel.PROT_READ, lock))
	require.Zero(t, q.peer.MmapConsume(2*kernel.PageSize, kernel.PROT_READ, lock))
	require.Len(t, q.peer.RxMap().Pages(), 2)
	require.Equal(t, 10, q.peer.Queued(), "the pages were consumed")
	require.Equal(t, 3, locked, "the socket is locked after the mapping's own checks")
	q.c.Shutdown()
	q.deliverKernel()
	q.peer.Recv(10)
	require.Equal(t, kernel.EIO, q.peer.MmapConsume(kernel.PageSize, kernel.PROT_READ, lock))
	q.peer.Munmap()
}

// tcp_zerocopy_receive takes mmap_lock only for the VMA lookup and the
// inserts: a call do_tcp_getsockopt refuses first (a short optlen, no
// zerocopy receive in the kernel) takes none, so it cannot close a
// cycle with the seed's tcp_mmap; a mapping call, under the socket lock,
// records sk_lock → mmap_lock.
func TestZerocopyReceiveMmapLock(t *testing.T) {
	inverted := func(p *pair, a ZcArgs) bool {
		sk := kernel.SkLock(kernel.AF_INET)
		p.h.Acquire(sk, "lock_sock", p.peer.Sk.Ident())
		_, _ = zcReceive(p.peer, a)
		p.h.Release(sk)
		p.h.Acquire(kernel.MmapLock, "vm_mmap_pgoff", p.peer.Sk.Ident())
		p.h.Acquire(sk, "tcp_mmap", p.peer.Sk.Ident())
		p.h.Release(sk)
		p.h.Release(kernel.MmapLock)
		return len(p.h.TakeViolations()) > 0
	}
	require.False(t, inverted(newPair(t, "linux-4.14", true), ZcArgs{Optlen: 64}), "ENOPROTOOPT before any lock")
	require.False(t, inverted(newPair(t, "linux-6.18", true), ZcArgs{Optlen: 8}), "EINVAL before any lock")
	p := newPair(t, "linux-6.18", true, pageMSS)
	require.Zero(t, p.peer.Mmap(1<<20, kernel.PROT_READ))
	p.send(kernel.MSG_ZEROCOPY, 2*kernel.PageSize)
	p.deliverKernel()
	require.True(t, inverted(p, ZcArgs{Length: 1 << 20, Optlen: 64}), "the mapping ran under the socket lock")
}

// zcReceive is getsockopt(TCP_ZEROCOPY_RECEIVE) on c whole: the part
// under the socket lock, then what do_tcp_getsockopt writes after
// release_sock (the harness has no backlog to process between).
func zcReceive(c *Conn, a ZcArgs) (ZcResult, kernel.Errno) {
	r, err := c.ZerocopyReceive(a)
	c.ZerocopyReceived(&r, err)
	return r, err
}
