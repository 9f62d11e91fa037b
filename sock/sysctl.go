package sock

import (
	"math"
	"slices"

	"github.com/zcsim/zcsim/kernel"
)

// Sysctl holds the per-network-namespace settings the model reads
// (net.core.*, net.ipv4.tcp_*).
type Sysctl struct {
	OptmemMax   int    // net.core.optmem_max
	WmemMax     int    // net.core.wmem_max
	RmemMax     int    // net.core.rmem_max
	WmemDefault int    // net.core.wmem_default
	RmemDefault int    // net.core.rmem_default
	TCPWmem     [3]int // net.ipv4.tcp_wmem: min, default, max
	TCPRmem     [3]int // net.ipv4.tcp_rmem
	// PingGroupRange is net.ipv4.ping_group_range: the groups whose tasks
	// may create ping sockets, "1 0" (none) by default.
	PingGroupRange [2]int
	// TCPFastOpen is net.ipv4.tcp_fastopen, a set of TFO_* bits
	// (include/net/tcp.h): 1, client Fast Open on, by default.
	TCPFastOpen int
	// TCPModerateRcvbuf is net.ipv4.tcp_moderate_rcvbuf: receive-buffer
	// autotuning (tcp_rcv_space_adjust) grows sk_rcvbuf, 1 by default.
	TCPModerateRcvbuf int
	// TCPNotsentLowat is net.ipv4.tcp_notsent_lowat: the unsent bytes
	// above which a TCP socket without TCP_NOTSENT_LOWAT is not writable
	// (tcp_stream_memory_free); UINT_MAX, no limit, by default.
	TCPNotsentLowat uint32
	// TCPTimestamps is net.ipv4.tcp_timestamps, a u8: not 0, a TCP SYN
	// offers the timestamp option and a peer's is taken
	// (tcp_syn_options, tcp_parse_options); 1 by default, 2 the same
	// without the per-connection random offset of TSval, which the model
	// does not keep.
	TCPTimestamps int
	// TCPSack is net.ipv4.tcp_sack, a u8: not 0, a SYN offers SACK
	// permitted and a peer's is taken; 1 by default.
	TCPSack int
	// MPTCPEnabled is net.mptcp.enabled, a u8 of 0 or 1: 0 makes
	// socket(IPPROTO_MPTCP) ENOPROTOOPT (mptcp_init_sock); 1 by
	// default.
	MPTCPEnabled int
	// Somaxconn is net.core.somaxconn: __sys_listen passes at most this
	// backlog on (a negative one, taken unsigned, becomes it too), and
	// fastopen_queue_tune caps a Fast Open queue at it.
	Somaxconn int
	// TCPAbortOnOverflow is net.ipv4.tcp_abort_on_overflow: when not 0,
	// the ACK that would complete a handshake while the listener's accept
	// queue is full is answered with a RST (tcp_check_req's
	// listen_overflow), not dropped. 0 by default.
	TCPAbortOnOverflow int
	// TCPCongestion is net.ipv4.tcp_congestion_control, the namespace's
	// default congestion control (net->ipv4.tcp_congestion_control), which
	// a new TCP socket takes (tcp_assign_congestion_control); the
	// profile's boot default in a fresh namespace.
	TCPCongestion kernel.Congestion
	// TCPAllowedCongestion is net.ipv4.tcp_allowed_congestion_control:
	// the congestion controls with TCP_CONG_NON_RESTRICTED, which a task
	// without CAP_NET_ADMIN may choose. tcp_reno has it from the start,
	// and tcp_set_default_congestion_control gives it to each one made a
	// default, for good: reno and the boot default at first ("reno bbr"
	// on the calibrated 6.18).
	TCPAllowedCongestion []kernel.Congestion
	// TCPEarlyRetrans is net.ipv4.tcp_early_retrans, 0 to 4: 3 (the
	// default) and 4 let tcp_schedule_loss_probe arm the tail loss probe.
	TCPEarlyRetrans int
	// TCPSynRetries is net.ipv4.tcp_syn_retries, 1 to 127: how long a
	// connect waits for an answer to its SYN (tcp_write_timeout), 6 by
	// default; TCPSynLinearTimeouts is net.ipv4.tcp_syn_linear_timeouts,
	// the retransmissions before the SYN's timeout starts doubling
	// (Profile.SynLinearTimeouts).
	TCPSynRetries, TCPSynLinearTimeouts int
	// TCPRetries2 is net.ipv4.tcp_retries2, a u8, 15 by default: the
	// retransmission timer gives a connection up once tcp_model_timeout
	// of it has passed since the first retransmission
	// (retransmits_timed_out), and the probe timer once that many
	// zero-window probes went unanswered; it also caps the probes'
	// backoff.
	TCPRetries2 int
	// TCPOrphanRetries is net.ipv4.tcp_orphan_retries, a u8, 0 by
	// default: an orphan's limit instead (tcp_orphan_retries), where 0
	// means 8 while its backed-off RTO is below TCP_RTO_MAX.
	TCPOrphanRetries int
	// TCPRtoMaxMs is net.ipv4.tcp_rto_max_ms, 1000 to 120000, 120000 by
	// default: a new TCP socket's icsk_rto_max (tcp_init_sock), which
	// TCP_RTO_MAX_MS changes (Profile.TCPRtoMaxOpt, v6.15).
	TCPRtoMaxMs int
	// TCPInvalidRatelimitMs is net.ipv4.tcp_invalid_ratelimit, 0 to
	// INT_MAX milliseconds, 500 by default, kept in jiffies
	// (proc_dointvec_ms_jiffies: a write rounds up to a whole jiffy): the
	// least time between two answers to segments out of the window
	// (tcp_oow_rate_limited).
	TCPInvalidRatelimitMs int
}

// SetCongestionDefault models a write of net.ipv4.tcp_congestion_control
// (tcp_set_default_congestion_control): c becomes the namespace's default
// and is unrestricted from then on.
func (n *Sysctl) SetCongestionDefault(c kernel.Congestion) {
	n.TCPCongestion = c
	if !slices.Contains(n.TCPAllowedCongestion, c) {
		n.TCPAllowedCongestion = append(n.TCPAllowedCongestion, c)
	}
}

// The bits of net.ipv4.tcp_fastopen the model reads.
const (
	TFOClientEnable        = 0x1   // TFO_CLIENT_ENABLE: MSG_FASTOPEN connects
	TFOServerEnable        = 0x2   // TFO_SERVER_ENABLE: listeners grant cookies
	TFOClientNoCookie      = 0x4   // TFO_CLIENT_NO_COOKIE: data in the SYN without a cookie
	TFOServerCookieNotReqd = 0x200 // TFO_SERVER_COOKIE_NOT_REQD: a listener takes SYN data without a cookie
	TFOServerWoSockopt     = 0x400 // TFO_SERVER_WO_SOCKOPT1: every listener does Fast Open, TCP_FASTOPEN or not
)

// DefaultSysctl returns the settings of a fresh namespace under profile p.
func DefaultSysctl(p *kernel.Profile) *Sysctl {
	return &Sysctl{
		OptmemMax:   p.OptmemMax,
		WmemMax:     212992,
		RmemMax:     212992,
		WmemDefault: 212992,
		RmemDefault: 212992,
		TCPWmem:     [3]int{4096, 16384, 4194304},
		TCPRmem:     [3]int{4096, 131072, p.TCPRmemMax},

		PingGroupRange: [2]int{1, 0},
		TCPFastOpen:    TFOClientEnable,

		TCPModerateRcvbuf: 1,
		TCPNotsentLowat:   math.MaxUint32,
		TCPTimestamps:     1,
		TCPSack:           1,
		MPTCPEnabled:      1,
		TCPEarlyRetrans:   3,
		Somaxconn:         p.Somaxconn,
		TCPCongestion:     p.TCPCongestion,

		TCPAllowedCongestion: []kernel.Congestion{kernel.CongestionReno, p.TCPCongestion},

		TCPSynRetries:        6,
		TCPSynLinearTimeouts: p.SynLinearTimeouts,

		TCPRetries2:           15,
		TCPRtoMaxMs:           120000,
		TCPInvalidRatelimitMs: 500,
	}
}

// Minimum buffer sizes (SOCK_MIN_SNDBUF, SOCK_MIN_RCVBUF in
// include/net/sock.h): room for a couple of small skbs.
const (
	MinSndbuf = 2 * (2048 + 256)
	MinRcvbuf = 2048 + 256
)
