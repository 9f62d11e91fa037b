package tcp

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/engine"
	"github.com/zcsim/zcsim/sock"
)

// Info is what getsockopt(TCP_INFO) reports of a connection that the
// model knows exactly (tcp_get_info): its fields by their struct
// tcp_info names (kernel.TCPInfoFields). The rest of the struct — times, RTT,
// rates, rcv_mss and the other estimates — hangs on wall-clock time the
// scenario does not show, and the model does not offer it.
type Info map[string]uint64

// TCPI_OPT_* bits of tcpi_options.
const (
	tcpiOptTimestamps = 1
	tcpiOptSack       = 2
	tcpiOptWscale     = 4
)

// Info models tcp_get_info for a buffer of n bytes (optlen, at most
// kernel.TCPInfoSize copied): the fields that fit. Every state reports tcpi_state
// and tcpi_snd_cwnd; a listener nothing else the model offers (the
// kernel's tcpi_unacked is then its accept queue, which the listener's
// owner keeps). tcpi_options has TCPI_OPT_TIMESTAMPS, SACK and WSCALE as
// the handshake agreed them (none before one; the model has no ECN and
// leaves out TCPI_OPT_SYN_DATA, a Fast Open SYN's data acknowledged);
// tcpi_rcv_wscale is this end's window scale when both scale; tcpi_snd_mss
// the MSS (mss_cache, TCP_MSS_DEFAULT before a handshake); tcpi_unacked
// the segments sent and not acknowledged (packets_out);
// tcpi_bytes_received the sequence space received, the FIN included
// (tcp_rcv_nxt_update: rcv_nxt, which a FIN advances too); tcpi_notsent_bytes write_seq - snd_nxt;
// tcpi_delivered tp->delivered, the SYN or SYN-ACK counted once a
// handshake completed; tcpi_probes icsk_probes_out and tcpi_backoff
// icsk_backoff (the persist timer's, probeTimer, and the RTO's);
// tcpi_rto icsk_rto in µs (TCP_TIMEOUT_INIT before a handshake, then
// tcp_set_rto's). Measured on Linux 6.18 over loopback: options 7,
// rcv_wscale 10, snd_mss 32741 after connect, cwnd 10, delivered 1;
// before connect options 0, snd_mss 536, delivered 0
// (probe/testdata/tcp-info.zcs).
func (c *Conn) Info(n int) Info {
	all := map[string]uint64{"tcpi_state": uint64(c.Sk.State), "tcpi_snd_cwnd": uint64(c.cwnd)}
	switch {
	case c.Sk.State == sock.LISTEN:
	case !c.connected:
		for k, v := range map[string]uint64{"tcpi_options": 0, "tcpi_rcv_wscale": 0, "tcpi_snd_mss": tcpMSSDefault,
			"tcpi_unacked": 0, "tcpi_total_retrans": 0, "tcpi_bytes_received": 0, "tcpi_notsent_bytes": 0, "tcpi_delivered": 0,
			"tcpi_rto": c.rtoUs()} {
			all[k] = v
		}
	default:
		c.connectedInfo(all)
	}
	out := Info{}
	for _, f := range kernel.TCPInfoFields {
		if v, ok := all[f.Key]; ok && f.Offset+f.Size <= min(n, kernel.TCPInfoSize) {
			out[f.Key] = v
		}
	}
	return out
}

// connectedInfo fills in what a connection's handshake and traffic set.
func (c *Conn) connectedInfo(all map[string]uint64) {
	var opts, wscale uint64
	if c.neg.ts {
		opts |= tcpiOptTimestamps
	}
	if c.neg.sack {
		opts |= tcpiOptSack
	}
	if !c.neg.noWscale {
		opts |= tcpiOptWscale
		wscale = uint64(c.rw.wscale)
	}
	unacked := 0
	for _, seg := range c.rtx {
		unacked += c.pcount(seg)
	}
	all["tcpi_options"], all["tcpi_rcv_wscale"] = opts, wscale
	all["tcpi_snd_mss"], all["tcpi_unacked"] = uint64(c.MSS()), uint64(unacked)
	all["tcpi_total_retrans"], all["tcpi_bytes_received"] = uint64(c.totalRetrans), uint64(c.rcvNxt)
	all["tcpi_notsent_bytes"], all["tcpi_delivered"] = uint64(c.writeSeq-c.sndNxt), uint64(c.delivered)
	all["tcpi_probes"], all["tcpi_backoff"] = uint64(c.t.probes), uint64(c.t.backoff)
	all["tcpi_rto"] = c.rtoUs()
}

// rtoUs is tcpi_rto: jiffies_to_usecs(icsk_rto).
func (c *Conn) rtoUs() uint64 { return uint64(c.rto() / engine.Microsecond) }
