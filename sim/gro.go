package sim

// GRO on the receive side of a NIC's link (Device.GRO), for TCP frames.
//
// A frame a NIC transmits with TSO is one skb of many MSS-sized wire
// segments. The receiving host's driver hands each wire segment to
// napi_gro_receive → dev_gro_receive → tcp_gro_receive, which merges an
// in-order segment of the same flow into the packet it holds
// (skb_gro_receive) and hands the held packet up to tcp_v4_rcv when the
// flow's next segment does not fit or napi_gro_flush ends the NAPI poll.
// So TCP's receive side, and its ACK policy (__tcp_ack_snd_check), runs
// once per merged packet. Without GRO it runs once per wire segment.
//
// The batch one NAPI poll delivers is, under an assumption the kernel
// does not fix (it depends on interrupt coalescing and the NAPI budget):
// the frames one socket put on the link at one instant of virtual time,
// which arrive back to back one link delay later, as one delivery event.
// Within it tcp_gro_receive's rules hold, segment by segment:
//
//   - a segment joins the held packet if it starts where the packet ends,
//     is no longer than the packet's first segment (its gso_size) and the
//     packet with it and its IP and TCP headers stays below gro_max_size,
//     64 KiB (skb_gro_receive's -E2BIG); otherwise the held packet is
//     flushed and the segment starts the next;
//   - a segment shorter than the packet's gso_size, or with PSH or FIN,
//     ends the packet it joined or started (tcp_gro_receive's
//     out_check_final);
//   - a segment without payload is never held;
//   - napi_gro_flush hands up what is held when the batch ends.

// groMaxSize is GRO_LEGACY_MAX_SIZE, a device's default gro_max_size.
const groMaxSize = 65536

// groBatch is the frames s put on the link at one instant (at), which
// arrive as one delivery event.
type groBatch struct {
	at     int64
	frames []frame
}

// groQueue adds f to the batch s is putting on the link now, scheduling
// the batch's delivery when f is its first frame.
func (w *World) groQueue(s *Socket, f frame) {
	if b := s.gro; b != nil && b.at == int64(w.Now()) {
		b.frames = append(b.frames, f)
		return
	}
	b := &groBatch{at: int64(w.Now()), frames: []frame{f}}
	s.gro = b
	to := s.Peer
	w.after(s.Dev.Delay, "deliver", "deliver to "+to.Name, func(e *Event) {
		if s.gro == b {
			s.gro = nil
		}
		w.napiPoll(to, s.Dev.GRO, b.frames, e)
	})
}

// napiPoll models one NAPI poll of the receiving host bringing frames to
// r: each packet groPackets makes of them reaches tcp_v4_rcv (arrive). The
// first packet's is the step's event (written to *e, zero on entry), the
// others' follow.
func (w *World) napiPoll(r *Socket, gro bool, frames []frame, e *Event) {
	up := groPackets(frames, gro, r.Sk.IPHeaderLen()+r.tcp.HeaderLen())
	w.arrive(arrival{kind: arriveFrame, to: r, f: up[0]}, e)
	for _, f := range up[1:] {
		w.runNarrated((*World).arrive, arrival{kind: arriveFrame, to: r, f: f})
	}
}

// groPackets cuts the frames of one NAPI poll into their wire segments
// and returns the packets that go up: with gro, what tcp_gro_receive
// merges of them (the rules above; hdr is the IP and TCP header length),
// without, each segment alone. A packet of more than one segment has its
// gso_size.
func groPackets(frames []frame, gro bool, hdr int) []frame {
	var up []frame
	var held *frame
	flush := func() {
		if held != nil {
			up = append(up, *held)
			held = nil
		}
	}
	for _, f := range frames {
		for _, seg := range wireSegments(f) {
			if !gro || seg.len == 0 {
				flush()
				up = append(up, seg)
				continue
			}
			if held != nil && seg.seq == held.endSeq && seg.len <= held.gso && hdr+held.len+seg.len < groMaxSize {
				held.len += seg.len
				held.endSeq, held.push, held.fin = seg.endSeq, seg.push, seg.fin
			} else {
				flush()
				seg.gso = seg.len
				held = &seg
			}
			if seg.len < held.gso || seg.push || seg.fin {
				flush()
			}
		}
	}
	flush() // napi_gro_flush
	for i := range up {
		if up[i].gso >= up[i].len {
			up[i].gso = 0 // one segment: not a GSO packet
		}
	}
	return up
}

// wireSegments cuts a TSO frame into the segments the NIC puts on the
// wire, gso bytes each and the rest last; PSH and FIN are on the last.
func wireSegments(f frame) []frame {
	if f.gso == 0 || f.len <= f.gso {
		f.gso = 0
		return []frame{f}
	}
	segs := make([]frame, 0, (f.len+f.gso-1)/f.gso)
	for off := 0; off < f.len; off += f.gso {
		n := min(f.gso, f.len-off)
		seq := f.seq + uint32(off)
		segs = append(segs, frame{len: n, seq: seq, endSeq: seq + uint32(n)})
	}
	last := &segs[len(segs)-1]
	last.endSeq, last.push, last.fin = f.endSeq, f.push, f.fin
	return segs
}
