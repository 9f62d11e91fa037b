package replay

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
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

// unackedSends keeps at most maxUnacked entries, merging the oldest, which
// widens the bound but loses no charge; a read of the ids drops what it
// covers, a merged entry only once its last id is read.
func TestUnackedSendsBounded(t *testing.T) {
	var u unackedSends
	e := &fdEntry{}
	for i := range maxUnacked + 6 {
		u.sent(e, sock.SendResult{ZC: true, ID: uint32(i)}, 10, 100+i)
	}
	require.Len(t, u.list, maxUnacked)
	charged, line := u.bound()
	require.Equal(t, uint64(10*(maxUnacked+6)), charged)
	require.Equal(t, 100, line)
	e.errq.next, e.errq.hasNext = 6, true // ids 0..5 read: the merged head ends at id 6
	u.prune(e)
	require.Len(t, u.list, maxUnacked)
	e.errq.next = 7
	u.prune(e)
	require.Len(t, u.list, maxUnacked-1)
	charged, line = u.bound()
	require.Equal(t, uint64(10*(maxUnacked-1)), charged)
	require.Equal(t, 107, line)
}
