package sock

import (
	"math"
	"slices"

	"github.com/zcsim/zcsim/kernel"
)

// SysctlKey is one sysctl the model has: how many values a write takes,
// the range its proc handler accepts for each (a value outside is
// EINVAL and changes nothing), whether a network namespace has its own,
// and the setting it writes.
type SysctlKey struct {
	// Name is the key as sysctl -w spells it: "net.ipv4.tcp_sack".
	Name string
	// Values is how many values one write takes.
	Values int
	// Least and Most bound each value (proc_dointvec_minmax's extra1
	// and extra2, a u8 handler's 255); Most 0 is no bound but the
	// value's type.
	Least, Most uint64
	// Netns says each network namespace has its own (net->ipv4.sysctl_*,
	// net->core.sysctl_*), so a private one may be set; the others are
	// the host's, read-only in any namespace but the first.
	Netns bool
	// Named says the value is a name (tcp_congestion_control), not a
	// number.
	Named bool
	// Since is the mainline release that added the key; a profile of an
	// earlier kernel has no such file under /proc/sys (its open is
	// ENOENT). Zero for the keys every profile's kernel has: all but
	// tcp_rto_max_ms were in mainline before v4.10, the oldest profile's
	// base, and are in the 6.1 source.
	Since kernel.Version

	setNumbers func(*Sysctl, []int64)
	setName    func(*Sysctl, string)
}

// On reports whether profile p's kernel has the key (Since).
func (k SysctlKey) On(p *kernel.Profile) bool { return !p.Kernel.Before(k.Since) }

// Set writes the key's values into n: numbers, or for a Named key the
// name.
func (k SysctlKey) Set(n *Sysctl, numbers []int64, name string) {
	if k.Named {
		k.setName(n, name)
		return
	}
	k.setNumbers(n, numbers)
}

// SysctlKeys are the keys the model has, as Linux 6.18 bounds them
// (each range probed on it in a private namespace).
var SysctlKeys = []SysctlKey{
	// net/core/sysctl_net_core.c: optmem_max from 0 (SYSCTL_ZERO); the
	// buffers from SOCK_MIN_SNDBUF and SOCK_MIN_RCVBUF.
	{Name: "net.core.optmem_max", Values: 1, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.OptmemMax = int(v[0]) }},
	{Name: "net.core.wmem_max", Values: 1, Least: MinSndbuf, setNumbers: func(n *Sysctl, v []int64) { n.WmemMax = int(v[0]) }},
	{Name: "net.core.rmem_max", Values: 1, Least: MinRcvbuf, setNumbers: func(n *Sysctl, v []int64) { n.RmemMax = int(v[0]) }},
	{Name: "net.core.wmem_default", Values: 1, Least: MinSndbuf, setNumbers: func(n *Sysctl, v []int64) { n.WmemDefault = int(v[0]) }},
	{Name: "net.core.rmem_default", Values: 1, Least: MinRcvbuf, setNumbers: func(n *Sysctl, v []int64) { n.RmemDefault = int(v[0]) }},
	{Name: "net.core.somaxconn", Values: 1, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.Somaxconn = int(v[0]) }},
	// net/ipv4/sysctl_net_ipv4.c: tcp_wmem and tcp_rmem from 1
	// (SYSCTL_ONE); the u8 keys are proc_dou8vec_minmax.
	{Name: "net.ipv4.tcp_wmem", Values: 3, Least: 1, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPWmem = [3]int{int(v[0]), int(v[1]), int(v[2])} }},
	{Name: "net.ipv4.tcp_rmem", Values: 3, Least: 1, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPRmem = [3]int{int(v[0]), int(v[1]), int(v[2])} }},
	{Name: "net.ipv4.ping_group_range", Values: 2, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.PingGroupRange = [2]int{int(v[0]), int(v[1])} }},
	{Name: "net.ipv4.tcp_fastopen", Values: 1, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPFastOpen = int(v[0]) }},
	{Name: "net.ipv4.tcp_moderate_rcvbuf", Values: 1, Most: math.MaxUint8, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPModerateRcvbuf = int(v[0]) }},
	{Name: "net.ipv4.tcp_notsent_lowat", Values: 1, Most: math.MaxUint32, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPNotsentLowat = uint32(v[0]) }},
	{Name: "net.ipv4.tcp_timestamps", Values: 1, Most: math.MaxUint8, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPTimestamps = int(v[0]) }},
	// net/mptcp/ctrl.c: enabled is a u8 from 0 to 1 (SYSCTL_ONE), per
	// namespace (struct mptcp_pernet), since v5.6.
	{Name: "net.mptcp.enabled", Values: 1, Most: 1, Netns: true, Since: kernel.Version{Major: 5, Minor: 6}, setNumbers: func(n *Sysctl, v []int64) { n.MPTCPEnabled = int(v[0]) }},
	{Name: "net.ipv4.tcp_sack", Values: 1, Most: math.MaxUint8, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPSack = int(v[0]) }},
	{Name: "net.ipv4.tcp_abort_on_overflow", Values: 1, Most: math.MaxUint8, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPAbortOnOverflow = int(v[0]) }},
	{Name: "net.ipv4.tcp_early_retrans", Values: 1, Most: 4, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPEarlyRetrans = int(v[0]) }},
	// 1 to MAX_TCP_SYNCNT.
	{Name: "net.ipv4.tcp_syn_retries", Values: 1, Least: 1, Most: 127, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPSynRetries = int(v[0]) }},
	{Name: "net.ipv4.tcp_retries2", Values: 1, Most: math.MaxUint8, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPRetries2 = int(v[0]) }},
	{Name: "net.ipv4.tcp_orphan_retries", Values: 1, Most: math.MaxUint8, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPOrphanRetries = int(v[0]) }},
	// TCP_RTO_MAX_MIN_SEC and TCP_RTO_MAX_SEC in milliseconds; added in
	// v6.15 ("tcp: add tcp_rto_max_ms sysctl"): not in the 6.1 source,
	// in the live 6.18's /proc/sys/net/ipv4.
	{Name: "net.ipv4.tcp_rto_max_ms", Values: 1, Least: 1000, Most: 120000, Netns: true, Since: kernel.Version{Major: 6, Minor: 15}, setNumbers: func(n *Sysctl, v []int64) { n.TCPRtoMaxMs = int(v[0]) }},
	{Name: "net.ipv4.tcp_invalid_ratelimit", Values: 1, Most: math.MaxInt32, Netns: true, setNumbers: func(n *Sysctl, v []int64) { n.TCPInvalidRatelimitMs = int(v[0]) }},
	{Name: "net.ipv4.tcp_congestion_control", Values: 1, Netns: true, Named: true, setName: func(n *Sysctl, name string) { n.SetCongestionDefault(kernel.Congestion(name)) }},
}

// LookupSysctl returns the key named name.
func LookupSysctl(name string) (SysctlKey, bool) {
	i := slices.IndexFunc(SysctlKeys, func(k SysctlKey) bool { return k.Name == name })
	if i < 0 {
		return SysctlKey{}, false
	}
	return SysctlKeys[i], true
}

// SysctlNames lists the keys' names, sorted, those a namespace has its
// own of alone when netnsOnly is set.
func SysctlNames(netnsOnly bool) []string {
	var names []string
	for _, k := range SysctlKeys {
		if k.Netns || !netnsOnly {
			names = append(names, k.Name)
		}
	}
	slices.Sort(names)
	return names
}
