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
	out := []byte(b.String())
	if err := t.check(out); err != nil {
		return Result{}, err
	}
	return Result{Scenario: out, NotRun: t.notes}, nil
}

// check parses the translation: an error the scenario language finds in
// it is reported at the script line the statement comes from.
func (t *translator) check(out []byte) error {
	_, err := scenario.Parse("import", out)
	var list scenario.ErrorList
	if err == nil || !errors.As(err, &list) {
		return err
	}
	var mapped scenario.ErrorList
	for _, e := range list {
		pos := scenario.Pos{File: t.l.file}
		if i := e.Pos.Line - 1; i >= 0 && i < len(t.out) && t.out[i].pos.IsValid() {
			pos = t.out[i].pos
		}
		mapped = append(mapped, &scenario.Error{Pos: pos, Msg: e.Msg + " (translated as " + quoteLine(t.out, e.Pos.Line) + ")", Near: e.Near})
	}
	return mapped
}

func quoteLine(out []line, n int) string {
	if n < 1 || n > len(out) {
		return "?"
	}
	return "\"" + out[n-1].text + "\""
}
