package strace

import (
	"encoding/binary"
	"strconv"
)

// ZcRecv is getsockopt(fd, SOL_TCP, TCP_ZEROCOPY_RECEIVE, zc, [optlen]).
// strace 6.1 has no decoder for struct tcp_zerocopy_receive: after a
// successful call it prints the bytes the kernel wrote back as a string,
// cut at -s (32 bytes by default, "..." after them), and after a failed
// one only the struct's address. Zc holds the fields those bytes cover
// whole (the x86-64 layout, little-endian); a field strace did not show
// is nil. A struct form ({address=..., length=..., ...}) is read by field
// name, and a field it omits is nil too. Optlen is the [N]: what the
// kernel wrote back after a successful call, what the program passed after
// a failed one.
type ZcRecv struct {
	Header
	Fd     int      `json:"fd"`
	Optlen int64    `json:"optlen"`
	Zc     ZcFields `json:"zc"`
}

// ZcFields are the fields of struct tcp_zerocopy_receive (include/uapi/
// linux/tcp.h) that the replay reads, as strace showed them; nil when not
// shown. After the call, Address, CopybufAddress, Flags and Reserved are
// still the program's; the others are what the kernel wrote back
// (msg_control and msg_controllen moved on past the control messages it
// wrote, msg_flags MSG_CTRUNC or 0). strace -s 64 or more shows all of a
// 64-byte struct.
type ZcFields struct {
	Address        *uint64 `json:"address,omitempty"`
	Length         *uint32 `json:"length,omitempty"`
	RecvSkipHint   *uint32 `json:"recv_skip_hint,omitempty"`
	Inq            *uint32 `json:"inq,omitempty"`
	Err            *int32  `json:"err,omitempty"`
	CopybufAddress *uint64 `json:"copybuf_address,omitempty"`
	CopybufLen     *int32  `json:"copybuf_len,omitempty"`
	Flags          *uint32 `json:"flags,omitempty"`
	MsgControl     *uint64 `json:"msg_control,omitempty"`
	MsgControllen  *uint64 `json:"msg_controllen,omitempty"`
	MsgFlags       *uint32 `json:"msg_flags,omitempty"`
	Reserved       *uint32 `json:"reserved,omitempty"`
}

// zcField is one field of struct tcp_zerocopy_receive: its name, offset
// and size in bytes.
type zcField struct {
	name      string
	off, size int
}

var zcLayout = []zcField{
	{"address", 0, 8}, {"length", 8, 4}, {"recv_skip_hint", 12, 4}, {"inq", 16, 4},
	{"err", 20, 4}, {"copybuf_address", 24, 8}, {"copybuf_len", 32, 4}, {"flags", 36, 4},
	{"msg_control", 40, 8}, {"msg_controllen", 48, 8}, {"msg_flags", 56, 4}, {"reserved", 60, 4},
}

// set stores the raw bits of field f.
func (z *ZcFields) set(f zcField, bits uint64) {
	u32, s32 := uint32(bits), int32(uint32(bits))
	switch f.name {
	case "address":
		z.Address = &bits
	case "length":
		z.Length = &u32
	case "recv_skip_hint":
		z.RecvSkipHint = &u32
	case "inq":
		z.Inq = &u32
	case "err":
		z.Err = &s32
	case "copybuf_address":
		z.CopybufAddress = &bits
	case "copybuf_len":
		z.CopybufLen = &s32
	case "flags":
		z.Flags = &u32
	case "msg_control":
		z.MsgControl = &bits
	case "msg_controllen":
		z.MsgControllen = &bits
	case "msg_flags":
		z.MsgFlags = &u32
	case "reserved":
		z.Reserved = &u32
	}
}

// isZcRecv says whether (level, name) is (SOL_TCP, TCP_ZEROCOPY_RECEIVE),
// by name or, under -X raw, by number (6, 35).
func isZcRecv(level, name string) bool {
	if name == "TCP_ZEROCOPY_RECEIVE" {
		return true
	}
	lv, err1 := strconv.ParseInt(level, 0, 32)
	nv, err2 := strconv.ParseInt(name, 0, 32)
	return err1 == nil && err2 == nil && lv == 6 && nv == 35
}

func decodeZcRecv(h Header, fd int, a []Value) (Op, *badArg) {
	op := &ZcRecv{Header: h, Fd: fd}
	if n, ok := a[4].Exit().AsInt(); ok {
		op.Optlen = n
	} else if len(a[4].Exit().Elems) == 1 {
		op.Optlen, _ = a[4].Exit().Elems[0].AsInt()
	}
	v := a[3].Exit()
	switch v.Kind {
	case KindString:
		b := []byte(v.Str)
		for _, f := range zcLayout {
			if f.off+f.size > len(b) {
				break
			}
			var bits uint64
			if f.size == 8 {
				bits = binary.LittleEndian.Uint64(b[f.off:])
			} else {
				bits = uint64(binary.LittleEndian.Uint32(b[f.off:]))
			}
			op.Zc.set(f, bits)
		}
	case KindStruct:
		for _, f := range zcLayout {
			fv, ok := v.Field(f.name)
			if !ok {
				continue
			}
			n, ok := fv.AsInt()
			if !ok {
				return nil, &badArg{fv, f.name + " is not a number"}
			}
			op.Zc.set(f, uint64(n))
		}
	}
	return op, nil
}

// Mmap is mmap(addr, length, prot, flags, fd, offset) of a descriptor;
// the result is the mapping's address. An anonymous mmap (fd -1) is
// [Ignored].
type Mmap struct {
	Header
	Fd     int      `json:"fd"`
	Len    uint64   `json:"len"`
	Prot   []string `json:"prot,omitempty"`
	Flags  []string `json:"flags,omitempty"`
	Offset int64    `json:"offset"`
}

// Munmap is munmap(addr, length).
type Munmap struct {
	Header
	Addr uint64 `json:"addr"`
	Len  uint64 `json:"len"`
}

func decodeMmap(h Header, a []Value) (Op, *badArg) {
	if n, ok := a[4].AsInt(); ok && n == -1 {
		return &Ignored{Header: h, Name: h.Syscall}, nil
	}
	fd, bad := fdArg(a[4])
	if bad != nil {
		return nil, bad
	}
	n, bad := sizeArg(a[1], "length")
	if bad != nil {
		return nil, bad
	}
	off, bad := intArg(a[5], "offset")
	return &Mmap{Header: h, Fd: fd, Len: n, Prot: flagList(a[2]), Flags: flagList(a[3]), Offset: off}, bad
}

func decodeMunmap(h Header, a []Value) (Op, *badArg) {
	addr, bad := sizeArg(a[0], "addr")
	if bad != nil {
		return nil, bad
	}
	n, bad := sizeArg(a[1], "length")
	return &Munmap{Header: h, Addr: addr, Len: n}, bad
}

// MmapAddr returns the address a successful mmap returned.
func (m *Mmap) MmapAddr() (uint64, bool) {
	n, ok := m.Result.Ret()
	if !ok || m.Result.Kind != ResultValue {
		return 0, false
	}
	return uint64(n), true
}
