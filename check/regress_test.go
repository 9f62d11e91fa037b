package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
)

// violationsOf runs a scenario with the full sweep after every step and
// returns its violations.
func violationsOf(t *testing.T, src string) []sim.Violation {
	t.Helper()
	tr, err := interp.Run("regress.zcs", []byte(src), interp.Options{Seed: 1, FullCheck: true})
	require.NoError(t, err)
	var vs []sim.Violation
	for _, r := range tr.Records {
		if r.Violation != nil {
			vs = append(vs, *r.Violation)
		}
	}
	return vs
}

// A closed socket whose wmem is still charged by an skb a device holds is
// alive (sk_free defers __sk_free until sock_wfree drops the last
// sk_wmem_alloc), so its error queue, purged only by sk_destruct
// (packet_sock_destruct), legitimately keeps its timestamp clone.
func TestDeadErrQueueHeldByDevice(t *testing.T) {
	vs := violationsOf(t, `profile rfc-v2
device eth0 nic txcomplete=manual
socket s1 AF_PACKET SOCK_DGRAM via=eth0
setsockopt s1 SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE
send s1 0 MSG_DONTWAIT
`)
	require.Empty(t, vs)
}

// packet_snd (RFC patch 11) sleeps in sock_alloc_send_pskb before
// skb_zerocopy_alloc calls sock_omalloc: the uarg is admitted against the
// optmem the completions left while it slept, not against what the socket
// held when the call started.
func TestOptmemAdmissionAfterSleep(t *testing.T) {
	vs := violationsOf(t, `profile rfc-v2
sysctl net.core.optmem_max 2K
sysctl net.core.wmem_default 4608
device eth0 nic
socket s1 AF_PACKET SOCK_DGRAM via=eth0
send s1 1500 MSG_ZEROCOPY
send s1 1500 MSG_ZEROCOPY
send s1 1500 MSG_ZEROCOPY
`)
	require.Empty(t, vs)
}

// Under the RFC a corked RAW datagram's tail holds uarg 0, a
// raw_send_hdrinc takes id 1, and the next corked append gets a new uarg
// (id 2) that the tail refuses (EEXIST): sock_zerocopy_put_abort drops
// it, nothing leaks.
func TestRFCCorkAppendBesideOtherUarg(t *testing.T) {
	vs := violationsOf(t, `profile rfc-v2
socket s1 AF_INET SOCK_RAW IPPROTO_ICMP
connect s1
send s1 1 MSG_MORE|MSG_ZEROCOPY
setsockopt s1 IPPROTO_IP IP_HDRINCL 1
sendmsg s1 [191] MSG_ZEROCOPY
setsockopt s1 IPPROTO_IP IP_HDRINCL 0
send s1 1 MSG_ZEROCOPY => -1 EEXIST
`)
	require.Empty(t, vs)
}

// An SCM_ZC_NOTIFICATION takes the queued completions off the error queue
// (their optmem returns) before udp_sendmsg allocates the next uarg: the
// uarg is admitted against the optmem left then, within the same call.
func TestOptmemAdmissionAfterZcInfo(t *testing.T) {
	vs := violationsOf(t, `profile zc-cmsg-v7
sysctl net.core.optmem_max 1024
socket s3 AF_INET SOCK_DGRAM
connect s3
setsockopt s3 SOL_SOCKET SO_ZEROCOPY 1
sendmsg s3 [] MSG_ZEROCOPY zc_info=1
sendmsg s3 [] MSG_ZEROCOPY zc_info=1
sendmsg s3 [] MSG_ZEROCOPY zc_info=1
`)
	require.Empty(t, vs)
}

// A TX ring frame's skb still queued on a device with manual completion
// holds its sk_wmem_alloc charge, and the frame stays TP_STATUS_SENDING,
// until tpacket_destruct_skb (which ends in sock_wfree) runs: at
// quiescence the skb is a legitimate holder of the packet socket's
// charge, and after close it keeps the socket alive. Both checkers must
// know the skb's socket through its destructor's owner.
func TestRingFrameHeldByDevice(t *testing.T) {
	for _, full := range []bool{true, false} {
		for _, tail := range []string{"", "close p => 0\ncomplete eth0\n"} {
			tr, err := interp.Run("regress.zcs", []byte(`device eth0 nic txcomplete=manual
socket p AF_PACKET SOCK_RAW 0x0300 via=eth0
setsockopt p SOL_PACKET PACKET_TX_RING [4096, 1, 1024, 4] => 0
mmap p => 0
txframe p 0 600
send p 0 MSG_DONTWAIT => 600
txstatus p 0 => 2
expect p pending=1
`+tail), interp.Options{Seed: 1, FullCheck: full})
			require.NoError(t, err)
			for _, r := range tr.Records {
				require.Nil(t, r.Violation, "full=%v close=%v: %v", full, tail != "", r.Violation)
				require.Nil(t, r.Mismatch, "full=%v close=%v: %v", full, tail != "", r.Mismatch)
			}
		}
	}
}
