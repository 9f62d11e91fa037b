package packet_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/packet"
)

// Teardown: EBUSY while mapped or while frames are pending, EINVAL for a
// request that names frames without blocks; done, a new ring may follow.
func TestTxRingTeardown(t *testing.T) {
	e := newEnv(t, "linux-6.18", kernel.SOCK_RAW, "hold")
	none := packet.TpacketReq{}
	require.Equal(t, kernel.EINVAL, e.p.Mmap(), "no ring to map")
	r := ring(t, e, 2048, 2)
	require.Zero(t, e.p.Mmap())
	require.True(t, e.p.Mapped())
	require.Equal(t, kernel.EBUSY, e.p.SetTxRing(none), "mapped")
	require.True(t, r.Request(0, 100))
	require.Equal(t, 100, e.send(0, kernel.MSG_DONTWAIT).N)
	e.p.Munmap()
	require.False(t, e.p.Mapped())
	e.p.Munmap()
	require.Equal(t, kernel.EBUSY, e.p.SetTxRing(none), "a frame is pending")
	e.net.release()
	require.Equal(t, kernel.EINVAL, e.p.SetTxRing(packet.TpacketReq{FrameNr: 2}))
	require.Zero(t, e.p.SetTxRing(none))
	require.Nil(t, e.p.Ring())
	require.Equal(t, kernel.ENOMEM, e.p.SetTxRing(packet.TpacketReq{BlockSize: 1 << 20, BlockNr: 65, FrameSize: 1 << 20, FrameNr: 65}))
	require.Zero(t, e.p.SetTxRing(packet.TpacketReq{BlockSize: 4096, BlockNr: 1, FrameSize: 4096, FrameNr: 1}))
	e.finish(t)
}

// PACKET_LOSS: a malformed frame is given back and skipped instead of
// failing the call; the option is refused once a ring exists.
func TestPacketLoss(t *testing.T) {
	e := newEnv(t, "linux-6.18", kernel.SOCK_RAW, "hold")
	require.Zero(t, e.p.Setsockopt(kernel.PACKET_LOSS, 1))
	r := ring(t, e, 2048, 4)
	require.Equal(t, kernel.EBUSY, e.p.Setsockopt(kernel.PACKET_LOSS, 0))
	require.True(t, r.Request(0, 100))
	require.True(t, r.Request(1, 4))    // shorter than the link-layer header
	require.True(t, r.Request(2, 9000)) // longer than the frame
	require.True(t, r.Request(3, 200))
	require.Equal(t, 300, e.send(0, kernel.MSG_DONTWAIT).N)
	require.Equal(t, []packet.Status{packet.TP_STATUS_SENDING, packet.TP_STATUS_AVAILABLE, packet.TP_STATUS_AVAILABLE, packet.TP_STATUS_SENDING},
		[]packet.Status{r.Status(0), r.Status(1), r.Status(2), r.Status(3)})
	require.Equal(t, 2, e.p.Pending())
	e.finish(t)
}

// A frame sent on one CPU and completed on another leaves one counter up
// and one down; only the unsigned sum is right once they have wrapped. The
// signed counters of the posted patch, summed into a wider type, are off
// by 2^32, which the ring's invariant reports, and the ring looks busy for
// ever.
func TestPendingPerCPU(t *testing.T) {
	for _, signed := range []bool{false, true} {
		e := newEnv(t, "linux-6.18", kernel.SOCK_RAW, "hold")
		e.h.Profile.Bugs[kernel.BugPendingSigned] = signed
		cpu := 1
		e.p.CPU = func() int { return cpu }
		r := ring(t, e, 2048, 2)
		require.True(t, r.Request(0, 100))
		require.Equal(t, 100, e.send(0, kernel.MSG_DONTWAIT).N)
		cpu = 0 // the completion runs elsewhere
		e.net.release()
		require.Equal(t, uint32(1), e.p.PendingCPU(1))
		require.Equal(t, ^uint32(0), e.p.PendingCPU(0))
		require.Zero(t, e.p.ReadPending())
		require.Empty(t, e.h.TakeViolations())
		// As if 2^31 more frames had gone out on CPU 1 and completed on
		// CPUs 0 and 2: CPU 1's counter has wrapped past INT_MAX.
		e.p.Skew(1<<30+1, 1, 0)
		e.p.Skew(1<<30+1, 1, 2)
		if !signed {
			require.Zero(t, e.p.ReadPending())
			require.Empty(t, e.h.TakeViolations())
			require.Zero(t, e.p.SetTxRing(packet.TpacketReq{}))
		} else {
			require.Equal(t, int64(-1<<32), e.p.ReadPending())
			require.NotEmpty(t, e.h.TakeViolations())
			require.Equal(t, kernel.EBUSY, e.p.SetTxRing(packet.TpacketReq{}))
		}
		require.Zero(t, e.p.PendingCPU(4))
		e.finish(t)
	}
}

// bind skips the unhook and re-hook when neither the protocol nor the
// device changes; an unhook of a running hook costs a synchronize_net.
func TestBindRehook(t *testing.T) {
	e := newEnv(t, "linux-6.18", kernel.SOCK_RAW, "hold") // protocol 0x0300: hooked
	proto, ifindex, running, syncs := e.p.Hook()
	require.Equal(t, []any{kernel.Protocol(0x0300), 0, true, 0}, []any{proto, ifindex, running, syncs})
	require.False(t, e.p.Bind(0, 0), "same protocol (0 keeps it), every device")
	require.False(t, e.p.Bind(0x0300, 0))
	require.True(t, e.p.Bind(0x0300, 1), "a device")
	_, ifindex, running, syncs = e.p.Hook()
	require.Equal(t, []any{1, true, 1}, []any{ifindex, running, syncs})
	require.False(t, e.p.Bind(0x0300, 1), "re-binding to the same device and protocol")
	require.True(t, e.p.Bind(0x0800, 1))
	_, _, _, syncs = e.p.Hook()
	require.Equal(t, 2, syncs)
	ring(t, e, 2048, 2)
	_, _, _, syncs = e.p.Hook()
	require.Equal(t, 3, syncs, "packet_set_ring unhooks a running hook too")
	e.finish(t)
}
