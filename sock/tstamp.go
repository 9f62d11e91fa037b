package sock

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/skb"
)

// txRecordMask is SOF_TIMESTAMPING_TX_RECORD_MASK without the hardware
// flag: the transmit timestamps a packet can report.
const txRecordMask = kernel.SOF_TIMESTAMPING_TX_SOFTWARE | kernel.SOF_TIMESTAMPING_TX_SCHED | kernel.SOF_TIMESTAMPING_TX_ACK

// TxFlags models __sock_tx_timestamp: the tx_flags SO_TIMESTAMPING flags
// tsflags ask a packet to carry (TX_SOFTWARE: SKBTX_SW_TSTAMP, TX_SCHED:
// SKBTX_SCHED_TSTAMP).
func TxFlags(tsflags kernel.Timestamping) kernel.SkbTx {
	var f kernel.SkbTx
	if tsflags&kernel.SOF_TIMESTAMPING_TX_SOFTWARE != 0 {
		f |= kernel.SKBTX_SW_TSTAMP
	}
	if tsflags&kernel.SOF_TIMESTAMPING_TX_SCHED != 0 {
		f |= kernel.SKBTX_SCHED_TSTAMP
	}
	return f
}

// WantsTxRecord reports whether SO_TIMESTAMPING flags ask for any
// transmit timestamp (SOF_TIMESTAMPING_TX_RECORD_MASK), the condition
// under which tcp_tx_timestamp sets an skb's tskey.
func WantsTxRecord(tsflags kernel.Timestamping) bool { return tsflags&txRecordMask != 0 }

// SetupTxTimestamp models skb_setup_tx_timestamp for a datagram's packet
// (the first skb of a UDP or RAW datagram, which __ip_append_data gives
// cork->tx_flags; a packet socket's or an IP_HDRINCL packet): b asks for
// the software timestamps of tsflags, the sockcm cookie's (the socket's
// SO_TIMESTAMPING, or a control message's), and, under
// SOF_TIMESTAMPING_OPT_ID,
// takes the next key of sk_tskey. A packet that asks for none takes no
// key, so keys count the datagrams that are timestamped; a call that
// fails never gets here (__ip_append_data gives back the key it held on
// error).
func (s *Sock) SetupTxTimestamp(b *skb.Buff, tsflags kernel.Timestamping) {
	f := TxFlags(tsflags)
	if f == 0 {
		return
	}
	sh := b.Shinfo()
	sh.TxFlags |= f
	if s.Tsflags&kernel.SOF_TIMESTAMPING_OPT_ID != 0 {
		sh.Tskey = s.Tskey
		s.Tskey++
	}
}

// TstampTx models __skb_tstamp_tx and __skb_complete_tx_timestamp for a
// software timestamp of the given kind (SCM_TSTAMP_SCHED, _SND, _ACK) of
// packet b: a record on the error queue, ee_errno ENOMSG, ee_info the
// kind, and under SOF_TIMESTAMPING_OPT_ID ee_data the packet's tskey,
// less sk_tskey on TCP, where the key is a sequence number (0 without
// OPT_ID). It carries a clone of the packet unless OPT_TSONLY; the clone
// shares the packet's frags, which since 50749f2dd685 are copied first
// (skb_orphan_frags_rx), so it holds no uarg reference (bugs B14 and B23
// undo that). The record is charged to sk_rmem_alloc and dropped when
// sock_queue_err_skb refuses it. Which packets are timestamped is decided
// by their tx_flags (and txstamp_ack), not by the socket's flags now.
func (s *Sock) TstampTx(b *skb.Buff, kind uint32) {
	rec := notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING, Errno: notify.ENOMSG, Info: kind}
	if s.Tsflags&kernel.SOF_TIMESTAMPING_OPT_ID != 0 {
		rec.Data = b.Shinfo().Tskey
		if s.Class == kernel.ClassTCP {
			rec.Data -= s.Tskey
		}
	}
	bugs := s.Host().Profile.Bugs
	if s.Tsflags&kernel.SOF_TIMESTAMPING_OPT_TSONLY != 0 {
		rec.Skb = skb.Alloc(s.Host(), 0)
	} else {
		clone, err := b.Clone()
		if err != 0 {
			return
		}
		if !bugs.Has(kernel.BugTstampLeak) && clone.OrphanFragsRx(kernel.CopyTstamp) != 0 {
			if !bugs.Has(kernel.BugTstampCloneLeak) { // B23 returned without kfree_skb
				clone.Free()
			}
			return
		}
		rec.Skb = clone
	}
	rec.Truesize = rec.Skb.Truesize
	if s.QueueErr(rec) != 0 {
		rec.Skb.Free()
	}
}
