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

// TestExportLive runs every script, exported from its import, under
// packetdrill against the live kernel, in a private network namespace:
// the kernel passes what the model passes. IPv4 only: with the control
// buffer packetdrill gives recvmsg, Linux 6.18 sets MSG_CTRUNC on the
// error-queue reads of the IPv6 and v4-mapped variants (measured), which
// the exported expectations do not say.
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
		t.Run(filepath.Base(file), func(t *testing.T) {
			out := filepath.Join(dir, filepath.Base(file))
			if err := os.WriteFile(out, exported(t, file, scenario.Inet), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("unshare", "-n", "sh", "-c", `ip link set lo up && exec "$0" "$1"`, bin, out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("packetdrill %s: %v\n%s", out, err, b)
			}
		})
	}
}
