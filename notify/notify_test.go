package notify_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/ubuf"
)

func TestRange(t *testing.T) {
	tests := []struct {
		r      notify.Range
		len    uint64
		in     []uint32
		out    []uint32
		String string
	}{
		{notify.Range{}, 1, []uint32{0}, []uint32{1, 0xFFFFFFFF}, "[0,0]"},
		{notify.Range{Lo: 3, Hi: 7}, 5, []uint32{3, 5, 7}, []uint32{2, 8}, "[3,7]"},
		{notify.Range{Lo: 0xFFFFFFFE, Hi: 1}, 4, []uint32{0xFFFFFFFE, 0xFFFFFFFF, 0, 1}, []uint32{2, 0xFFFFFFFD}, "[4294967294,1]"},
		{notify.Range{Lo: 5, Hi: 4}, 1 << 32, []uint32{0, 4, 5, 0xFFFFFFFF}, nil, "[5,4]"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.len, tt.r.Len(), tt.String)
		require.Equal(t, tt.String, tt.r.String())
		for _, id := range tt.in {
			require.True(t, tt.r.Contains(id), "%v contains %d", tt.r, id)
		}
		for _, id := range tt.out {
			require.False(t, tt.r.Contains(id), "%v does not contain %d", tt.r, id)
		}
	}
}

func zc(lo, n uint32, copied bool) ubuf.Notification {
	return ubuf.Notification{Lo: lo, Len: n, Copied: copied, Truesize: 832}
}

func zcRecord(lo, hi uint32, copied bool) notify.Record {
	r := notify.Record{Origin: kernel.SO_EE_ORIGIN_ZEROCOPY, Info: lo, Data: hi, Truesize: 832}
	if copied {
		r.Code = kernel.SO_EE_CODE_ZEROCOPY_COPIED
	}
	return r
}

var tstamp = notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING, Errno: notify.ENOMSG, Info: kernel.SCM_TSTAMP_SND, Data: 9, Truesize: 768}

func TestQueueZerocopyMerging(t *testing.T) {
	type step struct {
		n      ubuf.Notification
		rec    *notify.Record // appended with Append instead
		merged bool
	}
	tests := []struct {
		name  string
		end   kernel.QueueEnd
		steps []step
		want  []notify.Record
	}{
		{"contiguous ranges merge at the tail", kernel.QueueTail,
			[]step{{n: zc(0, 1, true)}, {n: zc(1, 2, true), merged: true}, {n: zc(3, 1, true), merged: true}},
			[]notify.Record{zcRecord(0, 3, true)}},
		{"out of order does not merge", kernel.QueueTail,
			[]step{{n: zc(1, 1, false)}, {n: zc(0, 1, false)}, {n: zc(3, 1, false)}},
			[]notify.Record{zcRecord(1, 1, false), zcRecord(0, 0, false), zcRecord(3, 3, false)}},
		{"the tail's code wins", kernel.QueueTail,
			[]step{{n: zc(0, 1, false)}, {n: zc(1, 1, true), merged: true}, {n: zc(2, 1, false), merged: true}, {n: zc(4, 1, true)}, {n: zc(5, 1, false), merged: true}},
			[]notify.Record{zcRecord(0, 2, false), zcRecord(4, 5, true)}},
		{"wrap 0xFFFFFFFF to 0 merges", kernel.QueueTail,
			[]step{{n: zc(0xFFFFFFFE, 2, true)}, {n: zc(0, 2, true), merged: true}},
			[]notify.Record{zcRecord(0xFFFFFFFE, 1, true)}},
		{"a timestamp at the tail blocks merging", kernel.QueueTail,
			[]step{{n: zc(0, 1, true)}, {rec: &tstamp}, {n: zc(1, 1, true)}},
			[]notify.Record{zcRecord(0, 0, true), tstamp, zcRecord(1, 1, true)}},
		{"tail only: the head is not examined", kernel.QueueTail,
			[]step{{n: zc(0, 1, true)}, {rec: &tstamp}, {n: zc(5, 1, true)}, {n: zc(1, 1, true)}},
			[]notify.Record{zcRecord(0, 0, true), tstamp, zcRecord(5, 5, true), zcRecord(1, 1, true)}},
		{"RFC: merges with the head", kernel.QueueHead,
			[]step{{n: zc(0, 1, true)}, {rec: &tstamp}, {n: zc(1, 1, false), merged: true}, {n: zc(5, 1, true)}, {n: zc(2, 1, true), merged: true}},
			[]notify.Record{zcRecord(0, 2, true), tstamp, zcRecord(5, 5, true)}},
		{"RFC: a timestamp at the head blocks", kernel.QueueHead,
			[]step{{rec: &tstamp}, {n: zc(0, 1, true)}, {n: zc(1, 1, true)}},
			[]notify.Record{tstamp, zcRecord(0, 0, true), zcRecord(1, 1, true)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q notify.Queue
			for i, s := range tt.steps {
				if s.rec != nil {
					q.Append(*s.rec)
					continue
				}
				require.Equal(t, s.merged, q.Zerocopy(s.n, tt.end).Merged(), "step %d", i)
			}
			if d := cmp.Diff(tt.want, q.Records()); d != "" {
				t.Errorf("queue (-want +got):\n%s", d)
			}
			require.Equal(t, len(tt.want), q.Len())
		})
	}
}

// TestQueueZerocopyCap: skb_zerocopy_notify_extend refuses a merge whose
// range would hold 2^32 ids.
func TestQueueZerocopyCap(t *testing.T) {
	var q notify.Queue
	require.Equal(t, kernel.Appended, q.Zerocopy(zc(0, 0xFFFFFFFE, false), kernel.QueueTail)) // [0, 0xFFFFFFFD]
	require.Equal(t, kernel.Merged, q.Zerocopy(zc(0xFFFFFFFE, 1, false), kernel.QueueTail), "2^32-1 ids: allowed")
	require.Equal(t, kernel.TooMany, q.Zerocopy(zc(0xFFFFFFFF, 1, false), kernel.QueueTail), "2^32 ids: refused")
	want := []notify.Record{zcRecord(0, 0xFFFFFFFE, false), zcRecord(0xFFFFFFFF, 0xFFFFFFFF, false)}
	if d := cmp.Diff(want, q.Records()); d != "" {
		t.Errorf("queue (-want +got):\n%s", d)
	}
	require.Equal(t, uint64(1<<32-1), q.Records()[0].Range().Len())
}

func TestQueueDequeuePurge(t *testing.T) {
	var q notify.Queue
	_, ok := q.Dequeue()
	require.False(t, ok, "empty: recvmsg gets EAGAIN")
	q.Zerocopy(zc(0, 1, true), kernel.QueueTail)
	q.Append(tstamp)
	q.Zerocopy(zc(1, 1, true), kernel.QueueTail)
	r, ok := q.Dequeue()
	require.True(t, ok)
	require.Equal(t, zcRecord(0, 0, true), r)
	r, _ = q.Dequeue()
	require.Equal(t, tstamp, r)
	require.Equal(t, 1, q.Len())
	q.Append(tstamp)
	require.Equal(t, []notify.Record{zcRecord(1, 1, true), tstamp}, q.Purge())
	require.Zero(t, q.Len())
	require.Nil(t, q.Purge())
	recs := q.Records()
	require.Empty(t, recs)
}

func TestRecordString(t *testing.T) {
	tests := []struct {
		r    notify.Record
		want string
	}{
		{zcRecord(0, 3, true), "zerocopy [0,3] COPIED"},
		{zcRecord(5, 5, false), "zerocopy [5,5]"},
		{tstamp, "timestamp SCM_TSTAMP_SND key=9"},
		{notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING, Info: kernel.SCM_TSTAMP_SCHED, Data: 1}, "timestamp SCM_TSTAMP_SCHED key=1"},
		{notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING, Info: kernel.SCM_TSTAMP_ACK}, "timestamp SCM_TSTAMP_ACK key=0"},
		{notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING, Info: 7}, "timestamp SCM_TSTAMP_7 key=0"},
		{notify.Record{Origin: kernel.SO_EE_ORIGIN_ICMP, Errno: kernel.ECONNREFUSED, Type: 3, Code: 3}, "icmp ECONNREFUSED type=3 code=3 quoted=0"},
		{notify.Record{Origin: kernel.SO_EE_ORIGIN_ICMP6, Errno: kernel.ECONNREFUSED, Type: 1, Code: 4, Quoted: 1184}, "icmp6 ECONNREFUSED type=1 code=4 quoted=1184"},
		{notify.Record{Origin: kernel.SO_EE_ORIGIN_LOCAL, Errno: kernel.EMSGSIZE, Info: 1500}, "origin 1 errno EMSGSIZE code 0 info 1500 data 0"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.r.String())
	}
	require.Equal(t, "SCM_TSTAMP_SND", notify.TstampName(kernel.SCM_TSTAMP_SND))
	require.Equal(t, "SCM_TSTAMP_9", notify.TstampName(9))
	require.True(t, zcRecord(0, 0, false).IsZerocopy())
	require.False(t, tstamp.IsZerocopy())
	require.False(t, zcRecord(0, 0, false).Copied())
	require.True(t, notify.Record{Origin: kernel.SO_EE_ORIGIN_ICMP6}.IsICMP())
	require.False(t, tstamp.IsICMP())
}

func TestLedger(t *testing.T) {
	var l notify.Ledger
	require.Equal(t, uint32(0), l.Next())
	require.NoError(t, l.Sent(0, "a", 100))
	require.NoError(t, l.Sent(1, "b", 200))
	require.EqualError(t, l.Sent(3, "d", 400), "d got id 3, want 2")
	require.Equal(t, uint32(4), l.Next(), "the counter follows the kernel")

	done, err := l.Complete(notify.Range{Lo: 0, Hi: 1})
	require.NoError(t, err)
	require.Equal(t, []notify.Send{{ID: 0, Label: "a", Bytes: 100}, {ID: 1, Label: "b", Bytes: 200}}, done)
	require.Equal(t, []notify.Send{{ID: 3, Label: "d", Bytes: 400}}, l.Outstanding())

	done, err = l.Complete(notify.Range{Lo: 1, Hi: 3})
	require.EqualError(t, err, "notification [1,3] covers 3 ids but only 1 are outstanding")
	require.Equal(t, []notify.Send{{ID: 3, Label: "d", Bytes: 400}}, done)
	_, err = l.Complete(notify.Range{Lo: 3, Hi: 3})
	require.EqualError(t, err, "notification [3,3] covers 1 ids but only 0 are outstanding", "notified twice")
	require.Empty(t, l.Outstanding())
}

// Ranges notified out of order release the sends they cover, and a range
// over released ids says how many it found.
func TestLedgerOutOfOrder(t *testing.T) {
	var l notify.Ledger
	for id := range uint32(10) {
		require.NoError(t, l.Sent(id, fmt.Sprint(id), 1))
	}
	ids := func(ss []notify.Send) []uint32 {
		var out []uint32
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	done, err := l.Complete(notify.Range{Lo: 3, Hi: 5})
	require.NoError(t, err)
	require.Equal(t, []uint32{3, 4, 5}, ids(done))
	done, err = l.Complete(notify.Range{Lo: 0, Hi: 0})
	require.NoError(t, err)
	require.Equal(t, []uint32{0}, ids(done))
	done, err = l.Complete(notify.Range{Lo: 2, Hi: 7})
	require.EqualError(t, err, "notification [2,7] covers 6 ids but only 3 are outstanding")
	require.Equal(t, []uint32{2, 6, 7}, ids(done))
	require.Equal(t, []uint32{1, 8, 9}, ids(l.Outstanding()))
	done, err = l.Complete(notify.Range{Lo: 0, Hi: 9})
	require.EqualError(t, err, "notification [0,9] covers 10 ids but only 3 are outstanding")
	require.Equal(t, []uint32{1, 8, 9}, ids(done))
	require.Zero(t, l.Len())
}

// An id given twice (the counter set back under an unread notification)
// is released once per notification, oldest send first.
func TestLedgerReusedID(t *testing.T) {
	var l notify.Ledger
	require.NoError(t, l.Sent(0, "a", 1))
	l.Expect(0)
	require.NoError(t, l.Sent(0, "b", 1))
	done, err := l.Complete(notify.Range{Lo: 0, Hi: 0})
	require.NoError(t, err)
	require.Equal(t, []notify.Send{{ID: 0, Label: "a", Bytes: 1}}, done)
	done, err = l.Complete(notify.Range{Lo: 0, Hi: 0})
	require.NoError(t, err)
	require.Equal(t, []notify.Send{{ID: 0, Label: "b", Bytes: 1}}, done)
}

func TestLedgerWrap(t *testing.T) {
	var l notify.Ledger
	l.Expect(0xFFFFFFFE)
	for _, id := range []uint32{0xFFFFFFFE, 0xFFFFFFFF, 0} {
		require.NoError(t, l.Sent(id, fmt.Sprint(id), 1))
	}
	require.Equal(t, uint32(1), l.Next())
	done, err := l.Complete(notify.Range{Lo: 0xFFFFFFFE, Hi: 0})
	require.NoError(t, err)
	require.Len(t, done, 3)
}

func BenchmarkQueueZerocopyMerge(b *testing.B) {
	var q notify.Queue
	q.Zerocopy(zc(0, 1, true), kernel.QueueTail)
	id := uint32(1)
	b.ReportAllocs()
	for b.Loop() {
		if !q.Zerocopy(zc(id, 1, true), kernel.QueueTail).Merged() {
			b.Fatal("no merge")
		}
		id++
	}
}

func BenchmarkLedgerSentComplete(b *testing.B) {
	var l notify.Ledger
	id := uint32(0)
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Sent(id, "send", 4096); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Complete(notify.Range{Lo: id, Hi: id}); err != nil {
			b.Fatal(err)
		}
		id++
	}
}

// Three completions in id order coalesce into one record at the tail of
// the error queue; one recvmsg(MSG_ERRQUEUE) reads it and the ledger
// releases the three sends.
func ExampleQueue_Zerocopy() {
	var q notify.Queue
	var l notify.Ledger
	for i := range uint32(3) {
		l.Sent(i, fmt.Sprintf("send %d", i), 4096)
	}
	for i := range uint32(3) {
		merged := q.Zerocopy(ubuf.Notification{Lo: i, Len: 1, Copied: true, Truesize: 832}, kernel.QueueTail).Merged()
		fmt.Printf("[%d,%d] merged=%t queue %d\n", i, i, merged, q.Len())
	}
	r, _ := q.Dequeue()
	done, err := l.Complete(r.Range())
	fmt.Println("read:", r, "releases", len(done), "sends, err", err)
	_, ok := q.Dequeue()
	fmt.Println("again:", ok)
	// Output:
	// [0,0] merged=false queue 1
	// [1,1] merged=true queue 1
	// [2,2] merged=true queue 1
	// read: zerocopy [0,2] COPIED releases 3 sends, err <nil>
	// again: false
}

// TestQueueZerocopyMergeWhy: Zerocopy says why a notification was not
// merged: no record, a timestamp at the queue's end, or a gap in the ids.
func TestQueueZerocopyMergeWhy(t *testing.T) {
	var q notify.Queue
	require.Equal(t, kernel.Appended, q.Zerocopy(zc(0, 1, false), kernel.QueueTail))
	require.Equal(t, kernel.NotAdjacent, q.Zerocopy(zc(2, 1, false), kernel.QueueTail), "[2,2] does not follow [0,0]")
	require.Equal(t, kernel.Merged, q.Zerocopy(zc(3, 1, false), kernel.QueueTail), "[3,3] follows [2,2]")
	q.Append(notify.Record{Origin: kernel.SO_EE_ORIGIN_TIMESTAMPING})
	require.Equal(t, kernel.NotZerocopy, q.Zerocopy(zc(4, 1, false), kernel.QueueTail))
	require.Len(t, q.Records(), 4)
	for _, m := range []kernel.Merge{kernel.Appended, kernel.Merged, kernel.NotZerocopy, kernel.NotAdjacent, kernel.TooMany} {
		require.NotContains(t, m.String(), "merge ", "every outcome is said in words")
	}
	require.True(t, kernel.Merged.Merged())
	require.False(t, kernel.NotAdjacent.Merged())
}
