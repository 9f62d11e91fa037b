package cost

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/interp"
)

// count runs a scenario and counts its terms, both from the kept trace
// and streaming through a Meter, which must agree.
func count(t *testing.T, src string) Counts {
	t.Helper()
	tr, err := interp.Run("t.zcs", []byte(src), interp.Options{Seed: 1})
	require.NoError(t, err)
	require.True(t, tr.OK(), "the scenario runs clean")
	var m Meter
	_, err = interp.Run("t.zcs", []byte(src), interp.Options{Seed: 1, Sink: &m})
	require.NoError(t, err)
	n := Count(tr)
	require.Equal(t, n, m.Counts(), "streaming and a kept trace count alike")
	return n
}

const nicSetup = `device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0 peer_read=auto
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
`

// Over a NIC a copied send copies every byte in the process, and the
// peer's receive is another machine's: only this host's frames and the
// ACKs it processes are packets.
func TestCountCopyOverNIC(t *testing.T) {
	n := count(t, nicSetup+"send s 10000 0 => 10000\nsettle\n")
	require.Equal(t, int64(10000), n.Of(Process, CopyByte))
	require.Zero(t, n.Total(PinPage)+n.Total(Uarg)+n.Total(RxCopyByte)+n.Total(ReadByte))
	require.Equal(t, int64(4), n.Of(Process, Syscall), "socket, setsockopt, connect, send")
	require.Equal(t, int64(1), n.Of(Process, SendCall))
	require.Positive(t, n.Of(Softirq, Packet), "the ACKs arrive in softirqs")
	require.Zero(t, n.Total(ErrqueueRead))
}

// A zerocopy send over a NIC copies nothing, pins a page per frag,
// allocates one uarg; its notification read is an errqueue_read, an
// empty read only a syscall.
func TestCountZerocopyOverNIC(t *testing.T) {
	n := count(t, nicSetup+"send s 10000 MSG_ZEROCOPY => 10000\nrecvmsg s MSG_ERRQUEUE => EAGAIN\nsettle\nrecvmsg s MSG_ERRQUEUE => zerocopy [0,0]\n")
	require.Zero(t, n.Total(CopyByte))
	require.Equal(t, int64(3), n.Of(Process, PinPage), "10000 bytes from a fresh buffer span 3 pages")
	require.Equal(t, int64(1), n.Of(Process, Uarg))
	require.Equal(t, int64(1), n.Of(Process, ErrqueueRead))
	require.Equal(t, int64(6), n.Of(Process, Syscall))
	require.Zero(t, n.Total(RxCopyByte))
}

// Over loopback the receive runs inside the send: its packets, the
// private copy of the zerocopy frags and the peer's read are the
// process's.
func TestCountZerocopyOverLoopback(t *testing.T) {
	n := count(t, `socket s AF_INET SOCK_DGRAM via=lo peer_read=auto
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 5000 MSG_ZEROCOPY => 5000
recvmsg s MSG_ERRQUEUE => zerocopy [0,0] copied
`)
	require.Equal(t, int64(5000), n.Of(Process, RxCopyByte))
	require.Equal(t, int64(5000), n.Of(Process, ReadByte))
	require.Equal(t, int64(2), n.Of(Process, Packet), "one datagram sent and received here")
	require.Zero(t, n.Total(CopyByte))
	require.Zero(t, n[Softirq], "nothing runs outside the calls")
}

// The loopback switch leaves the frags uncopied.
func TestCountLoopbackSwitch(t *testing.T) {
	n := count(t, `device lo loopback orphan_rx=plain
socket s AF_INET SOCK_DGRAM via=lo peer_read=auto
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 5000 MSG_ZEROCOPY => 5000
recvmsg s MSG_ERRQUEUE => zerocopy [0,0]
`)
	require.Zero(t, n.Total(RxCopyByte))
	require.Equal(t, int64(5000), n.Of(Process, ReadByte))
}

// A failed send is a syscall and a send call, and copies nothing.
func TestCountFailedSend(t *testing.T) {
	n := count(t, "socket s AF_INET SOCK_DGRAM via=lo\nsend s 100 0 => EDESTADDRREQ\n")
	require.Equal(t, int64(2), n.Of(Process, Syscall))
	require.Equal(t, int64(1), n.Of(Process, SendCall))
	require.Zero(t, n.Total(CopyByte))
}

func TestPrice(t *testing.T) {
	var n Counts
	n[Process][Syscall], n[Process][CopyByte], n[Softirq][Packet] = 2, 1000, 3
	k := Constants{}
	k[Syscall], k[CopyByte], k[Packet] = 100, 0.5, 10
	a := Price(n, &k)
	require.Equal(t, 700.0, a.Process())
	require.Equal(t, 730.0, a.System())
	require.Equal(t, 30.0, a.Term(Packet))
}
