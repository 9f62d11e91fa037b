package scenario

// packetLines are inject and packet statements with their canonical form.
var packetLines = []struct{ in, want string }{
	{"inject s SYN seq=0 win=32792 mss=1000 sackok wscale=7", "inject s SYN seq=0 win=32792 mss=1000 sackok wscale=7"},
	{"inject c ACK | PSH seq=1 len=100 ack=4001 win=257", "inject c ACK|PSH seq=1 len=100 ack=4001 win=257"},
	{"inject s.peer RST", "inject s.peer RST"},
	{"packet tun0 SYN|ACK seq=0 ack=1 mss=1460 sackok ts wscale=10", "packet tun0 SYN|ACK seq=0 ack=1 mss=1460 sackok ts wscale=10"},
	{"packet tun0 PSH|ACK seq=1 len=4000 gso=1000", "packet tun0 PSH|ACK seq=1 len=4000 gso=1000"},
	{"packet tun0   none # nothing more", "packet tun0 none # nothing more"},
	{"device t tun peer=script", "device t tun peer=script"},
	{"inject c SYN|ACK ack=1 mss=1000 fo=0123456789ABCDEF", "inject c SYN|ACK ack=1 mss=1000 fo=0123456789ABCDEF"},
	{"packet tun0 SYN len=500 mss=1460 foexp", "packet tun0 SYN len=500 mss=1460 foexp"},
}

// badPacketLines are inject and packet statements Parse refuses.
var badPacketLines = []struct{ in, want string }{
	{"inject s SYNACK", "t.zcs:1:10: unknown TCP flag (at \"SYNACK\")"},
	{"inject s ack", "t.zcs:1:10: unknown TCP flag, did you mean ACK? (at \"ack\")"},
	{"inject s", "t.zcs:1:9: missing TCP flag"},
	{"inject s ACK gso=1", "t.zcs:1:14: unknown option, want seq, len, ack, win, mss, wscale, sackok, ts, fo, foexp (at \"gso\")"},
	{"packet tun0", "t.zcs:1:12: missing TCP flag"},
	{"packet tun0 none ACK", "t.zcs:1:18: unexpected word (at \"ACK\")"},
	{"packet tun0 ACK sackok=1", "t.zcs:1:17: option takes no value (at \"sackok\")"},
	{"inject s SYN fo=abc", "t.zcs:1:17: bad cookie, want an even number of hex digits, at most 32 (at \"abc\")"},
	{"inject s SYN fo=wxyz", "t.zcs:1:17: bad cookie, want an even number of hex digits, at most 32 (at \"wxyz\")"},
	{"inject s SYN fo=", "t.zcs:1:17: missing value of fo"},
	{"device t tun peer=kernel", "t.zcs:1:19: bad value of peer, want model or script (at \"kernel\")"},
}

// The parse tests and the fuzz seeds take the packet statements with the
// others.
func init() {
	goodLines = append(goodLines, packetLines...)
	badLines = append(badLines, badPacketLines...)
}
