package replay

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// An AF_PACKET protocol is the ethertype in network byte order, named or
// numbered as strace prints it; anything else is not a protocol.
func TestPacketProtocol(t *testing.T) {
	for s, want := range map[string]kernel.Protocol{
		"htons(ETH_P_ALL)":              0x0300,
		"htons(ETH_P_IPV6)":             0xdd86,
		"htons(0 /* ETH_P_??? */)":      0,
		"htons(0x88b5 /* ETH_P_??? */)": 0xb588,
	} {
		got, ok := packetProtocol(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	for _, s := range []string{"ETH_P_ALL", "htons(ETH_P_NOPE)", "htons(70000)", "htons(3"} {
		_, ok := packetProtocol(s)
		require.False(t, ok, s)
	}
}
