package kernel

import (
	"fmt"
	"reflect"
)

// Knob describes one field of Profile for people: its name and a one-line
// summary of what it controls and which kernel change set it. The field's
// doc comment in Profile is the full story; this line is what `zcsim
// profiles` prints next to a value.
type Knob struct {
	Name string
	Doc  string
}

// knobDocs summarizes each knob of Profile, in declaration order.
var knobDocs = []Knob{
	{"Kernel", "the mainline release the kernel is or is based on, which decides the sysctls it has (tcp_rto_max_ms from v6.15)"},
	{"OptIn", "MSG_ZEROCOPY needs SO_ZEROCOPY first (v4.14, 76851d1212c1); the RFC had no option"},
	{"ZerocopyClasses", "socket classes with MSG_ZEROCOPY: TCP v4.14, RDS v4.17, UDP v5.0 (b5947e5d1e71), vsock v6.7; RFC also RAW, packet"},
	{"OptRefusal", "errno of SO_ZEROCOPY on other sockets: ENOTSUPP until the sk_is_tcp rework, EOPNOTSUPP in v6.x"},
	{"OptClosedOnly", "SO_ZEROCOPY only in TCP_CLOSE, else EBUSY (v4.14; lifted in v5.0)"},
	{"UargByteLimit", "msg_zerocopy_realloc's byte cap per uarg, 512 KiB since the RFC v2"},
	{"UargLenLimit", "calls per uarg, USHRT_MAX-1"},
	{"UargByteUnit", "unit of UargByteLimit's count: whole KiB per call in the RFC (kbytelen), bytes since v4.14"},
	{"OptmemMax", "default net.core.optmem_max: 20480 until v6.7, 131072 from v6.8"},
	{"OmallocTruesize", "optmem charged per uarg or unread notification (832 measured on 6.18)"},
	{"OmallocEstimate", "SKB_TRUESIZE(0), what sock_omalloc's admission test adds (576)"},
	{"MemlockDefault", "default RLIMIT_MEMLOCK: 64 KiB, 8 MiB from v5.16 (9dcc38e2813e)"},
	{"MemlockInfinityExempt", "RLIM_INFINITY skips locked-page accounting (after v4.14)"},
	{"CopiedCode", "notifications carry SO_EE_CODE_ZEROCOPY_COPIED (v4.14); the RFC's have no ee_code"},
	{"NotifyDeadSocket", "a dead socket's notification is still queued (RFC v2); freed since v4.14"},
	{"TCPPurgeErrQueue", "destroying a closed TCP connection purges its error queue (sk_stream_kill_queues, v6.1, e0c8bccd40fc); before, only sk_destruct did"},
	{"NotifyMergeEnd", "error-queue end a notification may extend: head in the RFC, tail since 4ab6c99d99bb"},
	{"CopyUbufsHighOrder", "skb_copy_ubufs uses compound pages that fit MAX_SKB_FRAGS (v6.4, 7e692df39336)"},
	{"CopyUbufsKeepPrivate", "skb_copy_ubufs keeps frags whose page has no other reference (RFC v2); copies all since v4.14"},
	{"PureZerocopy", "SKBFL_PURE_ZEROCOPY skbs are not charged to sk_forward_alloc (v5.16, 9b65b17db723)"},
	{"ZerocopyCombinePages", "a zerocopy page chunk continuing the last frag in its (compound) page extends it, across iovecs too (v5.10); before, one frag per base page chunk"},
	{"TCPLinear", "linear bytes of a new zerocopy TCP skb (bug B18): 1408 in v4.14 to v4.17; 0 in the RFC and since v4.18"},
	{"TCPZerocopyNeedsSG", "TCP takes a uarg only on a scatter-gather route (RFC v2); since v4.14 it takes one and marks it copied"},
	{"TCPZerocopyWaitRetry", "TCP allocates the uarg after the state checks and retries once after sk_stream_wait_memory (RFC v2, R4)"},
	{"TCPZerocopyStateCheck", "MSG_ZEROCOPY on a TCP socket not ESTABLISHED is EINVAL (v4.14 to v5.4; f859a4484703)"},
	{"TCPZerocopyCloseWait", "that state check lets CLOSE_WAIT through (13d7f46386e0)"},
	{"TCPScalingRatio", "receive window = free rcvbuf × measured len/truesize (v6.6, dfa2f0483360); half of it before"},
	{"TCPRcvbufGrow", "receive-buffer autotuning (tcp_rcv_space_adjust): steps of 2·copied+16·advmss in v4.14, smooth growth in rcvmem per advmss from v4.16, tcp_rcvbuf_grow's window less the queue from v6.16"},
	{"TCPHeadroom", "MAX_TCP_HEADER bytes counted in a TCP skb's head truesize: 256 on 6.18 (832-byte heads, measured), 0 before"},
	{"SkbSmallHead", "skb heads up to SKB_SMALL_HEAD_CACHE_SIZE come from skb_small_head_cache (v6.3, bf9f1baa279f): 576 measured on 6.18, 0 before"},
	{"HdrinclMinIHL", "raw_send_hdrinc refuses an ihl below 5 with EINVAL (in 6.1's source, measured on 6.18); v4.14 sends it unfixed"},
	{"TCPRmemMax", "default tcp_rmem[2], which sets the window scale: 6 MiB (scale 7), 32 MiB on 6.18 (scale 10, measured)"},
	{"Somaxconn", "default net.core.somaxconn, listen's most backlog: 128, 4096 from v5.4 (19f92a030ca6; measured on 6.18)"},
	{"SynLinearTimeouts", "SYN retransmissions at TCP_TIMEOUT_INIT before backoff doubles: 0, 4 from v6.5 (ccce324dabfe; measured on 6.18)"},
	{"TCPPushedAtMSS", "a PSH segment exactly rcv_mss long marks the delayed ACK pushed, so a draining read ACKs (v6.14; measured on 6.18)"},
	{"TCPSynDataFrag", "a Fast Open SYN's data goes into the page frag, up to its room (32768 measured on 6.18); 3456 linear bytes in 6.1's source"},
	{"TCPGrowSkb", "tcp_write_xmit grows the head skb with the next one's payload up to the cwnd quota (tcp_grow_skb, v6.10; measured on 6.18)"},
	{"TCPZerocopyRecv", "sizeof(struct tcp_zerocopy_receive): 0 before v4.18 (no tcp_mmap), 16 in v4.18 (05255b823a61), 24 in v5.7 (inq, err), 40 in v5.11 (copybuf, flags), 64 in v5.12 (msg_control: receive timestamps; reserved)"},
	{"TCPCongestion", "the boot default congestion control, which a fresh namespace and its sockets take and which is unrestricted: cubic (the kernel's default since v2.6.19), bbr on the calibrated 6.18 machine (window growth, 3 windows of send buffer)"},
	{"UnixDgramPeerLast", "an unconnected AF_UNIX datagram send says EMSGSIZE and EPIPE before ENOTCONN (measured on 6.18; 6.1 looks for the peer first)"},
	{"OrphanRxAtLocalDeliver", "skb_orphan_frags_rx runs in ip_local_deliver_finish after ip_defrag, not in __netif_receive_skb_core (6.1's source): a fragmented zerocopy IPv4 datagram over loopback is notified once read (measured on 6.18)"},
	{"TCPMmapConsumes", "the seed's tcp_mmap: mmap() maps and consumes received pages, socket lock inside mmap_sem (April 2018, replaced by 05255b823a61)"},
	{"DgramZerocopyPagedOnly", "datagrams take a uarg only when the payload can use frags (RFC); v5.0 copies with the uarg"},
	{"AbortDropsNewUarg", "an aborted corked append drops a uarg it allocated beside the tail's (RFC's sock_zerocopy_put_abort)"},
	{"UDPSegment", "the UDP_SEGMENT option exists (v4.18, bec1f6f69736)"},
	{"TCPCmsgErrno", "TCP fails a refused control message with its errno (v6.16; EPERM measured on 6.18), EINVAL before"},
	{"MPTCP", "IPPROTO_MPTCP sockets exist (v5.6); before, IPPROTO_MAX is 256 and protocol 262 EINVAL"},
	{"GSOMaxSize", "largest device gso_max_size: 64 KiB, 512 KiB since BIG TCP (v5.19, 7c4e983c4f3c)"},
	{"HZ", "CONFIG_HZ, to which TCP's jiffy timers round: 250"},
	{"TCPLossProbe", "tail loss probe timeout: 2·srtt with a 10ms floor (v3.10), plus 2 jiffies (v4.13, bb4d991a28cc), plus 2ms (v6.6, 1c2709cfff1d); with one packet out plus TCP_RTO_MIN"},
	{"TCPRtoMaxOpt", "TCP_RTO_MAX_MS sets a socket's maximum RTO, which caps the RTO and the zero-window probes (v6.15); TCP_RTO_MAX before"},
	{"ListenStopRefusesConnect", "connect, and MSG_FASTOPEN, on a listener a shutdown stopped is EINVAL until it listens again (measured on 6.18; the 6.1 source connects)"},
	{"UDPRcvbufCountsSkb", "UDP drops a datagram that would take sk_rmem_alloc past sk_rcvbuf unless the queue is empty (v6.18); before, only once sk_rmem_alloc is past it"},
	{"ZcCmsg", "sendmsg takes SCM_ZC_NOTIFICATION and returns completions in a zc_info (v7 series, not merged)"},
	{"Bugs", "historical bugs switched on (zcsim bugs lists them)"},
}

// Knobs returns every knob of Profile with its summary, in declaration
// order; Name and Describe are not knobs.
func Knobs() []Knob { return append([]Knob(nil), knobDocs...) }

// KnobValue renders the value of the named knob of p as `zcsim profiles`
// prints it, and false if p has no such knob.
func (p *Profile) KnobValue(name string) (string, bool) {
	if name == "Bugs" {
		return fmt.Sprint(p.Bugs.Sorted()), true
	}
	f := reflect.ValueOf(*p).FieldByName(name)
	if !f.IsValid() || name == "Name" || name == "Describe" {
		return "", false
	}
	return fmt.Sprint(f.Interface()), true
}

// KnobDiff is one knob whose value differs between two profiles.
type KnobDiff struct {
	Knob
	A, B string
}

// Diff lists the knobs whose values differ between profiles a and b, in
// declaration order.
func Diff(a, b *Profile) []KnobDiff {
	var out []KnobDiff
	for _, k := range knobDocs {
		va, _ := a.KnobValue(k.Name)
		vb, _ := b.KnobValue(k.Name)
		if va != vb {
			out = append(out, KnobDiff{Knob: k, A: va, B: vb})
		}
	}
	return out
}
