package pktdrill

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/scenario"
)

// cmsgScript sends with control messages on an accepted connection:
// packetdrill writes each integer cmsg_data as an int, so UDP_SEGMENT
// goes as a u32, which TCP ignores all the same, as it ignores
// SCM_RIGHTS; an unknown SOL_SOCKET type is EINVAL.
const cmsgScript = `0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 listen(3, 1) = 0
+0 < S 0:0(0) win 1000 <mss 1000>
+0 > S. 0:0(0) ack 1 <mss 1460>
+0 < . 1:1(0) ack 1 win 257
+0 accept(3, ..., ...) = 4
+0 sendmsg(4, {msg_name(...)=..., msg_iov(1)=[{..., 10}],
               msg_control=[{cmsg_level=SOL_UDP, cmsg_type=UDP_SEGMENT, cmsg_data=1000},
                            {cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=0}],
               msg_flags=0}, 0) = 10
+0 > P. 1:11(10) ack 1
+0 sendmsg(4, {msg_name(...)=..., msg_iov(1)=[{..., 10}], msg_control=[{cmsg_level=1, cmsg_type=99, cmsg_data=0}], msg_flags=0}, 0) = -1 EINVAL (Invalid argument)
`

// A sendmsg's msg_control becomes its cmsg clauses, runs on the model,
// and is written back as packetdrill reads it.
func TestSendmsgControl(t *testing.T) {
	r, err := Import("t.pkt", []byte(cmsgScript))
	require.NoError(t, err)
	out := string(r.Scenario)
	require.Contains(t, out, "sendmsg fd4 [10] 0 cmsg SOL_UDP UDP_SEGMENT 1000 len=4 cmsg SOL_SOCKET SCM_RIGHTS 0 => 10 # from t.pkt:7\n")
	require.Contains(t, out, "sendmsg fd4 [10] 0 cmsg 1 99 0 => -1 EINVAL # from t.pkt:12\n")
	tr, err := interp.Run("t.zcs", r.Scenario, interp.Options{})
	require.NoError(t, err)
	require.True(t, tr.OK())
	back, err := Export("t.zcs", r.Scenario, scenario.Inet)
	require.NoError(t, err)
	require.Contains(t, string(back), "sendmsg(4, {msg_name(...)=..., msg_iov(1)=[{..., 10}], msg_control=[{cmsg_level=SOL_UDP, cmsg_type=UDP_SEGMENT, cmsg_data=1000}, {cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=0}], msg_flags=0}, 0) = 10")
}

// Control data packetdrill writes as a struct is not translated, and a
// message whose data is not an int has no packetdrill form.
func TestSendmsgControlErrors(t *testing.T) {
	src := strings.Replace(cmsgScript, "cmsg_data=1000}", "cmsg_data={scm_sec=0,scm_nsec=0}}", 1)
	_, err := Import("t.pkt", []byte(src))
	require.ErrorContains(t, err, "t.pkt:8:73: the importer translates a sendmsg's cmsg_data when it is an integer")
	r, err := Import("t.pkt", []byte(cmsgScript))
	require.NoError(t, err)
	zcs := strings.Replace(string(r.Scenario), "UDP_SEGMENT 1000 len=4", "UDP_SEGMENT 1000", 1)
	_, err = Export("t.zcs", []byte(zcs), scenario.Inet)
	require.ErrorContains(t, err, "packetdrill writes a control message's data as an int (4 bytes), not 2 bytes")
}
