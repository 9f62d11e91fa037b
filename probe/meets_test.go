package probe

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/scenario"
)

// The "any" forms meet either code, the exact ones only theirs.
func TestMeetsAnyCode(t *testing.T) {
	anyZC := scenario.Outcome{Kind: scenario.OutcomeZerocopy, Range: scenario.Range{Lo: 0, Hi: 2}, AnyCode: true}
	exact := anyZC
	exact.AnyCode = false
	anyErr := scenario.Outcome{Kind: scenario.OutcomeErrno, AnyCode: true}
	require.True(t, meets(anyZC, "zerocopy [0,2]"))
	require.True(t, meets(anyZC, "zerocopy [0,2] copied"))
	require.False(t, meets(anyZC, "zerocopy [0,1] copied"))
	require.False(t, meets(exact, "zerocopy [0,2] copied"))
	require.True(t, meets(anyErr, "-1 EAGAIN"))
	require.False(t, meets(anyErr, "0"))
}
