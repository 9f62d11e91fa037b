package probe

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHostSysctlsRunTheModel: the model runs with the host's global
// buffer limits, so that a SO_RCVBUF or SO_SNDBUF the host's larger
// rmem_max and wmem_max let through is the model's answer too, and only
// the values that differ from the profile's are kept and printed.
func TestHostSysctlsRunTheModel(t *testing.T) {
	src := []byte("socket x AF_UNIX SOCK_STREAM\n" +
		"setsockopt x SOL_SOCKET SO_RCVBUF 1M\n" +
		"getsockopt x SOL_SOCKET SO_RCVBUF\n" +
		"setsockopt x SOL_SOCKET SO_SNDBUF 1M\n" +
		"getsockopt x SOL_SOCKET SO_SNDBUF\n")
	live := []HostSysctl{
		{"net.core.rmem_max", 4194304}, {"net.core.wmem_max", 4194304},
		{"net.core.rmem_default", 212992}, {"net.core.wmem_default", 212992},
	}
	host := differing(live, "linux-6.18")
	require.Equal(t, live[:2], host, "rmem_default and wmem_default are the profile's own")

	got, err := modelRun("h.zcs", src, nil, "linux-6.18", nil, host)
	require.NoError(t, err)
	require.Equal(t, "2097152", got.res[3], "min(1M, rmem_max) doubled")
	require.Equal(t, "2097152", got.res[5], "min(1M, wmem_max) doubled")
	got, err = modelRun("h.zcs", src, nil, "linux-6.18", nil, nil)
	require.NoError(t, err)
	require.Equal(t, "425984", got.res[3], "the profile's rmem_max, 212992, doubled")

	var b strings.Builder
	require.NoError(t, (&Result{File: "h.zcs", Profile: "linux-6.18", Host: host}).WriteText(&b))
	require.Contains(t, b.String(), "vs model linux-6.18 with the host's net.core.rmem_max=4194304, net.core.wmem_max=4194304\n")
}
