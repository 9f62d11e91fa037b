package sim

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/mm"
	"github.com/zcsim/zcsim/skb"
	"github.com/zcsim/zcsim/ubuf"
)

// defaultGuestGSO is the gso_size a vhost guest's virtio-net header carries
// when the scenario does not say: one Ethernet MSS.
const defaultGuestGSO = 1448

// guestFrag is the size of each guest buffer a vhost skb points at: the
// guest hands its packet over as a scatter list of page-sized pieces.
const guestFrag = kernel.PageSize

// VhostSend models the zerocopy transmit of a vhost-net guest, the one
// sender of legacy ubufs (ubuf.Legacy): handle_tx_zerocopy gives
// tun_sendmsg a ubuf_info whose callback is vhost_zerocopy_callback;
// tun_get_user pins the guest's pages (get_user_pages, so the frags own
// the only references), attaches the ubuf to the skb (skb_zcopy_init, the
// ubuf's one reference moves to the skb) and passes the packet to the host
// stack, which forwards it out of dev as one GSO skb of gso-byte segments.
// Its flags lack SKBFL_DONT_ORPHAN, so every skb_orphan_frags on the way
// (skb_segment for a device without TSO first of all) copies the pages
// (skb_copy_ubufs) and completes the ubuf: the guest may reuse its buffer.
//
// If tun_get_user fails (fault site tun_get_user) the skb is freed, which
// completes the ubuf, and the call fails with EIO. handle_tx_zerocopy's
// error path must then leave the ubuf alone; under kernel.BugLegacyDoublePut
// (B10) it drops the reference again.
func (w *World) VhostSend(c Call, dev *Device, n, gso int) Result {
	if gso <= 0 {
		gso = defaultGuestGSO
	}
	return w.syscall(c, "vhost_send", nil, func() Result {
		holder := kernel.ObjectID{Kind: "vhost_tx", Serial: w.Host.Step}
		u := ubuf.NewLegacy(w.Host, holder)
		b := w.guestSkb(n, u, holder)
		if w.Host.Fail(kernel.FaultTunGetUser) {
			b.Note(kernel.Entry{Op: kernel.OpTunFailed})
			b.Free()
			if w.Profile().Bugs.Has(kernel.BugLegacyDoublePut) {
				u.Complete(holder, false) // B10: vhost_net_ubuf_put again
			}
			w.say(fmt.Sprintf("%v completed by the failed skb's free", u.Ident()))
			return fail(kernel.EIO)
		}
		b.Shinfo().GSOSize = gso
		w.forward(dev, b, gso)
		return ok(int64(n))
	})
}

// guestSkb builds the skb tun_get_user makes of n bytes of guest memory:
// one frag per guest page, each page's one reference owned by its frag,
// and the legacy ubuf attached with holder's reference.
func (w *World) guestSkb(n int, u *ubuf.Info, holder kernel.ObjectID) *skb.Buff {
	b := skb.Alloc(w.Host, 0)
	for left := n; left > 0; left -= guestFrag {
		p := mm.AllocPages(w.Host, 0)
		b.AppendPageFrag(p, 0, min(left, guestFrag))
		p.Put()
	}
	have := true
	b.ZcopySet(u, holder, &have)
	b.Note(kernel.Entry{Op: kernel.OpTunGetUser, Holder: u.Ident(), Args: [4]int64{int64(n)}})
	return b
}

// forward sends a packet that entered the host stack out of dev, as the
// bridge or macvlan does: validate_xmit_skb segments it in software
// (skb_segment) unless the device has TSO, linearizes it for a device
// without scatter-gather, and the device holds each frame until its TX
// completion; a loopback or tun device copies the frags
// (skb_orphan_frags_rx) and frees the frame. Nothing on this host
// receives it.
func (w *World) forward(dev *Device, b *skb.Buff, mss int) {
	frames := []*skb.Buff{b}
	if !dev.TSO && b.Len > mss {
		segs, err := b.Segment(mss)
		if err == 0 {
			b.Free()
			frames = segs
		}
	}
	for _, f := range frames {
		if !dev.SG && f.DataLen > 0 {
			f.Linearize()
		}
		if dev.Kind == NIC {
			w.txComplete(dev, f)
			continue
		}
		f.OrphanFragsRx(kernel.CopyForward)
		f.Free()
	}
}
