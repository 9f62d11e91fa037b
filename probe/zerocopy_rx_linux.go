//go:build linux

package probe

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/scenario"
	"github.com/zcsim/zcsim/sock"
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
	if n == 0 {
		// unix.Mmap refuses a length of 0 itself (EINVAL) where the
		// kernel looks the descriptor up first (ksys_mmap_pgoff: EBADF
		// for a closed one) and do_mmap then refuses the length: the
		// kernel answers this call, which maps nothing.
		_, err := unix.MmapPtr(h.fd(s.Sock), 0, nil, 0, int(s.Protection()), unix.MAP_SHARED)
		return errRes(err)
	}
	mem, err := unix.Mmap(h.fd(s.Sock), 0, n, int(s.Protection()), unix.MAP_SHARED)
	if err != nil {
		return errRes(err)
	}
	h.unmapTCP(s.Sock)
	h.zmaps[s.Sock.String()] = mem
	return "0"
}

// munmap unmaps a TCP socket's area or a packet socket's ring. A name
// that names no descriptor (a closed socket, or the peer of a TCP socket
// that has neither connected nor listened) is -1 EBADF, as every call on
// it is in the scenario language; nothing is unmapped.
func (h *host) munmap(s scenario.Sock) string {
	if h.fd(s) < 0 {
		return errRes(unix.EBADF)
	}
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
// bytes, flags=, msg_flags=, reserved=, a control buffer of control=
// bytes (NULL without), optlen= or the whole struct. It renders the
// length mapped and, when the call had a control buffer or was told
// MSG_CTRUNC, what it wrote there (sim.ZcControlText).
func (h *host) zerocopyReceive(s *scenario.Getsockopt) string {
	mem := h.zmaps[s.Sock.String()]
	var zc zcReceive
	if len(mem) > 0 {
		zc.Address = uint64(uintptr(unsafe.Pointer(&mem[0])))
	}
	zc.Address += optNumber(s.Options, "offset", 0)
	zc.Length = uint32(optNumber(s.Options, "length", uint64(len(mem))))
	zc.Flags = uint32(optNumber(s.Options, "flags", 0))
	zc.MsgFlags = uint32(optNumber(s.Options, "msg_flags", 0))
	zc.Reserved = uint32(optNumber(s.Options, "reserved", 0))
	ctlOpt, hasCtl := s.Options.Lookup("control")
	var ctl []byte
	if hasCtl {
		ctl = make([]byte, max(ctlOpt.Value.N, 1))
		zc.MsgControl, zc.MsgControllen = uint64(uintptr(unsafe.Pointer(&ctl[0]))), ctlOpt.Value.N
	}
	start := zc.MsgControl
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
	runtime.KeepAlive(ctl)
	if e != 0 {
		return errRes(e)
	}
	out := buf[0]
	res := fmt.Sprint(out.Length)
	if optlen >= zcEndMsgFlags && (hasCtl || out.MsgFlags&unix.MSG_CTRUNC != 0) {
		used := int(out.MsgControl - start)
		res += "  " + sim.ZcControlText(sock.RecvControl{Used: used, Left: int(out.MsgControllen),
			Ctrunc: out.MsgFlags&unix.MSG_CTRUNC != 0, Cmsgs: rxCmsgs(ctl[:max(min(used, len(ctl)), 0)])})
	}
	return res
}

// zcEndMsgFlags is offsetofend(struct tcp_zerocopy_receive, msg_flags):
// an optlen that reaches it gets the control buffer written.
const zcEndMsgFlags = 60

// rxCmsgs decodes the control messages a receive wrote into b: each
// header's level, type and cmsg_len, as far as b holds them.
func rxCmsgs(b []byte) []sock.RxCmsg {
	var out []sock.RxCmsg
	for len(b) >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&b[0]))
		out = append(out, sock.RxCmsg{Type: kernel.CmsgType{Level: kernel.Level(h.Level), Name: h.Type}, Len: int(h.Len)})
		step := kernel.CmsgSpace(int(h.Len) - unix.SizeofCmsghdr)
		if h.Len < unix.SizeofCmsghdr || step > len(b) {
			break
		}
		b = b[step:]
	}
	return out
}

func optNumber(os scenario.Options, key string, def uint64) uint64 {
	if o, ok := os.Lookup(key); ok {
		return o.Value.N
	}
	return def
}
