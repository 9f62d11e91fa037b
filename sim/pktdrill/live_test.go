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
	path := nodadPath(t, dir)
	for _, file := range scripts(t) {
		for _, fam := range []scenario.Family{scenario.Inet, scenario.Inet6, scenario.Mapped} {
			name := filepath.Base(file) + "." + fam.String()
			t.Run(name, func(t *testing.T) {
				out := filepath.Join(dir, name)
				if err := os.WriteFile(out, exported(t, file, fam), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("unshare", "-n", "sh", "-c", `ip link set lo up && exec "$0" "$1"`, bin, out)
				cmd.Env = append(os.Environ(), "PATH="+path)
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("packetdrill %s: %v\n%s", out, err, b)
				}
			})
		}
	}
}

// nodadPath returns a PATH whose first directory, under dir, holds an ip
// that adds every IPv6 address with nodad and runs the real ip for the
// rest. packetdrill adds its local address to tun0 with ip addr add and
// binds to it at once; on Linux an address stays tentative until the DAD
// work item runs (addrconf_dad_work clears IFA_F_TENTATIVE at once on a
// NOARP device, but only when the workqueue gets to it), and until then
// bind fails with EADDRNOTAVAIL, which a loaded machine showed. With
// IFA_F_NODAD, ipv6_add_addr never sets IFA_F_TENTATIVE. The scripts'
// own calls are untouched.
func nodadPath(t *testing.T, dir string) string {
	t.Helper()
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Skipf("no ip: %v", err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	wrapper := "#!/bin/sh\ncase \"$1 $2 $3\" in\n\"addr add \"*:*) exec " + ip + " \"$@\" nodad ;;\nesac\nexec " + ip + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "ip"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin + string(os.PathListSeparator) + os.Getenv("PATH")
}
