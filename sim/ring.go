package sim

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/packet"
)

// packetOf returns s's packet socket, or nil for any other socket.
func packetOf(s *Socket) *packet.Sock {
	if s.dgrm == nil {
		return nil
	}
	return s.dgrm.pkt
}

// TxRing models setsockopt(SOL_PACKET, PACKET_TX_RING) with a struct
// tpacket_req (packet.Sock.SetTxRing): a request without blocks tears the
// ring down. Other sockets do not know the level: ENOPROTOOPT.
func (w *World) TxRing(c Call, s *Socket, req packet.TpacketReq) Result {
	return w.syscall(c, "setsockopt", s, func() Result {
		p := packetOf(s)
		if p == nil {
			return fail(kernel.ENOPROTOOPT)
		}
		return fail(p.SetTxRing(req))
	})
}

// Mmap models mmap(2) of n bytes with protection prot: a packet socket's
// ring (packet_mmap: EINVAL without a ring; n and prot are the ring's), a
// TCP socket's area for zerocopy receive (tcp.Conn.Mmap); a socket
// without mmap is ENODEV (sock_no_mmap).
func (w *World) Mmap(c Call, s *Socket, n int, prot kernel.Prot) Result {
	if s.tcp != nil && !s.closed {
		return w.mmapTCP(c, s, n, prot)
	}
	return w.syscall(c, "mmap", s, func() Result {
		p := packetOf(s)
		if p == nil {
			return fail(kernel.ENODEV)
		}
		return fail(p.Mmap())
	})
}

// mmapTCP is mmap(2) of a TCP socket: vm_mmap_pgoff takes mmap_lock, then
// sock_mmap calls tcp_mmap. The merged tcp_mmap only sets up the area;
// the seed's (Profile.TCPMmapConsumes) takes the socket lock in there to
// map and consume received pages, the lock order lockdep reports against
// every copy to the user made under the socket lock.
func (w *World) mmapTCP(c Call, s *Socket, n int, prot kernel.Prot) Result {
	w.beginOn(s)
	w.Host.Acquire(kernel.MmapLock, "vm_mmap_pgoff", s.Sk.Ident())
	var err kernel.Errno
	if w.Profile().TCPMmapConsumes {
		err = s.tcp.MmapConsume(n, prot, s.lockSock)
		w.releaseSock(s)
	} else {
		err = s.tcp.Mmap(n, prot)
	}
	w.Host.Release(kernel.MmapLock)
	r := fail(err)
	w.record(c, "mmap", s, r)
	return r
}

// Munmap models munmap(2) of the ring or the TCP area: it always
// succeeds; a TCP area's pages lose the mapping's references.
func (w *World) Munmap(c Call, s *Socket) Result {
	return w.syscall(c, "munmap", s, func() Result {
		if s.tcp != nil {
			s.tcp.Munmap()
		}
		if p := packetOf(s); p != nil {
			p.Munmap()
		}
		return ok(0)
	})
}

// TxFrame is the program writing n bytes into TX ring frame i and setting
// its tp_status to TP_STATUS_SEND_REQUEST, through the mapping. It is no
// system call: a step of its own that reports whether the frame was the
// program's to write (a mapped ring, a frame in the ring, not owned by the
// kernel: packet.Ring.Request).
func (w *World) TxFrame(c Call, s *Socket, i, n int) bool {
	done := false
	w.Control(c, "txframe", c.Text, func() {
		// After close the program's mapping may outlive the ring; a write
		// to it reaches no frame the kernel will read.
		if p := packetOf(s); p != nil && p.Mapped() && p.Ring() != nil {
			done = p.Ring().Request(i, n)
		}
	})
	return done
}

// TxStatus is the program reading frame i's tp_status through the
// mapping, as a step whose result is the status (TP_STATUS_AVAILABLE 0,
// SEND_REQUEST 1, SENDING 2, WRONG_FORMAT 4); EINVAL without a mapped ring.
func (w *World) TxStatus(c Call, s *Socket, i int) Result {
	return w.syscall(c, "txstatus", s, func() Result {
		p := packetOf(s)
		if p == nil || !p.Mapped() {
			return fail(kernel.EINVAL)
		}
		return ok(int64(p.Ring().Status(i)))
	})
}

// TxSkew changes a packet socket's per-CPU pending counters as n frames
// sent on its task's CPU and completed on CPU to would have
// (packet.Sock.Skew), without sending any: the shortcut to wrapped
// counters. It reports false for a socket that is not a packet socket.
func (w *World) TxSkew(c Call, s *Socket, n uint32, to int) bool {
	p := packetOf(s)
	w.Control(c, "txskew", c.Text, func() {
		if p != nil {
			p.Skew(n, s.Task.CPU, to)
		}
	})
	return p != nil
}

// Migrate models sched_setaffinity moving task t to CPU cpu: its later
// system calls run there.
func (w *World) Migrate(c Call, t *Task, cpu int) Result {
	return w.syscall(c, "sched_setaffinity", nil, func() Result {
		t.CPU = cpu
		return ok(0)
	})
}

// BindPacket models bind(2) of a packet socket to protocol proto (0
// keeps the socket's) and device dev (nil: every device), through
// packet.Sock.Bind, which skips the unhook when nothing changes. The
// device's ifindex is its place among the world's devices, from 1. Other
// sockets bind as Bind does.
func (w *World) BindPacket(c Call, s *Socket, proto kernel.Protocol, dev *Device) Result {
	return w.syscall(c, "bind", s, func() Result {
		p := packetOf(s)
		if p == nil {
			return ok(0)
		}
		ifindex := 0
		for i, d := range w.devices {
			if d == dev {
				ifindex = i + 1
			}
		}
		if p.Bind(proto, ifindex) {
			w.say(s.Name + ": protocol hook re-registered (unregister_prot_hook, synchronize_net)")
		} else {
			w.say(s.Name + ": same protocol and device: no re-hook")
		}
		return ok(0)
	})
}
