//go:build linux

package pktdrill

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zcsim/zcsim/sim/scenario"
)

// packetdrillBinary finds a packetdrill binary: $ZCSIM_PACKETDRILL, or
// packetdrill on the PATH.
func packetdrillBinary() string {
	if p := os.Getenv("ZCSIM_PACKETDRILL"); p != "" {
		return p
	}
	p, _ := exec.LookPath("packetdrill")
	return p
}

// TestExportLive runs every script, exported from its import in each
// address family, under packetdrill against the live kernel, in a private
// network namespace: the kernel passes what the model passes.
func TestExportLive(t *testing.T) {
	bin := packetdrillBinary()
	switch {
	case bin == "":
		t.Skip("no packetdrill binary: set ZCSIM_PACKETDRILL or put packetdrill on the PATH")
	case os.Geteuid() != 0:
		t.Skip("packetdrill needs root for its tun device")
	}
	for _, tool := range []string{"unshare", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s for a private network namespace", tool)
		}
	}
	dir := t.TempDir()
	for _, file := range scripts(t) {
		for _, fam := range []scenario.Family{scenario.Inet, scenario.Inet6, scenario.Mapped} {
			name := filepath.Base(file) + "." + fam.String()
			t.Run(name, func(t *testing.T) {
				out := filepath.Join(dir, name)
				if err := os.WriteFile(out, exported(t, file, fam), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("unshare", "-n", "sh", "-c", `ip link set lo up && exec "$0" "$1"`, bin, out)
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("packetdrill %s: %v\n%s", out, err, b)
				}
			})
		}
	}
}
