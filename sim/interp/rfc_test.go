package interp

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zcsim/zcsim/tcp"
)

// oneZerocopySend connects the TCP socket s and lets one zerocopy send of
// 4000 bytes complete.
const oneZerocopySend = `setsockopt s SOL_SOCKET SO_ZEROCOPY 1
connect s => 0
send s 4000 MSG_ZEROCOPY => 4000
settle
`

// Seed 000's __msg_zerocopy_callback fills ee_info and ee_data and no
// ee_code: the RFC has no SO_EE_CODE_ZEROCOPY_COPIED, so a send over
// loopback, whose pages skb_orphan_frags_rx copies, is notified without
// it. v4.14 added the code, and the same send says COPIED.
func TestRFCHasNoCopiedCode(t *testing.T) {
	src := "socket s AF_INET SOCK_STREAM peer_read=auto\n" + oneZerocopySend
	rfc := runSrc(t, "profile rfc-v2\n"+src+"recvmsg s MSG_ERRQUEUE => zerocopy [0,0]\n")
	requireOK(t, rfc)
	merged := runSrc(t, "profile linux-4.14\n"+src+"recvmsg s MSG_ERRQUEUE => zerocopy [0,0] copied\n")
	requireOK(t, merged)
	require.Contains(t, event(t, merged, "recvmsg s MSG_ERRQUEUE = 0").Text, "COPIED")
}

// Seed 000, "tcp: enable sendmsg zerocopy": select_size on a GSO route
// "if (zerocopy) return 0;", so the RFC's first skb has no linear payload
// and 100 bytes take a page frag (truesize 4672). v4.14 lost that test
// and copied them into a 1408-byte linear area (truesize 1984, bug B18).
func TestRFCZerocopyLinearEmpty(t *testing.T) {
	src := `
device eth0 nic txcomplete=manual
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1
connect s => 0
hold s ack
send s 100 MSG_ZEROCOPY => 100
`
	requireOK(t, runSrc(t, "profile rfc-v2\n"+src+"expect s wmem_queued=4672\n"))
	merged := runSrc(t, "profile linux-4.14\n"+src+"expect s wmem_queued=1984\n")
	require.Empty(t, mismatches(merged))
}

// Seed 000, "tcp: enable sendmsg zerocopy": the uarg is allocated only
// "if (sg && (flags & MSG_ZEROCOPY) && size && !uarg)": over a route
// without scatter-gather the RFC copies, takes no id and never notifies.
// v4.14 allocates anyway and sets uarg->zerocopy = 0: a COPIED
// notification.
func TestRFCNoUargWithoutSG(t *testing.T) {
	src := `
device eth0 nic sg=off
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1
connect s => 0
send s 4000 MSG_ZEROCOPY => 4000
settle
`
	requireOK(t, runSrc(t, "profile rfc-v2\n"+src+"recvmsg s MSG_ERRQUEUE => EAGAIN\nexpect s zckey=0\n"))
	requireOK(t, runSrc(t, "profile linux-4.14\n"+src+"recvmsg s MSG_ERRQUEUE => zerocopy [0,0] copied\nexpect s zckey=1\n"))
}

// Seed 000, "sock: sendmsg zerocopy notification coalescing": the RFC's
// sock_zerocopy_callback queues the notification whatever the socket's
// state, "if (!sock_flag(sk, SOCK_DEAD)) sk->sk_error_report(sk);" only
// skips the wakeup. v4.14 frees the notification of a dead socket.
func TestRFCNotifiesDeadSocket(t *testing.T) {
	src := `
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1
connect s => 0
hold s ack
send s 4000 MSG_ZEROCOPY => 4000
close s
release s ack
settle
`
	rfc := runSrc(t, "profile rfc-v2\n"+src)
	requireOK(t, rfc)
	require.Contains(t, timeline(t, rfc), "s: notification [0,0] queued")
	merged := runSrc(t, "profile linux-4.14\n"+src)
	requireOK(t, merged)
	require.NotContains(t, timeline(t, merged), "notification [0,0] queued")
}

// Seed 000, "sock: sendmsg zerocopy limit bytes per notification": "the
// internal calculation is approximate, in Kilobytes", kbytelen +=
// DIV_ROUND_UP(size, 1024u) against limit_kb = 512. Corked 1-byte sends
// each count a KiB, so the 513th starts a new uarg; merged kernels count
// bytes and keep extending (linux-5.0 here: v4.14 would copy the bytes
// into its linear area, B18, and give each call a uarg of its own).
func TestRFCByteLimitInKilobytes(t *testing.T) {
	src := `
user u uid=1000
task p user=u cap_ipc_lock
device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0 task=p
setsockopt s SOL_SOCKET SO_ZEROCOPY 1
connect s => 0
setsockopt s IPPROTO_TCP TCP_CORK 1
repeat 512 {
  send s 1 MSG_ZEROCOPY => 1
}
send s 1 MSG_ZEROCOPY => 1
`
	rfc := runSrc(t, "profile rfc-v2\n"+src)
	requireOK(t, rfc)
	require.Contains(t, event(t, rfc, "(id 512:").Text, "allocated a new uarg")
	merged := runSrc(t, "profile linux-5.0\n"+src)
	requireOK(t, merged)
	require.Contains(t, event(t, merged, "(id 512:").Text, "extended the tail uarg")
}

// Seed 000, "tcp: enable sendmsg zerocopy": when sock_zerocopy_realloc
// fails, "if ((err = sk_stream_wait_memory(sk, &timeo)) != 0) goto
// out_err;" and then a second attempt, "if (!uarg) { err = -ENOBUFS;"
// (the cover letter: "fix: in tcp, check return value of second
// allocation attempt"). So a non-blocking send gets EAGAIN from the wait,
// and a blocking one sleeps vm_wait before its ENOBUFS. Merged kernels
// fail with ENOBUFS at once either way.
func TestRFCRetriesAfterWaitingForMemory(t *testing.T) {
	src := "sysctl net.core.optmem_max 1000\ndevice eth0 nic\nsocket s AF_INET SOCK_STREAM via=eth0\n" + oneZerocopySend
	rfc := runSrc(t, "profile rfc-v2\n"+src+"send s 4000 MSG_ZEROCOPY|MSG_DONTWAIT => EAGAIN\nsend s 4000 MSG_ZEROCOPY => ENOBUFS\n")
	requireOK(t, rfc)
	require.Contains(t, timeline(t, rfc), "the vm_wait sleep of sk_stream_wait_memory is over")
	merged := runSrc(t, "profile linux-5.0\n"+src+"send s 4000 MSG_ZEROCOPY|MSG_DONTWAIT => ENOBUFS\nsend s 4000 MSG_ZEROCOPY => ENOBUFS\n")
	requireOK(t, merged)
	require.NotContains(t, timeline(t, merged), "vm_wait")
}

// The RFC's safety discussion (seed 000, Eric Dumazet): "This is why we
// require a copy (for all buffers that came from zero-copy) if network
// stack hits a device that can not offload TX checksum." skb_checksum_help
// linearizes an skb with shared frags (cef401de7be8, the commit he links),
// so TCP over such a device copies, and the notification says so.
func TestTCPWithoutChecksumOffloadCopies(t *testing.T) {
	src := `
profile linux-5.0
device eth0 nic csum=%s
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1
connect s => 0
send s 4000 MSG_ZEROCOPY => 4000
settle
recvmsg s MSG_ERRQUEUE => zerocopy [0,0]%s
`
	requireOK(t, runSrc(t, fmt.Sprintf(src, "off", " copied")))
	requireOK(t, runSrc(t, fmt.Sprintf(src, "on", "")))
}

// The RFC's skb_copy_ubufs keeps only pages nothing else references; a
// user page always has the program's own reference, even though the model
// forgets a call's buffer when the call returns. A corked RAW datagram
// looped to a local socket is copied, not queued with the user's pages
// (zcsim check found the model keeping them).
func TestRFCCopyUbufsCopiesUserPages(t *testing.T) {
	requireOK(t, runSrc(t, `
profile rfc-v2
socket s AF_INET SOCK_RAW 1
connect s => 0
sendmsg s [16384, 1] MSG_MORE|MSG_ZEROCOPY => 16385
send s 2 0 => 2
recvmsg s MSG_ERRQUEUE => zerocopy [0,0]
`))
}

// With the send buffer full, the RFC's sk_stream_wait_memory waits for
// room instead of sleeping vm_wait ("if (sk_stream_memory_free(sk))
// current_timeo = vm_wait = ..." holds only when there is room), so the
// second attempt comes with the ACK that frees it.
func TestRFCRetryWaitsForSendBuffer(t *testing.T) {
	tr := runSrc(t, `
profile rfc-v2
sysctl net.core.optmem_max 1000
device eth0 nic delay=10ms
socket s AF_INET SOCK_STREAM via=eth0
`+oneZerocopySend+`setsockopt s SOL_SOCKET SO_SNDBUF 4608 => 0
send s 100000 MSG_DONTWAIT
send s 4000 MSG_ZEROCOPY => ENOBUFS
`)
	requireOK(t, tr)
	require.NotContains(t, timeline(t, tr), "vm_wait")
	wait := event(t, tr, "MSG_ZEROCOPY blocks in sk_stream_wait_memory")
	done := event(t, tr, "MSG_ZEROCOPY = -1 ENOBUFS")
	require.Less(t, done.Time-wait.Time, int64(tcp.VMWait), "the call woke for send-buffer room, before any vm_wait")
}
