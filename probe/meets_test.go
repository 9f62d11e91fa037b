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

// An ICMP expectation checks the quoted length only when it states one.
func TestMeetsICMPQuoted(t *testing.T) {
	icmp := scenario.Outcome{Kind: scenario.OutcomeICMP, Errno: "ECONNREFUSED", Type: 3, Code: 3}
	quoted := icmp
	quoted.Quoted, quoted.HasQuoted = 520, true
	require.True(t, meets(icmp, "icmp ECONNREFUSED type=3 code=3 quoted=100"))
	require.True(t, meets(quoted, "icmp ECONNREFUSED type=3 code=3 quoted=520"))
	require.False(t, meets(quoted, "icmp ECONNREFUSED type=3 code=3 quoted=100"))
	require.False(t, meets(icmp, "icmp ECONNREFUSED type=3 code=4 quoted=100"))
}
