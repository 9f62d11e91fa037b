package picture

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim"
)

// WriteMermaid writes the run as a Mermaid sequence diagram: the program
// ("app") sending and reading, each socket, each uarg and the holders of
// its references. A message is drawn for every send and error-queue read,
// every reference a holder takes on a uarg (solid) or drops (dashed, with
// "copied: why" when its data was copied), every notification a uarg
// completes to its socket; a note says when a uarg's zerocopy becomes 0
// and why. Each message starts with the step it happened at. skbs appear
// through their shared infos, which hold the references.
func WriteMermaid(w io.Writer, tr *sim.Trace) error {
	bw := bufio.NewWriter(w)
	var body strings.Builder
	var order []string
	seen := map[string]bool{}
	actor := func(name string) string {
		id := participantID(name)
		if !seen[id] {
			seen[id] = true
			order = append(order, id+" as "+name)
		}
		return id
	}
	app := actor("app")
	// sockets are drawn under the scenario's names, learned from the
	// entries that name a socket object in a step on a named socket.
	names := map[string]string{}
	for i := range tr.Records {
		e := tr.Records[i].Event
		if e == nil {
			continue
		}
		for _, t := range e.Touched {
			if e.Socket != "" && t.Entry.Op == kernel.OpZerocopyAlloc {
				names[t.Entry.Peer.String()] = e.Socket
			}
		}
		named := func(name string) string {
			if n, ok := names[name]; ok {
				return actor(n)
			}
			return actor(name)
		}
		if e.UargID != nil && e.Socket != "" {
			fmt.Fprintf(&body, "    %s->>%s: %d: send, id %d\n", app, actor(e.Socket), e.Step, *e.UargID)
		}
		for _, t := range e.Touched {
			if line := mermaidLine(named, e, t); line != "" {
				body.WriteString("    " + line + "\n")
			}
		}
		if n := e.Notification; n != nil && n.Origin == kernel.SO_EE_ORIGIN_ZEROCOPY {
			copied := ""
			if n.Code&kernel.SO_EE_CODE_ZEROCOPY_COPIED != 0 {
				copied = " COPIED"
			}
			fmt.Fprintf(&body, "    %s-->>%s: %d: recvmsg(MSG_ERRQUEUE) [%d,%d]%s\n", actor(e.Socket), app, e.Step, n.Info, n.Data, copied)
		}
	}
	fmt.Fprintln(bw, "sequenceDiagram")
	for _, p := range order {
		fmt.Fprintf(bw, "    participant %s\n", p)
	}
	bw.WriteString(body.String())
	return bw.Flush()
}

// mermaidLine draws one history entry, or returns "" for one the diagram
// leaves out.
func mermaidLine(actor func(string) string, e *sim.Event, t sim.Touch) string {
	en := t.Entry
	obj := t.Object.String()
	switch en.Op {
	case kernel.OpZerocopyAlloc:
		return fmt.Sprintf("%s->>%s: %d: msg_zerocopy_alloc id %d, refcnt %d", actor(en.Peer.String()), actor(obj), e.Step, en.Args[0], en.After)
	case kernel.OpZerocopyRealloc:
		return fmt.Sprintf("Note over %s: %d: msg_zerocopy_realloc, ids %d..%d", actor(obj), e.Step, en.Args[0], en.Args[1])
	case kernel.OpUargGet:
		return fmt.Sprintf("%s->>%s: %d: get, refcnt %d", actor(en.Holder.String()), actor(obj), e.Step, en.After)
	case kernel.OpUargHandoff:
		return fmt.Sprintf("%s->>%s: %d: reference of %v handed over", actor(en.Peer.String()), actor(obj), e.Step, en.Holder)
	case kernel.OpUargPut:
		why := ""
		if w := kernel.CopyWhy(en.Args[1]); w != kernel.NotCopied {
			why = ", copied: " + w.Name()
		}
		return fmt.Sprintf("%s-->>%s: %d: put success=%t%s, refcnt %d", actor(en.Holder.String()), actor(obj), e.Step, en.Args[0] != 0, why, en.After)
	case kernel.OpUargCopied:
		return fmt.Sprintf("Note over %s: %d: zerocopy = 0: %s", actor(obj), e.Step, mermaidText(kernel.CopyWhy(en.Args[0]).Name()))
	case kernel.OpNotified:
		m := kernel.Merge(en.Args[3])
		copied := ""
		if en.Args[2] != 0 {
			copied = " COPIED"
		}
		return fmt.Sprintf("Note over %s: %d: notification [%d,%d]%s %s", actor(obj), e.Step, en.Args[0], en.Args[1], copied, m.Name())
	case kernel.OpUargComplete:
		return fmt.Sprintf("Note over %s: %d: __msg_zerocopy_callback", actor(obj), e.Step)
	}
	return ""
}

// mermaidText keeps a label free of the characters Mermaid reads as
// syntax in a message (";" ends a statement, "#" starts an entity).
func mermaidText(s string) string { return strings.NewReplacer(";", ",", "#", "").Replace(s) }

// participantID makes a Mermaid participant id of an object or socket
// name: letters, digits and "_" only, after a "p" so that no name can be
// one of Mermaid's keywords ("end", "note").
func participantID(name string) string {
	var b strings.Builder
	b.WriteByte('p')
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
