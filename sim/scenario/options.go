package scenario

import "strings"

// optKind says what value an option takes.
type optKind uint8

const (
	optBare       optKind = iota // no value: cap_ipc_lock
	optNumber                    // a size or integer: mtu=1500
	optDuration                  // a duration: delay=10ms
	optFraction                  // a probability: loss=0.01
	optName                      // a name the scenario defines: user=alice
	optWords                     // one of words: sg=on
	optNumberOr                  // a number or one of words: memlock=64K, memlock=unlimited
	optDurationOr                // a duration or one of words: txcomplete=manual
	optAny                       // a number or any word: expect's checks
	optSigned                    // a number, maybe negative: optlen=-1
	optCookie                    // bare, or an even number of hex digits, at most 16 bytes: fo, fo=abcd1234
)

// optSpec describes one option a statement accepts.
type optSpec struct {
	key      string
	kind     optKind
	words    []string
	required bool
}

var onOff = []string{"on", "off"}

// options consumes options until the end of the statement. With specs nil,
// any key is accepted with a number or word value (expect's checks).
func (p *lineParser) options(specs []optSpec) Options {
	var os Options
	for p.peekIs(tWord) && !(specs == nil && p.idsNext()) {
		t := p.advance()
		spec, ok := findSpec(specs, t.text)
		switch {
		case specs == nil && !isName(t.text):
			p.fail(t, "bad check name, want a letter or _ then letters, digits, _ or -")
			return nil
		case specs == nil:
			spec = optSpec{key: t.text, kind: optAny}
		case !ok:
			p.fail(t, "unknown option"+hint(t.text, specKeys(specs))+", want "+strings.Join(specKeys(specs), ", "))
			return nil
		}
		if _, dup := os.Lookup(t.text); dup {
			p.fail(t, "duplicate option")
			return nil
		}
		o := Option{Pos: p.pos(t.col), Key: t.text}
		if spec.kind == optBare && p.peekIs(tEq) {
			p.fail(t, "option takes no value")
			return nil
		}
		if spec.kind != optBare && (spec.kind != optCookie || p.peekIs(tEq)) {
			if !p.punct(tEq, "=") {
				return nil
			}
			o.Value = p.optValue(spec)
		}
		if p.err != nil {
			return nil
		}
		os = append(os, o)
	}
	for _, s := range specs {
		if _, ok := os.Lookup(s.key); s.required && !ok && p.err == nil {
			p.missing("option " + s.key + "=")
		}
	}
	return os
}

func findSpec(specs []optSpec, key string) (optSpec, bool) {
	for _, s := range specs {
		if s.key == key {
			return s, true
		}
	}
	return optSpec{}, false
}

func specKeys(specs []optSpec) []string {
	keys := make([]string, len(specs))
	for i, s := range specs {
		keys[i] = s.key
	}
	return keys
}

// optValue consumes an option's value after "=".
func (p *lineParser) optValue(spec optSpec) Value {
	t, ok := p.word("value of " + spec.key)
	if !ok {
		return Value{}
	}
	word := Value{p.pos(t.col), ValueWord, 0, t.text, nil}
	for _, w := range spec.words {
		if t.text == w {
			return word
		}
	}
	switch spec.kind {
	case optNumber:
		return p.numberOf(t)
	case optSigned:
		return p.signedOf(t)
	case optDuration:
		return p.durationOf(t)
	case optNumberOr:
		if _, msg := parseNumber(t.text); msg == "" {
			return p.numberOf(t)
		}
		p.fail(t, "bad value of "+spec.key+", want a number or "+strings.Join(spec.words, " or "))
	case optDurationOr:
		if _, msg := parseDuration(t.text); msg == "" {
			return p.durationOf(t)
		}
		p.fail(t, "bad value of "+spec.key+", want a duration or "+strings.Join(spec.words, " or "))
	case optFraction:
		if isFraction(t.text) {
			return word
		}
		p.fail(t, "bad probability, want a decimal between 0 and 1 such as 0.25")
	case optName:
		if isName(t.text) {
			return word
		}
		p.fail(t, "bad name, want a letter or _ then letters, digits, _ or -")
	case optCookie:
		if isCookie(t.text) {
			return word
		}
		p.fail(t, "bad cookie, want an even number of hex digits, at most 32")
	case optAny:
		if _, msg := parseNumber(t.text); msg == "" {
			return p.numberOf(t)
		}
		if isWord(t.text) {
			return word
		}
		p.fail(t, "bad value, want a number or a word")
	default:
		p.fail(t, "bad value of "+spec.key+", want "+strings.Join(spec.words, " or "))
	}
	return Value{}
}
