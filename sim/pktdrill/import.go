package pktdrill

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zcsim/zcsim/sim/scenario"
)

// Result is an imported script: the scenario's text and what of the
// script it does not run (shell commands, options the model has no part
// for), each "file:line:col: what".
type Result struct {
	Scenario []byte
	NotRun   []string
	// file and lines are the script's name and the scenario's lines
	// with the script position each comes from, for Locate.
	file  string
	lines []line
}

// Import translates the packetdrill script src, read from file, into a
// scenario. Every statement of the scenario ends with a comment naming
// the script line it comes from. An input error — a construct the
// importer does not know, or a translation the scenario language
// refuses — is a scenario.ErrorList naming the script's file:line:col.
func Import(file string, src []byte) (Result, error) {
	l := &lexer{file: file}
	t := &translator{l: l, family: "AF_INET", sockets: map[int64]bool{}, epolls: map[int64]bool{}, epollData: map[int64]map[int64]int64{}}
	t.emit(scenario.Pos{}, "# imported from %s by zcsim import --packetdrill", file)
	t.emit(scenario.Pos{}, "device %s tun peer=script", Device)
	for _, ev := range l.events(string(src)) {
		t.event(ev)
		if len(l.errs) >= scenario.MaxErrors {
			break
		}
	}
	if len(l.errs) > 0 {
		return Result{}, l.errs
	}
	var b strings.Builder
	for _, ln := range t.out {
		b.WriteString(ln.text)
		if ln.pos.IsValid() && !strings.HasPrefix(ln.text, "#") {
			sep := " # from"
			if strings.Contains(ln.text, " # ") {
				sep = "; from"
			}
			fmt.Fprintf(&b, "%s %s:%d", sep, file, ln.pos.Line)
		}
		b.WriteByte('\n')
	}
	r := Result{Scenario: []byte(b.String()), NotRun: t.notes, file: file, lines: t.out}
	if _, err := scenario.Parse("import", r.Scenario); err != nil {
		return Result{}, r.Locate(err)
	}
	return r, nil
}

// Locate reports an input error found in the translated scenario (by
// the parser, or by a front end resolving or loading it) at the script
// line the offending statement comes from, quoting the translation;
// other errors it returns as they are.
func (r Result) Locate(err error) error {
	var list scenario.ErrorList
	var one *scenario.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = scenario.ErrorList{one}
	default:
		return err
	}
	mapped := make(scenario.ErrorList, 0, len(list))
	for _, e := range list {
		pos := scenario.Pos{File: r.file}
		if i := e.Pos.Line - 1; i >= 0 && i < len(r.lines) && r.lines[i].pos.IsValid() {
			pos = r.lines[i].pos
		}
		mapped = append(mapped, &scenario.Error{Pos: pos, Msg: e.Msg + " (translated as " + quoteLine(r.lines, e.Pos.Line) + ")", Near: e.Near})
	}
	return mapped
}

func quoteLine(out []line, n int) string {
	if n < 1 || n > len(out) {
		return "?"
	}
	return "\"" + out[n-1].text + "\""
}
