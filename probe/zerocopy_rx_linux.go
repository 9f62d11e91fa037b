//go:build linux

package probe

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/zcsim/zcsim/sim/scenario"
)

// zcReceive is struct tcp_zerocopy_receive (include/uapi/linux/tcp.h).
type zcReceive struct {
	Address        uint64
	Length         uint32
	RecvSkipHint   uint32
	Inq            uint32
	Err            int32
	CopybufAddress uint64
	CopybufLen     int32
	Flags          uint32
	MsgControl     uint64
	MsgControllen  uint64
	MsgFlags       uint32
	Reserved       uint32
}

// mmap maps LEN bytes of a TCP socket (or its peer) for zerocopy
// receive, or a packet socket's ring.
func (h *host) mmap(s *scenario.Mmap) string {
	hs := h.socks[s.Sock.Name]
	if hs == nil || hs.typ != unix.SOCK_STREAM {
		return h.mmapRing(s.Sock)
	}
	n := int(s.Len.N)
	if s.Len.IsZero() {
		n = unix.Getpagesize()
	}
	mem, err := unix.Mmap(h.fd(s.Sock), 0, n, int(s.Protection()), unix.MAP_SHARED)
	if err != nil {
		return errRes(err)
	}
	h.unmapTCP(s.Sock)
	h.zmaps[s.Sock.String()] = mem
	return "0"
}

// munmap unmaps a TCP socket's area or a packet socket's ring.
func (h *host) munmap(s scenario.Sock) string {
	if hs := h.socks[s.Name]; hs != nil && hs.typ == unix.SOCK_STREAM {
		return errRes(h.unmapTCP(s))
	}
	return h.munmapRing(s)
}

func (h *host) unmapTCP(s scenario.Sock) error {
	mem, ok := h.zmaps[s.String()]
	if !ok {
		return nil
	}
	delete(h.zmaps, s.String())
	return unix.Munmap(mem)
}

// zerocopyReceive runs getsockopt(TCP_ZEROCOPY_RECEIVE) as the model's
// interpreter fills the struct in (interp's zcArgs): the mapping's start
// plus offset=, length= or the mapping's size, a copybuf of copybuf=
// bytes, optlen= or the whole struct. It renders the length mapped.
func (h *host) zerocopyReceive(s *scenario.Getsockopt) string {
	mem := h.zmaps[s.Sock.String()]
	var zc zcReceive
	if len(mem) > 0 {
		zc.Address = uint64(uintptr(unsafe.Pointer(&mem[0])))
	}
	zc.Address += optNumber(s.Options, "offset", 0)
	zc.Length = uint32(optNumber(s.Options, "length", uint64(len(mem))))
	var copybuf []byte
	if n := optNumber(s.Options, "copybuf", 0); n > 0 {
		copybuf = make([]byte, n)
		zc.CopybufAddress, zc.CopybufLen = uint64(uintptr(unsafe.Pointer(&copybuf[0]))), int32(n)
	}
	optlen := int32(unsafe.Sizeof(zc))
	if o, ok := s.Options.Lookup("optlen"); ok {
		optlen = int32(o.Value.Int())
	}
	// A longer optlen gets a zeroed tail, which the kernel accepts
	// (check_zeroed_sockptr).
	buf := make([]zcReceive, 1+max(int(optlen), 0)/int(unsafe.Sizeof(zc)))
	buf[0] = zc
	optval := uintptr(unsafe.Pointer(&buf[0]))
	if _, null := s.Options.Lookup("null"); null {
		optval = 0
	}
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(h.fd(s.Sock)), unix.IPPROTO_TCP, unix.TCP_ZEROCOPY_RECEIVE,
		optval, uintptr(unsafe.Pointer(&optlen)), 0)
	runtime.KeepAlive(copybuf)
	if e != 0 {
		return errRes(e)
	}
	return fmt.Sprint(buf[0].Length)
}

func optNumber(os scenario.Options, key string, def uint64) uint64 {
	if o, ok := os.Lookup(key); ok {
		return o.Value.N
	}
	return def
}
