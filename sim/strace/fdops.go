package strace

// Dup is a call that makes NewFd refer to the open file of Fd: dup(fd),
// dup2(fd, new), dup3(fd, new, flags), fcntl(fd, F_DUPFD or
// F_DUPFD_CLOEXEC, min). The new descriptor is the result; CloExec is
// dup3's O_CLOEXEC or F_DUPFD_CLOEXEC (the new descriptor closes at
// execve; dup and dup2 clear the flag).
type Dup struct {
	Header
	Fd      int  `json:"fd"`
	CloExec bool `json:"cloexec,omitempty"`
}

// SetFd is fcntl(fd, F_SETFD, flags): CloExec is FD_CLOEXEC, the
// descriptor's only flag.
type SetFd struct {
	Header
	Fd      int  `json:"fd"`
	CloExec bool `json:"cloexec,omitempty"`
}

// Exec is execve(path, argv, envp) or execveat(dirfd, path, argv, envp,
// flags): on success the process's descriptors marked close-on-exec are
// closed.
type Exec struct {
	Header
}

// Fork is a call that creates a process or thread: fork, vfork, clone or
// clone3; the result is the child's pid. SharesFiles is CLONE_FILES: the
// child shares the parent's descriptor table (a thread); without it the
// child gets a copy.
type Fork struct {
	Header
	SharesFiles bool `json:"shares_files,omitempty"`
}

// CloseRange is close_range(first, last, flags): every descriptor from
// First to Last is closed, unless Flags has CLOSE_RANGE_CLOEXEC (they are
// only marked close-on-exec).
type CloseRange struct {
	Header
	First   uint32   `json:"first"`
	Last    uint32   `json:"last"`
	CloExec bool     `json:"cloexec,omitempty"`
	Flags   []string `json:"flags,omitempty"`
}

// Flag bits the decoder recognises by number too (-X raw).
const (
	cloneFiles        = 0x400    // CLONE_FILES
	closeRangeCloexec = 4        // CLOSE_RANGE_CLOEXEC
	fDupFD            = 0        // F_DUPFD
	fSetFD            = 2        // F_SETFD
	fDupFDCloexec     = 1030     // F_DUPFD_CLOEXEC
	fdCloexec         = 1        // FD_CLOEXEC
	oCloexec          = 0x80000  // O_CLOEXEC (x86, arm, most)
	sockCloexec       = oCloexec // SOCK_CLOEXEC is O_CLOEXEC
)

func decodeDup(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	op := &Dup{Header: h, Fd: fd}
	if h.Syscall == "dup3" {
		op.CloExec = a[2].Has("O_CLOEXEC", oCloexec)
	}
	return op, bad
}

func decodeExec(h Header, a []Value) (Op, *badArg) { return &Exec{Header: h}, nil }

// decodeFcntl decodes fcntl(fd, cmd[, arg]): F_DUPFD and F_DUPFD_CLOEXEC
// are a Dup, F_SETFD a SetFd; every other command is ignored.
func decodeFcntl(h Header, a []Value) (Op, *badArg) {
	if len(a) < 2 || len(a) > 3 {
		var at Value
		if len(a) > 0 {
			at = a[0]
		}
		return nil, &badArg{at, sprintf("fcntl takes 2 or 3 arguments, got %d", len(a))}
	}
	cmd := a[1].Symbol()
	if n, ok := a[1].AsInt(); ok {
		switch n {
		case fDupFD:
			cmd = "F_DUPFD"
		case fDupFDCloexec:
			cmd = "F_DUPFD_CLOEXEC"
		case fSetFD:
			cmd = "F_SETFD"
		}
	}
	switch cmd {
	case "F_DUPFD", "F_DUPFD_CLOEXEC":
		op, bad := decodeDup(h, a)
		op.(*Dup).CloExec = cmd == "F_DUPFD_CLOEXEC"
		return op, bad
	case "F_SETFD":
		if len(a) != 3 {
			return nil, &badArg{a[1], "F_SETFD takes a flags argument"}
		}
		fd, bad := fdArg(a[0])
		return &SetFd{Header: h, Fd: fd, CloExec: a[2].Has("FD_CLOEXEC", fdCloexec)}, bad
	}
	return &Ignored{Header: h, Name: h.Syscall}, nil
}

// decodeClone decodes clone(child_stack=..., flags=..., ...), whose
// arguments strace names and whose count depends on the flags.
func decodeClone(h Header, a []Value) (Op, *badArg) {
	op := &Fork{Header: h}
	for _, v := range a {
		if v.Name == "flags" {
			op.SharesFiles = v.Has("CLONE_FILES", cloneFiles)
		}
	}
	return op, nil
}

// decodeClone3 decodes clone3({flags=..., ...}, size).
func decodeClone3(h Header, a []Value) (Op, *badArg) {
	op := &Fork{Header: h}
	args := a[0]
	if args.Kind == KindInOut {
		args = args.Elems[0] // {flags=...} => {parent_tid=[5]}
	}
	if f, ok := args.Field("flags"); ok {
		op.SharesFiles = f.Has("CLONE_FILES", cloneFiles)
	} else if !abbreviated(args) && args.Kind != KindInt {
		return nil, &badArg{a[0], "expected struct clone_args"}
	}
	return op, nil
}

func decodeFork(h Header, a []Value) (Op, *badArg) { return &Fork{Header: h}, nil }

func decodeCloseRange(h Header, a []Value) (Op, *badArg) {
	first, bad := intArg(a[0], "first")
	if bad != nil {
		return nil, bad
	}
	last, bad := intArg(a[1], "last")
	if bad != nil {
		return nil, bad
	}
	return &CloseRange{Header: h, First: uint32(first), Last: uint32(last),
		CloExec: a[2].Has("CLOSE_RANGE_CLOEXEC", closeRangeCloexec), Flags: flagList(a[2])}, nil
}

// decodeWritev decodes writev(fd, iov, iovcnt) as a Send of its buffers.
func decodeWritev(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	iov, abbrev, bad := iovLens(a[1])
	if bad != nil {
		return nil, bad
	}
	n, bad := intArg(a[2], "iovcnt")
	if bad != nil {
		return nil, bad
	}
	if abbrev == "" && int64(len(iov)) < n {
		abbrev = sprintf("strace printed %d of %d iovecs", len(iov), n)
	}
	return &Send{Header: h, Fd: fd, Iov: iov, Len: sum(iov), Abbrev: abbrev}, nil
}

// decodeSendfile decodes sendfile(out_fd, in_fd, offset, count) as a Send
// of count bytes on out_fd.
func decodeSendfile(h Header, a []Value) (Op, *badArg) {
	fd, bad := fdArg(a[0])
	if bad != nil {
		return nil, bad
	}
	n, bad := sizeArg(a[3], "count")
	return &Send{Header: h, Fd: fd, Iov: []uint64{n}, Len: n}, bad
}
