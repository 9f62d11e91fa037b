package sock_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/internal/skbtest"
	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
)

// The v7 handler's EINVAL cases, and what it takes when it succeeds.
func TestZcNotification(t *testing.T) {
	e := skbtest.NewEnv(t, "zc-cmsg-v7")
	s := e.Sock(kernel.AF_INET, kernel.SOCK_STREAM, 0)
	require.Equal(t, kernel.EINVAL, s.ZcInfoCheck(2, kernel.ZcInfoLen(2)), "no SO_ZEROCOPY")
	require.Zero(t, s.Setsockopt(kernel.SO_ZEROCOPY, 1))
	for _, c := range []struct {
		size uint32
		len  int
		want kernel.Errno
	}{
		{2, 28, 0}, {0, 4, 0}, {0, 3, kernel.EINVAL}, {2, 27, kernel.EINVAL}, {2, 29, kernel.EINVAL}, {1, 28, kernel.EINVAL},
	} {
		require.Equal(t, c.want, s.ZcInfoCheck(c.size, c.len), "size %d len %d", c.size, c.len)
	}
	rds := e.Sock(kernel.AF_RDS, kernel.SOCK_SEQPACKET, 0)
	require.Zero(t, rds.Setsockopt(kernel.SO_ZEROCOPY, 1))
	require.Equal(t, kernel.EINVAL, rds.ZcInfoCheck(1, kernel.ZcInfoLen(1)), "AF_RDS is excluded")

	s.OmemAlloc += 2 * 832
	s.ErrQueue.Append(notify.Record{Origin: kernel.SO_EE_ORIGIN_ZEROCOPY, Info: 0, Data: 3, Truesize: 832})
	s.ErrQueue.Append(notify.Record{Origin: kernel.SO_EE_ORIGIN_ZEROCOPY, Code: kernel.SO_EE_CODE_ZEROCOPY_COPIED, Info: 5, Data: 5, Truesize: 832})
	got, err := s.ZcNotification(1, kernel.ZcInfoLen(1))
	require.Zero(t, err)
	require.Equal(t, []notify.ZcInfoElem{{Lo: 0, Hi: 3, Zerocopy: true}}, got)
	require.Equal(t, 832, s.OmemAlloc, "the taken record's optmem returns")
	got, err = s.ZcNotification(4, kernel.ZcInfoLen(4))
	require.Zero(t, err)
	require.Equal(t, []notify.ZcInfoElem{{Lo: 5, Hi: 5}}, got)
	require.Zero(t, s.OmemAlloc)

	merged := skbtest.NewEnv(t, "linux-6.18").Sock(kernel.AF_INET, kernel.SOCK_STREAM, 0)
	require.Zero(t, merged.Setsockopt(kernel.SO_ZEROCOPY, 1))
	require.Equal(t, kernel.EINVAL, merged.ZcInfoCheck(1, kernel.ZcInfoLen(1)), "merged kernels have no such cmsg")
}

// sock_kmalloc admits a buffer that leaves sk_omem_alloc below optmem_max.
func TestKmalloc(t *testing.T) {
	s := skbtest.NewEnv(t, "linux-6.18").Sock(kernel.AF_INET, kernel.SOCK_DGRAM, 0)
	max := s.Net.OptmemMax
	require.False(t, s.Kmalloc(max))
	require.True(t, s.Kmalloc(max-1))
	require.Equal(t, max-1, s.KmallocOmem)
	require.False(t, s.Kmalloc(1))
	s.Kfree(max - 1)
	require.Zero(t, s.OmemAlloc)
	require.Zero(t, s.KmallocOmem)
}
