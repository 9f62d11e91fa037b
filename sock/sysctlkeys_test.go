package sock_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sock"
)

// Each key writes its own setting, and only that: a write of values the
// defaults do not have changes the namespace, and the keys' writes
// change different fields.
func TestSysctlKeysSet(t *testing.T) {
	p, err := kernel.Lookup("linux-6.18")
	require.NoError(t, err)
	writer := map[string]string{} // field: the key that wrote it
	for _, k := range sock.SysctlKeys {
		n := sock.DefaultSysctl(p)
		numbers := make([]int64, k.Values)
		for i := range numbers {
			numbers[i] = int64(k.Least) + 7 + int64(i)
		}
		k.Set(n, numbers, "reno")
		fields := changedFields(*sock.DefaultSysctl(p), *n)
		require.NotEmpty(t, fields, k.Name)
		for _, f := range fields {
			other, dup := writer[f]
			require.False(t, dup, "%s and %s both write %s", k.Name, other, f)
			writer[f] = k.Name
		}
		got, ok := sock.LookupSysctl(k.Name)
		require.True(t, ok)
		require.Equal(t, k.Name, got.Name)
	}
	_, ok := sock.LookupSysctl("net.ipv4.tcp_nope")
	require.False(t, ok)
}

// changedFields names the fields of b that differ from a's.
func changedFields(a, b sock.Sysctl) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var names []string
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			names = append(names, va.Type().Field(i).Name)
		}
	}
	return names
}

// Only the host's buffer limits and defaults are global; the names come
// sorted.
func TestSysctlNames(t *testing.T) {
	all, netns := sock.SysctlNames(false), sock.SysctlNames(true)
	require.IsIncreasing(t, all)
	require.Len(t, all, len(sock.SysctlKeys))
	var global []string
	for _, name := range all {
		k, _ := sock.LookupSysctl(name)
		if !k.Netns {
			global = append(global, name)
		} else {
			require.Contains(t, netns, name)
		}
	}
	require.Equal(t, []string{"net.core.rmem_default", "net.core.rmem_max", "net.core.wmem_default", "net.core.wmem_max"}, global)
	require.Len(t, netns, len(all)-len(global))
}
