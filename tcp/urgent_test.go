package tcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/sock"
)

// A MSG_OOB send points its segment at the byte after its last
// (tcp_mark_urg, __tcp_transmit_skb), the peer holds that byte apart,
// and the ACK past it ends urgent mode: the next send carries no URG.
func TestUrgentSendAndAck(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	require.Equal(t, 5, p.send(kernel.MSG_OOB, 5).N)
	require.Len(t, p.w.inFlight, 1)
	require.Equal(t, uint16(5), p.w.inFlight[0].Urg)
	p.w.deliver()
	require.Equal(t, urgent{state: urgValid, seq: 4}, p.peer.urg)
	require.False(t, p.c.sndUrg.active, "snd_una reached snd_up")
	require.Equal(t, kernel.POLLPRI|kernel.POLLIN, p.peer.Poll()&(kernel.POLLPRI|kernel.POLLIN))

	got, err := p.peer.Recv(100)
	require.Equal(t, 4, got, "the read stops at the urgent byte")
	require.Zero(t, err)
	require.Equal(t, kernel.POLLPRI, p.peer.Poll()&(kernel.POLLPRI|kernel.POLLIN), "only the byte a read would skip is left")
	got, err = p.peer.RecvUrgent(100, true)
	require.Equal(t, 1, got)
	require.Zero(t, err)
	got, _ = p.peer.RecvUrgent(100, false)
	require.Equal(t, 1, got)
	_, err = p.peer.RecvUrgent(100, false)
	require.Equal(t, kernel.EINVAL, err, "TCP_URG_READ")

	require.Equal(t, 3, p.send(0, 3).N)
	require.Zero(t, p.w.inFlight[0].Urg)
	p.w.deliver()
	got, _ = p.peer.Recv(100)
	require.Equal(t, 3, got, "the read skips the urgent byte it starts at")
	require.Equal(t, urgent{}, p.peer.urg, "read past it")
	p.closeAll()
}

// The urgent pointer of a segment: snd_up - seq within 16 bits, 0xFFFF
// while seq + 0xFFFF is after snd_nxt, and none for a segment at or past
// snd_up.
func TestUrgentPointer(t *testing.T) {
	c := &Conn{sndUrg: sndUrgent{up: 100000, active: true}}
	require.Equal(t, uint16(0xFFFF), c.urgPtr(0, 0))
	require.Zero(t, c.urgPtr(0, 70000))
	require.Equal(t, uint16(60000), c.urgPtr(40000, 40000))
	require.Zero(t, c.urgPtr(100000, 100000))
	c.sndUrg.active = false
	require.Zero(t, c.urgPtr(40000, 40000))
}

// In urgent mode tcp_write_xmit sends one MSS at a time, not the GSO skb
// tcp_mss_split_point would allow, and Nagle holds nothing.
func TestUrgentModeSendsOneMSS(t *testing.T) {
	for _, oob := range []bool{false, true} {
		p := newPair(t, "linux-6.18", false)
		require.Zero(t, p.c.Setsockopt(kernel.TCP_CORK, 1))
		var flags kernel.MsgFlags
		if oob {
			flags = kernel.MSG_OOB
		}
		p.send(flags, 5000)
		require.Zero(t, p.c.Setsockopt(kernel.TCP_CORK, 0))
		var lens []int
		for _, pk := range p.w.inFlight {
			lens = append(lens, pk.Skb.Len)
		}
		mss := p.c.MSS()
		if oob {
			require.Equal(t, []int{mss, mss, mss, 5000 - 3*mss}, lens)
		} else {
			require.Equal(t, []int{3 * mss, 5000 - 3*mss}, lens, "the size goal's skbs")
		}
		p.closeAll()
	}
}

// A pointer to a byte not yet received is TCP_URG_NOTYET: recv(MSG_OOB)
// says EAGAIN and poll no POLLPRI until the segment holding it arrives,
// URG or not. A pointer to bytes already read, or not past the one
// known, changes nothing.
func TestUrgentNotYet(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	c := p.peer
	c.Urgent(0, 0, 10)
	require.Equal(t, urgent{state: urgNotYet, seq: 9}, c.urg)
	_, err := c.RecvUrgent(1, false)
	require.Equal(t, kernel.EAGAIN, err)
	require.Zero(t, c.Poll()&kernel.POLLPRI)
	c.Urgent(0, 0, 5)
	require.Equal(t, uint32(9), c.urg.seq, "not after the known byte")
	c.Urgent(0, 10, 0)
	require.Equal(t, urgValid, c.urg.state)
	c.Sk.URGInline = true
	_, err = c.RecvUrgent(1, false)
	require.Equal(t, kernel.EINVAL, err, "SO_OOBINLINE")
	require.Zero(t, c.Poll()&kernel.POLLIN, "no data in the queue")
	p.closeAll()
}

// SO_OOBINLINE is any socket's flag, read back as 1, and a listener's
// child inherits it (sk_clone_lock).
func TestOOBInlineOption(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	sk := p.c.Sk
	require.Zero(t, sk.Setsockopt(kernel.SO_OOBINLINE, 7))
	v, err := sk.Getsockopt(kernel.SO_OOBINLINE)
	require.Zero(t, err)
	require.Equal(t, 1, v)
	child := sock.New(p.h, sk.Net, p.task, kernel.AF_INET, kernel.SOCK_STREAM, kernel.IPPROTO_TCP)
	child.InheritFlags(sk)
	require.True(t, child.URGInline)
	child.Close()
	require.Zero(t, sk.Setsockopt(kernel.SO_OOBINLINE, 0))
	v, _ = sk.Getsockopt(kernel.SO_OOBINLINE)
	require.Zero(t, v)
	p.closeAll()
}

// A segment with URG, and any while the receiver holds urgent data, takes
// tcp_rcv_established's slow path, whose tcp_data_snd_check sends the
// tail a MSG_MORE call held back, carrying the ACK the segment
// scheduled; once a read passed the urgent byte the fast path leaves
// such a tail held.
func TestUrgentSlowPathSendsHeldTail(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	peerSend := func(flags kernel.MsgFlags) {
		iov := []mm.Iovec{{Buf: mm.NewBuffer(p.h, 1), Len: 1}}
		require.True(t, p.peer.Sendmsg(iov, flags, kernel.ObjectID{Kind: "peer", Serial: 1}).Done())
	}
	peerSend(kernel.MSG_MORE)
	require.Empty(t, p.back.inFlight, "MSG_MORE holds the byte")

	require.Equal(t, 1, p.send(kernel.MSG_OOB, 1).N)
	seg := p.w.inFlight[0]
	p.w.inFlight = nil
	seg.Skb.Orphan() // loopback_xmit, as the wire delivers
	seg.Skb.OrphanFragsRx(kernel.CopyLoopback)
	require.True(t, p.peer.UrgSlowPath(seg.Urg), "URG misses the header prediction")
	p.peer.Urgent(seg.Seq, seg.EndSeq, seg.Urg)
	p.peer.Receive(seg.Skb, seg.Seq, seg.EndSeq, false, 0, seg.Push)
	p.peer.DataSndCheck()
	require.Len(t, p.back.inFlight, 1, "tcp_data_snd_check sent the held byte")
	require.True(t, p.back.inFlight[0].Acks, "with the ACK tcp_data_queue scheduled")
	require.Equal(t, p.peer.RcvNxt(), p.back.inFlight[0].Ack)
	require.True(t, p.peer.UrgSlowPath(0), "urg_data keeps pred_flags cleared")
	p.back.deliver()
	p.c.Ack(p.peer.RcvNxt(), p.peer.Window())

	got, _ := p.peer.Recv(100)
	require.Zero(t, got, "only the urgent byte came, which a read skips")
	require.False(t, p.peer.UrgSlowPath(0), "read past it: the fast path again")
	p.closeAll()
}

// AckData, for a segment that carries data, leaves what the ACK lets go
// to DataSndCheck after the data is queued; Ack, for one without, sends
// it at once.
func TestAckDataDefersThePush(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	iov := []mm.Iovec{{Buf: mm.NewBuffer(p.h, 1), Len: 1}}
	require.True(t, p.peer.Sendmsg(iov, kernel.MSG_MORE, kernel.ObjectID{Kind: "peer", Serial: 1}).Done())
	p.peer.AckData(p.peer.sndUna, p.c.Window())
	require.Empty(t, p.back.inFlight)
	p.peer.DataSndCheck()
	require.Len(t, p.back.inFlight, 1)

	q := newPair(t, "linux-6.18", true)
	iov = []mm.Iovec{{Buf: mm.NewBuffer(q.h, 1), Len: 1}}
	require.True(t, q.peer.Sendmsg(iov, kernel.MSG_MORE, kernel.ObjectID{Kind: "peer", Serial: 1}).Done())
	q.peer.Ack(q.peer.sndUna, q.c.Window())
	require.Len(t, q.back.inFlight, 1)
	p.back.deliver()
	q.back.deliver()
	p.closeAll()
	q.closeAll()
}
