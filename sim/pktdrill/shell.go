package pktdrill

import (
	"strings"

	"github.com/zcsim/zcsim/sock"
)

// shellSysctl says whether the importer runs a shell command's setting
// of key as the scenario's sysctl statement: a key of one value the
// scenario language has whose network namespace has its own
// (sock.SysctlKey.Netns), which a packetdrill run in a private namespace
// sets there too. A shell command setting another, and any other
// command, is a note.
func shellSysctl(key string) bool {
	k, ok := sock.LookupSysctl(key)
	return ok && k.Netns && k.Values == 1
}

// shell translates a shell command: "sysctl [-q] [-w] KEY=VALUE" for a
// key shellSysctl takes becomes sysctl KEY VALUE, anything else a note.
func (t *translator) shell(ev event) {
	cmd := strings.TrimSpace(ev.shell)
	if key, val, ok := sysctlCommand(cmd); ok && shellSysctl(key) {
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
