package replay

import (
	"fmt"

	"github.com/zcsim/zcsim/sim/strace"
	"github.com/zcsim/zcsim/sock"
)

// maxUnacked bounds the entries of an unackedSends list; past it the two
// oldest are merged, which only widens what the list allows.
const maxUnacked = 64

// unackedSends lists, for one TCP socket, what the calls the log has not
// shown acknowledged yet charged to sk_wmem_queued, oldest first.
//
// A send is shown acknowledged when the program reads the completion of
// its zerocopy id, or of a later one: the uarg completes when the last
// skb holding its pages is freed (tcp_clean_rtx_queue frees an skb once
// the peer's cumulative ACK covers it), and no skb holds two uargs
// (skb_zcopy mismatch starts a new segment in tcp_sendmsg_locked). Until
// then the peer's ACKs for it may not have arrived, and the skbs the call
// charged (sk_wmem_queued_add) may all still be queued in the kernel
// although the model, whose schedule brought the ACKs sooner, freed them.
// A send the kernel then refused with EAGAIN (sk_stream_memory_free
// false at new_segment, and MSG_DONTWAIT or O_NONBLOCK: wait_for_space
// returns at once) is explained by that schedule. Every charge is counted,
// whatever the call: a bound on the kernel's sk_wmem_queued, not its
// value.
type unackedSends struct {
	list []unackedSend
}

// unackedSend is one call, or several merged: the last zerocopy id they
// consumed (when zc), what they charged, and the log line of the first.
type unackedSend struct {
	lastID  uint32
	zc      bool
	charged uint64
	line    int
}

// sent records a call that charged charged bytes; calls the program has
// seen acknowledged since are dropped first.
func (u *unackedSends) sent(e *fdEntry, res sock.SendResult, charged uint64, line int) {
	u.prune(e)
	if charged == 0 && !res.ZC {
		return
	}
	u.list = append(u.list, unackedSend{lastID: res.ID, zc: res.ZC, charged: charged, line: line})
	if len(u.list) > maxUnacked {
		a, b := u.list[0], u.list[1]
		b.charged += a.charged
		b.line = a.line
		if !b.zc {
			b.lastID, b.zc = a.lastID, a.zc
		}
		u.list[1] = b
		u.list = u.list[1:]
	}
}

// prune drops the calls up to the last one whose zerocopy id the program
// has read the completion of (errView.next is the id after it): the
// cumulative ACK that freed it covered every earlier byte.
func (u *unackedSends) prune(e *fdEntry) {
	if !e.errq.hasNext {
		return
	}
	cut := 0
	for i, s := range u.list {
		if s.zc && int32(e.errq.next-s.lastID) > 0 {
			cut = i + 1
		}
	}
	u.list = u.list[cut:]
}

// bound returns what the listed calls charged, and the line of the
// oldest.
func (u *unackedSends) bound() (charged uint64, line int) {
	for i, s := range u.list {
		if i == 0 {
			line = s.line
		}
		charged += s.charged
	}
	return charged, line
}

// unackedEagain replays a non-blocking TCP send the log shows failing with
// EAGAIN while the model would queue it (tcp.Conn.SendWouldWait false). It
// reports false when the send is left to the plain prediction; else the
// verdict is given: agree under the assumption that the ACKs for the
// calls the log has not shown acknowledged had not arrived, when what
// those calls charged fills sk_sndbuf, the call not run (nothing queued,
// no id consumed); else why holds the reason no schedule explains it.
func (r *replayer) unackedEagain(o *strace.Send, e *fdEntry, text string) (done bool, why string) {
	sk := e.s.Sk
	e.unacked.prune(e)
	charged, line := e.unacked.bound()
	held := max(uint64(sk.WmemQueued), charged)
	if held < uint64(sk.Sndbuf) {
		return false, fmt.Sprintf("no schedule: even with no ACK since the last send the log shows acknowledged, sk_wmem_queued would be at most %d, below sk_sndbuf %d", held, sk.Sndbuf)
	}
	tail := ""
	if sk.WmemQueued >= sk.Sndbuf {
		// The model queues the call on its write queue's tail, which
		// needs no memory check; the kernel's tail had gone out.
		tail = ", and the peer's window had let the model's unsent tail go out, so the call needed a new segment"
	}
	r.assume(&o.Header, e, text, o.Result.String(), "-1 EAGAIN", "",
		fmt.Sprintf("the peer's ACKs for the sends from line %d on had not arrived yet (the model's schedule brought them sooner), so up to %d bytes they charged were still queued%s: sk_wmem_queued >= sk_sndbuf %d, sk_stream_memory_free false; the call queued nothing", line, charged, tail, sk.Sndbuf))
	return true, ""
}
