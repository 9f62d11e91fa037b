package strace

import (
	"encoding/binary"
	"math"
	"net/netip"
	"sort"
	"strings"
)

// Linux uapi flag bits that are the same on every architecture; used when
// strace printed flags as numbers (-X raw).
const (
	msgZeroCopy = 0x4000000 // MSG_ZEROCOPY
	msgErrQueue = 0x2000    // MSG_ERRQUEUE
)

// Decode turns the calls of a log into typed operations, one per call, in
// the log's order. A call zcsim models whose arguments do not have the
// shape strace gives them becomes an [*Ignored] with a Reason, and an error
// naming it goes into the returned [*ErrorList].
func Decode(log *Log) ([]Op, error) {
	d := NewDecoder(log.File)
	ops := make([]Op, 0, len(log.Calls))
	for i := range log.Calls {
		ops = append(ops, d.Op(&log.Calls[i]))
	}
	return ops, d.Err()
}

// Decoder decodes calls one at a time, as [Decode] does a whole log: for
// a log read with a [Scanner].
type Decoder struct {
	d decoder
}

// NewDecoder returns a Decoder whose errors name file.
func NewDecoder(file string) *Decoder { return &Decoder{decoder{file: file}} }

// Op decodes one call. A call it cannot decode is an *Ignored whose
// Reason says why, and its error is kept for Err. A call a [Scanner]
// listed again for a line it read before is decoded once: its later Ops
// are copies of the first, with their own Header, and share its slices,
// which no caller changes.
func (d *Decoder) Op(c *Call) Op { return d.d.call(c) }

// Peek decodes one call as Op does, for a caller that only looks at the
// Op: for a call a Scanner listed again it is not a copy but the Op
// every later copy is made from, whose Header (Lines, Pid, Time) is
// that of the first such call decoded, not c's, and which must be
// neither kept nor changed. Such a call is one whole line, as that one
// was.
func (d *Decoder) Peek(c *Call) Op {
	if k := c.known; k != nil && k.op != nil {
		return k.op
	}
	return d.d.call(c)
}

// Lend decodes one call as Op does, for a caller done with each Op
// before it decodes the next call: for a call a Scanner listed again it
// is not a copy but the Op every later copy is made from, its Header
// set to c's. Every call of that line's text gets that one Op, so the
// caller must keep neither it nor a pointer into it past its call, nor
// change it, and decode every call of its Scanner with Lend: the first
// Op that Op or Peek hands out for a text is that one too.
func (d *Decoder) Lend(c *Call) Op {
	if k := c.known; k != nil && k.op != nil {
		*k.op.Head() = header(c)
		return k.op
	}
	return d.d.call(c)
}

// Start decodes the first half of a call strace printed unfinished
// ([Item].Start): a send, whose arguments strace prints in full on entry
// (send, sendto, sendmsg, write, writev; [StartDecoded]), becomes the Op
// its whole call will, with the first half's ResultUnfinished result;
// any other call, or one whose arguments do not decode, is nil. Errors
// are left to the whole call, which Op decodes once it resumes.
func (d *Decoder) Start(c *Call) Op {
	dec, ok := decoders[c.Name]
	if !ok || !StartDecoded(c.Name) || len(c.Args) != dec.n {
		return nil
	}
	op, bad := dec.f(header(c), c.Args)
	if bad != nil {
		return nil
	}
	return op
}

// StartDecoded reports whether [Decoder.Start] decodes the first half of
// a call of the syscall name.
func StartDecoded(name string) bool {
	switch name {
	case "send", "sendto", "sendmsg", "write", "writev":
		return true
	}
	return false
}

// Err returns the *ErrorList of the calls Op could not decode, nil when
// there were none.
func (d *Decoder) Err() error { return d.d.errs.err() }

// IgnoredCount is how often one ignored syscall occurs in a log.
type IgnoredCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// IgnoredNames lists the ignored syscalls of ops by name, most frequent
// first, ties by name.
func IgnoredNames(ops []Op) []IgnoredCount {
	counts := map[string]int{}
	for _, op := range ops {
		if ig, ok := op.(*Ignored); ok {
			counts[ig.Name]++
		}
	}
	out := make([]IgnoredCount, 0, len(counts))
	for n, k := range counts {
		out = append(out, IgnoredCount{n, k})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}

type decoder struct {
	file string
	errs ErrorList
}

// badArg is the panic-free error path of decoding: where and what.
type badArg struct {
	v   Value
	msg string
}

func header(c *Call) Header {
	return Header{Lines: c.Lines, Pid: c.Pid, Time: c.Time, End: c.End, Duration: c.Duration, Syscall: c.Name, Result: c.Result}
}

type decodeFunc func(h Header, args []Value) (Op, *badArg)

// decoders maps each modelled syscall to its decoder and argument count
// (the count strace prints when the call completed; -1 for a call whose
// count varies, which its decoder checks).
var decoders = map[string]struct {
	n int
	f decodeFunc
}{
	"socket":        {3, decodeSocket},
	"socketpair":    {4, decodeSocketPair},
	"bind":          {3, decodeBind},
	"connect":       {3, decodeConnect},
	"listen":        {2, decodeListen},
	"accept":        {3, decodeAccept},
	"accept4":       {4, decodeAccept},
	"setsockopt":    {5, decodeSockOpt},
	"getsockopt":    {5, decodeSockOpt},
	"send":          {4, decodeSend},
	"sendto":        {6, decodeSend},
	"sendmsg":       {3, decodeSendMsg},
	"write":         {3, decodeWrite},
	"sendmmsg":      {4, decodeSendMmsg},
	"recv":          {4, decodeRecv},
	"recvfrom":      {6, decodeRecv},
	"recvmsg":       {3, decodeRecvMsg},
	"close":         {1, decodeClose},
	"shutdown":      {2, decodeShutdown},
	"prlimit64":     {4, decodePrlimit},
	"setrlimit":     {2, decodeSetrlimit},
	"getrlimit":     {2, decodeGetrlimit},
	"writev":        {3, decodeWritev},
	"sendfile":      {4, decodeSendfile},
	"dup":           {1, decodeDup},
	"dup2":          {2, decodeDup},
	"dup3":          {3, decodeDup},
	"fcntl":         {-1, decodeFcntl},
	"clone":         {-1, decodeClone},
	"clone3":        {2, decodeClone3},
	"fork":          {0, decodeFork},
	"vfork":         {0, decodeFork},
	"close_range":   {3, decodeCloseRange},
	"execve":        {3, decodeExec},
	"execveat":      {5, decodeExec},
	"mmap":          {6, decodeMmap},
	"poll":          {-1, decodePoll},
	"ppoll":         {-1, decodePoll},
	"select":        {-1, decodeSelect},
	"pselect6":      {-1, decodeSelect},
	"munmap":        {2, decodeMunmap},
	"read":          {3, decodeRead},
	"epoll_create":  {1, decodeEpollCreate},
	"epoll_create1": {1, decodeEpollCreate},
	"epoll_ctl":     {4, decodeEpollCtl},
	"epoll_wait":    {-1, decodeEpollWait},
	"epoll_pwait":   {-1, decodeEpollWait},
	"epoll_pwait2":  {-1, decodeEpollWait},
}

// call decodes c, or for a call of a line a Scanner read before
// (knownLine) copies the Op its first decoding kept.
func (d *decoder) call(c *Call) Op {
	k := c.known
	if k != nil && k.op != nil {
		if op := withHeader(k.op, header(c)); op != nil {
			return op
		}
	}
	errs := len(d.errs.Errs) + d.errs.Dropped
	op := d.decode(c)
	if k != nil && len(d.errs.Errs)+d.errs.Dropped == errs {
		k.op = op
	}
	return op
}

func (d *decoder) decode(c *Call) Op {
	h := header(c)
	dec, ok := decoders[c.Name]
	if !ok {
		return &Ignored{Header: h, Name: c.Name}
	}
	if c.Orphan {
		return &Ignored{Header: h, Name: c.Name, Reason: "resumed without its start in the log"}
	}
	if c.Result.Kind == ResultUnfinished {
		return &Ignored{Header: h, Name: c.Name, Reason: "unfinished"}
	}
	if dec.n >= 0 && len(c.Args) != dec.n && c.Result.Kind == ResultUnknown {
		// A process killed inside the call: strace prints
		// "<... name resumed> <unfinished ...>) = ?", without the
		// arguments it would have printed on exit.
		return &Ignored{Header: h, Name: c.Name, Reason: "no result, arguments cut"}
	}
	if dec.n >= 0 && len(c.Args) != dec.n {
		line, col := c.Line(), 1
		if len(c.Args) > 0 {
			line, col = c.Args[0].Line, c.Args[0].Col
		}
		reason := sprintf("%s takes %d arguments, got %d", c.Name, dec.n, len(c.Args))
		d.errs.add(&Error{File: d.file, Line: line, Col: col, Msg: reason, At: c.Name})
		return &Ignored{Header: h, Name: c.Name, Reason: reason}
	}
	op, bad := dec.f(h, c.Args)
	if bad != nil {
		line, col := bad.v.Line, bad.v.Col
		if line == 0 {
			line = c.Line()
		}
		reason := c.Name + ": " + bad.msg
		d.errs.add(&Error{File: d.file, Line: line, Col: col, Msg: reason, At: shorten(bad.v.Text)})
		return &Ignored{Header: h, Name: c.Name, Reason: reason}
	}
	return op
}

func intArg(v Value, what string) (int64, *badArg) {
	n, ok := v.AsInt()
	if !ok {
		return 0, &badArg{v, what + " is not a number"}
	}
	return n, nil
}

// timespecArg reads a struct timespec, {tv_sec=S, tv_nsec=N}, as
// nanoseconds.
func timespecArg(v Value, what string) (int64, *badArg) {
	sec, ok1 := v.Field("tv_sec")
	nsec, ok2 := v.Field("tv_nsec")
	s, ok3 := sec.AsInt()
	n, ok4 := nsec.AsInt()
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, &badArg{v, what + " is not a struct timespec"}
	}
	return s*1e9 + n, nil
}

// fdArg reads a descriptor, an int in the syscall ABI: strace prints it
// with %d, so anything outside the range of a C int is malformed.
func fdArg(v Value) (int, *badArg) {
	n, bad := intArg(v, "fd")
	if bad == nil && (n < math.MinInt32 || n > math.MaxInt32) {
		return 0, &badArg{v, "fd is out of the range of an int"}
	}
	return int(n), bad
}

// sizeArg reads a size_t (a length) as the 64 bits the syscall receives:
// strace prints it unsigned (18446744073709551615), and a -1 written in its
// place is the same bits.
func sizeArg(v Value, what string) (uint64, *badArg) {
	n, bad := intArg(v, what)
	return uint64(n), bad
}

func decodeSocket(h Header, a []Value) (Op, *badArg) {
	return &Socket{Header: h, Domain: a[0].Symbol(), Type: a[1].Symbols(), Protocol: a[2].Symbol(),
		CloExec: a[1].Has("SOCK_CLOEXEC", sockCloexec)}, nil
}

func decodeSocketPair(h Header, a []Value) (Op, *badArg) {
	op := &SocketPair{Socket: Socket{Header: h, Domain: a[0].Symbol(), Type: a[1].Symbols(), Protocol: a[2].Symbol()}}
	if h.Result.Kind == ResultValue {
		fds := a[3].Exit()
		if fds.Kind != KindArray || len(fds.Elems) != 2 {
			return nil, &badArg{a[3], "expected [fd0, fd1]"}
		}
		for i := range 2 {
			n, bad := fdArg(fds.Elems[i])
			if bad != nil {
				return nil, bad
			}
			op.Fds[i] = n
		}
	}
	return op, nil
}

func decodeBind(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	addr, bad := sockAddr(a[1])
	return &Bind{Header: h, Fd: fd, Addr: addr}, bad
}

func decodeConnect(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	addr, bad := sockAddr(a[1])
	return &Connect{Header: h, Fd: fd, Addr: addr}, bad
}

func decodeListen(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	n, bad := intArg(a[1], "backlog")
	return &Listen{Header: h, Fd: fd, Backlog: n}, bad
}

func decodeAccept(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	op := &Accept{Header: h, Fd: fd}
	if h.Result.Kind == ResultValue {
		if op.Peer, bad = sockAddr(a[1]); bad != nil {
			return nil, bad
		}
	}
	if len(a) == 4 {
		op.Flags = flagList(a[3])
		op.CloExec = a[3].Has("SOCK_CLOEXEC", sockCloexec)
	}
	return op, nil
}

// flagList returns the names of a flags argument, nil for 0. The list
// may share the Value's names, which a Scanner does not reuse (carver).
func flagList(v Value) []string {
	if n, ok := v.AsInt(); ok && n == 0 && v.Comment == "" {
		return nil
	}
	names, _ := v.symbols()
	return names
}

func decodeSockOpt(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	if h.Syscall == "getsockopt" && isZcRecv(a[1].Symbol(), a[2].Symbol()) {
		return decodeZcRecv(h, fd, a)
	}
	op := &SockOpt{Header: h, Get: h.Syscall == "getsockopt", Fd: fd, Level: a[1].Symbol(), Name: a[2].Symbol()}
	op.Value = optValue(a[3])
	if n, ok := a[4].AsInt(); ok {
		op.Len = n
	}
	op.BufLen = op.Len
	if v := a[4]; v.Kind == KindArray && len(v.Elems) == 1 {
		if n, ok := v.Elems[0].Entry().AsInt(); ok {
			op.BufLen = n
		}
	}
	return op, nil
}

// tpacketReq reads a struct tpacket_req; ok is false unless all four
// fields are numbers of 32 bits.
func tpacketReq(v Value) (*TpacketReq, bool) {
	var out [4]uint32
	for i, name := range []string{"tp_block_size", "tp_block_nr", "tp_frame_size", "tp_frame_nr"} {
		n, ok := fieldInt(v, name)
		if !ok || n < 0 || n > 1<<32-1 {
			return nil, false
		}
		out[i] = uint32(n)
	}
	return &TpacketReq{BlockSize: out[0], BlockNr: out[1], FrameSize: out[2], FrameNr: out[3]}, true
}

// optValue decodes a socket option value: [1], [FLAG|FLAG], {flags=...},
// a struct tpacket_req, "bytes", an address.
func optValue(v Value) OptValue {
	v = v.Exit()
	out := OptValue{Text: v.Text}
	switch v.Kind {
	case KindString:
		out.Str, out.HasStr, out.Cut = v.Str, true, v.Truncated
		return out
	case KindInt:
		out.Addr = true
		return out
	}
	if v.Kind == KindArray && len(v.Elems) == 1 {
		v = v.Elems[0]
	}
	if v.Kind == KindStruct {
		if req, ok := tpacketReq(v); ok {
			out.Req = req
			return out
		}
		if f, ok := v.Field("flags"); ok {
			v = f
		}
	}
	if n, ok := v.AsInt(); ok {
		out.Int, out.HasInt = n, true
		if v.Comment != "" {
			out.Flags = v.Symbols()
		}
		return out
	}
	if v.Kind == KindFlags && !v.IsNull() {
		out.Flags = v.Symbols()
	}
	return out
}

func decodeSend(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	n, bad := sizeArg(a[2], "length")
	if bad != nil {
		return nil, bad
	}
	op := &Send{Header: h, Fd: fd, Iov: []uint64{n}, Len: n, Flags: flagList(a[3]), ZeroCopy: a[3].Has("MSG_ZEROCOPY", msgZeroCopy)}
	if len(a) == 6 && !a[4].IsNull() {
		if op.To, bad = sockAddr(a[4]); bad != nil {
			return nil, bad
		}
	}
	return op, nil
}

func decodeWrite(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	n, bad := sizeArg(a[2], "length")
	return &Send{Header: h, Fd: fd, Iov: []uint64{n}, Len: n}, bad
}

// iovLens returns the iov_len of each element of an iovec array, or why
// strace's text does not tell them: an address instead of the array, an
// iovec printed as {...}, a list cut at strace's limit ("...").
func iovLens(v Value) ([]uint64, string, *badArg) {
	v = v.Exit()
	if v.Kind == KindInt {
		return nil, "strace printed msg_iov as an address (it could not read the iovec array)", nil
	}
	if v.Kind != KindArray {
		return nil, "", &badArg{v, "msg_iov is not an array"}
	}
	out := make([]uint64, 0, len(v.Elems))
	abbrev := ""
	for _, e := range v.Elems {
		if e.Kind == KindOmitted {
			abbrev = sprintf("strace cut the iovec array after %d entries (...)", len(out))
			continue
		}
		l, ok := e.Field("iov_len")
		if !ok {
			if abbreviated(e) {
				abbrev = "strace abbreviated an iovec ({...})"
				continue
			}
			return nil, "", &badArg{e, "iovec without iov_len"}
		}
		n, bad := sizeArg(l, "iov_len")
		if bad != nil {
			return nil, "", bad
		}
		out = append(out, n)
	}
	return out, abbrev, nil
}

// abbreviated reports whether strace left members of a struct out: {...}
// or {a=1, ...}.
func abbreviated(v Value) bool {
	if v.Kind != KindStruct {
		return false
	}
	for _, f := range v.Fields {
		if f.Name == "" && f.Value.Kind == KindOmitted {
			return true
		}
	}
	return false
}

// sum adds lengths, saturating at 2^64-1: the kernel never adds them past
// what fits (__import_iovec clamps the total to MAX_RW_COUNT), and a sum
// that wrapped would read as a small length.
func sum(xs []uint64) uint64 {
	var s uint64
	for _, x := range xs {
		if s+x < s {
			return math.MaxUint64
		}
		s += x
	}
	return s
}

// msghdr decodes the iov lengths and destination of a struct msghdr, or
// says why the lengths are unknown (abbrev): the struct printed as {...}
// or as an address, msg_iov missing or abbreviated, or fewer iovecs
// printed than msg_iovlen counts.
func msghdr(v Value) (iov []uint64, to SockAddr, abbrev string, bad *badArg) {
	switch {
	case v.Kind == KindInt:
		return nil, SockAddr{}, "strace printed the struct msghdr as an address", nil
	case v.Kind != KindStruct:
		return nil, SockAddr{}, "", &badArg{v, "expected a struct msghdr"}
	}
	f, ok := v.Field("msg_iov")
	switch {
	case !ok && abbreviated(v):
		abbrev = "strace abbreviated the struct msghdr ({...})"
	case !ok:
		abbrev = "strace printed no msg_iov"
	case !f.IsNull():
		if iov, abbrev, bad = iovLens(f); bad != nil {
			return nil, SockAddr{}, "", bad
		}
	}
	if n, ok := fieldInt(v, "msg_iovlen"); ok && abbrev == "" && uint64(n) != uint64(len(iov)) {
		abbrev = sprintf("msg_iovlen is %d but strace printed %d iovecs", uint64(n), len(iov))
	}
	if f, ok := v.Field("msg_name"); ok && f.Kind == KindStruct {
		if to, bad = sockAddr(f); bad != nil {
			return nil, SockAddr{}, "", bad
		}
	}
	return iov, to, abbrev, nil
}

// fieldInt returns the number in a struct member, if it is one.
func fieldInt(v Value, name string) (int64, bool) {
	f, ok := v.Field(name)
	if !ok {
		return 0, false
	}
	return f.AsInt()
}

func decodeSendMsg(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	iov, to, abbrev, bad := msghdr(a[1])
	if bad != nil {
		return nil, bad
	}
	op := &Send{Header: h, Fd: fd, Iov: iov, Len: sum(iov), Flags: flagList(a[2]), ZeroCopy: a[2].Has("MSG_ZEROCOPY", msgZeroCopy), To: to, Abbrev: abbrev}
	if ctl, ok := a[1].Field("msg_control"); ok && a[1].Kind == KindStruct && ctl.Kind == KindArray {
		for _, e := range ctl.Elems {
			if e.Kind != KindStruct {
				continue
			}
			z, bad := zcInfo(e)
			if bad != nil {
				return nil, bad
			}
			if z != nil {
				op.ZcInfo = z
				continue
			}
			op.Control = append(op.Control, sendCmsg(e))
		}
	}
	return op, nil
}

func decodeSendMmsg(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	vlen, bad := intArg(a[2], "vlen")
	if bad != nil {
		return nil, bad
	}
	op := &SendMmsg{Header: h, Fd: fd, Msgs: []Mmsg{}, Vlen: vlen, Flags: flagList(a[3]), ZeroCopy: a[3].Has("MSG_ZEROCOPY", msgZeroCopy)}
	msgs := a[1].Exit()
	if msgs.Kind != KindArray {
		if msgs.Kind == KindInt {
			op.Abbrev = "strace printed the mmsghdr vector as an address"
			return op, nil
		}
		return nil, &badArg{msgs, "expected an array of struct mmsghdr"}
	}
	for _, m := range msgs.Elems {
		if m.Kind == KindOmitted {
			op.Abbrev = sprintf("strace cut the mmsghdr vector after %d messages (...)", len(op.Msgs))
			continue
		}
		hdr, ok := m.Field("msg_hdr")
		if !ok {
			if abbreviated(m) {
				op.Abbrev = sprintf("strace abbreviated message %d ({...})", len(op.Msgs))
				continue
			}
			return nil, &badArg{m, "mmsghdr without msg_hdr"}
		}
		iov, _, abbrev, bad := msghdr(hdr)
		if bad != nil {
			return nil, bad
		}
		if abbrev != "" {
			op.Abbrev = sprintf("message %d: %s", len(op.Msgs), abbrev)
		}
		mm := Mmsg{Iov: iov}
		if l, ok := m.Field("msg_len"); ok {
			n, bad := intArg(l, "msg_len")
			if bad != nil {
				return nil, bad
			}
			mm.MsgLen = uint64(uint32(n)) // unsigned int msg_len
		}
		op.Msgs = append(op.Msgs, mm)
	}
	return op, nil
}

func decodeRecv(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	n, bad := sizeArg(a[2], "length")
	return &Recv{Header: h, Fd: fd, Len: n, Flags: flagList(a[3]), ErrQueue: a[3].Has("MSG_ERRQUEUE", msgErrQueue)}, bad
}

// decodeRead decodes read(fd, buf, count) as a [Recv] without flags.
func decodeRead(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	n, bad := sizeArg(a[2], "length")
	return &Recv{Header: h, Fd: fd, Len: n}, bad
}

func decodeRecvMsg(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	op := &Recv{Header: h, Fd: fd, Flags: flagList(a[2]), ErrQueue: a[2].Has("MSG_ERRQUEUE", msgErrQueue)}
	m := a[1].Exit()
	iov, _, abbrev, bad := msghdr(m)
	if bad != nil {
		return nil, bad
	}
	op.Iov, op.Len, op.Abbrev = iov, sum(iov), abbrev
	if m.Kind != KindStruct {
		return op, nil
	}
	if ctl, ok := m.Field("msg_control"); ok && ctl.Kind == KindArray {
		for _, e := range ctl.Elems {
			if e.Kind != KindStruct {
				continue
			}
			cm, bad := cmsg(e)
			if bad != nil {
				return nil, bad
			}
			op.Cmsgs = append(op.Cmsgs, cm)
		}
	}
	return op, nil
}

func decodeClose(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	return &Close{Header: h, Fd: fd}, bad
}

func decodeShutdown(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	return &Shutdown{Header: h, Fd: fd, How: a[1].Symbol()}, bad
}

func decodePrlimit(h Header, a []Value) (Op, *badArg) {
	pid, bad := intArg(a[0], "pid")
	if bad != nil {
		return nil, bad
	}
	op := &Rlimit{Header: h, Pid: pid, Resource: a[1].Symbol()}
	if op.New, bad = rlimits(a[2]); bad != nil {
		return nil, bad
	}
	if h.Result.Kind == ResultValue {
		op.Old, bad = rlimits(a[3])
	}
	return op, bad
}

// decodeGetrlimit decodes getrlimit(resource, {rlim_cur, rlim_max}): the
// limit read back is Old.
func decodeGetrlimit(h Header, a []Value) (Op, *badArg) {
	op := &Rlimit{Header: h, Resource: a[0].Symbol()}
	var bad *badArg
	if h.Result.Kind == ResultValue {
		op.Old, bad = rlimits(a[1])
	}
	return op, bad
}

func decodeSetrlimit(h Header, a []Value) (Op, *badArg) {
	op := &Rlimit{Header: h, Resource: a[0].Symbol()}
	var bad *badArg
	op.New, bad = rlimits(a[1])
	return op, bad
}

// rlimits decodes {rlim_cur=..., rlim_max=...}; NULL and bare pointers
// give nil.
func rlimits(v Value) (*Rlimits, *badArg) {
	if v.Kind != KindStruct {
		return nil, nil
	}
	var out Rlimits
	for _, f := range []struct {
		name string
		dst  *Limit
	}{{"rlim_cur", &out.Cur}, {"rlim_max", &out.Max}} {
		fv, ok := v.Field(f.name)
		if !ok {
			return nil, &badArg{v, "missing " + f.name}
		}
		l, bad := limit(fv)
		if bad != nil {
			return nil, bad
		}
		*f.dst = l
	}
	return &out, nil
}

func limit(v Value) (Limit, *badArg) {
	for _, s := range v.Symbols() {
		if s == "RLIM64_INFINITY" || s == "RLIM_INFINITY" {
			return Limit{Infinity: true}, nil
		}
	}
	n, ok := v.AsInt()
	if !ok {
		return Limit{}, &badArg{v, "limit is not a number"}
	}
	if n == -1 {
		return Limit{Infinity: true}, nil
	}
	return Limit{Value: uint64(n)}, nil
}

// sockAddr decodes a struct sockaddr as strace prints it, symbolically
// (sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1"),
// inet_pton(AF_INET6, "::1", &sin6_addr)) or as raw bytes (-X raw).
func sockAddr(v Value) (SockAddr, *badArg) {
	v = v.Exit()
	if v.Kind != KindStruct {
		return SockAddr{}, nil
	}
	fam, ok := v.Field("sa_family")
	if !ok {
		return SockAddr{}, &badArg{v, "sockaddr without sa_family"}
	}
	out := SockAddr{Family: familyName(fam)}
	switch out.Family {
	case "AF_INET", "AF_INET6":
		ap, bad := inetAddr(v, out.Family == "AF_INET6")
		if bad != nil {
			return SockAddr{}, bad
		}
		out.Addr = ap
	case "AF_UNIX":
		if p, ok := v.Field("sun_path"); ok {
			out.Path = p.Str
			if strings.HasPrefix(p.Text, "@") {
				out.Path = "@" + p.Str
			}
		}
	}
	return out, nil
}

// familyName maps the families zcsim uses to their names when strace
// printed numbers.
func familyName(v Value) string {
	s := v.Symbol()
	switch s {
	case "0x1", "1":
		return "AF_UNIX"
	case "0x2", "2":
		return "AF_INET"
	case "0xa", "10":
		return "AF_INET6"
	}
	return s
}

func inetAddr(v Value, v6 bool) (netip.AddrPort, *badArg) {
	portField, addrField := "sin_port", "sin_addr"
	if v6 {
		portField, addrField = "sin6_port", "sin6_addr"
	}
	pv, ok := v.Field(portField)
	if !ok {
		return netip.AddrPort{}, &badArg{v, "sockaddr without " + portField}
	}
	var port uint16
	if pv.Kind == KindString && len(pv.Str) == 2 {
		port = binary.BigEndian.Uint16([]byte(pv.Str))
	} else if n, ok := pv.AsInt(); ok && n >= 0 && n <= 0xffff {
		port = uint16(n)
	} else {
		return netip.AddrPort{}, &badArg{pv, "bad port"}
	}
	av, ok := v.Field(addrField)
	if !ok {
		for _, f := range v.Fields {
			if f.Name == "" && f.Value.Kind == KindMacro && f.Value.Name == "inet_pton" {
				av, ok = f.Value, true
			}
		}
	}
	if !ok {
		return netip.AddrPort{}, &badArg{v, "sockaddr without an address"}
	}
	addr, bad := ipAddr(av)
	return netip.AddrPortFrom(addr, port), bad
}

// ipAddr decodes inet_addr("a.b.c.d"), inet_pton(AF_INET6, "::1", ...)
// or raw address bytes.
func ipAddr(v Value) (netip.Addr, *badArg) {
	if v.Kind == KindString {
		if a, ok := netip.AddrFromSlice([]byte(v.Str)); ok {
			return a, nil
		}
		return netip.Addr{}, &badArg{v, "address is not 4 or 16 bytes"}
	}
	if v.Kind == KindMacro {
		for _, e := range v.Elems {
			if e.Kind == KindString {
				a, err := netip.ParseAddr(e.Str)
				if err != nil {
					return netip.Addr{}, &badArg{e, "bad address"}
				}
				return a, nil
			}
		}
	}
	return netip.Addr{}, &badArg{v, "cannot read address"}
}
