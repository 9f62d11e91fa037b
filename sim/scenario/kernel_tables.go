package scenario

import "github.com/zcsim/zcsim/kernel"

// The kernel's symbol tables: the parser accepts exactly the names the
// simulated kernel knows.
var (
	errnoNames        = tableOf("errno", kernel.ErrnoNames)
	msgFlagNames      = tableOf("flag", kernel.MsgFlagNames)
	familyNames       = tableOf("family", kernel.FamilyNames)
	sockTypeNames     = tableOf("socket type", kernel.SockTypeNames)
	protocolNames     = tableOf("protocol", kernel.ProtocolNames)
	levelNames        = tableOf("level", kernel.LevelNames)
	sockOptNames      = tableOf("socket option", kernel.SockOptNames)
	cmsgTypeNames     = tableOf("control message type", kernel.CmsgTypeNames)
	timestampingNames = tableOf("timestamping flag", kernel.TimestampingNames)
	pollEventNames    = tableOf("poll event", kernel.PollEventNames)
	protNames         = tableOf("protection", kernel.ProtNames)
	epollEventNames   = tableOf("epoll event", kernel.EpollEventNames)
)

// checkLevel rejects an option named at a level it does not belong to, such
// as SO_ZEROCOPY at IPPROTO_TCP.
func (p *lineParser) checkLevel(level, opt Ident) {
	lv, ok1 := kernel.LevelNames.ByName(level.Name)
	o, ok2 := kernel.SockOptNames.ByName(opt.Name)
	if p.err == nil && ok1 && ok2 && lv != o.Level {
		p.fail(token{text: opt.Name, col: opt.Pos.Col}, "option is not at level "+level.Name)
	}
}
