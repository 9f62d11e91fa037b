package sim

// Work counts the packets this host's kernel handled below the socket
// calls, which no object history records: a cost model (package cost)
// charges each. "This host" is every socket but an implicit peer across
// a NIC or tun device, which stands for another machine (Socket.Far).
//
// The zero value is a run that handled no packet.
type Work struct {
	// TxFrames counts the frames a socket of this host put on a device
	// (dev_queue_xmit to the driver's ndo_start_xmit), after software
	// segmentation: a TSO skb is one frame.
	TxFrames int64
	// RxFrames counts the frames a socket of this host received
	// (__netif_receive_skb_core, ip_rcv, tcp_v4_rcv or udp_rcv).
	RxFrames int64
	// RxReadBytes counts the payload bytes of those frames that an
	// auto-reading peer copied to its user (tcp_recvmsg,
	// skb_copy_datagram_iter).
	RxReadBytes int64
	// Acks counts the TCP ACKs this host handled: built and sent by a
	// receiver of this host (tcp_send_ack, __tcp_ack_snd_check), and
	// processed by a sender of this host (tcp_ack). Over loopback each
	// ACK counts twice, once at each end.
	Acks int64
}

// Far reports whether s stands for a socket on another machine: the
// implicit peer of a socket whose device is a NIC or a tun (the guest
// behind it). Its work is not this host's.
func (s *Socket) Far() bool { return s.implicit && s.Dev != nil && s.Dev.Kind != Loopback }

// Work returns the packet work of this host so far; Event.Work is a
// step's share.
func (w *World) Work() Work { return w.work }

// since is the work done after before.
func (k Work) since(before Work) Work {
	return Work{TxFrames: k.TxFrames - before.TxFrames, RxFrames: k.RxFrames - before.RxFrames,
		RxReadBytes: k.RxReadBytes - before.RxReadBytes, Acks: k.Acks - before.Acks}
}
