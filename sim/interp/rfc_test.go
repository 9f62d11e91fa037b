package interp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Seed 000's __msg_zerocopy_callback fills ee_info and ee_data and no
// ee_code: the RFC has no SO_EE_CODE_ZEROCOPY_COPIED, so a send over
// loopback, whose pages skb_orphan_frags_rx copies, is notified without
// it. v4.14 added the code, and the same send says COPIED.
func TestRFCHasNoCopiedCode(t *testing.T) {
	src := `
socket s AF_INET SOCK_STREAM peer_read=auto
setsockopt s SOL_SOCKET SO_ZEROCOPY 1
connect s => 0
send s 4000 MSG_ZEROCOPY => 4000
settle
`
	rfc := runSrc(t, "profile rfc-v2\n"+src+"recvmsg s MSG_ERRQUEUE => zerocopy [0,0]\n")
	requireOK(t, rfc)
	merged := runSrc(t, "profile linux-4.14\n"+src+"recvmsg s MSG_ERRQUEUE => zerocopy [0,0] copied\n")
	requireOK(t, merged)
	require.Contains(t, event(t, merged, "recvmsg s MSG_ERRQUEUE = 0").Text, "COPIED")
}
