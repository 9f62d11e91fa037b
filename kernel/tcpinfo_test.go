package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// Decode reads little-endian fields and the high nibble of the wscale
// byte, and nothing the kernel did not write.
func TestTCPInfoDecode(t *testing.T) {
	b := make([]byte, kernel.TCPInfoSize)
	b[0], b[6] = 1, 0xa7
	b[16], b[17] = 0xe5, 0x7f // 32741
	b[128], b[132] = 1, 1     // 1<<32 + 1
	got := map[string]uint64{}
	for _, f := range kernel.TCPInfoFields {
		if v, ok := f.Decode(b, 140); ok {
			got[f.Key] = v
		}
	}
	require.Equal(t, uint64(1), got["tcpi_state"])
	require.Equal(t, uint64(10), got["tcpi_rcv_wscale"])
	require.Equal(t, uint64(32741), got["tcpi_snd_mss"])
	require.Equal(t, uint64(1<<32+1), got["tcpi_bytes_received"])
	require.NotContains(t, got, "tcpi_notsent_bytes", "offset 144 is past the 140 bytes written")
}
