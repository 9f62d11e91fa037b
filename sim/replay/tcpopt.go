package replay

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/strace"
)

// optBuf is the buffer a setsockopt or getsockopt passed: optlen as the
// program gave it, and whether optval was NULL.
func optBuf(o *strace.SockOpt) sim.Optval {
	return sim.Optval{Len: int(o.BufLen), Null: o.Value.Text == "NULL"}
}

// bufName reads the name a TCP_CONGESTION buffer holds, up to its first
// NUL: strace prints the buffer as a string of optlen bytes ("reno\0"),
// or, when optlen is 4, as an int ([1869505906]: the four bytes,
// little-endian on x86-64). ok is false when strace printed the
// buffer's address instead.
func bufName(v strace.OptValue) (string, bool) {
	b := v.Str
	switch {
	case v.HasStr:
	case v.HasInt:
		b = string(binary.LittleEndian.AppendUint32(nil, uint32(v.Int)))
	default:
		return "", false
	}
	if i := strings.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return b, true
}

// congestion replays setsockopt and getsockopt of TCP_CONGESTION
// (World.SetsockoptName, World.GetsockoptName): a name the kernel has
// not (tcp_ca_find: ENOENT; the model knows kernel.Congestions), one
// not allowed without CAP_NET_ADMIN (EPERM), an optlen that cuts the
// name short, a getsockopt buffer shorter than the name. A getsockopt
// is compared on the name the buffer holds up to its first NUL.
func (r *replayer) congestion(o *strace.SockOpt, e *fdEntry) {
	opt := kernel.TCP_CONGESTION
	obs := o.Result.String()
	if !o.Get {
		name, ok := bufName(o.Value)
		text := fmt.Sprintf("setsockopt(%d, TCP_CONGESTION, %q, %d)", o.Fd, name, o.BufLen)
		if !ok && o.Value.Text != "NULL" {
			r.add(&o.Header, o.Fd, e.s.Name, fmt.Sprintf("setsockopt(%d, TCP_CONGESTION, %s, %d)", o.Fd, o.Value.Text, o.BufLen), obs, notReplayed,
				"strace printed the buffer's address, not the name in it", Undetermined)
			return
		}
		res := r.w.SetsockoptName(r.call(&o.Header, text), e.s, opt, name, optBuf(o))
		r.compare(&o.Header, o.Fd, e.s.Name, text, obs, res.String(), "")
		return
	}
	text := fmt.Sprintf("getsockopt(%d, TCP_CONGESTION, %d)", o.Fd, o.BufLen)
	res := r.w.GetsockoptName(r.call(&o.Header, text), e.s, opt, optBuf(o))
	pred := res.String()
	if res.Name != nil {
		pred = fmt.Sprintf("0 %q", *res.Name)
	}
	if o.Result.Kind != strace.ResultValue {
		r.compare(&o.Header, o.Fd, e.s.Name, text, obs, pred, "")
		return
	}
	name, ok := bufName(o.Value)
	if !ok && o.Len == 0 {
		name, ok = "", true // nothing copied: strace shows the address
	}
	if !ok {
		r.add(&o.Header, o.Fd, e.s.Name, text, obs, pred, "strace printed the buffer's address, not the name the kernel wrote", Undetermined)
		return
	}
	r.compare(&o.Header, o.Fd, e.s.Name, text, fmt.Sprintf("0 %q", name), pred, "")
}

// infoField is a struct tcp_info field the replay compares, as the
// report names it.
type infoField struct {
	kernel.TCPInfoField
	name string
}

// sndWscale is tcpi_snd_wscale, the low half of the byte whose high half
// is tcpi_rcv_wscale.
var sndWscale = kernel.TCPInfoField{Key: "tcpi_snd_wscale", Offset: 6, Size: 1, Bits: 4}

// infoFields are the fields the model offers (kernel.TCPInfoFields but
// tcpi_rto, which hangs on the log's RTT samples of wall-clock time, and
// tcpi_snd_wscale, which the far end's tcpi_rcv_wscale gives), in the
// struct's order.
var infoFields = func() []infoField {
	var out []infoField
	for _, f := range kernel.TCPInfoFields {
		if f.Key == "tcpi_rto" {
			continue
		}
		out = append(out, infoField{f, strings.TrimPrefix(f.Key, "tcpi_")})
		if f.Key == "tcpi_rcv_wscale" {
			out = append(out, infoField{sndWscale, "snd_wscale"})
		}
	}
	return out
}()

// infoNotCompared names what strace's 32 bytes show that the model does
// not keep: tcpi_ca_state, tcpi_retransmits, the delivery-rate and Fast
// Open bits, tcpi_rto, tcpi_ato, tcpi_rcv_mss and tcpi_sacked, which
// hang on RTT samples, ACK timing and the sizes of segments received.
const infoNotCompared = "not in the model: ca_state, retransmits, app_limited, rto, ato, rcv_mss, sacked"

// tcpInfo replays getsockopt(TCP_INFO) (World.GetsockoptBuf, tcp_get_info)
// and compares the fields the model offers that the log shows: strace
// prints the struct as bytes, cut at -s (32 by default: through
// tcpi_sacked), so of the model's fields it shows tcpi_state,
// tcpi_probes, tcpi_backoff, tcpi_options, tcpi_snd_wscale and
// tcpi_rcv_wscale, tcpi_snd_mss and tcpi_unacked; the written optlen is
// compared too. Options, window scales and MSS are the handshake's; the
// state and the segments in flight hang on when the peer's ACKs came,
// tcpi_probes and tcpi_backoff on when timers fired (the persist timer,
// the RTO, which the kernel sets from RTT samples of wall-clock time).
// What differs is guided like a poll:
//
//   - more segments in flight in the kernel (tcpi_unacked), or fewer
//     timer expiries: the peer's ACKs, or the timers, had not come yet;
//     so far the model's connection sent the segments (tcpi_delivered
//     counts those acknowledged, and the SYN).
//   - otherwise the model's pending work runs ahead (runAhead) until the
//     fields agree; when it cannot, a state or a count of segments in
//     flight diverges, and a count of timer expiries is undetermined
//     (the kernel's RTO is from RTT samples in wall-clock time).
func (r *replayer) tcpInfo(o *strace.SockOpt, e *fdEntry) {
	text := fmt.Sprintf("getsockopt(%d, TCP_INFO, %d)", o.Fd, o.BufLen)
	res := r.w.GetsockoptBuf(r.call(&o.Header, text), e.s, kernel.TCP_INFO, optBuf(o))
	obs := o.Result.String()
	if res.Errno != 0 || o.Result.Kind != strace.ResultValue {
		r.compare(&o.Header, o.Fd, e.s.Name, text, obs, res.String(), "")
		return
	}
	written := min(int(o.BufLen), kernel.TCPInfoSize) // do_tcp_getsockopt: min(len, sizeof(info))
	shown := min(len(o.Value.Str), int(o.Len))
	var fields []infoField
	for _, f := range infoFields {
		if f.Offset+f.Size <= shown && f.Offset+f.Size <= written {
			fields = append(fields, f)
		}
	}
	seen := map[string]uint64{}
	for _, f := range fields {
		seen[f.Key], _ = f.Decode([]byte(o.Value.Str), shown)
	}
	obsText := infoText(fields, seen, int(o.Len))
	how := fmt.Sprintf("the fields in the %d bytes strace printed; %s", shown, infoNotCompared)
	model := func() map[string]uint64 { return r.modelInfo(e) }
	pred := infoText(fields, model(), written)
	behind, ok := infoBehind(fields, seen, model())
	switch {
	case int(o.Len) != written:
		r.compare(&o.Header, o.Fd, e.s.Name, text, obsText, pred, "")
		return
	case obsText == pred:
		r.addHow(&o.Header, o.Fd, e.s.Name, text, obsText, pred, "", how, Agree)
		return
	case ok:
		r.assume(&o.Header, e, text, obsText, pred, how, behind)
		return
	}
	ahead, done := r.runAhead(func() bool {
		_, ok := infoBehind(fields, seen, model())
		return ok
	})
	m := model()
	pred = infoText(fields, m, written)
	if done {
		assumed := fmt.Sprintf("the network ran %v ahead of the model's clock: what the fields show had already happened", ahead)
		if b, _ := infoBehind(fields, seen, m); b != "" {
			assumed += ", and " + b
		}
		r.assume(&o.Header, e, text, obsText, pred, how, assumed)
		return
	}
	for _, f := range fields {
		if seen[f.Key] != m[f.Key] && f.Key != "tcpi_probes" && f.Key != "tcpi_backoff" {
			r.compare(&o.Header, o.Fd, e.s.Name, text, obsText, pred,
				fmt.Sprintf("no schedule: the model's pending work never makes %s %d", f.name, seen[f.Key]))
			return
		}
	}
	r.add(&o.Header, o.Fd, e.s.Name, text, obsText, pred,
		"tcpi_probes and tcpi_backoff count expiries of the persist timer and the RTO, which the kernel sets from RTT samples of wall-clock time the log does not show", Undetermined)
}

// modelInfo is the model's struct tcp_info as a whole (tcp.Conn.Info of
// the whole struct), with tcpi_snd_wscale: tcp_get_info reports
// rx_opt.snd_wscale, the shift the far end announced, its own
// tcpi_rcv_wscale, when both ends scale.
func (r *replayer) modelInfo(e *fdEntry) map[string]uint64 {
	c := e.s.Conn()
	m := c.Info(kernel.TCPInfoSize)
	if peer := e.s.Peer; peer != nil && peer.IsTCP() && m["tcpi_options"]&tcpiOptWscale != 0 {
		m["tcpi_snd_wscale"] = peer.Conn().Info(kernel.TCPInfoSize)["tcpi_rcv_wscale"]
	} else {
		m["tcpi_snd_wscale"] = 0
	}
	return m
}

// tcpiOptWscale is TCPI_OPT_WSCALE of tcpi_options.
const tcpiOptWscale = 4

// infoBehind reports whether every field the kernel showed is the
// model's or lags it in the way work still to come explains, and says
// why, as an assumption: more segments in flight (their ACKs had not
// come; at most as many more as the model's peer acknowledged:
// tcpi_delivered less the SYN), fewer timer expiries.
func infoBehind(fields []infoField, seen, m map[string]uint64) (string, bool) {
	var why []string
	for _, f := range fields {
		s, p := seen[f.Key], m[f.Key]
		switch {
		case s == p:
		case f.Key == "tcpi_unacked" && s > p && s <= p+max(m["tcpi_delivered"], 1)-1:
			why = append(why, fmt.Sprintf("the peer's ACKs for %d more segments had not arrived (the model's schedule brought them sooner)", s-p))
		case (f.Key == "tcpi_probes" || f.Key == "tcpi_backoff") && s < p:
			why = append(why, fmt.Sprintf("%s: the kernel's timer had expired %d times, not yet %d (its RTO is from RTT samples of wall-clock time)", f.name, s, p))
		default:
			return "", false
		}
	}
	return strings.Join(why, "; "), true
}

// infoText renders tcp_info fields as the report compares them:
// "0 {state=1, options=7, ...} [280]".
func infoText(fields []infoField, v map[string]uint64, optlen int) string {
	var b strings.Builder
	b.WriteString("0 {")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%d", f.name, v[f.Key])
	}
	fmt.Fprintf(&b, "} [%d]", optlen)
	return b.String()
}
