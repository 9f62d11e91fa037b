package interp

import (
	"fmt"
	"testing"
)

// Where the receive path copies a looped-back datagram's zerocopy frags
// decides when a fragmented one is notified: after reassembly on 6.18
// (Profile.OrphanRxAtLocalDeliver), so the chained second fragment holds
// the uarg until the read; fragment by fragment as they arrive before.
func TestFragmentedDatagramNotifiedAfterRead(t *testing.T) {
	const src = `
profile %s
device lo0 loopback mtu=1500
socket u AF_INET SOCK_DGRAM via=lo0
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
connect u => 0
send u 2952 MSG_ZEROCOPY => 2952
recvmsg u MSG_ERRQUEUE => %s
recv u.peer 64K => 2952
`
	requireOK(t, runSrc(t, fmt.Sprintf(src, "linux-6.18", "-1 EAGAIN")))
	requireOK(t, runSrc(t, fmt.Sprintf(src, "linux-5.0", "zerocopy [0,0] copied")))
}
