package interp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// zcTCP is a connected TCP socket with SO_ZEROCOPY on a NIC under the v7
// series, two completions queued as one record [0,1].
const zcTCP = `
profile zc-cmsg-v7
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 4000 MSG_ZEROCOPY => 4000
settle
send s 4000 MSG_ZEROCOPY => 4000
settle
`

// zcUDPHead is a UDP socket with SO_ZEROCOPY on a NIC under the v7
// series; zcUDP connects it and has one completion [0,0] queued.
const (
	zcUDPHead = `profile zc-cmsg-v7
device eth0 nic
socket u AF_INET SOCK_DGRAM via=eth0
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
`
	zcUDP = zcUDPHead + `connect u => 0
send u 1000 MSG_ZEROCOPY => 1000
settle
`
)

// The handler returns the queued completions in the reply and frees
// them; the send goes on and gets its own id.
func TestZcInfoReturnsCompletions(t *testing.T) {
	tr := runSrc(t, zcTCP+`
sendmsg s [4000] MSG_ZEROCOPY zc_info=8 => 4000
expect s errqueue=0 notified=2 zckey=3
`)
	requireOK(t, tr)
	e := event(t, tr, "zc_info=8 = 4000")
	require.Contains(t, e.Text, "zc_info [0,1]")
	require.NotNil(t, e.ZcInfo)
	require.True(t, e.ZcInfo.Parsed)
	require.Len(t, e.ZcInfo.Elems, 1)
	require.Equal(t, uint32(1), e.ZcInfo.Elems[0].Hi)
	require.True(t, e.ZcInfo.Elems[0].Zerocopy)
	require.Equal(t, uint32(2), *e.UargID)
	var notes []string
	for _, tc := range e.Touched {
		notes = append(notes, tc.Text())
	}
	require.Contains(t, notes, "SCM_ZC_NOTIFICATION took 1 completion, 0 records left")
}

// The EINVAL cases take nothing; on TCP the cmsg comes after the uarg,
// which is aborted, so the id is not consumed.
func TestZcInfoEinval(t *testing.T) {
	for name, stmt := range map[string]string{
		"short":     "sendmsg s [4000] MSG_ZEROCOPY zc_info=1 zc_len=3 => EINVAL",
		"not exact": "sendmsg s [4000] MSG_ZEROCOPY zc_info=1 zc_len=15 => EINVAL",
	} {
		t.Run(name, func(t *testing.T) {
			tr := runSrc(t, zcTCP+stmt+"\nexpect s errqueue=1 zckey=2 notified=0\n")
			requireOK(t, tr)
			require.Contains(t, event(t, tr, "EINVAL").Text, "zc_info not parsed")
		})
	}
	noOpt := runSrc(t, `
profile zc-cmsg-v7
socket u AF_INET SOCK_DGRAM
connect u => 0
sendmsg u [100] 0 zc_info=4 => EINVAL
`)
	requireOK(t, noOpt)
	merged := runSrc(t, zcTCP+"sendmsg s [4000] MSG_ZEROCOPY zc_info=8 => 4000\n", Options{Profile: "linux-6.18"})
	requireMismatches(t, merged, "test.zcs:10: 4000 | -1 EINVAL")
}

// A UDP append to a pending corked datagram never parses the cmsg: the
// queue keeps its records and the program's zc_info is untouched.
func TestZcInfoCorkedAppendSkips(t *testing.T) {
	tr := runSrc(t, zcUDP+`
send u 100 MSG_MORE => 100
sendmsg u [100] MSG_MORE zc_info=4 => 100
expect u errqueue=1
send u 100 0 => 100
settle
sendmsg u [100] 0 zc_info=4 => 100
expect u errqueue=0 notified=1
`)
	requireOK(t, tr)
	require.Contains(t, event(t, tr, "MSG_MORE zc_info=4").Text, "zc_info not parsed")
}

// A control buffer beyond the stack copy is sock_kmalloc'd from optmem:
// too large, the call fails with ENOBUFS before the protocol sees it.
func TestZcInfoControlBuffer(t *testing.T) {
	tr := runSrc(t, zcTCP+`
sysctl net.core.optmem_max 4096
sendmsg s [4000] MSG_ZEROCOPY zc_info=400 => ENOBUFS
sendmsg s [4000] MSG_ZEROCOPY zc_info=200 => 4000
expect s errqueue=0 notified=2
`)
	requireOK(t, tr)
}

// Only zerocopy completions are taken, head first; a timestamp keeps its
// place for recvmsg(MSG_ERRQUEUE), and at most zc_info entries return.
func TestZcInfoSkipsOtherRecords(t *testing.T) {
	tr := runSrc(t, zcUDPHead+`
setsockopt u SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_OPT_TSONLY => 0
connect u => 0
send u 1000 MSG_ZEROCOPY => 1000
settle
send u 1000 0 => 1000
settle
send u 1000 MSG_ZEROCOPY => 1000
settle
expect u errqueue=5
sendmsg u [10] 0 zc_info=1 => 10
expect u errqueue=5 notified=1
sendmsg u [10] 0 zc_info=8 => 10
expect u notified=2
recvmsg u MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND
`)
	requireOK(t, tr)
	require.Contains(t, event(t, tr, "zc_info=1 =").Text, "zc_info [0,0]")
	require.Contains(t, event(t, tr, "zc_info=8 =").Text, "zc_info [1,1]")
}

// Under the v7 series as posted, a put_cmsg fault loses the completions
// the handler took: the invariant that each id reaches the program once
// reports it. Fixed, the fault fails the cmsg and loses nothing.
func TestZcInfoLossOnFault(t *testing.T) {
	src := zcTCP + `
fault put_cmsg next=1
sendmsg s [4000] MSG_ZEROCOPY zc_info=8
settle
`
	lossy := runSrc(t, src)
	require.Contains(t, event(t, lossy, "zc_info=8 =").Text, "lost [0,1]")
	v := violations(lossy)
	require.NotEmpty(t, v)
	require.Equal(t, kernel.RuleNotifyOnce.String(), v[0].Rule)
	require.Contains(t, v[0].Message, "never received it")

	fixed := runSrc(t, src+"expect s errqueue=1 zckey=2\n", Options{Off: []kernel.Bug{kernel.BugZcCmsgLoss}})
	requireOK(t, fixed)
	require.Contains(t, event(t, fixed, "zc_info=8 =").Text, "= -1 EINVAL  zc_info not parsed")
}

// Under the v7 series a send that fails after the handler ran loses what
// it took; fixed, the program has them already.
func TestZcInfoLossOnFailedSend(t *testing.T) {
	src := zcUDP + `
fault alloc_skb next=1
sendmsg u [100] 0 zc_info=4 => ENOBUFS
`
	lossy := runSrc(t, src)
	require.Contains(t, event(t, lossy, "ENOBUFS").Text, "zc_info empty, lost [0,0]")
	require.NotEmpty(t, violations(lossy))
	fixed := runSrc(t, src+"expect u notified=1\n", Options{Off: []kernel.Bug{kernel.BugZcCmsgLoss}})
	requireOK(t, fixed)
	require.Contains(t, event(t, fixed, "ENOBUFS").Text, "zc_info [0,0]")
}

// notified=[LO,HI] holds whatever split the completions came in, across
// error-queue reads and SCM_ZC_NOTIFICATION, and fails on a gap, an id
// read twice or a wrong bound; "any" accepts either code, "-1 any" any
// errno.
func TestNotifiedUnion(t *testing.T) {
	tr := runSrc(t, zcUDP+`send u 1000 MSG_ZEROCOPY => 1000
settle
recvmsg u MSG_ERRQUEUE => zerocopy [0,1] any
send u 1000 MSG_ZEROCOPY => 1000
settle
sendmsg u [1000] MSG_ZEROCOPY zc_info=4 => 1000
settle
recvmsg u MSG_ERRQUEUE => zerocopy [3,3] any
recvmsg u MSG_ERRQUEUE => -1 any
expect u notified=[0,3] errqueue=0
expect u notified=[0,2]
expect u notified=[1,3]
expect u notified=[0,4]
recvmsg u MSG_ERRQUEUE => zerocopy [3,3]
send u 1000 MSG_ZEROCOPY => -1 any
`)
	requireMismatches(t, tr,
		"test.zcs:18: notified=[0,2] | notified [0,3], id 3 outside [0,2]",
		"test.zcs:19: notified=[1,3] | notified [0,3], id 0 outside [1,3]",
		"test.zcs:20: notified=[0,4] | notified [0,3], ids from 4 missing",
		"test.zcs:21: zerocopy [3,3] | -1 EAGAIN",
		"test.zcs:22: -1 any | 1000",
	)
}

// A read cut by MSG_CTRUNC hands the program the record's ids only when
// its buffer held the cmsghdr and the sock_extended_err (32 bytes):
// notified counts the second read's id and not the first's.
func TestNotifiedAfterCtrunc(t *testing.T) {
	tr := runSrc(t, `socket u AF_INET SOCK_DGRAM
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
connect u => 0
send u 1000 MSG_ZEROCOPY => 1000
recvmsg u MSG_ERRQUEUE control=31 => ctrunc
send u 1000 MSG_ZEROCOPY => 1000
recvmsg u MSG_ERRQUEUE control=32 => ctrunc
expect u notified=[1,1]
expect u notified=[0,1]
`)
	requireMismatches(t, tr, "test.zcs:9: notified=[0,1] | notified [1,1], id 0 missing")
}
