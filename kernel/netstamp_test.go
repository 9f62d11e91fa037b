package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// The first count and the last switch the key through a work item: a
// packet at that very instant may or may not be stamped.
func TestNetstampDeferred(t *testing.T) {
	var n kernel.Netstamp
	require.Equal(t, kernel.RxStampNone, n.Stamp(0))
	n.Enable(10)
	require.Equal(t, kernel.RxStampUndetermined, n.Stamp(10))
	require.Equal(t, kernel.RxStampSet, n.Stamp(11))
	n.Enable(20)
	require.Equal(t, kernel.RxStampSet, n.Stamp(20), "a second count switches nothing")
	n.Disable(30)
	n.Disable(40)
	require.Equal(t, kernel.RxStampUndetermined, n.Stamp(40))
	require.Equal(t, kernel.RxStampNone, n.Stamp(41))
	require.Equal(t, kernel.RxStampSet, kernel.RxStampUndetermined.Merge(kernel.RxStampSet))
	require.Equal(t, kernel.RxStampUndetermined, kernel.RxStampNone.Merge(kernel.RxStampUndetermined))
}
