package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExportCmd writes an imported script back as packetdrill, in a
// family of choice; what packetdrill cannot express is exit status 2.
func TestExportCmd(t *testing.T) {
	atRoot(t)
	imp := runCLI("import", "--packetdrill", filepath.Join("examples", "packetdrill", "client.pkt"))
	imp.requireStatus(t, 0, "import")
	zcs := filepath.Join(t.TempDir(), "client.zcs")
	require.NoError(t, os.WriteFile(zcs, []byte(imp.stdout), 0o644))
	z := runCLI("export", "--packetdrill", "--family", "mapped", zcs)
	z.requireStatus(t, 0, "export", zcs)
	require.True(t, strings.HasPrefix(z.stdout, "// exported from "+zcs+" by zcsim export --packetdrill\n"), z.stdout)
	require.Contains(t, z.stdout, "--ip_version=\"ipv4-mapped-ipv6\"\n")
	require.Contains(t, z.stdout, "    +0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0\n")
	require.Contains(t, z.stdout, "cmsg_level=SOL_IPV6, cmsg_type=IPV6_RECVERR")

	for _, args := range [][]string{
		{"export", "--packetdrill", filepath.Join("examples", "tcp-nic.zcs")},
		{"export", zcs},
		{"export", "--packetdrill", "--family", "ipx", zcs},
	} {
		runCLI(args...).requireStatus(t, 2, args...)
	}
	bad := runCLI("export", "--packetdrill", filepath.Join("examples", "tcp-nic.zcs"))
	require.Contains(t, bad.stderr, "packetdrill has one device, its tun")
}
