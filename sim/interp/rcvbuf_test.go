package interp

import "testing"

// A UDP datagram's truesize is its kmalloc'd head's (832 bytes for 10
// bytes over loopback, 2304 for 1000), and __udp_enqueue_schedule_skb
// takes one that fits in sk_rcvbuf or any one into an empty queue on
// linux-6.18 (kernel.Profile.UDPRcvbufCountsSkb), while the 6.1 rule of
// linux-5.0 takes one while sk_rmem_alloc is at most sk_rcvbuf. A RAW
// socket takes its clone while sk_rmem_alloc is below sk_rcvbuf on both
// (probe/testdata/dgram-rcvbuf-first.zcs): three clones, whose truesize
// is 832 on linux-6.18 and 768 on linux-5.0 (Profile.SkbSmallHead).
func TestDgramRcvbufAdmission(t *testing.T) {
	const src = `
socket u AF_INET SOCK_DGRAM
connect u
setsockopt u.peer SOL_SOCKET SO_RCVBUF 1
send u 8000 0
send u 10 0
recv u.peer 65536 MSG_DONTWAIT => 8000
recv u.peer 65536 MSG_DONTWAIT => -1 EAGAIN
send u 1000 0
expect u.peer rmem=2304
send u 10 0
`
	requireOK(t, runSrc(t, "profile linux-6.18\n"+src+`expect u.peer rmem=2304
recv u.peer 2000 MSG_DONTWAIT => 1000
send u 10 0
send u 10 0
send u 10 0
expect u.peer rmem=1664
`))
	requireOK(t, runSrc(t, "profile linux-5.0\n"+src+`expect u.peer rmem=3072
send u 10 0
expect u.peer rmem=3072
`))
	for profile, rmem := range map[string]string{"linux-6.18": "2496", "linux-5.0": "2304"} {
		requireOK(t, runSrc(t, "profile "+profile+`
socket u AF_INET SOCK_DGRAM
connect u
socket r AF_INET SOCK_RAW IPPROTO_UDP
setsockopt r SOL_SOCKET SO_RCVBUF 1
send u 10 0
send u 10 0
send u 10 0
send u 10 0
expect r rmem=`+rmem+`
recv r 100 MSG_DONTWAIT => 38
recv r 100 MSG_DONTWAIT => 38
recv r 100 MSG_DONTWAIT => 38
recv r 100 MSG_DONTWAIT => -1 EAGAIN
`))
	}
}
