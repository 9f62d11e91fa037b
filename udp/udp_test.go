package udp_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/ubuf"
	"github.com/zcsim/zcsim/udp"
)

const (
	zc   = kernel.MSG_ZEROCOPY
	more = kernel.MSG_MORE
)

// failSites is a kernel.FaultSource that fails the named sites while set.
type failSites map[string]bool

func (f failSites) Fail(site string) bool { return f[site] }

func wantRanges(t *testing.T, want []string, e *env, why ...string) {
	t.Helper()
	if d := cmp.Diff(want, ranges(e.drain(t))); d != "" {
		t.Errorf("notifications %v (-want +got):\n%s", why, d)
	}
}

// The snd_zerocopy single sends over loopback: one id per call, every
// notification COPIED (skb_orphan_frags_rx), 400000 bytes refused without
// an id.
func TestSingleSendsLoopback(t *testing.T) {
	for _, fam := range []kernel.Family{kernel.AF_INET, kernel.AF_INET6} {
		t.Run(kernel.FamilyNames.Name(fam), func(t *testing.T) {
			e := newEnv(t, "linux-6.18", fam, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP, loRoute, loopback)
			require.Zero(t, e.u.Setsockopt(kernel.SO_ZEROCOPY, 1))
			id := uint32(0)
			for _, n := range []int{4096, 1500, 1472, 32000, 65000, 1, 0} {
				r := e.send(n, zc)
				require.Equal(t, n, r.N, "send(%d)", n)
				require.True(t, r.ZC)
				require.Equal(t, id, r.ID)
				require.False(t, r.Copied, "send(%d) paged over loopback", n)
				wantRanges(t, []string{rangeC(id)}, e)
				id++
			}
			r := e.send(400000, zc)
			require.Equal(t, kernel.EMSGSIZE, r.Err)
			require.False(t, r.ZC)
			e.quiet(t)
			e.finish(t)
		})
	}
}

func rangeC(id uint32) string { return "[" + itoa(id) + "," + itoa(id) + "]C" }

func itoa(n uint32) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// FINDINGS #5: the largest datagram is 65507 bytes over IPv4 and 65527 over
// IPv6; one more is EMSGSIZE and consumes no id.
func TestMaxDatagram(t *testing.T) {
	for fam, max := range map[kernel.Family]int{kernel.AF_INET: 65507, kernel.AF_INET6: 65527} {
		e := newEnv(t, "linux-6.18", fam, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP, loRoute, loopback)
		require.Zero(t, e.u.Setsockopt(kernel.SO_ZEROCOPY, 1))
		require.Equal(t, max, e.send(max, zc).N)
		r := e.send(max+1, zc)
		require.Equal(t, kernel.EMSGSIZE, r.Err)
		require.Equal(t, uint32(1), e.send(10, zc).ID)
		wantRanges(t, []string{"[0,1]C"}, e)
		e.quiet(t)
		e.finish(t)
	}
}

// Over a NIC with checksum offload a datagram that fits the MTU is sent
// from the user's pages: not COPIED. One that needs IP fragmentation is
// copied with the uarg attached to every fragment (one reference each),
// so it is notified COPIED once the last fragment is freed.
func TestNICZerocopyAndFragments(t *testing.T) {
	e := newUDP(t, "linux-6.18", nicRoute, hold)
	r := e.send(1472, zc)
	require.False(t, r.Copied)
	require.Len(t, e.net.held, 1)
	require.Len(t, e.buf.InFlight(), 1, "user page pinned by the frag")
	e.net.release(nic)
	wantRanges(t, []string{"[0,0]"}, e)

	r = e.send(4000, zc)
	require.True(t, r.Copied)
	require.Len(t, e.net.held, 3, "three IP fragments")
	require.Equal(t, 3, r.Uarg.Refcnt())
	require.Empty(t, e.buf.InFlight(), "copied data pins nothing")
	e.net.held[1].Free()
	e.net.held[0].Free()
	wantRanges(t, nil, e)
	e.net.held[2].Free()
	e.net.held = nil
	wantRanges(t, []string{"[1,1]C"}, e)

	// Without scatter-gather or checksum offload the data is copied, and
	// the notification still comes, COPIED, when the skb is freed.
	for _, rt := range []struct{ sg, csum bool }{{false, true}, {true, false}} {
		e.u.Route.SG, e.u.Route.Csum = rt.sg, rt.csum
		r = e.send(1000, zc)
		require.True(t, r.ZC)
		require.True(t, r.Copied)
		e.net.release(nic)
	}
	wantRanges(t, []string{"[2,3]C"}, e)
	e.quiet(t)
	e.finish(t)
}

// Coalescing batches: sends held by the device complete together and their
// notifications merge on the error queue.
func TestBatchCoalescing(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, hold)
	e.u.Sk.Task.CapNetAdmin = true
	require.Zero(t, e.u.Setsockopt(kernel.SO_SNDBUFFORCE, 1<<20))
	for _, batch := range []struct{ n, count int }{{32000, 4}, {3000, 10}, {100, 100}} {
		for range batch.count {
			r := e.send(batch.n, zc)
			require.True(t, r.ZC, "%v", r)
		}
		e.net.release(loopback)
	}
	wantRanges(t, []string{"[0,113]C"}, e)
	e.quiet(t)
	e.finish(t)
}

// Mixed copy and zerocopy pairs (run_mix_zerocopy): plain sends take no id
// and do not break the coalescing of the zerocopy ones.
func TestMixedPairs(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, hold)
	pairs := [][2]int{{2000, 2000}, {100, 100}, {100, 1500}, {1000, 12000}, {12000, 1000}, {16000, 16000}}
	for _, p := range pairs {
		r := e.send(p[0], 0)
		require.False(t, r.ZC)
		require.Equal(t, p[0], r.N)
		require.True(t, e.send(p[1], zc).ZC)
	}
	require.Len(t, e.net.held, 2*len(pairs))
	e.net.release(nic)
	wantRanges(t, []string{"[0,5]"}, e)
	e.quiet(t)
	e.finish(t)
}

// FINDINGS #5 corking: MSG_MORE and UDP_CORK extend one uarg, one id per
// call, one datagram; a plain append takes no id.
func TestCorking(t *testing.T) {
	cases := []struct {
		name  string
		sends []kernel.MsgFlags
		cork  bool
		want  []string
	}{
		{"3xMORE+flush", []kernel.MsgFlags{zc | more, zc | more, zc | more, zc}, false, []string{"[0,3]C"}},
		{"UDP_CORK", []kernel.MsgFlags{zc, zc, zc, zc}, true, []string{"[0,3]C"}},
		{"zc,plain,zc", []kernel.MsgFlags{zc | more, more, zc}, false, []string{"[0,1]C"}},
		{"plain then zc flush", []kernel.MsgFlags{more, zc}, false, []string{"[0,0]C"}},
		{"zc then plain flush", []kernel.MsgFlags{zc | more, 0}, false, []string{"[0,0]C"}},
		{"plain,zc,zc", []kernel.MsgFlags{more, zc | more, zc}, false, []string{"[0,1]C"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newUDP(t, "linux-6.18", loRoute, loopback)
			if c.cork {
				require.Zero(t, e.u.Setsockopt(kernel.UDP_CORK, 1))
			}
			for _, f := range c.sends {
				require.Equal(t, 1000, e.send(1000, f).N)
			}
			if c.cork {
				require.Empty(t, e.net.sent)
				require.Zero(t, e.u.Setsockopt(kernel.UDP_CORK, 0))
			}
			require.Equal(t, []sentPacket{{len(c.sends) * 1000, 0}}, e.net.sent, "one datagram")
			wantRanges(t, c.want, e)
			e.quiet(t)
			e.finish(t)
		})
	}
}

// FINDINGS #3: a zero-length UDP send consumes an id (payload + 8 > 0); a
// zero-length later append does not; a zero-length first append does.
func TestZeroLength(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, loopback)
	require.True(t, e.send(0, zc).ZC)
	wantRanges(t, []string{"[0,0]C"}, e)
	require.True(t, e.send(100, zc|more).ZC)
	require.False(t, e.send(0, zc|more).ZC)
	require.False(t, e.send(0, zc).ZC)
	wantRanges(t, []string{"[1,1]C"}, e)
	require.True(t, e.send(0, zc|more).ZC)
	require.True(t, e.send(100, zc).ZC)
	wantRanges(t, []string{"[2,3]C"}, e)
	e.quiet(t)
	e.finish(t)

	// The UDP header counts for locked pages: with a 4 KiB limit not even
	// an empty datagram can be sent (2 pages > 1).
	e = newUDP(t, "linux-6.18", loRoute, loopback)
	e.task.Memlock = 4096
	r := e.send(0, zc)
	require.Equal(t, kernel.ENOBUFS, r.Err)
	require.Equal(t, ubuf.FailMemlock, r.Outcome)
	e.task.Memlock = 64 << 10
	require.Equal(t, kernel.ENOBUFS, e.send(61432, zc).Err)
	require.True(t, e.send(61431, zc).ZC)
	e.quiet(t)
	e.finish(t)
}

// FINDINGS #5: a zerocopy cork holds at most MAX_SKB_FRAGS copied appends
// after the first (18 calls), 17 zerocopy ones with UDP_SEGMENT; the next
// append fails with EMSGSIZE, consumes no id and discards the cork, whose
// ids are still notified.
func TestCorkFragLimit(t *testing.T) {
	for _, c := range []struct {
		gso, size, ok int
	}{{0, 1, 18}, {0, 1000, 18}, {1000, 1000, 17}} {
		e := newUDP(t, "linux-6.18", loRoute, loopback)
		require.Zero(t, e.u.Setsockopt(kernel.UDP_SEGMENT, c.gso))
		for i := range c.ok {
			r := e.send(c.size, zc|more)
			require.Equal(t, c.size, r.N, "append %d", i+1)
		}
		r := e.send(c.size, zc|more)
		require.Equal(t, kernel.EMSGSIZE, r.Err)
		require.False(t, r.ZC)
		require.Equal(t, uint32(c.ok), e.sk.ZCKey())
		require.Empty(t, e.net.sent, "the cork was discarded")
		wantRanges(t, []string{"[0," + itoa(uint32(c.ok-1)) + "]C"}, e)
		e.quiet(t)
		e.finish(t)
	}
	// Plain MSG_MORE appends coalesce in the page frag and reach the
	// datagram limit instead.
	e := newUDP(t, "linux-6.18", loRoute, loopback)
	for i := range 65507 / 1000 {
		require.Equal(t, 1000, e.send(1000, more).N, "append %d", i)
	}
	require.Equal(t, kernel.EMSGSIZE, e.send(1000, more).Err)
	e.quiet(t)
	e.finish(t)
}

// FINDINGS #5: an EMSGSIZE inside a cork discards the pending datagram; the
// id of its earlier append is still notified.
func TestEmsgsizeDiscardsCork(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, loopback)
	require.True(t, e.send(60000, zc|more).ZC)
	r := e.send(6000, zc|more)
	require.Equal(t, kernel.EMSGSIZE, r.Err)
	require.False(t, r.ZC)
	require.Equal(t, uint32(1), e.send(100, zc).ID)
	require.Equal(t, []sentPacket{{100, 0}}, e.net.sent)
	wantRanges(t, []string{"[0,1]C"}, e)
	e.quiet(t)
	e.finish(t)
}

// UDP_SEGMENT: one skb with gso_size and gso_segs, one id; the device
// segments it and each segment holds a uarg reference.
func TestGSO(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, hold)
	require.Zero(t, e.u.Setsockopt(kernel.UDP_SEGMENT, 1000))
	require.True(t, e.send(4000, zc).ZC)
	require.True(t, e.send(60000, zc).ZC)
	for range 3 {
		require.True(t, e.send(2000, zc|more).ZC)
	}
	require.True(t, e.send(0, zc).ZC == false)
	require.Equal(t, []sentPacket{{4000, 4}, {60000, 60}, {6000, 6}}, e.net.sent)
	e.net.release(loopback)
	wantRanges(t, []string{"[0,4]C"}, e)
	// Too many segments, or a segment above the MTU: the skb is freed in
	// udp_send_skb after the append, so the id is kept and notified.
	require.Zero(t, e.u.Setsockopt(kernel.UDP_SEGMENT, 100))
	r := e.send(20000, zc)
	require.Equal(t, kernel.EINVAL, r.Err)
	require.True(t, r.ZC)
	e.u.Route.MTU = 1500
	require.Zero(t, e.u.Setsockopt(kernel.UDP_SEGMENT, 1600))
	r = e.send(3000, zc)
	require.Equal(t, kernel.EMSGSIZE, r.Err)
	require.True(t, r.ZC)
	require.Equal(t, kernel.EINVAL, e.u.Setsockopt(kernel.UDP_SEGMENT, 70000))
	wantRanges(t, []string{"[5,6]"}, e, "freed unsent: not copied")
	e.quiet(t)
	e.finish(t)
}

// Without SO_ZEROCOPY, MSG_ZEROCOPY is a no-op; on linux-4.14 UDP cannot
// even set it.
func TestIgnoredWithoutOptIn(t *testing.T) {
	e := newEnv(t, "linux-6.18", kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP, loRoute, loopback)
	r := e.send(1000, zc)
	require.Equal(t, 1000, r.N)
	require.False(t, r.ZC)
	e.quiet(t)
	e.finish(t)

	e = newEnv(t, "linux-4.14", kernel.AF_INET, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP, loRoute, loopback)
	require.Equal(t, kernel.ENOTSUPP, e.u.Setsockopt(kernel.SO_ZEROCOPY, 1))
	require.False(t, e.send(1000, zc).ZC)
	e.quiet(t)
	e.finish(t)
}

// ENOBUFS from optmem and from a failed sock_omalloc consumes no id
// (FINDINGS #6: 24 outstanding notifications fit in 20 KiB).
func TestOptmemAndFaults(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, hold)
	e.sk.Net.OptmemMax = 20480
	for i := range 24 {
		r := e.send(100, zc)
		require.True(t, r.ZC, "send %d: %+v", i, r)
	}
	r := e.send(100, zc)
	require.Equal(t, kernel.ENOBUFS, r.Err)
	require.Equal(t, ubuf.FailOptmem, r.Outcome)
	e.net.release(nic)
	e.drain(t)

	faults := failSites{kernel.FaultSockOmalloc: true}
	e.h.Faults = faults
	require.Equal(t, kernel.ENOBUFS, e.send(100, zc).Err)
	faults[kernel.FaultSockOmalloc] = false
	faults[kernel.FaultAllocSkb] = true
	r = e.send(100, zc)
	require.Equal(t, kernel.ENOBUFS, r.Err)
	require.False(t, r.ZC)
	faults[kernel.FaultAllocSkb] = false
	require.True(t, e.send(100, zc|more).ZC)
	faults[kernel.FaultAllocSkb] = true
	r = e.send(5000, zc|more|kernel.MSG_DONTWAIT)
	require.Equal(t, 5000, r.N, "later appends reuse the tail skb")
	faults[kernel.FaultAllocSkb] = false
	require.Equal(t, uint32(26), e.send(100, zc).ID)
	e.net.release(nic)
	wantRanges(t, []string{"[24,26]C"}, e)
	e.quiet(t)
	e.finish(t)
}

// The send buffer: sock_alloc_send_skb fails with EAGAIN when sk_wmem_alloc
// reaches sk_sndbuf and the call cannot wait; Wait lets a blocking call
// proceed once the network freed something.
func TestSendBuffer(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, hold)
	require.Zero(t, e.u.Setsockopt(kernel.SO_SNDBUF, 4096))
	for e.sk.WmemAlloc < e.sk.Sndbuf {
		require.Equal(t, 4000, e.send(4000, kernel.MSG_DONTWAIT).N)
	}
	require.Equal(t, kernel.EAGAIN, e.send(10, zc|kernel.MSG_DONTWAIT).Err)
	require.Equal(t, kernel.EAGAIN, e.send(10, zc).Err, "no Wait: times out")
	e.u.Wait = func() bool { e.net.release(nic); return true }
	require.True(t, e.send(10, zc).ZC)
	require.Equal(t, uint32(0), e.sk.ZCKey()-1)
	e.net.release(nic)
	e.quiet(t)
	e.finish(t)
}

// An ICMP port unreachable fails the next send of a connected socket,
// without an id; an unconnected one without IP_RECVERR ignores it.
func TestConnRefused(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, loopback)
	e.u.PortUnreachable(icmpSkb(e))
	require.True(t, e.send(1000, zc).ZC, "unconnected sockets ignore ICMP errors")
	require.Zero(t, e.u.Connect())
	e.u.PortUnreachable(icmpSkb(e))
	r := e.send(1000, zc)
	require.Equal(t, kernel.ECONNREFUSED, r.Err)
	require.False(t, r.ZC)
	require.Equal(t, uint32(1), e.send(1000, zc).ID)
	wantRanges(t, []string{"[0,1]C"}, e)
	e.quiet(t)
	e.finish(t)
}

func icmpSkb(e *env) *skb.Buff {
	b := skb.Alloc(e.h, 156)
	b.AppendLinear(156)
	return b
}

// With IP_RECVERR an unconnected socket queues the ICMP error as a record
// charged to rmem, and takes sk_err; reading the record before it sets
// sk_err again, reading the ICMP record clears it (sock_dequeue_err_skb).
func TestPortUnreachableRecverr(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, loopback)
	require.Zero(t, e.u.Setsockopt(kernel.IPV6_RECVERR, 1))
	e.u.PortUnreachable(icmpSkb(e))
	require.Zero(t, e.sk.ErrQueue.Len(), "an AF_INET socket reads IP_RECVERR")
	require.Equal(t, kernel.Errno(0), e.sk.Err)
	require.Zero(t, e.u.Setsockopt(kernel.IP_RECVERR, 1))
	e.u.PortUnreachable(icmpSkb(e))
	require.Equal(t, kernel.ECONNREFUSED, e.sk.Err)
	require.Positive(t, e.sk.RmemAlloc)
	require.Equal(t, kernel.ECONNREFUSED, e.send(1000, zc).Err)
	rec, err := e.sk.RecvErrqueue()
	require.Zero(t, err)
	require.Equal(t, "icmp ECONNREFUSED type=3 code=3 quoted=100", rec.String(), "a 156-byte error quotes 100 bytes past two IP, the ICMP and the UDP headers")
	require.Equal(t, kernel.Errno(0), e.sk.Err)
	require.Zero(t, e.sk.RmemAlloc)
	e.quiet(t)
	e.finish(t)
}

// Close flushes the pending cork, whose ids are notified before the socket
// dies; skbs still held keep the socket alive until they are freed.
func TestCloseWithCorkAndInflight(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, hold)
	require.True(t, e.send(1000, zc).ZC)
	require.True(t, e.send(1000, zc|more).ZC)
	e.u.Close()
	require.False(t, e.sk.Freed(), "an skb still charged keeps the socket")
	e.u.Close()
	e.finish(t)
	require.True(t, e.sk.Freed())
}

// Bugs B6 and B7 leak the uarg (and with it the socket); the fixed kernel
// does not.
func TestBugsB6B7(t *testing.T) {
	for _, c := range []struct {
		bug   kernel.Bug
		sends []kernel.MsgFlags
	}{
		{kernel.BugUDPMoreRefcnt, []kernel.MsgFlags{zc | more, zc | more, zc}},
		{kernel.BugUDPAppendRefcnt, []kernel.MsgFlags{more, zc}},
	} {
		e := newUDP(t, "linux-6.18", loRoute, nic)
		e.h.Profile.Bugs[c.bug] = true
		for _, f := range c.sends {
			require.Equal(t, 1000, e.send(1000, f).N)
		}
		require.Empty(t, e.drain(t), "%s: the notification never fires", c.bug)
		e.u.Close()
		var kinds []string
		for _, id := range e.h.Live() {
			if id.Kind != "upage" {
				kinds = append(kinds, id.Kind)
			}
		}
		require.Equal(t, []string{"sock", "uarg"}, kinds, "%s", c.bug)
	}
}

// The RFC takes no uarg when the data cannot go into frags (MSG_MORE
// disables CHECKSUM_PARTIAL, no scatter-gather): no id at all.
func TestRFCv2(t *testing.T) {
	e := newUDP(t, "rfc-v2", nicRoute, nic)
	require.True(t, e.send(1000, zc).ZC)
	require.False(t, e.send(1000, zc|more).ZC)
	require.False(t, e.send(1000, zc).ZC)
	e.u.Route.SG = false
	require.False(t, e.send(1000, zc).ZC)
	wantRanges(t, []string{"[0,0]"}, e)
	e.quiet(t)
	e.finish(t)
}

// UDP_SEGMENT arrived in v4.18: the RFC kernel has no such option.
func TestGSOOptionPredatesProfile(t *testing.T) {
	e := newUDP(t, "rfc-v2", loRoute, hold)
	require.Equal(t, kernel.ENOPROTOOPT, e.u.Setsockopt(kernel.UDP_SEGMENT, 1000))
	e.finish(t)
}

// send(2) without an address needs a connected socket: EDESTADDRREQ before
// anything is allocated, no id taken (udp_sendmsg).
func TestSendWithoutAddress(t *testing.T) {
	e := newUDP(t, "linux-6.18", nicRoute, nic)
	r := e.u.Sendmsg([]mm.Iovec{{Buf: e.buf, Len: 100}}, zc)
	require.Equal(t, kernel.EDESTADDRREQ, r.Err)
	require.Equal(t, -1, r.N)
	require.False(t, r.ZC)
	require.Zero(t, e.sk.ZCKey())
	require.Zero(t, e.u.Connect())
	r = e.u.Sendmsg([]mm.Iovec{{Buf: e.buf, Len: 100}}, zc)
	require.Equal(t, 100, r.N)
	require.True(t, r.ZC)
	e.finish(t)
}

// An unconnected AF_INET6 socket, v4-mapped too, fails a send without an
// address with EDESTADDRREQ whatever its length and flags: udpv6_sendmsg
// checks the destination before it hands a v4-mapped socket's datagram to
// udp_sendmsg, whose length and MSG_OOB checks come first on AF_INET
// (measured on 6.18: 104793 bytes is EDESTADDRREQ on a mapped socket,
// EMSGSIZE on AF_INET).
func TestSendWithoutAddressV6ChecksDestinationFirst(t *testing.T) {
	for _, mapped := range []bool{false, true} {
		e := newEnv(t, "linux-6.18", kernel.AF_INET6, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP, loRoute, hold)
		e.sk.V4Mapped = mapped
		for _, flags := range []kernel.MsgFlags{0, kernel.MSG_OOB} {
			r := e.u.Sendmsg([]mm.Iovec{{Buf: e.buf, Len: e.buf.Len()}, {Buf: e.buf, Len: 104793 - e.buf.Len()}}, flags)
			require.Equal(t, kernel.EDESTADDRREQ, r.Err, "mapped=%v flags=%v", mapped, flags)
			require.Equal(t, -1, r.N)
		}
		e.finish(t)
	}
	e := newUDP(t, "linux-6.18", loRoute, hold)
	require.Equal(t, kernel.EMSGSIZE, e.u.Sendmsg([]mm.Iovec{{Buf: e.buf, Len: e.buf.Len()}, {Buf: e.buf, Len: 104793 - e.buf.Len()}}, 0).Err)
	require.Equal(t, kernel.EOPNOTSUPP, e.u.Sendmsg([]mm.Iovec{{Buf: e.buf, Len: 100}}, kernel.MSG_OOB).Err)
	e.finish(t)
}

// The last append of a cork takes an id, then udp_push_pending_frames →
// udp_send_skb refuses the datagram (more than UDP_MAX_SEGMENTS segments
// of gso_size 1): the call fails with EINVAL, its id stays consumed and is
// notified, as after an uncorked send the same check refuses.
func TestCorkPushFailsAfterID(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, loopback)
	require.Zero(t, e.u.Setsockopt(kernel.UDP_SEGMENT, 1))
	require.Equal(t, 0, e.send(0, more).N)
	r := e.send(256, zc)
	require.Equal(t, kernel.EINVAL, r.Err)
	require.True(t, r.ZC)
	require.True(t, r.FailedAfterID)
	require.Equal(t, uint32(1), e.sk.ZCKey())
	e.quiet(t)
	e.finish(t)
}

// An IPv6 UDP_SEGMENT cork has the MTU IP6_MAX_MTU (0xFFFF plus the IPv6
// header, __ip6_append_data), so a datagram of 65508 bytes is one skb
// without a frag_list, as on IPv4; with IP_MAX_MTU it took a second skb.
func TestGSOv6OneSkb(t *testing.T) {
	e := newEnv(t, "linux-6.18", kernel.AF_INET6, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP, loRoute, hold)
	require.Zero(t, e.u.Setsockopt(kernel.SO_ZEROCOPY, 1))
	require.Zero(t, e.u.Setsockopt(kernel.UDP_SEGMENT, 536))
	require.Equal(t, 65527, e.send(65527, zc).N)
	require.Len(t, e.net.held, 1)
	require.Empty(t, e.net.held[0].Shinfo().FragList)
	e.finish(t)
}

// A datagram too long for IP leaves a SO_EE_ORIGIN_LOCAL record with the
// path MTU when the family's RECVERR is on (ip_local_error,
// ipv6_local_error), charged to rmem, and sets no sk_err; the zerocopy
// notifications on either side of it stay apart.
func TestLocalErrorEmsgsize(t *testing.T) {
	for fam, want := range map[kernel.Family]uint32{kernel.AF_INET: udp.IPMaxMTU, kernel.AF_INET6: uint32(loRoute.MTU)} {
		e := newEnv(t, "linux-6.18", fam, kernel.SOCK_DGRAM, kernel.IPPROTO_UDP, loRoute, loopback)
		require.Zero(t, e.u.Setsockopt(kernel.SO_ZEROCOPY, 1))
		require.Equal(t, kernel.EMSGSIZE, e.send(65528, zc).Err)
		require.Zero(t, e.sk.ErrQueue.Len(), "no RECVERR, no record")
		opt := kernel.IP_RECVERR
		if fam == kernel.AF_INET6 {
			opt = kernel.IPV6_RECVERR
		}
		require.Zero(t, e.u.Setsockopt(opt, 1))
		require.Equal(t, uint32(0), e.send(10, zc).ID)
		require.Equal(t, kernel.EMSGSIZE, e.send(65528, zc).Err)
		require.Equal(t, uint32(1), e.send(10, zc).ID)
		require.Equal(t, kernel.Errno(0), e.sk.Err)
		recs := e.drain(t)
		require.Len(t, recs, 3)
		require.Equal(t, notify.Record{Origin: kernel.SO_EE_ORIGIN_LOCAL, Errno: kernel.EMSGSIZE, Info: want},
			notify.Record{Origin: recs[1].Origin, Errno: recs[1].Errno, Type: recs[1].Type, Code: recs[1].Code, Info: recs[1].Info, Data: recs[1].Data})
		require.Equal(t, []string{"zerocopy [0,0] COPIED", "zerocopy [1,1] COPIED"}, []string{recs[0].String(), recs[2].String()})
		require.Zero(t, e.sk.RmemAlloc)
		e.quiet(t)
		e.finish(t)
	}
}
