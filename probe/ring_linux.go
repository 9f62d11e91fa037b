//go:build linux

package probe

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/zcsim/zcsim/sim/scenario"
)

// hring is a packet socket's mapped TX ring: its memory and geometry.
type hring struct {
	mem                  []byte
	blockSize, frameSize int
}

// packetSetup makes a packet socket what the model's is: TPACKET_V2
// rings, bound to the namespace's lo, ifindex 1 in a new namespace (the
// model's packet sockets send through their via= device without a bind).
func packetSetup(fd int, proto int) {
	unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_VERSION, unix.TPACKET_V2)
	unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: uint16(proto), Ifindex: 1})
}

// txRing sets up or tears down a TX ring (setsockopt PACKET_TX_RING with a
// struct tpacket_req).
func (h *host) txRing(s *scenario.Setsockopt) string {
	v := func(i int) uint32 { return uint32(s.Req[i].N) }
	req := unix.TpacketReq{Block_size: v(0), Block_nr: v(1), Frame_size: v(2), Frame_nr: v(3)}
	err := unix.SetsockoptTpacketReq(h.fd(s.Sock), unix.SOL_PACKET, unix.PACKET_TX_RING, &req)
	if hs := h.socks[s.Sock.Name]; err == nil && hs != nil {
		hs.req = req
	}
	return errRes(err)
}

// mmapRing maps the socket's ring.
func (h *host) mmapRing(s scenario.Sock) string {
	hs := h.socks[s.Name]
	if hs == nil {
		return errRes(unix.EBADF)
	}
	size := int(hs.req.Block_size * hs.req.Block_nr)
	if size == 0 {
		size = unix.Getpagesize()
	}
	mem, err := unix.Mmap(hs.fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return errRes(err)
	}
	hs.ring = &hring{mem: mem, blockSize: int(hs.req.Block_size), frameSize: int(hs.req.Frame_size)}
	return "0"
}

// munmapRing unmaps it.
func (h *host) munmapRing(s scenario.Sock) string {
	hs := h.socks[s.Name]
	if hs == nil || hs.ring == nil {
		return "0"
	}
	err := unix.Munmap(hs.ring.mem)
	hs.ring = nil
	return errRes(err)
}

// frame returns the tpacket2_hdr of frame i, or nil outside the ring.
func (r *hring) frame(i int) []byte {
	if r == nil || r.frameSize == 0 || i < 0 {
		return nil
	}
	perBlock := r.blockSize / r.frameSize
	off := i/perBlock*r.blockSize + i%perBlock*r.frameSize
	if off+r.frameSize > len(r.mem) {
		return nil
	}
	return r.mem[off : off+r.frameSize]
}

// txFrame writes n bytes into frame i (tp_len, the data) and then sets
// tp_status to TP_STATUS_SEND_REQUEST.
func (h *host) txFrame(s *scenario.Txframe) {
	hs := h.socks[s.Sock.Name]
	if hs == nil {
		return
	}
	f := hs.ring.frame(int(s.Frame.N))
	n := int(s.Len.N)
	if f == nil || 32+n > len(f) {
		return
	}
	binary.LittleEndian.PutUint32(f[4:], uint32(n))
	for i := range n {
		f[32+i] = byte(i)
	}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&f[0])), unix.TP_STATUS_SEND_REQUEST)
}

// txStatus reads frame i's tp_status.
func (h *host) txStatus(s *scenario.Txstatus) string {
	hs := h.socks[s.Sock.Name]
	if hs == nil || hs.ring == nil {
		return errRes(unix.EINVAL)
	}
	f := hs.ring.frame(int(s.Frame.N))
	if f == nil {
		return "0"
	}
	return fmt.Sprint(atomic.LoadUint32((*uint32)(unsafe.Pointer(&f[0]))))
}
