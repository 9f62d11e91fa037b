package tcp

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
)

// One call asks for timestamps once, on its last skb; a split moves the
// request to the part holding the key (tcp_fragment_tstamp), and the ACK
// past the key queues SCM_TSTAMP_ACK before the notification that freeing
// the skb queues (tcp_ack_tstamp before tcp_rtx_queue_unlink_and_free).
func TestTxTimestampOnLastSkb(t *testing.T) {
	p := newPair(t, "linux-6.18", true)
	p.c.Sk.Tsflags = kernel.SOF_TIMESTAMPING_TX_ACK | kernel.SOF_TIMESTAMPING_TX_SCHED |
		kernel.SOF_TIMESTAMPING_OPT_ID | kernel.SOF_TIMESTAMPING_OPT_TSONLY
	p.c.cwnd = 1
	mss := p.c.MSS()
	n := 3 * mss / 2
	require.Equal(t, n, p.send(zc, n).N)
	require.Len(t, p.w.inFlight, 1, "one segment fits the window")
	first := p.w.inFlight[0]
	require.Zero(t, first.Skb.Shinfo().TxFlags, "the request went with the part holding the key")
	require.Len(t, p.c.write, 1)
	rest := p.c.write[0]
	require.Equal(t, kernel.SKBTX_SCHED_TSTAMP, rest.Skb.Shinfo().TxFlags)
	require.Equal(t, uint32(n-1), rest.Skb.Shinfo().Tskey)
	require.True(t, rest.TxstampAck)
	p.w.deliver() // the first part, its ACK, then the rest and its ACK
	var got []string
	for {
		r, err := p.c.Sk.RecvErrqueue()
		if err != 0 {
			break
		}
		got = append(got, r.String())
	}
	require.Equal(t, []string{fmt.Sprintf("timestamp SCM_TSTAMP_ACK key=%d", n-1), "zerocopy [0,0] COPIED"}, got)
	_, err := p.ledger.Complete(notify.Range{})
	require.NoError(t, err)
	p.closeAll()
}
