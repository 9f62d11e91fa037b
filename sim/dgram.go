package sim

import (
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/packet"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/udp"
)

// dgram is a datagram socket: its send path if it sends (udp for UDP and
// RAW, pkt for PF_PACKET), and the datagrams it received and has not read.
type dgram struct {
	udp *udp.Sock
	pkt *packet.Sock
	rx  []datagram
	// frags holds the IP fragments of a datagram being reassembled.
	frags []*skb.Buff
}

// datagram is a received datagram: the skb that completed it and its
// length after reassembly.
type datagram struct {
	skb *skb.Buff
	len int
}

func (d *dgram) queued() []*skb.Buff {
	out := append([]*skb.Buff(nil), d.frags...)
	for _, g := range d.rx {
		out = append(out, g.skb)
	}
	return out
}

// receive models ip_defrag, then udp_rcv_segment and __udp_queue_rcv_skb
// → sock_queue_rcv_skb: fragments wait until the last one completes the
// datagram; a GSO datagram the device sent whole is cut into its
// segments; each datagram is charged to sk_rmem_alloc and queued, or
// dropped when the receive buffer is full.
func (d *dgram) receive(w *World, r *Socket, f frame) string {
	b := f.skb
	if f.moreFrags {
		d.frags = append(d.frags, b)
		return fmt.Sprintf("%s receives an IP fragment of %d bytes", r.Name, b.Len)
	}
	n := b.Len
	for _, frag := range d.frags {
		n += frag.Len
		frag.Free()
	}
	d.frags = nil
	if f.gso == 0 || n <= f.gso {
		return d.queue(w, r, b, n)
	}
	b.Free()
	var texts []string
	for off := 0; off < n; off += f.gso {
		seg := min(f.gso, n-off)
		sb := skb.Alloc(w.Host, seg)
		sb.AppendLinear(seg)
		texts = append(texts, d.queue(w, r, sb, seg))
	}
	return strings.Join(texts, "; ")
}

// queue charges one datagram of n bytes in b to the receiver and queues it.
func (d *dgram) queue(w *World, r *Socket, b *skb.Buff, n int) string {
	sk := r.Sk
	if sk.RmemAlloc+b.Truesize > sk.Rcvbuf {
		b.Free()
		return fmt.Sprintf("%s: receive buffer full, datagram of %d bytes dropped", r.Name, n)
	}
	sk.RmemAlloc += b.Truesize
	b.SetOwner(sk, skb.SockRfree)
	d.rx = append(d.rx, datagram{b, n})
	if r.Dev.Kind == Loopback {
		w.Monitor.RxQueued(sk, b)
	}
	if r.autoRead {
		d.recv(1 << 30)
	}
	return fmt.Sprintf("%s receives a datagram of %d bytes", r.Name, n)
}

// recv models udp_recvmsg: one datagram, truncated to n; EAGAIN if none.
func (d *dgram) recv(n int) (int, kernel.Errno) {
	if len(d.rx) == 0 {
		return 0, kernel.EAGAIN
	}
	g := d.rx[0]
	d.rx = d.rx[1:]
	g.skb.Free()
	return min(n, g.len), 0
}

// purge frees unread datagrams when the socket closes.
func (d *dgram) purge() {
	for _, b := range d.queued() {
		b.Free()
	}
	d.rx, d.frags = nil, nil
}
