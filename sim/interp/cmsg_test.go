package interp

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/scenario"
)

// What the model does not know, or what does not fit, is an input error
// before anything runs.
func TestCmsgInputErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"sendmsg u [1] 0 cmsg SOL_IP 2 64", `test.zcs:3:29: the model does not know what this control message does`},
		{"sendmsg u [1] 0 cmsg SOL_IPV6 67 1", `test.zcs:3:31: the model does not know what this control message does`},
		{"sendmsg u [1] 0 cmsg SOL_SOCKET SCM_TS_OPT_ID 1", `(at "SCM_TS_OPT_ID")`},
		{"sendmsg u [1] 0 cmsg SOL_UDP UDP_SEGMENT 65536", `test.zcs:3:17: the value 65536 does not fit in 2 bytes of data (at "UDP_SEGMENT")`},
		{"sendmsg u [1] 0 cmsg SOL_UDP UDP_SEGMENT 256 len=1", `does not fit in 1 bytes`},
		{"sendmsg u [1] 0 cmsg 4294967296 1 0", `a control message's level and type are ints, at most 2147483647 (at "4294967296")`},
		{"sendmsg u [1] 0 cmsg SOL_UDP UDP_SEGMENT 1 len=4294967296", `a control message's length must be between 0 and`},
	} {
		_, err := Load("test.zcs", []byte("socket u AF_INET SOCK_DGRAM\nconnect u\n"+c.line+"\n"), Options{})
		require.ErrorContains(t, err, c.want, c.line)
	}
}

// A datagram's control messages shape it: UDP_SEGMENT cuts it, and
// SO_TIMESTAMPING stamps it alone; both need a sendmsg that builds the
// datagram.
func TestCmsgShapesTheDatagram(t *testing.T) {
	tr := runSrc(t, `
socket u AF_INET SOCK_DGRAM
connect u => 0
sendmsg u [3000] 0 cmsg SOL_UDP UDP_SEGMENT 1400 cmsg SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE => 3000
recv u.peer 64K => 1400
recv u.peer 64K => 1400
recv u.peer 64K => 200
send u 100 0 => 100
recvmsg u MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND
recvmsg u MSG_ERRQUEUE => -1 EAGAIN
`)
	requireOK(t, tr)
}

// Before udp_cmsg_send (v4.18) udp_sendmsg called ip_cmsg_send alone,
// which skips SOL_UDP: no segmentation, and no EINVAL for a bad type.
func TestCmsgBeforeUDPSegment(t *testing.T) {
	tr := runSrc(t, `
profile linux-4.14
socket u AF_INET SOCK_DGRAM
connect u => 0
sendmsg u [3000] 0 cmsg SOL_UDP UDP_SEGMENT 1000 => 3000
recv u.peer 64K => 3000
sendmsg u [10] 0 cmsg SOL_UDP 99 0 => 10
`)
	requireOK(t, tr)
}

// TCP before v6.16 made any refused control message EINVAL.
func TestCmsgTCPErrnoByProfile(t *testing.T) {
	src := `
socket t AF_INET SOCK_STREAM
connect t => 0
sendmsg t [10] 0 cmsg SOL_SOCKET SO_MARK 7 => %s
`
	requireOK(t, runSrc(t, fmt.Sprintf(src, "-1 EPERM")))
	requireOK(t, runSrc(t, "profile linux-5.0\n"+fmt.Sprintf(src, "-1 EINVAL")))
	requireOK(t, runSrc(t, "profile zc-cmsg-v7\n"+fmt.Sprintf(src, "-1 EINVAL")))
}

// The control buffer is copied in like zc_info's: beyond the stack
// buffer it is sock_kmalloc'd from optmem.
func TestCmsgControlBufferFromOptmem(t *testing.T) {
	tr := runSrc(t, `
sysctl net.core.optmem_max 4608
socket u AF_INET SOCK_DGRAM
connect u => 0
sendmsg u [10] 0 cmsg 1234 1 0 len=4600 => -1 ENOBUFS
sendmsg u [10] 0 cmsg 1234 1 0 len=2000 => 10
expect u optmem=0
`)
	requireOK(t, tr)
}

// A TCP or packet sendmsg's SO_TIMESTAMPING control message replaces the
// socket's record flags for the skbs that call wrote (tcp_tx_timestamp and
// skb_setup_tx_timestamp take the call's sockcm cookie): a call asking
// for SND on a socket that asks for none gets one record, keyed by its
// last byte under OPT_ID, and a call that clears them gets none.
func TestCmsgTimestampingPerCall(t *testing.T) {
	tr := runSrc(t, `
socket t AF_INET SOCK_STREAM
connect t => 0
sendmsg t [10] 0 cmsg SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE => 10
recvmsg t MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND
sendmsg t [10] 0 => 10
recvmsg t MSG_ERRQUEUE => -1 EAGAIN
setsockopt t SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SOFTWARE|SOF_TIMESTAMPING_SOFTWARE|SOF_TIMESTAMPING_OPT_ID => 0
sendmsg t [10] 0 cmsg SOL_SOCKET SO_TIMESTAMPING 0 => 10
recvmsg t MSG_ERRQUEUE => -1 EAGAIN
sendmsg t [10] 0 => 10
recvmsg t MSG_ERRQUEUE => timestamp SCM_TSTAMP_SND key=19
socket p AF_PACKET SOCK_DGRAM 0x0800
bind p => 0
sendmsg p [100] 0 cmsg SOL_SOCKET SO_TIMESTAMPING SOF_TIMESTAMPING_TX_SCHED => 100
recvmsg p MSG_ERRQUEUE => timestamp SCM_TSTAMP_SCHED
`)
	requireOK(t, tr)
}

// The statement's messages reach the kernel as written.
func TestControlOfSendmsg(t *testing.T) {
	stmts, err := scenario.Parse("t.zcs", []byte("sendmsg u [1] 0 cmsg SOL_UDP UDP_SEGMENT 9 cmsg 7 8 0x10 len=3 zc_info=2\n"))
	require.NoError(t, err)
	ctl := control(stmts[0].(*scenario.Sendmsg))
	require.Len(t, ctl.Msgs, 2)
	require.Equal(t, kernel.SCM_UDP_SEGMENT, ctl.Msgs[0].Type)
	require.Equal(t, 2, ctl.Msgs[0].Len)
	require.Equal(t, uint64(9), ctl.Msgs[0].Data)
	require.Equal(t, kernel.CmsgType{Level: 7, Name: 8}, ctl.Msgs[1].Type)
	require.Equal(t, 3, ctl.Msgs[1].Len)
	require.Equal(t, uint64(16), ctl.Msgs[1].Data)
	require.Equal(t, uint32(2), ctl.Zc.Size)
}

// net.ipv4.tcp_notsent_lowat is a u32 (proc_douintvec).
func TestNotsentLowatSysctlBound(t *testing.T) {
	_, err := Load("test.zcs", []byte("sysctl net.ipv4.tcp_notsent_lowat 4294967296\n"), Options{})
	require.ErrorContains(t, err, "net.ipv4.tcp_notsent_lowat's value must be between 0 and 4294967295")
	_, err = Load("test.zcs", []byte("sysctl net.ipv4.tcp_notsent_lowat 4294967295\n"), Options{})
	require.NoError(t, err)
}
