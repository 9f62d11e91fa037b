package sock

import (
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
)

// Kmalloc models sock_kmalloc(sk, size): the allocation is charged to
// sk_omem_alloc if size ≤ optmem_max and sk_omem_alloc + size stays below
// it; otherwise it fails and ____sys_sendmsg returns ENOBUFS. The charge is
// also kept in KmallocOmem until Kfree returns it.
func (s *Sock) Kmalloc(size int) bool {
	max := s.Net.OptmemMax
	if size > max || s.OmemAlloc+size >= max {
		return false
	}
	s.OmemAlloc += size
	s.KmallocOmem += size
	return true
}

// Kfree models sock_kfree_s: return a Kmalloc charge.
func (s *Sock) Kfree(size int) {
	s.KmallocOmem -= size
	s.unchargeOmem(size)
}

// ZcNotification models the SCM_ZC_NOTIFICATION case of __sock_cmsg_send
// in the v7 series (seed 003) for a zc_info of size entries in dataLen
// bytes of cmsg data. It fails with EINVAL, taking nothing, when the
// profile has no such cmsg type (the default case of merged kernels), on a
// socket without SOCK_ZEROCOPY or of family AF_RDS (which has its own
// completion cookies), when dataLen is shorter than struct zc_info, or
// when it is not exactly sizeof(struct zc_info) + size × sizeof(struct
// zc_info_elem). Otherwise it unlinks up to size zerocopy completions from
// the error queue, head first, skipping other records (notify.Queue.
// TakeZerocopy), frees them (their optmem returns) and returns them in
// queue order: the new zc_info->size is their number.
func (s *Sock) ZcNotification(size uint32, dataLen int) ([]notify.ZcInfoElem, kernel.Errno) {
	if err := s.ZcInfoCheck(size, dataLen); err != 0 {
		return nil, err
	}
	taken := s.ErrQueue.TakeZerocopy(size)
	elems := make([]notify.ZcInfoElem, len(taken))
	for i, r := range taken {
		s.freeRecord(r)
		elems[i] = notify.ElemOf(r)
	}
	s.Note(kernel.Entry{Op: kernel.OpZcNotification, Args: [4]int64{int64(len(elems)), int64(s.ErrQueue.Len())}})
	return elems, 0
}

// ZcInfoCheck is the part of ZcNotification that takes nothing: its
// EINVAL cases.
func (s *Sock) ZcInfoCheck(size uint32, dataLen int) kernel.Errno {
	switch {
	case !s.Host().Profile.ZcCmsg,
		!s.zerocopy || s.Family == kernel.AF_RDS,
		dataLen < kernel.ZcInfoHdrLen,
		dataLen != kernel.ZcInfoLen(size):
		return kernel.EINVAL
	}
	return 0
}
