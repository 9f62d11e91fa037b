package packet_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/packet"
)

// A frame outside the ring reads as available and cannot be requested; a
// negative length is refused.
func TestRingBounds(t *testing.T) {
	var r packet.Ring
	require.Equal(t, packet.TP_STATUS_AVAILABLE, r.Status(-1))
	require.Equal(t, packet.TP_STATUS_AVAILABLE, r.Status(5))
	require.False(t, r.Request(5, 10))
	require.False(t, r.Request(-1, 10))
}
