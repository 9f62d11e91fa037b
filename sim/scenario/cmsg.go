package scenario

import "github.com/zcsim/zcsim/kernel"

// Cmsg is one "cmsg LEVEL TYPE VALUE [len=N]" of a sendmsg: a control
// message of level LEVEL and type TYPE, each a name or a number, whose
// data holds VALUE — a number, or for SO_TIMESTAMPING a "|"-union of
// SOF_TIMESTAMPING_* flags — in Len bytes (the size of the field the
// type's handler reads when left out: kernel.CmsgLen).
type Cmsg struct {
	Pos   Pos
	Level Ident
	Type  Ident
	Value Value
	Flags Flags
	Len   Value
}

// parseCmsg consumes a control message after its keyword. A name must be
// a level, or a type at the message's level; any number is taken as it is.
func (p *lineParser) parseCmsg(pos Pos) Cmsg {
	c := Cmsg{Pos: pos, Level: p.numberOr(levelNames)}
	if p.err != nil {
		return c
	}
	level, known := cmsgLevel(c.Level)
	c.Type = p.numberOr(cmsgTypeNames)
	if t, ok := kernel.CmsgTypeNames.ByName(c.Type.Name); ok && known && t.Level != level && p.err == nil {
		p.fail(token{text: c.Type.Name, col: c.Type.Pos.Col}, "control message type is not at level "+c.Level.Name)
	}
	t, ok := p.peek()
	switch {
	case p.err != nil:
		return c
	case c.isTimestamping() && ok && t.kind == tWord && !isDigit(t.text[0]):
		c.Flags = p.flags(timestampingNames, false)
	default:
		c.Value = p.number("control message value")
	}
	if t, ok := p.peek(); ok && t.kind == tWord && t.text == "len" {
		p.advance()
		if p.punct(tEq, "=") {
			c.Len = p.number("control message length")
		}
	}
	return c
}

// numberOr consumes a name of tab or a number, kept as its text.
func (p *lineParser) numberOr(tab table) Ident {
	t, ok := p.peek()
	if ok && t.kind == tWord && isDigit(t.text[0]) {
		v := p.number(tab.what)
		return Ident{v.Pos, v.Text}
	}
	return p.symbol(tab)
}

// cmsgLevel returns the level a message names and whether it is a name.
func cmsgLevel(id Ident) (kernel.Level, bool) {
	if l, ok := kernel.LevelNames.ByName(id.Name); ok {
		return l, true
	}
	n, _ := parseNumber(id.Name)
	return kernel.Level(int32(n)), false
}

func (c Cmsg) isTimestamping() bool {
	t, ok := kernel.CmsgTypeNames.ByName(c.Type.Name)
	return ok && (t == kernel.SCM_TIMESTAMPING || t == kernel.SCM_TIMESTAMPING_NEW)
}

// CmsgType returns the message's cmsg_level and cmsg_type.
func (c Cmsg) CmsgType() kernel.CmsgType {
	level, _ := cmsgLevel(c.Level)
	if t, ok := kernel.CmsgTypeNames.ByName(c.Type.Name); ok {
		return kernel.CmsgType{Level: level, Name: t.Name}
	}
	n, _ := parseNumber(c.Type.Name)
	return kernel.CmsgType{Level: level, Name: int32(n)}
}

// DataLen returns the length of the message's data.
func (c Cmsg) DataLen() int {
	if !c.Len.IsZero() {
		return int(c.Len.N)
	}
	return kernel.CmsgLen(c.CmsgType())
}

// Data returns the message's value.
func (c Cmsg) Data() uint64 {
	if c.Flags.IsZero() {
		return c.Value.N
	}
	var v kernel.Timestamping
	for _, n := range c.Flags.Names {
		f, _ := kernel.TimestampingNames.ByName(n.Name)
		v |= f
	}
	return uint64(v)
}

// words renders the message in canonical form.
func (c Cmsg) words() []string {
	v := c.Value.Text
	if v == "" {
		v = c.Flags.String()
	}
	w := []string{"cmsg", c.Level.Name, c.Type.Name, v}
	if !c.Len.IsZero() {
		w = append(w, "len="+c.Len.Text)
	}
	return w
}
