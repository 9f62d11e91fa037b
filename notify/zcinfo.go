package notify

import (
	"strconv"

	"github.com/zcsim/zcsim/kernel"
)

// ZcInfoElem is one struct zc_info_elem of an SCM_ZC_NOTIFICATION reply
// (the unmerged v7 series, seed 003): the id range [Lo, Hi] of one
// zerocopy record and Zerocopy, the negation of its COPIED code. The zero
// value is the range [0,0] reported as copied.
type ZcInfoElem struct {
	Lo, Hi   uint32
	Zerocopy bool
}

// ElemOf converts a zerocopy record to the element the handler fills:
// hi from ee_data, lo from ee_info, zerocopy = !(ee_code & COPIED).
func ElemOf(r Record) ZcInfoElem {
	return ZcInfoElem{Lo: r.Info, Hi: r.Data, Zerocopy: !r.Copied()}
}

// Range returns the element's id range.
func (e ZcInfoElem) Range() Range { return Range{Lo: e.Lo, Hi: e.Hi} }

// Record returns the zerocopy record the element came from.
func (e ZcInfoElem) Record() Record {
	r := Record{Origin: kernel.SO_EE_ORIGIN_ZEROCOPY, Info: e.Lo, Data: e.Hi}
	if !e.Zerocopy {
		r.Code = kernel.SO_EE_CODE_ZEROCOPY_COPIED
	}
	return r
}

// String renders the element as a timeline shows it: "[0,3]" or
// "[4,4]copied".
func (e ZcInfoElem) String() string {
	s := "[" + strconv.FormatUint(uint64(e.Lo), 10) + "," + strconv.FormatUint(uint64(e.Hi), 10) + "]"
	if !e.Zerocopy {
		s += "copied"
	}
	return s
}

// TakeZerocopy models the queue walk of the v7 SCM_ZC_NOTIFICATION handler
// in __sock_cmsg_send: from the head, unlink every record that is a
// zerocopy completion (ee_errno 0, origin SO_EE_ORIGIN_ZEROCOPY) until max
// are taken, and skip the others, which keep their place and order (a TX
// timestamp stays for recvmsg(MSG_ERRQUEUE)). It returns the taken records
// head first; the caller frees their skbs and returns their charge.
func (q *Queue) TakeZerocopy(max uint32) []Record {
	var taken []Record
	keep := q.records[:0]
	for _, r := range q.records {
		if uint32(len(taken)) < max && r.Errno == 0 && r.IsZerocopy() {
			taken = append(taken, r)
			continue
		}
		keep = append(keep, r)
	}
	clear(q.records[len(keep):])
	q.records = keep
	return taken
}
