package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ParseEach hands over the statements Parse returns, one at a time, and
// stops when told to; its errors are Parse's.
func TestParseEach(t *testing.T) {
	src := []byte("# c\nsocket s AF_INET SOCK_STREAM\n\nconnect s => 0\nsend s 1 0\n")
	want, err := Parse("x.zcs", src)
	require.NoError(t, err)
	var got []Stmt
	require.NoError(t, ParseEach("x.zcs", src, func(st Stmt) bool { got = append(got, st); return true }))
	require.Equal(t, want, got)

	n := 0
	require.NoError(t, ParseEach("x.zcs", src, func(Stmt) bool { n++; return n < 2 }))
	require.Equal(t, 2, n, "stops when fn returns false")

	bad := []byte("socket s AF_INET SOCK_STREAM\nfrobnicate\n")
	_, perr := Parse("x.zcs", bad)
	require.Error(t, perr)
	require.Equal(t, perr, ParseEach("x.zcs", bad, func(Stmt) bool { return true }))
}
