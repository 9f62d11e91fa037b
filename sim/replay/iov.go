package replay

import (
	"fmt"

	"github.com/zcsim/zcsim/kernel"
)

// Bounds of the syscall entry the model's World does not see: it takes
// buffer lengths as ints, so the replay applies what the kernel does to a
// size_t length before the protocol runs.
const (
	// maxRWCount is MAX_RW_COUNT (INT_MAX & PAGE_MASK): the most one
	// read or write moves; longer lengths are clamped to it.
	maxRWCount = 0x7ffff000
	// taskSizeMax is TASK_SIZE_MAX on x86-64 with 4-level page tables:
	// access_ok(p, n) fails when p + n passes it (probed on Linux 6.18).
	taskSizeMax = 0x7ffffffff000
	// mmapMinAddr is the default vm.mmap_min_addr: no buffer starts
	// below it, so a length over taskSizeMax - mmapMinAddr fails
	// access_ok whatever the buffer's address.
	mmapMinAddr = 0x10000
	// maxSsize is SSIZE_MAX: copy_iovec_from_user rejects an iov_len
	// that does not fit a ssize_t.
	maxSsize = 1<<63 - 1
	// DefaultMaxCallBytes is the most one replayed call may ask the
	// model to move when Options.MaxCallBytes is 0: MAX_RW_COUNT, so
	// every send or read the kernel takes is replayed (a user buffer
	// costs the model only the pages the call reaches).
	DefaultMaxCallBytes = maxRWCount
)

// imported is what the syscall entry made of a call's buffers: the
// lengths the protocol sees, an errno the entry returns itself, or why the
// kernel's answer depends on what strace does not show.
type imported struct {
	lens  []int
	errno kernel.Errno
	why   string // the rule behind errno, or why the answer is unknown
	undet bool
}

// total is the sum of the imported lengths.
func (im imported) total() int {
	n := 0
	for _, l := range im.lens {
		n += l
	}
	return n
}

// importBuffers applies the kernel's checks of user buffers at syscall
// entry to the lengths strace printed:
//
//   - send, sendto, recv, recvfrom: import_ubuf clamps the length to
//     MAX_RW_COUNT; access_ok of the clamped length holds for a real
//     buffer.
//   - write: vfs_write checks access_ok(buf, count) before clamping, so a
//     count past TASK_SIZE_MAX - mmap_min_addr is EFAULT whatever the
//     buffer, and one over MAX_RW_COUNT below that depends on the
//     buffer's address.
//   - sendmsg, recvmsg: __copy_msghdr refuses more than UIO_MAXIOV iovecs
//     (EMSGSIZE); copy_iovec_from_user (or __import_iovec_ubuf for one
//     iovec) refuses an iov_len over SSIZE_MAX (EINVAL); one iovec is then
//     import_ubuf's, several go through __import_iovec, which checks
//     access_ok of each whole length (EFAULT, or unknown as for write)
//     and clamps the running total to MAX_RW_COUNT.
//
// Lengths are assumed to describe buffers the program really mapped: how
// much of a too-short buffer the kernel copies before it faults depends
// on the process's memory, which the log does not show.
func importBuffers(syscall string, lens []uint64) imported {
	switch syscall {
	case "write", "read":
		return importRW(syscall, lens[0])
	case "sendmsg", "recvmsg", "sendmmsg":
		return importIovec(lens)
	}
	out := make([]int, len(lens))
	for i, l := range lens {
		out[i] = int(min(l, maxRWCount))
	}
	return imported{lens: out}
}

// importRW is the entry check of read and write (vfs_read, vfs_write).
func importRW(syscall string, n uint64) imported {
	switch {
	case n > taskSizeMax-mmapMinAddr:
		return imported{errno: kernel.EFAULT, why: fmt.Sprintf("vfs_%s: access_ok fails for a count of %d whatever the buffer", syscall, n)}
	case n > maxRWCount:
		return imported{undet: true, why: fmt.Sprintf("a count of %d passes vfs_%s's access_ok only for a buffer below %#x, and strace does not show the buffer's address", n, syscall, taskSizeMax-n)}
	}
	return imported{lens: []int{int(n)}}
}

func importIovec(lens []uint64) imported {
	if len(lens) > kernel.UioMaxiov {
		return imported{errno: kernel.EMSGSIZE, why: fmt.Sprintf("__copy_msghdr: %d iovecs is more than UIO_MAXIOV", len(lens))}
	}
	for i, l := range lens {
		if l > maxSsize {
			return imported{errno: kernel.EINVAL, why: fmt.Sprintf("copy_iovec_from_user: iov_len %d of iovec %d does not fit a ssize_t", l, i)}
		}
	}
	if len(lens) == 1 {
		return imported{lens: []int{int(min(lens[0], maxRWCount))}}
	}
	// One iovec that fails access_ok whatever its buffer makes the call
	// EFAULT, whether or not the ones before it pass.
	for i, l := range lens {
		if l > taskSizeMax-mmapMinAddr {
			return imported{errno: kernel.EFAULT, why: fmt.Sprintf("__import_iovec: access_ok fails for iov_len %d of iovec %d whatever the buffer", l, i)}
		}
	}
	out := make([]int, len(lens))
	total := uint64(0)
	for i, l := range lens {
		if l > maxRWCount {
			return imported{undet: true, why: fmt.Sprintf("iov_len %d of iovec %d passes __import_iovec's access_ok only for a buffer below %#x, and strace does not show the buffer's address", l, i, taskSizeMax-l)}
		}
		l = min(l, maxRWCount-total)
		out[i] = int(l)
		total += l
	}
	return imported{lens: out}
}
