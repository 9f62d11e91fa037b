package pktdrill

import (
	"strconv"
	"strings"
)

// packetFlags maps packetdrill's flag letters to the scenario's names.
var packetFlags = map[byte]string{'S': "SYN", 'F': "FIN", 'R': "RST", 'P': "PSH", '.': "ACK"}

// packet translates "< FLAGS SEQ:END(LEN) [ack N] [win N] [<options>]"
// into inject (inbound, to the listener for a SYN, else the current
// connection) and "> ..." into packet (outbound, on the device).
func (t *translator) packet(ev event) {
	p := &parser{l: t.l, toks: ev.toks, ok: true}
	dir := p.next()
	ft := p.next()
	var flags []string
	for i := 0; i < len(ft.text) && p.ok; i++ {
		name, ok := packetFlags[ft.text[i]]
		if !ok {
			p.fail(ft, "unknown TCP flag %q (the importer knows S, ., P, F, R)", ft.text[i])
		}
		flags = append(flags, name)
	}
	if ft.text == "" {
		p.fail(token{pos: p.endPos()}, "missing the packet's flags")
	}
	words := []string{"seq=" + p.numText("the sequence number")}
	p.expect(":")
	end := p.numText("the end sequence number")
	p.expect("(")
	n := p.numText("the payload length")
	p.expect(")")
	if s, _ := strconv.ParseUint(words[0][4:], 10, 32); p.ok {
		e, _ := strconv.ParseUint(end, 10, 32)
		if l, _ := strconv.ParseUint(n, 10, 32); uint32(e-s) != uint32(l) {
			p.fail(ft, "the packet's range %d:%s does not hold %s bytes", s, end, n)
		}
	}
	words = append(words, "len="+n)
	for p.ok {
		tok, ok := p.peek()
		if !ok {
			break
		}
		p.i++
		switch tok.text {
		case "ack", "win":
			words = append(words, tok.text+"="+p.numText("the "+tok.text+" number"))
		case "<":
			words = append(words, p.tcpOptions()...)
		default:
			p.fail(tok, "unexpected text in a packet (the importer knows ack N, win N and <options>)")
		}
	}
	if !p.ok {
		return
	}
	head := strings.Join(flags, "|")
	if dir.text == ">" {
		t.emit(ev.pos, "packet %s %s %s", Device, head, strings.Join(words, " "))
		return
	}
	target := t.conn
	if flags[0] == "SYN" && len(flags) == 1 || target == 0 {
		target = t.listener
	}
	if target == 0 {
		t.fail(ev.pos, "<", "an inbound packet needs a listening or connecting socket to go to")
		return
	}
	t.emit(ev.pos, "inject %s %s %s", fdName(target), head, strings.Join(words, " "))
}

// numText reads a decimal number.
func (p *parser) numText(what string) string {
	tok, ok := p.peek()
	if !ok {
		p.fail(token{pos: p.endPos()}, "missing %s", what)
		return "0"
	}
	if _, err := strconv.ParseUint(tok.text, 10, 32); err != nil {
		p.fail(tok, "expected %s", what)
		return "0"
	}
	p.i++
	return tok.text
}

// tcpOptions reads "mss N, sackOK, nop, wscale N, TS val N ecr N, FO
// [COOKIE], FOEXP [COOKIE], eol>" into the scenario's option words; TS
// values are not kept (the model has no clock a timestamp could show),
// a Fast Open cookie's hex digits are.
func (p *parser) tcpOptions() []string {
	if t, ok := p.peek(); ok && t.text == "..." {
		// <...>: packetdrill checks no option; neither does packet
		// without any.
		p.i++
		p.expect(">")
		return nil
	}
	var out []string
	for p.ok {
		tok := p.next()
		switch tok.text {
		case "nop", "eol":
		case "sackOK":
			out = append(out, "sackok")
		case "mss", "wscale":
			out = append(out, tok.text+"="+p.numText("the "+tok.text))
		case "TS":
			for _, k := range []string{"val", "ecr"} {
				p.expect(k)
				p.numText("the timestamp's " + k)
			}
			out = append(out, "ts")
		case "FO", "FOEXP":
			word := strings.ToLower(tok.text)
			if t, ok := p.peek(); ok && t.text != "," && t.text != ">" {
				p.i++
				word += "=" + t.text
			}
			out = append(out, word)
		default:
			p.fail(tok, "TCP option the importer does not translate (it knows mss, sackOK, nop, eol, wscale, TS, FO, FOEXP)")
			return nil
		}
		if t, ok := p.peek(); ok && t.text == "," {
			p.i++
			continue
		}
		p.expect(">")
		return out
	}
	return nil
}
