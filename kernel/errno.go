package kernel

import "strconv"

// Errno is a Linux error number as the x86_64 uapi defines it. The zero value
// means success. Results in zcsim are always an Errno, never a Go error, so a
// replay can compare them with what a real program saw.
type Errno uint16

// Linux errno values (include/uapi/asm-generic/errno-base.h and errno.h).
// ENOTSUPP is kernel-internal (include/linux/errno.h) but leaks to user space
// from setsockopt(SO_ZEROCOPY) on kernels before the EOPNOTSUPP conversion.
const (
	EPERM           Errno = 1
	ENOENT          Errno = 2
	EINTR           Errno = 4
	EIO             Errno = 5
	EBADF           Errno = 9
	EAGAIN          Errno = 11
	ENOMEM          Errno = 12
	EACCES          Errno = 13
	EFAULT          Errno = 14
	EBUSY           Errno = 16
	EEXIST          Errno = 17
	ENODEV          Errno = 19
	EINVAL          Errno = 22
	EPIPE           Errno = 32
	EDESTADDRREQ    Errno = 89
	EMSGSIZE        Errno = 90
	EPROTOTYPE      Errno = 91
	ENOPROTOOPT     Errno = 92
	EPROTONOSUPPORT Errno = 93
	ESOCKTNOSUPPORT Errno = 94
	EOPNOTSUPP      Errno = 95
	EAFNOSUPPORT    Errno = 97
	EADDRINUSE      Errno = 98
	ECONNABORTED    Errno = 103
	ECONNRESET      Errno = 104
	ENOBUFS         Errno = 105
	EISCONN         Errno = 106
	ENOTCONN        Errno = 107
	ETIMEDOUT       Errno = 110
	ECONNREFUSED    Errno = 111
	EALREADY        Errno = 114
	EINPROGRESS     Errno = 115
	ENOTSUPP        Errno = 524
)

// ErrnoNames maps errno names to values. EWOULDBLOCK is an alias of EAGAIN.
var ErrnoNames = NewSymbols(
	Symbol[Errno]{"EPERM", EPERM}, Symbol[Errno]{"ENOENT", ENOENT},
	Symbol[Errno]{"EINTR", EINTR}, Symbol[Errno]{"EIO", EIO},
	Symbol[Errno]{"EBADF", EBADF}, Symbol[Errno]{"EAGAIN", EAGAIN},
	Symbol[Errno]{"EWOULDBLOCK", EAGAIN}, Symbol[Errno]{"ENOMEM", ENOMEM},
	Symbol[Errno]{"EACCES", EACCES}, Symbol[Errno]{"EFAULT", EFAULT},
	Symbol[Errno]{"EBUSY", EBUSY}, Symbol[Errno]{"EEXIST", EEXIST},
	Symbol[Errno]{"ENODEV", ENODEV},
	Symbol[Errno]{"EINVAL", EINVAL}, Symbol[Errno]{"EPIPE", EPIPE},
	Symbol[Errno]{"EDESTADDRREQ", EDESTADDRREQ}, Symbol[Errno]{"EMSGSIZE", EMSGSIZE},
	Symbol[Errno]{"EPROTOTYPE", EPROTOTYPE}, Symbol[Errno]{"ENOPROTOOPT", ENOPROTOOPT},
	Symbol[Errno]{"EPROTONOSUPPORT", EPROTONOSUPPORT},
	Symbol[Errno]{"ESOCKTNOSUPPORT", ESOCKTNOSUPPORT},
	Symbol[Errno]{"EOPNOTSUPP", EOPNOTSUPP}, Symbol[Errno]{"EAFNOSUPPORT", EAFNOSUPPORT},
	Symbol[Errno]{"EADDRINUSE", EADDRINUSE}, Symbol[Errno]{"ECONNABORTED", ECONNABORTED},
	Symbol[Errno]{"ECONNRESET", ECONNRESET}, Symbol[Errno]{"ENOBUFS", ENOBUFS},
	Symbol[Errno]{"EISCONN", EISCONN}, Symbol[Errno]{"ENOTCONN", ENOTCONN},
	Symbol[Errno]{"ETIMEDOUT", ETIMEDOUT}, Symbol[Errno]{"ECONNREFUSED", ECONNREFUSED},
	Symbol[Errno]{"EALREADY", EALREADY}, Symbol[Errno]{"EINPROGRESS", EINPROGRESS},
	Symbol[Errno]{"ENOTSUPP", ENOTSUPP},
)

// String returns the errno's Linux name ("ENOBUFS"), "0" for success, or
// "errno N" for a number without a name.
func (e Errno) String() string {
	if e == 0 {
		return "0"
	}
	if n := ErrnoNames.Name(e); n != "" {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}
