package strace

import (
	"encoding/binary"

	"github.com/zcsim/zcsim/kernel"
)

// extErrSize is sizeof(struct sock_extended_err): u32 ee_errno, u8
// ee_origin, u8 ee_type, u8 ee_code, u8 ee_pad, u32 ee_info, u32 ee_data.
const extErrSize = 16

// Symbolic names strace may print inside sock_extended_err
// (include/uapi/linux/errqueue.h, asm-generic/errno.h).
var (
	eeOrigins = map[string]uint32{
		"SO_EE_ORIGIN_NONE": 0, "SO_EE_ORIGIN_LOCAL": 1, "SO_EE_ORIGIN_ICMP": 2,
		"SO_EE_ORIGIN_ICMP6": 3, "SO_EE_ORIGIN_TXSTATUS": 4, "SO_EE_ORIGIN_TIMESTAMPING": 4,
		"SO_EE_ORIGIN_ZEROCOPY": 5, "SO_EE_ORIGIN_TXTIME": 6,
	}
	eeCodes = map[string]uint32{
		"SO_EE_CODE_ZEROCOPY_COPIED": 1, "SO_EE_CODE_TXTIME_INVALID_PARAM": 1,
		"SO_EE_CODE_TXTIME_MISSED": 2,
	}
	eeErrnos = map[string]uint32{
		"ENOMSG": 42, "ETIMEDOUT": 110, "ECONNREFUSED": 111, "EHOSTUNREACH": 113,
		"ENETUNREACH": 101, "EMSGSIZE": 90, "EPROTO": 71, "EINVAL": 22, "ECANCELED": 125,
	}
)

// isRecvErr reports whether a cmsg is (SOL_IP, IP_RECVERR) or (SOL_IPV6,
// IPV6_RECVERR), by name or by number (levels 0 and 41, types 11 and 25).
func isRecvErr(level, typ string) bool {
	switch level {
	case "SOL_IP", "0":
		return typ == "IP_RECVERR" || typ == "0xb" || typ == "11"
	case "SOL_IPV6", "0x29", "41":
		return typ == "IPV6_RECVERR" || typ == "0x19" || typ == "25"
	}
	return false
}

// cmsg decodes one element of msg_control. The sock_extended_err of a
// RECVERR message is read from strace's struct form
// (cmsg_data={ee_errno=0, ee_origin=SO_EE_ORIGIN_ZEROCOPY, ...}) or from
// its hex form (cmsg_data="\x00..." or [0x00, ...]), little-endian.
func cmsg(v Value) (Cmsg, *badArg) {
	lv, _ := v.Field("cmsg_level")
	tv, _ := v.Field("cmsg_type")
	out := Cmsg{Level: lv.Symbol(), Type: tv.Symbol()}
	data, ok := v.Field("cmsg_data")
	if !ok || !isRecvErr(out.Level, out.Type) {
		return out, nil
	}
	var ee ExtErr
	var bad *badArg
	if data.Kind == KindStruct {
		ee, bad = extErrStruct(data)
	} else {
		ee, bad = extErrBytes(data)
	}
	if bad != nil {
		return Cmsg{}, bad
	}
	out.Ext = &ee
	return out, nil
}

func extErrStruct(v Value) (ExtErr, *badArg) {
	var ee ExtErr
	get := func(name string, names map[string]uint32, max uint64) (uint32, *badArg) {
		f, ok := v.Field(name)
		if !ok {
			return 0, &badArg{v, "sock_extended_err without " + name}
		}
		if n, ok := f.AsInt(); ok {
			if uint64(n) > max {
				return 0, &badArg{f, name + " out of range"}
			}
			return uint32(n), nil
		}
		if n, ok := names[f.Symbol()]; ok {
			return n, nil
		}
		return 0, &badArg{f, "unknown " + name + " " + f.Symbol()}
	}
	fields := []struct {
		name  string
		names map[string]uint32
		max   uint64
		set   func(uint32)
	}{
		{"ee_errno", eeErrnos, 1<<32 - 1, func(x uint32) { ee.Errno = x }},
		{"ee_origin", eeOrigins, 255, func(x uint32) { ee.Origin = uint8(x) }},
		{"ee_type", nil, 255, func(x uint32) { ee.Type = uint8(x) }},
		{"ee_code", eeCodes, 255, func(x uint32) { ee.Code = uint8(x) }},
		{"ee_info", nil, 1<<32 - 1, func(x uint32) { ee.Info = x }},
		{"ee_data", nil, 1<<32 - 1, func(x uint32) { ee.Data = x }},
	}
	for _, f := range fields {
		x, bad := get(f.name, f.names, f.max)
		if bad != nil {
			return ExtErr{}, bad
		}
		f.set(x)
	}
	return ee, nil
}

// cmsgBytes reads cmsg_data printed as a string of bytes or an array of
// byte values.
func cmsgBytes(v Value) ([]byte, *badArg) {
	var b []byte
	switch v.Kind {
	case KindString:
		b = []byte(v.Str)
	case KindArray:
		for _, e := range v.Elems {
			n, ok := e.AsInt()
			if !ok || n < 0 || n > 255 {
				return nil, &badArg{e, "cmsg_data element is not a byte"}
			}
			b = append(b, byte(n))
		}
	default:
		return nil, &badArg{v, "cannot read cmsg_data"}
	}
	return b, nil
}

// extErrBytes decodes the hex form: a string of bytes or an array of byte
// values, at least sizeof(struct sock_extended_err) long.
func extErrBytes(v Value) (ExtErr, *badArg) {
	b, bad := cmsgBytes(v)
	if bad != nil {
		return ExtErr{}, bad
	}
	if len(b) < extErrSize {
		return ExtErr{}, &badArg{v, sprintf("cmsg_data has %d bytes, sock_extended_err needs %d", len(b), extErrSize)}
	}
	le := binary.LittleEndian
	return ExtErr{
		Errno: le.Uint32(b[0:]), Origin: b[4], Type: b[5], Code: b[6],
		Info: le.Uint32(b[8:]), Data: le.Uint32(b[12:]),
	}, nil
}

// cmsgHdrLen is sizeof(struct cmsghdr) on 64-bit Linux.
const cmsgHdrLen = 16

// isZcNotification reports whether a cmsg is (SOL_SOCKET,
// SCM_ZC_NOTIFICATION): level 1, type 78 by the series' name, by the name
// strace may give the same number (SCM_DEVMEM_LINEAR on 6.12 and later
// kernels), or by number, whatever comment strace adds ("0x4e /* SCM_???
// */").
func isZcNotification(level, typ Value) bool {
	if l := level.Symbol(); l != "SOL_SOCKET" && l != "1" {
		return false
	}
	if n, ok := typ.AsInt(); ok {
		return n == 78
	}
	t := typ.Symbol()
	return t == "SCM_ZC_NOTIFICATION" || t == "SCM_DEVMEM_LINEAR"
}

// zcInfo decodes an SCM_ZC_NOTIFICATION a sendmsg carries, or returns nil
// for any other cmsg: its data length from cmsg_len and, when strace
// printed at least 4 bytes of data, the zc_info size (little-endian u32).
func zcInfo(v Value) (*ZcInfo, *badArg) {
	lv, _ := v.Field("cmsg_level")
	tv, _ := v.Field("cmsg_type")
	if !isZcNotification(lv, tv) {
		return nil, nil
	}
	lf, ok := v.Field("cmsg_len")
	if !ok {
		return nil, &badArg{v, "SCM_ZC_NOTIFICATION without cmsg_len"}
	}
	n, ok := lf.AsInt()
	if !ok || n < cmsgHdrLen || n > 1<<31-1 {
		return nil, &badArg{lf, "cmsg_len is not a length of at least sizeof(struct cmsghdr)"}
	}
	z := &ZcInfo{DataLen: int(n - cmsgHdrLen)}
	if data, ok := v.Field("cmsg_data"); ok {
		b, bad := cmsgBytes(data)
		if bad != nil {
			return nil, bad
		}
		if len(b) >= 4 {
			z.Size, z.SizeKnown = binary.LittleEndian.Uint32(b), true
		}
	}
	return z, nil
}

// straceCmsgTypes are names strace gives sendmsg control message types
// beside the kernel's own (kernel.CmsgTypeNames): its scmvals spellings.
var straceCmsgTypes = map[string]kernel.CmsgType{
	"SCM_TIMESTAMPING": kernel.SCM_TIMESTAMPING,
	"SO_TXTIME":        kernel.SCM_TXTIME,
}

// sendCmsg decodes one control message of a sendmsg: level and type by
// number (strace's "0x67", "0x24 /* SCM_??? */") or by name, the data
// length from cmsg_len, and the data when printed as bytes.
func sendCmsg(v Value) SendCmsg {
	lv, _ := v.Field("cmsg_level")
	tv, _ := v.Field("cmsg_type")
	var c SendCmsg
	if n, ok := lv.AsInt(); ok {
		c.Level = int32(n)
	} else if l, ok := kernel.LevelNames.ByName(lv.Symbol()); ok {
		c.Level = int32(l)
	} else {
		c.Name = lv.Symbol()
	}
	t, named := kernel.CmsgTypeNames.ByName(tv.Symbol())
	if !named || t.Level != kernel.Level(c.Level) {
		t, named = straceCmsgTypes[tv.Symbol()]
	}
	switch n, ok := tv.AsInt(); {
	case ok:
		c.Type = int32(n)
	case named && t.Level == kernel.Level(c.Level):
		c.Type = t.Name
	case c.Name == "":
		c.Name = tv.Symbol()
	}
	c.DataLen = -1
	if n, ok := fieldInt(v, "cmsg_len"); ok && n >= cmsgHdrLen && n <= 1<<31-1 {
		c.DataLen = int(n - cmsgHdrLen)
	}
	if data, ok := v.Field("cmsg_data"); ok {
		if b, bad := cmsgBytes(data); bad == nil {
			c.Data = b
		}
	}
	return c
}
