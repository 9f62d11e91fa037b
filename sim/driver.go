package sim

import "github.com/zcsim/zcsim/kernel"

// TxError finishes up to n held transmissions of a device with manual TX
// completion, oldest first (n ≤ 0: all), as failed ones: the driver calls
// skb_tx_error on each frame and frees it (dev_kfree_skb_any). A TCP frame
// is the clone tcp_transmit_skb made, whose shared info the original on
// the retransmit queue still uses, so skb_tx_error must leave its zerocopy
// state alone; under kernel.BugTxErrorClone (B22) it completes the uarg
// anyway, before the original's pages are released. It returns how many
// frames it failed.
func (w *World) TxError(dev *Device, n int) int {
	failed := dev.takeHeld(n)
	for _, b := range failed {
		b.Note(kernel.Entry{Op: kernel.OpXmitFailed, Str: dev.Name})
		b.TxError()
		b.Free()
	}
	return len(failed)
}
