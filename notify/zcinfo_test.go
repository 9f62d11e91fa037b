package notify_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
)

func zcRec(lo, hi uint32, copied bool) notify.Record {
	return notify.ZcInfoElem{Lo: lo, Hi: hi, Zerocopy: !copied}.Record()
}

// The SCM_ZC_NOTIFICATION walk takes zerocopy completions from the head,
// at most max, and leaves every other record where it was.
func TestTakeZerocopy(t *testing.T) {
	ts := notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING, Errno: notify.ENOMSG, Data: 7}
	local := notify.Record{Origin: kernel.SO_EE_ORIGIN_ZEROCOPY, Errno: 90, Info: 9, Data: 9}
	var q notify.Queue
	for _, r := range []notify.Record{ts, zcRec(0, 1, false), local, zcRec(2, 2, true), ts, zcRec(3, 5, false)} {
		q.Append(r)
	}
	got := q.TakeZerocopy(2)
	if d := cmp.Diff([]notify.Record{zcRec(0, 1, false), zcRec(2, 2, true)}, got); d != "" {
		t.Errorf("taken (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]notify.Record{ts, local, ts, zcRec(3, 5, false)}, q.Records()); d != "" {
		t.Errorf("left (-want +got):\n%s", d)
	}
	require.Empty(t, q.TakeZerocopy(0))
	require.Equal(t, []notify.Record{zcRec(3, 5, false)}, q.TakeZerocopy(64))
	require.Equal(t, []notify.Record{ts, local, ts}, q.Records())
}

// An element is the record's range and the negation of its COPIED code,
// and converts back.
func TestZcInfoElem(t *testing.T) {
	r := zcRec(4, 6, true)
	e := notify.ElemOf(r)
	require.Equal(t, notify.ZcInfoElem{Lo: 4, Hi: 6}, e)
	require.Equal(t, r, e.Record())
	require.Equal(t, "[4,6]copied", e.String())
	require.Equal(t, "[4,6]", notify.ZcInfoElem{Lo: 4, Hi: 6, Zerocopy: true}.String())
	require.Equal(t, notify.Range{Lo: 4, Hi: 6}, e.Range())
}
