package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/ubuf"
)

// importIovec cuts the running total at MAX_RW_COUNT, as __import_iovec
// does, and leaves lengths within it untouched (the caller's slice).
func TestImportIovec(t *testing.T) {
	const m = kernel.MaxRWCount
	for _, c := range []struct{ in, want []int }{
		{nil, nil},
		{[]int{0, 4096}, []int{0, 4096}},
		{[]int{m}, []int{m}},
		{[]int{m + 1}, []int{m}},
		{[]int{m, 10}, []int{m, 0}},
		{[]int{m - 5, 10, 3}, []int{m - 5, 5, 0}},
		{[]int{1 << 40, 1}, []int{m, 0}},
	} {
		in := append([]int(nil), c.in...)
		require.Equal(t, c.want, importIovec(in), "%v", c.in)
		require.Equal(t, c.in, in, "the caller's lengths are not modified")
	}
	same := []int{1, 2}
	require.Equal(t, &same[0], &importIovec(same)[0], "nothing to cut: no copy")
}

// A gigabyte send costs what it moves: TCP over a NIC sends what the send
// buffer allows and returns (MSG_DONTWAIT) or blocks; zerocopy pins only
// the pages it sent; a UDP gigabyte is EMSGSIZE at once; a gigabyte read
// returns what is queued. Every invariant is checked after every step.
func TestGigabyteSends(t *testing.T) {
	p, err := kernel.Lookup(kernel.DefaultProfile)
	require.NoError(t, err)
	w := New(p, 1)
	eth := DefaultDevice("eth0", NIC)
	w.AddDevice(eth)
	task := w.AddTask("main", w.AddUser(1000), 8<<20, true)
	// A peer buffer big enough that its window stays open.
	s, r := w.NewSocket(Call{}, "s", task, kernel.AF_INET, kernel.SOCK_STREAM, 0, eth, PeerOptions{Rcvbuf: 64 << 20})
	require.Zero(t, r.Errno)
	require.Zero(t, w.Setsockopt(Call{}, s, kernel.SO_ZEROCOPY, 1).Errno)
	require.Zero(t, w.Connect(Call{}, s).Errno)

	r = w.Send(Call{}, s, []int{1 << 30}, kernel.MSG_ZEROCOPY|kernel.MSG_DONTWAIT)
	require.True(t, r.Send.ZC)
	require.Positive(t, r.Ret)
	require.Less(t, r.Ret, int64(4<<20), "at most a few send buffers' worth")
	upages := 0
	for _, id := range w.Host.Live() {
		if id.Kind == "upage" {
			upages++
		}
	}
	require.Positive(t, upages, "the zerocopy send pinned the pages it sent")
	require.LessOrEqual(t, upages, int(r.Ret)/kernel.PageSize+2, "and no others")
	sent := r.Ret
	require.NoError(t, w.Settle())

	r = w.Send(Call{}, s, []int{1 << 30}, kernel.MSG_DONTWAIT)
	require.Positive(t, r.Ret)
	require.Less(t, r.Ret, int64(4<<20))
	sent += r.Ret

	s.HoldAcks()
	r = w.Send(Call{}, s, []int{1 << 30}, 0)
	// The ACKs already on their way free a segment's worth, which leaves
	// the queue short of writeable (tcp_check_space: sk_stream_write_space
	// wakes nobody): the call sleeps until the retransmissions give up
	// and returns their error, having copied nothing.
	require.Equal(t, kernel.ETIMEDOUT, r.Errno, "blocked until the retransmissions gave up")
	require.Zero(t, r.Send.Copied)
	r = w.Recv(Call{}, s.Peer, 1<<30, kernel.MSG_DONTWAIT)
	require.Positive(t, r.Ret)
	require.LessOrEqual(t, r.Ret, sent)

	u, _ := w.NewSocket(Call{}, "u", task, kernel.AF_INET, kernel.SOCK_DGRAM, 0, eth, PeerOptions{})
	require.Zero(t, w.Connect(Call{}, u).Errno)
	require.Equal(t, kernel.EMSGSIZE, w.Send(Call{}, u, []int{1 << 30}, 0).Errno)
	require.Equal(t, kernel.EMSGSIZE, w.Send(Call{}, u, []int{1 << 30, 1 << 30, 1 << 30}, kernel.MSG_ZEROCOPY).Errno)
	require.NoError(t, w.Settle())
	require.False(t, w.Failed(), "no invariant was violated")
}

// sink keeps a copy of every event as it reached the sink, its
// rendering, and the pointed-to results while they are valid.
type sink struct {
	raw, rendered []Event
	ret           []int64
	id            []uint32
}

func (k *sink) Put(r *Record) error {
	if r.Event != nil {
		k.raw = append(k.raw, *r.Event)
		r.Event.Render()
		k.rendered = append(k.rendered, *r.Event)
		var ret int64
		var id uint32
		if r.Event.Ret != nil {
			ret = *r.Event.Ret
		}
		if r.Event.UargID != nil {
			id = *r.Event.UargID + 1
		}
		k.ret, k.id = append(k.ret, ret), append(k.id, id)
	}
	return nil
}

// zerocopySend makes a world of the profile whose events go to a sink,
// with a socket s of the family and type on lo, SO_ZEROCOPY set and
// connected, and sends 100 bytes on it with MSG_ZEROCOPY ("send s 100" of
// source t:1).
func zerocopySend(t *testing.T, profile string, family kernel.Family, typ kernel.SockType) (*World, *sink, *Socket) {
	t.Helper()
	p, err := kernel.Lookup(profile)
	require.NoError(t, err)
	w := New(p, 1)
	k := &sink{}
	w.Trace().Sink = k
	lo := DefaultDevice("lo", Loopback)
	w.AddDevice(lo)
	task := w.AddTask("main", w.AddUser(1000), 8<<20, false)
	s, _ := w.NewSocket(Call{Text: "socket s"}, "s", task, family, typ, 0, lo, PeerOptions{})
	w.Setsockopt(Call{}, s, kernel.SO_ZEROCOPY, 1)
	w.Connect(Call{}, s)
	w.Send(Call{Source: "t:1", Text: "send s 100"}, s, []int{100}, kernel.MSG_ZEROCOPY)
	return w, k, s
}

// A call's event reaches a Sink as typed fields; Render builds the
// sentence, the result fields and the narration after it, once.
func TestEventRender(t *testing.T) {
	w, k, s := zerocopySend(t, kernel.DefaultProfile, kernel.AF_INET, kernel.SOCK_DGRAM)
	require.NoError(t, w.Settle())
	w.Recvmsg(Call{Text: "recvmsg s"}, s, 0, kernel.MSG_ERRQUEUE)

	var send, read int
	for i, e := range k.raw {
		switch e.Op {
		case "send":
			send = i
		case "recvmsg":
			read = i
		}
	}
	raw, got := k.raw[send], k.rendered[send]
	copied := "; uarg#4 [id 0..0] will notify COPIED: " + kernel.CopyLocalDeliver.String() + "; s: notification [0,0] COPIED queued (COPIED by loopback at step 4)" +
		"; s.peer receives a datagram of 100 bytes" // loopback delivers inside the call
	require.Empty(t, raw.Text, "no sentence before Render, not even the narration's")
	require.Nil(t, raw.Ret)
	require.Equal(t, "send s 100 = 100  (id 0: allocated a new uarg)"+copied, got.Text)
	require.EqualValues(t, 100, k.ret[send])
	require.EqualValues(t, 1, k.id[send], "id 0, plus one")
	require.Equal(t, "allocated a new uarg", got.Why)
	rd := k.rendered[read]
	require.True(t, strings.HasPrefix(rd.Text, "recvmsg s = 0  "), rd.Text)
	require.NotNil(t, rd.Notification)
	require.Contains(t, k.rendered[0].Text, "socket s = 3; s is sock#")
	again := got
	again.Render()
	require.Equal(t, got.Text, again.Text, "Render is idempotent")

	notified := func(l line) string { return string(l.appendTo(nil)) }
	require.Equal(t, "s: notification [0,0] COPIED queued", notified(notifiedLine("s", ubuf.Notification{Lo: 0, Len: 1, Copied: true}, false)))
	require.Equal(t, "u: notification [4294967295,1] merged into the queued one", notified(notifiedLine("u", ubuf.Notification{Lo: 1<<32 - 1, Len: 3}, true)))
}

// loopbackWorld is a world of the default profile with a loopback device
// and an unprivileged task.
func loopbackWorld(t *testing.T) (*World, *Device, *Task) {
	t.Helper()
	p, err := kernel.Lookup(kernel.DefaultProfile)
	require.NoError(t, err)
	w := New(p, 1)
	lo := DefaultDevice("lo", Loopback)
	w.AddDevice(lo)
	return w, lo, w.AddTask("main", w.AddUser(1000), 8<<20, false)
}

// A datagram read with MSG_TRUNC returns the datagram's whole length
// (udp_recvmsg), one without it what fits the buffer.
func TestRecvTrunc(t *testing.T) {
	w, lo, task := loopbackWorld(t)
	s, _ := w.NewSocket(Call{}, "s", task, kernel.AF_INET, kernel.SOCK_DGRAM, 0, lo, PeerOptions{})
	require.Zero(t, w.Connect(Call{}, s).Errno)
	for range 2 {
		require.EqualValues(t, 1000, w.Send(Call{}, s, []int{1000}, 0).Ret)
	}
	require.NoError(t, w.Settle())
	require.EqualValues(t, 1000, w.Recv(Call{}, s.Peer, 64, kernel.MSG_TRUNC|kernel.MSG_DONTWAIT).Ret)
	require.EqualValues(t, 64, w.Recv(Call{}, s.Peer, 64, kernel.MSG_DONTWAIT).Ret)
	require.Equal(t, kernel.EAGAIN, w.Recv(Call{}, s.Peer, 64, kernel.MSG_TRUNC|kernel.MSG_DONTWAIT).Errno)
}

// QueuedSegments lists what a read could take without waiting, one entry
// per arrival, and changes nothing.
func TestQueuedSegments(t *testing.T) {
	w, lo, task := loopbackWorld(t)
	u, _ := w.NewSocket(Call{}, "u", task, kernel.AF_INET, kernel.SOCK_DGRAM, 0, lo, PeerOptions{})
	require.Zero(t, w.Connect(Call{}, u).Errno)
	w.Send(Call{}, u, []int{100}, 0)
	w.Send(Call{}, u, []int{200}, 0)
	require.NoError(t, w.Settle())
	require.Equal(t, []int{100, 200}, u.Peer.QueuedSegments())
	require.Equal(t, []int{100, 200}, u.Peer.QueuedSegments())

	s, _ := w.NewSocket(Call{}, "s", task, kernel.AF_INET, kernel.SOCK_STREAM, 0, lo, PeerOptions{})
	require.Zero(t, w.Connect(Call{}, s).Errno)
	w.Send(Call{}, s, []int{1000}, 0)
	w.Send(Call{}, s, []int{3000}, 0)
	require.NoError(t, w.Settle())
	require.Equal(t, []int{1000, 3000}, s.Peer.QueuedSegments())
	require.EqualValues(t, 300, w.Recv(Call{}, s.Peer, 300, kernel.MSG_DONTWAIT).Ret)
	require.Equal(t, []int{700, 3000}, s.Peer.QueuedSegments(), "the first read in part")
	require.Empty(t, s.QueuedSegments())
}

// The loopback copy of a TCP zerocopy send names the function that makes
// it under each profile: ip_local_deliver_finish (ip6_input_finish) on
// Linux 6.18, whose source moved skb_orphan_frags_rx there, and
// __netif_receive_skb_core before (6.1's source); the JSON name stays
// "loopback".
func TestLoopbackCopyNamesItsFunction(t *testing.T) {
	for _, c := range []struct {
		profile string
		fn      string
	}{{"linux-6.18", "ip_local_deliver_finish"}, {"linux-5.0", "__netif_receive_skb_core"}} {
		_, k, _ := zerocopySend(t, c.profile, kernel.AF_INET6, kernel.SOCK_STREAM)
		send := k.rendered[len(k.rendered)-1]
		require.Equal(t, "send", send.Op, c.profile)
		require.Contains(t, send.Text, "will notify COPIED: loopback_xmit loops the skb to a local receiver: skb_orphan_frags_rx in "+c.fn, c.profile)
		require.Contains(t, send.Text, "(COPIED by loopback at step", c.profile)
	}
}
