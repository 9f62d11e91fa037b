package strace

// AddrArg decodes a struct sockaddr argument as strace prints it (the
// second argument of bind, connect, getsockname or getpeername), in the
// symbolic or the -X raw form. It reports false when v is not a readable
// sockaddr; NULL gives the zero SockAddr and true.
func AddrArg(v Value) (SockAddr, bool) {
	a, bad := sockAddr(v)
	return a, bad == nil
}
