package udp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// newRaw is a RAW socket of protocol IPPROTO_UDP: without the IP_HDRINCL
// that IPPROTO_RAW implies.
func newRaw(t *testing.T, profile string, mode delivery) *env {
	t.Helper()
	return newEnv(t, profile, kernel.AF_INET, kernel.SOCK_RAW, kernel.IPPROTO_UDP, loRoute, mode)
}

// Merged kernels refuse SO_ZEROCOPY on RAW sockets, so MSG_ZEROCOPY is
// ignored: copied, no id.
func TestRawMergedIgnoresZerocopy(t *testing.T) {
	for _, prof := range []string{"linux-4.14", "linux-5.0", "linux-6.18"} {
		e := newRaw(t, prof, loopback)
		require.NotZero(t, e.u.Setsockopt(kernel.SO_ZEROCOPY, 1))
		for _, n := range []int{1, 1500, 32000, 65000} {
			r := e.send(n, zc)
			require.Equal(t, n, r.N)
			require.False(t, r.ZC)
		}
		require.Zero(t, e.u.Setsockopt(kernel.IP_HDRINCL, 1))
		require.Equal(t, 1500, e.send(1500, zc).N)
		require.Equal(t, kernel.EINVAL, e.send(10, 0).Err)
		require.Equal(t, kernel.EMSGSIZE, e.send(400000, 0).Err)
		e.quiet(t)
		e.finish(t)
	}
}

// Under the RFC raw_sendmsg without IP_HDRINCL takes the ip_append_data
// path and, with scatter-gather, zerocopy frags on every append; raw
// corks with MSG_MORE.
func TestRawRFC(t *testing.T) {
	e := newRaw(t, "rfc-v2", hold)
	e.task.Memlock = 1 << 30 // the RFC's 64 KiB default would refuse the batch
	require.Equal(t, kernel.ENOPROTOOPT, e.u.Setsockopt(kernel.SO_ZEROCOPY, 1))
	for i, n := range []int{4096, 1500, 1472, 32000, 65000, 1} {
		r := e.send(n, zc)
		require.Equal(t, n, r.N, "%+v", r)
		require.Equal(t, uint32(i), r.ID)
		require.False(t, r.Copied)
	}
	require.NotEmpty(t, e.buf.InFlight())
	e.net.release(nic)
	wantRanges(t, []string{"[0,5]"}, e)
	require.True(t, e.send(1000, zc|more).ZC)
	require.True(t, e.send(1000, zc).ZC)
	require.Equal(t, []sentPacket{{2000, 0}}, e.net.sent[6:])
	require.Equal(t, kernel.EMSGSIZE, e.send(65516, zc).Err)
	require.Equal(t, kernel.ENOPROTOOPT, e.u.Setsockopt(kernel.UDP_CORK, 1))
	e.net.release(loopback)
	wantRanges(t, []string{"[6,7]"}, e) // copied on loopback, but the RFC has no COPIED code
	e.quiet(t)
	e.finish(t)
}

// RFC patch 10: raw_send_hdrinc puts MAX_HEADER bytes in the linear area
// and the rest in zerocopy frags; a uarg failure is EINVAL, without an id.
func TestRawHdrinclRFC(t *testing.T) {
	e := newRaw(t, "rfc-v2", loopback)
	require.Zero(t, e.u.Setsockopt(kernel.IP_HDRINCL, 1))
	r := e.send(4096, zc)
	require.True(t, r.ZC)
	require.Equal(t, 4096, r.N)
	r = e.send(100, zc)
	require.False(t, r.ZC, "fits in MAX_HEADER: no frags, no uarg")
	e.h.Faults = failSites{kernel.FaultSockOmalloc: true}
	r = e.send(4096, zc)
	require.Equal(t, kernel.EINVAL, r.Err)
	require.False(t, r.ZC)
	e.h.Faults = failSites{kernel.FaultAllocSkb: true}
	require.Zero(t, e.send(4096, zc).Err, "ENOBUFS is success without IP_RECVERR")
	require.Zero(t, e.u.Setsockopt(kernel.IP_RECVERR, 1))
	require.Equal(t, kernel.ENOBUFS, e.send(4096, zc).Err)
	e.h.Faults = nil
	require.Equal(t, kernel.EMSGSIZE, e.send(70000, zc).Err)
	require.Equal(t, uint32(1), e.send(8000, zc).ID)
	wantRanges(t, []string{"[0,1]"}, e) // the RFC has no COPIED code
	e.quiet(t)
	e.finish(t)
}

// Socket options that do not belong to the socket.
func TestSockopts(t *testing.T) {
	e := newUDP(t, "linux-6.18", loRoute, loopback)
	require.Equal(t, kernel.ENOPROTOOPT, e.u.Setsockopt(kernel.IP_HDRINCL, 1))
	require.Equal(t, kernel.ENOPROTOOPT, e.u.Setsockopt(kernel.TCP_CORK, 1))
	require.Zero(t, e.u.Setsockopt(kernel.IPV6_RECVERR, 1))
	require.Equal(t, kernel.EOPNOTSUPP, e.send(10, kernel.MSG_OOB).Err)
	require.Equal(t, kernel.EMSGSIZE, e.send(70000, 0).Err)
	e.finish(t)
}
