package replay

import (
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sim/strace"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
)

// zcEndLength is offsetofend(struct tcp_zerocopy_receive, length): a
// shorter optlen is EINVAL before the kernel reads the struct
// (do_tcp_getsockopt).
const zcEndLength = 12

// sockMap is a socket's mapping (mmap of its descriptor): the entry it
// maps and the addresses it covers.
type sockMap struct {
	e          *fdEntry
	start, len uint64
}

// mmap replays mmap(2) of a followed socket (World.Mmap: tcp_mmap or
// packet_mmap). A successful one is kept by its address, in the process's
// table, for the getsockopt(TCP_ZEROCOPY_RECEIVE) and munmap that name it.
func (r *replayer) mmap(o *strace.Mmap) {
	e := r.sock(&o.Header, o.Fd, false)
	if e == nil {
		return
	}
	r.between(&o.Header)
	var prot kernel.Prot
	for _, p := range o.Prot {
		v, ok := kernel.ProtNames.ByName(p)
		if !ok {
			r.ignore(o.Syscall, "protection "+p+" not readable")
			return
		}
		prot |= v
	}
	text := fmt.Sprintf("mmap(%d, %d, %v)", o.Fd, o.Len, prot)
	res := r.w.Mmap(r.call(&o.Header, text), e.s, int(min(o.Len, 1<<47)), prot)
	obs, pred := o.Result.String(), res.String()
	addr, mapped := o.MmapAddr()
	if mapped {
		obs = "mapped"
	}
	if res.Errno == 0 {
		pred = "mapped"
	}
	r.compare(&o.Header, o.Fd, e.s.Name, text, obs, pred, "")
	if mapped && res.Errno == 0 {
		r.cur.maps[addr] = &sockMap{e: e, start: addr, len: o.Len}
	}
}

// munmap replays munmap(2) of a socket's mapping (World.Munmap); any other
// munmap is ignored.
func (r *replayer) munmap(o *strace.Munmap) {
	m := r.cur.maps[o.Addr]
	if m == nil || m.e.s == nil {
		r.ignore(o.Syscall, "not a socket's mapping")
		return
	}
	delete(r.cur.maps, o.Addr)
	r.between(&o.Header)
	text := fmt.Sprintf("munmap(fd %d's mapping)", m.e.fd)
	res := r.w.Munmap(r.call(&o.Header, text), m.e.s)
	r.compare(&o.Header, m.e.fd, m.e.s.Name, text, o.Result.String(), res.String(), "")
}

// mapAt returns the socket mapping of fd's entry that holds addr.
func (r *replayer) mapAt(e *fdEntry, addr uint64) *sockMap {
	for _, m := range r.cur.maps {
		if m.e == e && addr >= m.start && addr < m.start+m.len {
			return m
		}
	}
	return nil
}

// zcRecv replays getsockopt(TCP_ZEROCOPY_RECEIVE) (World.ZerocopyReceive)
// and compares the out fields strace showed. The in fields come from the
// log: address and copybuf_address, which the kernel leaves; optlen, the
// [N] (after success the kernel wrote back min(N, its struct's size), so
// a full-size N stands for any N at least that); and the two the kernel
// overwrote, inferred from their values after the call (zcRequest). A
// call whose address or copybuf_len strace did not show, or a failed one
// (strace shows only the struct's pointer), is undetermined; it is run
// with the fd's mapping's start and no copybuf, to keep the model's
// state.
func (r *replayer) zcRecv(o *strace.ZcRecv) {
	e := r.sock(&o.Header, o.Fd, true)
	if e == nil {
		return
	}
	r.between(&o.Header)
	text := fmt.Sprintf("getsockopt(%d, TCP_ZEROCOPY_RECEIVE)", o.Fd)
	a, assumption, undet := r.zcRequest(o, e)
	arrived, ahead := r.zcArrival(o, e, undet)
	queued := e.s.QueuedSegments()
	c := r.call(&o.Header, text)
	res := r.w.ZerocopyReceive(c, e.s, a)
	obs, pred := o.Result.String(), res.String()
	if o.Result.Kind == strace.ResultValue {
		obs += zcShown(o.Zc, o.Zc, o.Optlen)
	}
	if ahead > 0 {
		assumption = fmt.Sprintf("the network ran %v ahead of the model's clock: data the model delivers later had already arrived; %s", ahead, assumption)
	}
	if res.Errno == 0 {
		out := e.s.ZcResult()
		if ctlAssumption, ok := zcControlShown(o.Zc, &out); ok && ctlAssumption != "" {
			assumption += "; " + ctlAssumption
		}
		if res.Undetermined != "" && o.Zc.MsgFlags != nil && undet == "" {
			undet = res.Undetermined
		}
		if held := sum(queued) - arrived; o.Zc.Inq != nil && arrived > 0 && held > 0 && out.Inq == *o.Zc.Inq+uint32(held) && isSuffixSum(queued, held) {
			// Only the model's first segments had arrived: the kernel's
			// inq counted those.
			out.Inq -= uint32(held)
			assumption = fmt.Sprintf("only %d of the %d bytes the model had queued had arrived (its first segments; the rest stay queued): inq counts those; %s", arrived, sum(queued), assumption)
		}
		pred = "0" + zcShown(o.Zc, zcFields(o.Zc, out), int64(out.Optlen))
	}
	switch {
	case undet != "":
		r.add(&o.Header, o.Fd, e.s.Name, text, obs, pred, undet, Undetermined)
	case obs == pred && assumption != "":
		r.assume(&o.Header, e, text, obs, pred, "", assumption)
	default:
		r.compare(&o.Header, o.Fd, e.s.Name, text, obs, pred, why(res))
	}
}

// zcRequest works out the call's in fields. The kernel overwrites length
// with the length mapped and copybuf_len with what it copied; the request
// is inferred from them (tcp_zerocopy_receive):
//
//   - a recv_skip_hint, or nothing mapped, says mapping stopped short of
//     the request (mapping all that was asked clears the hint): the call
//     is run asking for the rest of the mapping from address, which maps
//     the same unless the model could map more than the kernel did;
//   - otherwise it is run asking for exactly what was mapped;
//   - copybuf_len (read only when optlen reaches it) is what was copied:
//     a request of more would have copied the same or more only where
//     more was unread, which the comparison of inq shows.
//
// undet, when set, says why the call is undetermined.
func (r *replayer) zcRequest(o *strace.ZcRecv, e *fdEntry) (a tcp.ZcArgs, assumption, undet string) {
	z := o.Zc
	a.Optlen = int(min(max(o.Optlen, -1), 1<<20))
	var start uint64
	for _, m := range r.cur.maps {
		if m.e == e {
			start = m.start
			break
		}
	}
	switch {
	case o.Result.Kind != strace.ResultValue && o.Optlen < zcEndLength:
		return a, "", "" // EINVAL before the struct is read
	case o.Result.Kind != strace.ResultValue:
		undet = "strace shows only the struct's pointer after a failed call, not its address or length; run with the mapping's start"
	case z.Address == nil || z.Length == nil || z.RecvSkipHint == nil:
		undet = "strace cut the struct before address, length and recv_skip_hint; run with the mapping's start"
	}
	if undet != "" {
		if start == 0 {
			a.Offset = 1 // no mapping the replay knows: not page aligned, as no address is
		}
		return a, "", undet
	}
	m := r.mapAt(e, *z.Address)
	if m == nil {
		return a, "", fmt.Sprintf("address %#x is in no mapping of fd %d the log shows; run with the mapping's start", *z.Address, o.Fd)
	}
	a.Offset = int(*z.Address - m.start)
	rest := m.start + m.len - *z.Address
	if *z.RecvSkipHint != 0 || *z.Length == 0 {
		a.Length = uint32(min(rest, 1<<32-1))
		assumption = fmt.Sprintf("the request's length, which the kernel overwrote, exceeded the %d bytes mapped: run as the rest of the mapping (%d)", *z.Length, a.Length)
	} else {
		a.Length = *z.Length
		assumption = fmt.Sprintf("the request's length, which the kernel overwrote, was the %d bytes mapped", *z.Length)
	}
	a.Flags, a.Reserved, a.Control = deref32(z.Flags), deref32(z.Reserved), zcControlArg(z)
	if o.Optlen >= 36 {
		switch {
		case z.CopybufLen == nil:
			return a, "", "strace cut the struct before copybuf_len, which says whether the kernel copied"
		case *z.CopybufLen < 0:
			return a, "", fmt.Sprintf("copybuf_len %d is an error the copy gave; the request's copybuf_len is unknown", *z.CopybufLen)
		}
		a.CopybufLen = *z.CopybufLen
		if a.CopybufLen > 0 {
			assumption += fmt.Sprintf("; copybuf_len asked for the %d bytes copied", a.CopybufLen)
		}
	}
	return a, assumption, ""
}

// zcFields turns what the model wrote back into strace's fields; the
// control buffer's as the log's moved on (zcControlShown).
func zcFields(z strace.ZcFields, r tcp.ZcResult) strace.ZcFields {
	f := strace.ZcFields{Length: &r.Length, RecvSkipHint: &r.RecvSkipHint, Inq: &r.Inq, Err: &r.Err, CopybufLen: &r.CopybufLen}
	if r.Cmsg && z.MsgControl != nil {
		left, flags := uint64(r.Control.Left), uint32(0)
		if r.Control.Ctrunc {
			flags = uint32(kernel.MSG_CTRUNC)
		}
		f.MsgControllen, f.MsgFlags = &left, &flags
	}
	return f
}

// zcControlArg is the control buffer the call is run with: NULL when the
// log shows msg_control NULL (nothing is ever written there, so
// msg_controllen is the program's), or a buffer of any size when it shows
// one, which zcControlShown then sizes from what the kernel left; NULL
// when strace did not show it.
func zcControlArg(z strace.ZcFields) sock.RecvControl {
	switch {
	case z.MsgControl == nil || z.MsgControllen == nil:
		return sock.RecvControl{Null: true}
	case *z.MsgControl == 0:
		return sock.RecvControl{Null: true, Left: int(min(*z.MsgControllen, 1<<20))}
	}
	return sock.RecvControl{Left: zcAmpleControl}
}

// zcAmpleControl is a control buffer larger than any receive's messages.
const zcAmpleControl = 1 << 16

// zcControlShown works out, for a call whose log shows msg_control, how
// long the program's control buffer was: the kernel moved msg_control and
// msg_controllen on past what it wrote, so the log shows neither as the
// program passed them. It puts the messages the model wrote (into an
// ample buffer) into buffers from msg_controllen as the kernel left it
// up, and takes the first that leaves msg_controllen and MSG_CTRUNC as the
// log shows them (r.Control becomes what that buffer holds); the
// assumption says which. No such buffer leaves r as the model wrote it
// into the smallest that holds its messages, for the comparison to show.
// ok is false when the log does not show the control buffer.
func zcControlShown(z strace.ZcFields, r *tcp.ZcResult) (assumption string, ok bool) {
	if z.MsgControl == nil || z.MsgControllen == nil || z.MsgFlags == nil || !r.Cmsg || r.Control.Null {
		return "", false
	}
	left, ctrunc := int(min(*z.MsgControllen, 1<<20)), *z.MsgFlags&uint32(kernel.MSG_CTRUNC) != 0
	need := 0
	for _, m := range r.Control.Cmsgs {
		need += kernel.CmsgSpace(m.DataLen)
	}
	fill := func(n int) sock.RecvControl {
		c := sock.RecvControl{Left: n}
		for _, m := range r.Control.Cmsgs {
			c.Put(sock.RxCmsg{Type: m.Type, DataLen: m.DataLen})
		}
		return c
	}
	for n := left; n <= left+need; n++ {
		if c := fill(n); c.Left == left && c.Ctrunc == ctrunc {
			r.Control = c
			return fmt.Sprintf("msg_control, which the kernel moved on by what it wrote, was %d bytes at %#x", n, *z.MsgControl-uint64(c.Used)), true
		}
	}
	r.Control = fill(left + need)
	return "", true
}

func deref32(p *uint32) uint32 {
	if p == nil {
		return 0
	}
	return *p
}

// zcShown renders the out fields of v that strace showed in shown, and the
// optlen: " {length=28672, recv_skip_hint=4095, inq=0, err=0} [64]".
func zcShown(shown, v strace.ZcFields, optlen int64) string {
	var parts []string
	add := func(name string, ok bool, val func() int64) {
		if ok {
			parts = append(parts, fmt.Sprintf("%s=%d", name, val()))
		}
	}
	add("length", shown.Length != nil && v.Length != nil, func() int64 { return int64(*v.Length) })
	add("recv_skip_hint", shown.RecvSkipHint != nil && v.RecvSkipHint != nil, func() int64 { return int64(*v.RecvSkipHint) })
	add("inq", shown.Inq != nil && v.Inq != nil, func() int64 { return int64(*v.Inq) })
	add("err", shown.Err != nil && v.Err != nil, func() int64 { return int64(*v.Err) })
	add("copybuf_len", shown.CopybufLen != nil && v.CopybufLen != nil, func() int64 { return int64(*v.CopybufLen) })
	add("msg_controllen", shown.MsgControllen != nil && v.MsgControllen != nil, func() int64 { return int64(*v.MsgControllen) })
	add("msg_flags", shown.MsgFlags != nil && v.MsgFlags != nil, func() int64 { return int64(*v.MsgFlags) })
	return fmt.Sprintf(" {%s} [%d]", strings.Join(parts, ", "), optlen)
}

// zcArrival works out how much data the kernel had queued when the call
// ran, from what it wrote back: the bytes it mapped, copied and left
// (length + copybuf_len + inq). The model may have less queued (its
// pending work, paced transmissions or ACKs, ran later than the
// kernel's): it then runs ahead of its clock until it has that much
// (runAhead), and ahead says how far. It returns 0 when the log does not
// show those fields.
func (r *replayer) zcArrival(o *strace.ZcRecv, e *fdEntry, undet string) (arrived int, ahead engine.Duration) {
	z := o.Zc
	if undet != "" || o.Result.Kind != strace.ResultValue || z.Length == nil || z.Inq == nil {
		return 0, 0
	}
	arrived = int(*z.Length) + int(*z.Inq)
	if z.CopybufLen != nil && *z.CopybufLen > 0 {
		arrived += int(*z.CopybufLen)
	}
	if sum(e.s.QueuedSegments()) < arrived {
		ahead, _ = r.runAhead(func() bool { return sum(e.s.QueuedSegments()) >= arrived })
	}
	return arrived, ahead
}

// isSuffixSum reports whether n is the size of the last few of segs.
func isSuffixSum(segs []int, n int) bool {
	t := 0
	for i := len(segs) - 1; i >= 0; i-- {
		t += segs[i]
		if t == n {
			return true
		}
	}
	return false
}
