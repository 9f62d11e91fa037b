package notify

import (
	"iter"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/ubuf"
)

// Queue is a socket's sk_error_queue: records in arrival order, read from
// the head. The zero value is an empty queue.
type Queue struct {
	records []Record
}

// Len returns the number of queued records.
func (q *Queue) Len() int { return len(q.records) }

// Records returns a copy of the queued records, head first.
func (q *Queue) Records() []Record { return append([]Record(nil), q.records...) }

// All yields the queued records, head first, without copying the queue.
// The queue must not change while it yields.
func (q *Queue) All() iter.Seq[Record] {
	return func(yield func(Record) bool) {
		for _, r := range q.records {
			if !yield(r) {
				return
			}
		}
	}
}

// Zerocopy models the queueing half of __msg_zerocopy_callback: try to
// extend the zerocopy record at the given end of the queue with n's range
// (skb_zerocopy_notify_extend); if that is not possible, append n as a new
// record at the tail. It reports what it did and why; when n was merged
// (kernel.Merge.Merged) its skb is consumed and its optmem charge must be
// returned by the caller.
//
// The merged record keeps its own code: a COPIED range merged into a
// non-COPIED record is reported as not copied, and vice versa, as the
// kernel does.
func (q *Queue) Zerocopy(n ubuf.Notification, end kernel.QueueEnd) kernel.Merge {
	why := kernel.Appended
	if len(q.records) > 0 {
		i := len(q.records) - 1
		if end == kernel.QueueHead {
			i = 0
		}
		why = kernel.NotZerocopy
		if r := &q.records[i]; r.IsZerocopy() {
			why = extend(r, n.Lo, n.Len)
		}
		if why == kernel.Merged {
			return kernel.Merged
		}
	}
	var code uint8
	if n.Copied {
		code = kernel.SO_EE_CODE_ZEROCOPY_COPIED
	}
	q.records = append(q.records, Record{
		Origin:   kernel.SO_EE_ORIGIN_ZEROCOPY,
		Code:     code,
		Info:     n.Lo,
		Data:     n.Hi(),
		Truesize: n.Truesize,
	})
	return why
}

// extend models skb_zerocopy_notify_extend: the record's range grows by len
// ids if they follow it exactly (lo == hi+1, u32 arithmetic) and the merged
// range stays below 2^32 ids. It reports kernel.Merged, or why not.
func extend(r *Record, lo, n uint32) kernel.Merge {
	sum := uint64(r.Data-r.Info) + 1 + uint64(n)
	switch {
	case sum >= 1<<32:
		return kernel.TooMany
	case lo != r.Data+1:
		return kernel.NotAdjacent
	}
	r.Data += n
	return kernel.Merged
}

// Append models sock_queue_err_skb: queue r at the tail (timestamps and
// other error records).
func (q *Queue) Append(r Record) { q.records = append(q.records, r) }

// Dequeue models the dequeue of sock_recv_errqueue: remove and return the
// head record. ok is false when the queue is empty; recvmsg(MSG_ERRQUEUE)
// then fails with EAGAIN. The caller frees the record's skb and returns its
// charge.
func (q *Queue) Dequeue() (r Record, ok bool) {
	if len(q.records) == 0 {
		return Record{}, false
	}
	r = q.records[0]
	q.records = q.records[1:]
	return r, true
}

// Peek returns the head record without removing it; ok is false when
// the queue is empty.
func (q *Queue) Peek() (r Record, ok bool) {
	if len(q.records) == 0 {
		return Record{}, false
	}
	return q.records[0], true
}

// PurgeErrors removes the records that are neither zerocopy
// notifications nor timestamps and returns them (skb_errqueue_purge).
func (q *Queue) PurgeErrors() []Record {
	var gone []Record
	kept := q.records[:0]
	for _, r := range q.records {
		if r.IsZerocopy() || r.Origin == kernel.SO_EE_ORIGIN_TIMESTAMPING {
			kept = append(kept, r)
		} else {
			gone = append(gone, r)
		}
	}
	q.records = kept
	return gone
}

// Purge removes every record and returns them (skb_queue_purge in
// sk_destruct).
func (q *Queue) Purge() []Record {
	r := q.records
	q.records = nil
	return r
}
