package scenario

// Inject is "inject S FLAGS [key=value...]": the far side of socket S's
// connection, which the scenario plays on a device with peer=script,
// sends S one TCP segment now. FLAGS is a "|"-union of SYN, ACK, PSH, FIN
// and RST; the options give the header (seq, len, ack, win) and the
// handshake options (mss, wscale, sackok, ts).
type Inject struct {
	Line
	Sock    Sock
	Flags   Flags
	Options Options
}

// Packet is "packet DEVICE FLAGS [key=value...]" or "packet DEVICE none":
// the oldest packet DEVICE (peer=script) transmitted and no packet
// statement took yet must have these flags and the fields the options
// name; or the device transmitted nothing more.
type Packet struct {
	Line
	Device  Ident
	None    bool
	Flags   Flags
	Options Options
}

// TCPFlagNames are the header flags inject and packet take.
var TCPFlagNames = []string{"SYN", "ACK", "PSH", "FIN", "RST"}

var (
	tcpFlags = tableOf[int]("TCP flag", setOf(TCPFlagNames...))
	// segmentOpts are a TCP header's fields (relative sequence numbers,
	// the window field as sent) and its options; gso is a TSO
	// super-packet's segment size, which only a transmitted packet has.
	segmentOpts = []optSpec{
		{key: "seq", kind: optNumber}, {key: "len", kind: optNumber}, {key: "ack", kind: optNumber},
		{key: "win", kind: optNumber}, {key: "mss", kind: optNumber}, {key: "wscale", kind: optNumber},
		{key: "sackok", kind: optBare}, {key: "ts", kind: optBare},
		{key: "fo", kind: optCookie}, {key: "foexp", kind: optCookie},
	}
	packetOpts = append(append([]optSpec(nil), segmentOpts...), optSpec{key: "gso", kind: optNumber})
)

// SegmentOptionKeys are the keys of the options that are TCP options
// rather than header fields.
var SegmentOptionKeys = []string{"mss", "wscale", "sackok", "ts", "fo", "foexp"}

func parseInject(p *lineParser) Stmt {
	return &Inject{Sock: p.sock(), Flags: p.flags(tcpFlags, false), Options: p.options(segmentOpts)}
}

func parsePacket(p *lineParser) Stmt {
	s := &Packet{Device: p.name("device name")}
	if t, ok := p.peek(); ok && t.text == "none" {
		p.advance()
		s.None = true
		return s
	}
	s.Flags = p.flags(tcpFlags, false)
	s.Options = p.options(packetOpts)
	return s
}

// packetWords renders inject and packet.
func packetWords(st Stmt) []string {
	switch s := st.(type) {
	case *Inject:
		return append([]string{"inject", s.Sock.String(), s.Flags.String()}, options(s.Options)...)
	case *Packet:
		if s.None {
			return []string{"packet", s.Device.Name, "none"}
		}
		return append([]string{"packet", s.Device.Name, s.Flags.String()}, options(s.Options)...)
	}
	return nil
}
