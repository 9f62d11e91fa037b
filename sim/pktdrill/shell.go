package pktdrill

import (
	"strings"
)

// shellSysctls are the sysctl keys whose setting by a shell command the
// importer runs, as the scenario's sysctl statement: the per-namespace
// ones of one value the scenario language has, which a packetdrill run
// in a private network namespace sets there too. A shell command setting
// another, and any other command, is a note.
var shellSysctls = map[string]bool{
	"net.ipv4.tcp_fastopen": true, "net.ipv4.tcp_timestamps": true, "net.ipv4.tcp_sack": true,
	"net.ipv4.tcp_notsent_lowat": true, "net.ipv4.tcp_moderate_rcvbuf": true, "net.core.optmem_max": true,
	"net.core.somaxconn": true, "net.ipv4.tcp_abort_on_overflow": true, "net.ipv4.tcp_syn_retries": true,
}

// shell translates a shell command: "sysctl [-q] [-w] KEY=VALUE" for a
// key of shellSysctls becomes sysctl KEY VALUE, anything else a note.
func (t *translator) shell(ev event) {
	cmd := strings.TrimSpace(ev.shell)
	if key, val, ok := sysctlCommand(cmd); ok && shellSysctls[key] {
		t.emit(ev.pos, "sysctl %s %s", key, val)
		return
	}
	t.note(ev.pos, "shell command `"+cmd+"`")
}

// sysctlCommand reads "sysctl [-q] [-w] KEY=VALUE".
func sysctlCommand(cmd string) (key, val string, ok bool) {
	f := strings.Fields(cmd)
	if len(f) < 2 || f[0] != "sysctl" {
		return "", "", false
	}
	for _, flag := range f[1 : len(f)-1] {
		if flag != "-q" && flag != "-w" {
			return "", "", false
		}
	}
	key, val, ok = strings.Cut(f[len(f)-1], "=")
	return key, val, ok && key != "" && val != ""
}
