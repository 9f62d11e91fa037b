package interp

import "testing"

// An error-queue read's field checks: msg_flags, the control message's
// level and type per family, and every sock_extended_err field; a read
// into no control buffer has none of them but msg_flags.
func TestRecvmsgFields(t *testing.T) {
	tr := runSrc(t, `
socket u AF_INET SOCK_DGRAM
setsockopt u SOL_SOCKET SO_ZEROCOPY 1 => 0
connect u => 0
send u 100 MSG_ZEROCOPY => 100
recvmsg u MSG_ERRQUEUE => zerocopy [0,0] copied msg_flags=MSG_ERRQUEUE cmsg_level=SOL_IP cmsg_type=IP_RECVERR
send u 100 MSG_ZEROCOPY => 100
recvmsg u MSG_ERRQUEUE => 0 ee_errno=0 ee_origin=SO_EE_ORIGIN_ZEROCOPY ee_type=0 ee_code=SO_EE_CODE_ZEROCOPY_COPIED ee_info=1 ee_data=1
send u 100 MSG_ZEROCOPY => 100
recvmsg u MSG_ERRQUEUE control=0 => ctrunc msg_flags=MSG_ERRQUEUE|MSG_CTRUNC
send u 100 MSG_ZEROCOPY => 100
recvmsg u MSG_ERRQUEUE control=0 => 0 cmsg_level=SOL_IP
send u 100 MSG_ZEROCOPY => 100
recvmsg u MSG_ERRQUEUE control=40 => ctrunc cmsg_type=IP_RECVERR ee_info=4
socket v AF_INET6 SOCK_DGRAM mapped
setsockopt v SOL_SOCKET SO_ZEROCOPY 1 => 0
connect v => 0
send v 100 MSG_ZEROCOPY => 100
recvmsg v MSG_ERRQUEUE => 0 msg_flags=MSG_ERRQUEUE cmsg_level=SOL_IP ee_errno=ENOBUFS
send v 100 MSG_ZEROCOPY => 100
recvmsg v MSG_ERRQUEUE => zerocopy [1,1] copied cmsg_type=IP_RECVERR
`)
	requireMismatches(t, tr,
		"test.zcs:11: 0 cmsg_level=SOL_IP | ctrunc (zerocopy [3,3] COPIED lost) cmsg_level=none",
		"test.zcs:18: 0 msg_flags=MSG_ERRQUEUE cmsg_level=SOL_IP ee_errno=ENOBUFS | zerocopy [0,0] COPIED msg_flags=MSG_ERRQUEUE cmsg_level=SOL_IPV6 ee_errno=0",
		"test.zcs:20: zerocopy [1,1] copied cmsg_type=IP_RECVERR | zerocopy [1,1] COPIED cmsg_type=IPV6_RECVERR")
}
