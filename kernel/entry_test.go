package kernel_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// Every operation has a name, renders as text, and writes valid JSON
// whose members carry its fields by name.
func TestEntryOps(t *testing.T) {
	names := map[string]kernel.Op{}
	for op := kernel.OpText; op.String() != "op"+strconv.Itoa(int(op)); op++ {
		e := kernel.Entry{Op: op, Holder: kernel.ObjectID{Kind: "skb", Serial: 3}, Peer: kernel.ObjectID{Kind: "sock", Serial: 1},
			Before: 1, After: 2, Args: [4]int64{1, 2, 3, 4}, Str: "eth0"}
		require.NotEmpty(t, e.Text(), "%v", op)
		prev, dup := names[op.String()]
		require.False(t, dup, "%v and %v share a name", op, prev)
		names[op.String()] = op
		var m map[string]any
		js := append([]byte(`{"object":"x#1"`), e.AppendJSON(nil)...)
		require.NoError(t, json.Unmarshal(append(js, '}'), &m), "%s", js)
		require.Equal(t, op.String(), m["op"])
		if op.Func() != "" {
			require.Equal(t, op.Func(), m["func"])
		}
	}
	require.Greater(t, len(names), 40)
}

// The text of an entry is the timeline's sentence; its JSON carries
// numbers and names.
func TestEntryRendering(t *testing.T) {
	skb := kernel.ObjectID{Kind: "shinfo", Serial: 9}
	tests := []struct {
		e        kernel.Entry
		text, js string
	}{
		{kernel.Entry{Op: kernel.OpUargGet, Holder: skb, Before: 1, After: 2},
			"get by shinfo#9 → refcnt 2",
			`,"op":"get","func":"net_zcopy_get","holder":"shinfo#9","refcnt_before":1,"refcnt":2`},
		{kernel.Entry{Op: kernel.OpUargPut, Holder: skb, Before: 1, After: 0, Args: [4]int64{kernel.Bool(false)}},
			"put by shinfo#9 success=false → refcnt 0",
			`,"op":"put","func":"net_zcopy_put","holder":"shinfo#9","refcnt_before":1,"refcnt":0,"success":false`},
		{kernel.Entry{Op: kernel.OpSetsockopt, Args: [4]int64{int64(kernel.SO_SNDBUF.Level), int64(kernel.SO_SNDBUF.Name), 4096}},
			"setsockopt SO_SNDBUF = 4096",
			`,"op":"setsockopt","func":"sock_setsockopt","optname":"SO_SNDBUF","level":1,"value":4096`},
		{kernel.Entry{Op: kernel.OpSocket, Args: [4]int64{int64(kernel.AF_INET), int64(kernel.SOCK_DGRAM), int64(kernel.IPPROTO_UDP)}},
			"socket(AF_INET, SOCK_DGRAM, 17)",
			`,"op":"socket","func":"__sock_create","family":"AF_INET","type":"SOCK_DGRAM","protocol":"17"`},
		{kernel.Entry{Op: kernel.OpText, Str: "lost on the link"}, "lost on the link", `,"op":"text","text":"lost on the link"`},
		{kernel.Entry{Op: kernel.OpZcopySet, Holder: kernel.ObjectID{Kind: "ubuf", Serial: 2}, After: 1, Args: [4]int64{0, 0, 1}},
			"skb_zcopy_set ubuf#2[legacy refcnt 1]",
			`,"op":"skb_zcopy_set","func":"skb_zcopy_set","uarg":"ubuf#2","refcnt_before":0,"refcnt":1,"id":0,"hi":0,"legacy":true`},
	}
	for _, tt := range tests {
		require.Equal(t, tt.text, tt.e.Text())
		require.Equal(t, tt.js, string(tt.e.AppendJSON(nil)))
	}
}

// Counts in the timeline agree with their number: "1 frag", "2 frags".
func TestEntryCounts(t *testing.T) {
	require.Equal(t, "zerocopy 100 bytes from user pages, 1 frag", kernel.Entry{Op: kernel.OpZerocopyFill, Args: [4]int64{100, 1}}.Text())
	require.Equal(t, "zerocopy 100 bytes from user pages, 2 frags", kernel.Entry{Op: kernel.OpZerocopyFill, Args: [4]int64{100, 2}}.Text())
	require.Equal(t, "ip_do_fragment: 1 fragment", kernel.Entry{Op: kernel.OpFragment, Args: [4]int64{1}}.Text())
}
