package notify_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/notify"
)

// All yields what Records returns, without a copy, and stops when told.
func TestQueueAll(t *testing.T) {
	var q notify.Queue
	q.Append(notify.Record{Info: 1})
	q.Append(notify.Record{Info: 2})
	var got []notify.Record
	for r := range q.All() {
		got = append(got, r)
	}
	require.Equal(t, q.Records(), got)
	n := 0
	for range q.All() {
		n++
		break
	}
	require.Equal(t, 1, n)
}
