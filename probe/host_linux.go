//go:build linux

package probe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/notify"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/scenario"
	"github.com/zcsim/zcsim/sock"
	"github.com/zcsim/zcsim/tcp"
)

// Bounds of the live runs: every loop and wait is bounded.
const (
	settlePoll = 2 * time.Millisecond
	// readOnLimit bounds how long a blocking stream read reads on as
	// data arrives (recvData), within the watchdog's call limit.
	readOnLimit = 2 * time.Second
)

// hsock is a real socket and, for TCP, UDP and RAW, its implicit peer.
type hsock struct {
	fd, peer int
	family   int
	typ      int
	listener int           // TCP: the listening socket the peer comes from
	peerAddr unix.Sockaddr // where the peer listens or is bound
	// listening says the socket itself listens (listen S): its peer is
	// then a client that connects to it (connect S.peer, or at accept).
	listening bool
	// to is the listener a socket made with to= connects to.
	to *hsock
	// port is the local port the socket had when it was closed.
	port int
	// req and ring are a packet socket's TX ring and its mapping.
	req  unix.TpacketReq
	ring *hring
	// ihl, if not nil, is the IP header length (ihl=) every send's
	// buffer starts with: its first byte is version 4 and this ihl.
	ihl *byte
	// peerClosed says close S.peer closed the peer's descriptor; a
	// TCP peer no connection has made yet never had one.
	peerClosed bool
	// clientConnected says a listener's peer, its next client, has
	// connected to it (connect S.peer).
	clientConnected bool
}

// host runs statements on the live kernel, in the calling thread's
// network namespace.
type host struct {
	socks map[string]*hsock
	// open are the run's descriptors; mu guards them and woken against
	// the watchdog (guarded), which shuts every socket down to wake a
	// call that does not return.
	mu    sync.Mutex
	open  []int
	woken bool
	// lim are the run's bounds; emit, if set, is handed each Obs as soon
	// as it is made.
	lim  limits
	emit func(Obs)
	out  []Obs
	// fds numbers the scenario's sockets as the traced program would see
	// them, the lowest free descriptor above stderr, whatever numbers the
	// probe's own process hands out: index is the descriptor, "" free.
	fds []string
	// msg is what the last error-queue read wrote into its msghdr.
	msg map[string]int64
	// zmaps are the TCP sockets' zerocopy receive mappings, by
	// scenario socket ("s", "s.peer").
	zmaps map[string][]byte
	// epolls are the epoll instances' descriptors by name.
	epolls map[string]int
}

// progFD gives the socket name the lowest free program descriptor.
func (h *host) progFD(name string) string {
	fd := 3
	for fd < len(h.fds) && h.fds[fd] != "" {
		fd++
	}
	for fd >= len(h.fds) {
		h.fds = append(h.fds, "")
	}
	h.fds[fd] = name
	return fmt.Sprint(fd)
}

// releaseFD frees the program descriptor of a closed socket.
func (h *host) releaseFD(name string) {
	for i, n := range h.fds {
		if n == name {
			h.fds[i] = ""
		}
	}
}

// runHost executes the statements the plan runs on the kernel within
// lim (bound_linux.go) and returns one Obs per system-call statement
// among them, and one Timeout Obs for a statement the bounds ended the
// run at. A socket or close the plan leaves out still takes or frees its
// program descriptor, as it does in the model, so later sockets get the
// model's numbers. The caller has chosen the network namespace and
// credentials.
func runHost(stmts []scenario.Stmt, steps []step, lim limits, emit func(Obs)) []Obs {
	h := &host{socks: map[string]*hsock{}, zmaps: map[string][]byte{}, lim: lim, emit: emit}
	defer h.closeAll()
	start := time.Now()
	for i, st := range stmts {
		if !steps[i].run {
			switch s := st.(type) {
			case *scenario.Socket:
				h.progFD(s.Name.Name)
			case *scenario.Close:
				h.releaseFD(s.Sock.String())
			}
			continue
		}
		if time.Since(start) > lim.run {
			h.record(timeoutObs(st, fmt.Sprintf("the live run's statements took their %v together before this one", lim.run)))
			break
		}
		h.msg = nil
		res, isCall, took, woken := h.guarded(st)
		if woken {
			h.record(timeoutObs(st, fmt.Sprintf("the call had not returned after %v: the live run shut its sockets down to end it", lim.call)))
			break
		}
		if isCall {
			h.record(Obs{Line: st.Pos().Line, Stmt: scenario.FormatCall(st), Result: res, Msg: h.msg, Cut: socketBound(st, took)})
		}
	}
	return h.out
}

// record keeps an observation and hands it to emit.
func (h *host) record(o Obs) {
	h.out = append(h.out, o)
	if h.emit != nil {
		h.emit(o)
	}
}

// closeAll closes every descriptor the run left open and unmaps the TCP
// mappings it left: a mapping outlives its socket, and another run in the
// same process must not find it next to its own (tcp_zerocopy_receive
// takes any tcp_mmap area at the address it is given).
func (h *host) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, fd := range h.open {
		unix.Close(fd)
	}
	for _, mem := range h.zmaps {
		unix.Munmap(mem)
	}
}

func (h *host) track(fd int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.open = append(h.open, fd)
	return fd
}

// close closes the real descriptor behind a scenario socket name and
// forgets it: the kernel may hand its number to a later socket, and a
// call on the closed name must still find no descriptor (EBADF).
func (h *host) close(s scenario.Sock) error {
	fd := h.fd(s)
	if hs := h.socks[s.Name]; hs != nil {
		if s.Peer {
			hs.peer, hs.peerClosed = -1, true
		} else {
			hs.port, _ = localPort(fd)
			hs.fd = -1
		}
	}
	h.mu.Lock()
	h.open = slices.DeleteFunc(h.open, func(o int) bool { return o == fd })
	h.mu.Unlock()
	return unix.Close(fd)
}

// fd returns the real descriptor behind a scenario socket name.
func (h *host) fd(s scenario.Sock) int {
	hs := h.socks[s.Name]
	if hs == nil {
		return -1
	}
	if s.Peer {
		return hs.peer
	}
	return hs.fd
}

// exec runs one statement; isCall says whether it is a system call whose
// result is compared.
func (h *host) exec(st scenario.Stmt) (res string, isCall bool) {
	switch s := st.(type) {
	case *scenario.Socket:
		return h.socket(s), true
	case *scenario.Setsockopt:
		if s.Req != nil {
			return h.txRing(s), true
		}
		return errRes(h.setsockopt(s)), true
	case *scenario.Mmap:
		return h.mmap(s), true
	case *scenario.Munmap:
		return h.munmap(s.Sock), true
	case *scenario.Txframe:
		h.txFrame(s)
	case *scenario.Txstatus:
		return h.txStatus(s), true
	case *scenario.Getsockopt:
		o, _ := kernel.SockOptNames.ByName(s.Opt.Name)
		if o == kernel.TCP_ZEROCOPY_RECEIVE && h.socks[s.Sock.Name] != nil && h.socks[s.Sock.Name].typ == unix.SOCK_STREAM {
			return h.zerocopyReceive(s), true
		}
		if o == kernel.TCP_INFO {
			return h.tcpInfo(s), true
		}
		return getsockopt(h.fd(s.Sock), o, s.Options), true
	case *scenario.Connect:
		if hs := h.socks[s.Sock.Name]; s.Sock.Peer && hs != nil && hs.listening {
			return errRes(h.connectToListener(hs)), true
		}
		return errRes(h.connect(s.Sock)), true
	case *scenario.Listen:
		return errRes(h.listen(s.Sock, int(s.Backlog()))), true
	case *scenario.Accept:
		return h.accept(s), true
	case *scenario.Shutdown:
		how := map[string]int{"SHUT_RD": unix.SHUT_RD, "SHUT_WR": unix.SHUT_WR, "SHUT_RDWR": unix.SHUT_RDWR}[s.How.Name]
		return errRes(unix.Shutdown(h.fd(s.Sock), how)), true
	case *scenario.Close:
		h.releaseFD(s.Sock.String())
		if fd, ok := h.epolls[s.Sock.String()]; ok {
			delete(h.epolls, s.Sock.String())
			return errRes(unix.Close(fd)), true
		}
		return errRes(h.close(s.Sock)), true
	case *scenario.EpollCreate:
		fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			return errRes(err), true
		}
		h.track(fd)
		if h.epolls == nil {
			h.epolls = map[string]int{}
		}
		h.epolls[s.Name.Name] = fd
		return h.progFD(s.Name.Name), true
	case *scenario.EpollCtl:
		return h.epollCtl(s), true
	case *scenario.EpollWait:
		return h.epollWait(s), true
	case *scenario.Fcntl:
		return h.fcntl(s), true
	case *scenario.Send:
		return h.send(s.Sock, []int{int(s.Len.N)}, s.Flags, nil, false, false), true
	case *scenario.Sendto:
		return h.send(s.Sock, []int{int(s.Len.N)}, s.Flags, nil, true, false), true
	case *scenario.Sendmsg:
		return h.send(s.Sock, scenario.Lengths(s.Iov), s.Flags, controlBuf(s.Cmsgs), false, s.IovApart()), true
	case *scenario.Sendmmsg:
		return h.sendmmsg(s), true
	case *scenario.Recvmsg:
		return h.recvErr(s), true
	case *scenario.Recv:
		return h.recv(s), true
	case *scenario.Poll:
		return h.poll(s), true
	case *scenario.Setrlimit:
		var cur unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &cur); err != nil {
			return errRes(err), true
		}
		cur.Cur = rlimit(s.Limit)
		if !s.Max.IsZero() {
			cur.Max = rlimit(s.Max)
		}
		return errRes(unix.Setrlimit(unix.RLIMIT_MEMLOCK, &cur)), true
	case *scenario.Capdrop:
		return "0", true // the run already has no capabilities (see plan.child)
	case *scenario.Capset:
		return "0", true // the run as root has CAP_NET_ADMIN already (see planner.step)
	case *scenario.Settle:
		h.settle()
	case *scenario.Wait:
		time.Sleep(min(time.Duration(s.Dur.N), waitLimit))
	}
	return "", false
}

// socket creates the socket and its peer: a listener on loopback for TCP
// (the peer is accepted at connect), a bound receiver for UDP, a RAW
// socket of the same protocol for RAW.
func (h *host) socket(s *scenario.Socket) string {
	fam, typ, p := s.Args()
	proto := int(p)
	fd, err := unix.Socket(int(fam), int(typ)|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return errRes(err)
	}
	h.bounded(fd)
	hs := &hsock{fd: fd, peer: -1, listener: -1, family: int(fam), typ: int(typ.Base())}
	if o, ok := s.Options.Lookup("ihl"); ok {
		ihl := byte(o.Value.N)
		hs.ihl = &ihl
	}
	h.socks[s.Name.Name] = hs
	progFD := h.progFD(s.Name.Name)
	if fam == kernel.AF_PACKET {
		packetSetup(fd, proto)
	}
	if fam != kernel.AF_INET && fam != kernel.AF_INET6 {
		return progFD
	}
	if hs.typ == unix.SOCK_RAW {
		// connect and sendto aim at loopback, as the model's do, and the
		// peer is a RAW socket of the same protocol, which loopback
		// hands a copy of every datagram of that protocol, as the
		// model's (raw_local_deliver).
		hs.peerAddr = loAddr(int(fam))
		if p, err := unix.Socket(int(fam), unix.SOCK_RAW|unix.SOCK_CLOEXEC, proto); err == nil {
			hs.peer = h.bounded(p)
		}
		return progFD
	}
	if proto != 0 && proto != unix.IPPROTO_TCP && proto != unix.IPPROTO_UDP {
		return progFD
	}
	if o, ok := s.Options.Lookup("to"); ok {
		hs.to = h.socks[o.Value.Text] // a client of that listener: no peer of its own
		return progFD
	}
	// A v4-mapped socket's peer is an IPv4 socket on 127.0.0.1, reached
	// at ::ffff:127.0.0.1.
	_, mapped := s.Options.Lookup("mapped")
	peerFam := int(fam)
	if mapped {
		peerFam = unix.AF_INET
	}
	switch hs.typ {
	case unix.SOCK_STREAM:
		l, err := unix.Socket(peerFam, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err == nil {
			h.bounded(l) // its accepted peers inherit the bounds (sk_clone_lock)
			if unix.Bind(l, loAddr(peerFam)) == nil && unix.Listen(l, 8) == nil {
				hs.listener = l
				hs.peerAddr, _ = unix.Getsockname(l)
			}
		}
	case unix.SOCK_DGRAM:
		p, err := unix.Socket(peerFam, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err == nil {
			h.bounded(p)
			if unix.Bind(p, loAddr(peerFam)) == nil {
				hs.peer = p
				hs.peerAddr, _ = unix.Getsockname(p)
			}
		}
	}
	if a, ok := hs.peerAddr.(*unix.SockaddrInet4); ok && mapped {
		hs.peerAddr = &unix.SockaddrInet6{Port: a.Port, Addr: [16]byte{10: 0xff, 11: 0xff, 12: 127, 15: 1}}
	}
	return progFD
}

func loAddr(fam int) unix.Sockaddr {
	if fam == unix.AF_INET6 {
		return &unix.SockaddrInet6{Addr: [16]byte{15: 1}}
	}
	return &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
}

func (h *host) setsockopt(s *scenario.Setsockopt) error {
	o, v := s.Option()
	buf := make([]byte, 16)
	binary.LittleEndian.PutUint32(buf, uint32(int32(v)))
	def := 4
	if o == kernel.TCP_CONGESTION {
		// The name and NULs after it, strlen of it by default.
		name := s.Value.Unquoted()
		buf, def = append([]byte(name), make([]byte, 16)...), len(name)
	}
	p, n := optBuf(buf, s.Options, def)
	_, _, e := unix.Syscall6(unix.SYS_SETSOCKOPT, uintptr(h.fd(s.Sock)), uintptr(o.Level), uintptr(o.Name), p, uintptr(n), 0)
	runtime.KeepAlive(buf)
	if e != 0 {
		return e
	}
	return nil
}

// optBuf is the optval pointer and optlen the options optlen= and null
// describe, over buf: a longer optlen is passed as it is, with the
// pointer at buf (the kernel reads or writes at most 8 bytes of an int
// option).
func optBuf(buf []byte, os scenario.Options, def int) (ptr uintptr, n int) {
	n = def
	if o, ok := os.Lookup("optlen"); ok {
		n = int(o.Value.Int())
	}
	if _, null := os.Lookup("null"); null {
		return 0, n
	}
	return uintptr(unsafe.Pointer(&buf[0])), n
}

// getsockopt reads an int option into the buffer the options describe,
// and renders the value its returned bytes hold, as the model does.
func getsockopt(fd int, o kernel.SockOpt, os scenario.Options) string {
	buf := make([]byte, 32)
	def := 4
	if o == kernel.TCP_CONGESTION {
		def = tcp.CANameMax
	}
	p, n := optBuf(buf, os, def)
	ln := int32(n)
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), uintptr(o.Level), uintptr(o.Name), p, uintptr(unsafe.Pointer(&ln)), 0)
	runtime.KeepAlive(buf)
	if e != 0 {
		return errRes(e)
	}
	if o == kernel.TCP_CONGESTION {
		// A name, rendered as the model renders it: up to its NUL.
		name, _, _ := strings.Cut(string(buf[:min(max(ln, 0), int32(len(buf)))]), "\x00")
		return strconv.Quote(name)
	}
	var v uint32
	for i := min(int(ln), 4) - 1; i >= 0; i-- {
		v = v<<8 | uint32(buf[i])
	}
	return fmt.Sprint(int32(v))
}

// closedFD is a descriptor number no run opens: what a closed
// descriptor of the program names.
const closedFD = math.MaxInt32

// tcpInfo reads a struct tcp_info into a buffer of optlen= bytes
// (kernel.TCPInfoSize by default) and decodes the fields the model
// offers (kernel.TCPInfoFields) that the kernel wrote into h.msg for the
// outcome's field checks; the result is the call's, 0.
func (h *host) tcpInfo(s *scenario.Getsockopt) string {
	buf := make([]byte, 2*kernel.TCPInfoSize)
	p, n := optBuf(buf, s.Options, kernel.TCPInfoSize)
	ln := int32(n)
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(h.fd(s.Sock)), unix.IPPROTO_TCP, unix.TCP_INFO, p, uintptr(unsafe.Pointer(&ln)), 0)
	runtime.KeepAlive(buf)
	if e != 0 {
		return errRes(e)
	}
	h.msg = map[string]int64{}
	for _, f := range kernel.TCPInfoFields {
		if v, ok := f.Decode(buf, int(ln)); ok {
			h.msg[f.Key] = int64(v)
		}
	}
	return "0"
}

// connect connects a socket to its peer; TCP then accepts the peer, also
// after a non-blocking connect's EINPROGRESS (the handshake completes on
// loopback at once), so that S.peer exists either way.
func (h *host) connect(s scenario.Sock) error {
	hs := h.socks[s.Name]
	if hs == nil || hs.fd < 0 {
		return unix.Connect(h.fd(s), loAddr(unix.AF_INET)) // no descriptor: the kernel's EBADF
	}
	if hs.to != nil {
		dst, err := listenerAddr(hs.to)
		if err != nil {
			return err
		}
		return unix.Connect(hs.fd, dst)
	}
	if hs.peerAddr == nil {
		return unix.EOPNOTSUPP
	}
	if s.Peer && hs.typ == unix.SOCK_RAW {
		return unix.Connect(hs.peer, hs.peerAddr)
	}
	err := unix.Connect(hs.fd, hs.peerAddr)
	if err != nil && !(err == unix.EINPROGRESS && hs.typ == unix.SOCK_STREAM) {
		return err
	}
	if hs.typ == unix.SOCK_STREAM && hs.peer < 0 {
		p, aerr := h.acceptPeer(hs.listener)
		if aerr != nil {
			return fmt.Errorf("accepting the peer: %w", aerr)
		}
		hs.peer = h.bounded(p)
	}
	return err
}

// listen makes the socket listen with the statement's backlog; an
// unbound one is bound to an ephemeral port of the wildcard address
// (inet_autobind), which loopback clients reach.
func (h *host) listen(s scenario.Sock, backlog int) error {
	fd := h.fd(s)
	if err := unix.Listen(fd, backlog); err != nil {
		return err
	}
	if hs := h.socks[s.Name]; hs != nil && !s.Peer {
		hs.listening = true
		if hs.peer < 0 && !hs.peerClosed {
			return h.newClient(hs)
		}
	}
	return nil
}

// newClient makes the listener hs's peer its next client, a blocking
// TCP socket of its family not yet connected, as the model's S.peer is
// from listen on and after each accept: calls on it before connect S.peer
// (or accept) find a socket, not EBADF.
func (h *host) newClient(hs *hsock) error {
	c, err := unix.Socket(hs.family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	hs.peer, hs.clientConnected = h.bounded(c), false
	return nil
}

// connectToListener is connect S.peer on a listener S: its client, S's
// peer until accept takes its connection, connects to S. A client
// already connected is connected again, as the model's peer is (EISCONN).
func (h *host) connectToListener(hs *hsock) error {
	dst, err := listenerAddr(hs)
	if err != nil {
		return err
	}
	if hs.peer < 0 {
		if err := h.newClient(hs); err != nil {
			return err
		}
	}
	hs.clientConnected = true
	return unix.Connect(hs.peer, dst)
}

// listenerAddr is where the listener hs is reached over loopback: its
// port, or the one it had when it was closed, as a client that connects
// after the close still aims at it.
func listenerAddr(hs *hsock) (unix.Sockaddr, error) {
	port := hs.port
	if hs.fd >= 0 {
		var err error
		if port, err = localPort(hs.fd); err != nil {
			return nil, err
		}
	}
	dst := loAddr(hs.family)
	switch a := dst.(type) {
	case *unix.SockaddrInet4:
		a.Port = port
	case *unix.SockaddrInet6:
		a.Port = port
	}
	return dst, nil
}

// localPort is the local port of the inet socket fd, 0 if it has none.
func localPort(fd int) (int, error) {
	sa, err := unix.Getsockname(fd)
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return a.Port, err
	case *unix.SockaddrInet6:
		return a.Port, err
	}
	return 0, err
}

// accept takes the listener's oldest connection as the socket s.New,
// whose peer is its client: a socket made with to=, the one connect
// S.peer made, or, with nothing queued, one that connects now, as the
// model assumes.
func (h *host) accept(s *scenario.Accept) string {
	hs := h.socks[s.Sock.Name]
	if hs == nil || s.Sock.Peer || !hs.listening {
		_, _, err := unix.Accept4(h.fd(s.Sock), unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK)
		return errRes(err)
	}
	if queued := []unix.PollFd{{Fd: int32(hs.fd), Events: unix.POLLIN}}; !hs.clientConnected {
		if n, _ := unix.Poll(queued, 0); n == 0 {
			if err := h.connectToListener(hs); err != nil {
				return errRes(fmt.Errorf("connecting the peer: %w", err))
			}
		}
	}
	c, err := h.acceptPeer(hs.fd)
	if err != nil {
		return errRes(err)
	}
	h.bounded(c)
	peer := h.clientOf(c, hs)
	h.socks[s.New.Name] = &hsock{fd: c, peer: peer, listener: -1, family: hs.family, typ: unix.SOCK_STREAM}
	if peer == hs.peer {
		if err := h.newClient(hs); err != nil {
			return errRes(fmt.Errorf("the listener's next client: %w", err))
		}
	}
	return h.progFD(s.New.Name)
}

// clientOf returns the client of the accepted connection c on the
// listener l: the socket made with to= whose address is c's peer
// address, else l's own peer.
func (h *host) clientOf(c int, l *hsock) int {
	remote, err := unix.Getpeername(c)
	if err != nil {
		return l.peer
	}
	for _, hs := range h.socks {
		if hs.to != l {
			continue
		}
		if local, err := unix.Getsockname(hs.fd); err == nil && sameAddr(local, remote) {
			return hs.fd
		}
	}
	return l.peer
}

// sameAddr reports whether two inet socket addresses are the same
// address and port.
func sameAddr(a, b unix.Sockaddr) bool {
	switch a := a.(type) {
	case *unix.SockaddrInet4:
		b, ok := b.(*unix.SockaddrInet4)
		return ok && a.Port == b.Port && a.Addr == b.Addr
	case *unix.SockaddrInet6:
		b, ok := b.(*unix.SockaddrInet6)
		return ok && a.Port == b.Port && a.Addr == b.Addr
	}
	return false
}

// acceptPeer accepts the peer's connection on the listener, waiting at
// most sndTimeo for it.
func (h *host) acceptPeer(listener int) (int, error) {
	fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
	if n, err := unix.Poll(fds, int(sndTimeo/time.Millisecond)); err != nil || n == 0 {
		return -1, fmt.Errorf("no connection within %v (%v)", sndTimeo, err)
	}
	p, _, err := unix.Accept4(listener, unix.SOCK_CLOEXEC)
	return p, err
}

// send is send(2) or sendmsg(2) of iovecs of the lengths lens over one
// buffer of pages, back to back or (apart) each at a page of its own, as
// the model lays them out (sim.World.Send).
func (h *host) send(s scenario.Sock, lens []int, fl scenario.Flags, oob []byte, to, apart bool) string {
	flags := int(fl.MsgFlags())
	fd := h.fd(s)
	var dst unix.Sockaddr
	if hs := h.socks[s.Name]; to && hs != nil && (!s.Peer || hs.typ == unix.SOCK_RAW) {
		dst = hs.peerAddr // a RAW socket's peer sends to loopback too
	}
	bufs := iovs(h.sendBuf(s, iovsSize(lens, apart)), lens, apart)
	var n int
	var err error
	switch {
	case iovsSize(lens, false) == 0 && len(oob) > 0:
		n, err = sendmsgEmpty(fd, len(bufs), oob, dst, flags)
	case len(bufs) == 1:
		n, err = unix.SendmsgN(fd, bufs[0], oob, dst, flags)
	default:
		n, err = unix.SendmsgBuffers(fd, bufs, oob, dst, flags)
	}
	if hs := h.socks[s.Name]; to && hs != nil && hs.typ == unix.SOCK_STREAM && hs.peer < 0 && flags&unix.MSG_FASTOPEN != 0 &&
		(err == nil || err == unix.EINPROGRESS) {
		// A Fast Open connect: the peer's connection is there to accept
		// (the handshake completes on loopback at once).
		if p, aerr := h.acceptPeer(hs.listener); aerr == nil {
			hs.peer = h.bounded(p)
		}
	}
	if err != nil {
		return errRes(err)
	}
	return fmt.Sprint(n)
}

// sendmsgEmpty is sendmsg(2) of iovs empty iovecs and the control
// messages oob, made by hand: unix.SendmsgN and SendmsgBuffers send a
// byte of their own when a stream socket's payload is empty and there is
// control data, and the kernel would see a one-byte send.
func sendmsgEmpty(fd, iovs int, oob []byte, dst unix.Sockaddr, flags int) (int, error) {
	var msg unix.Msghdr
	iov := make([]unix.Iovec, iovs)
	if iovs > 0 {
		msg.Iov = &iov[0]
		msg.SetIovlen(iovs)
	}
	msg.Control = &oob[0]
	msg.SetControllen(len(oob))
	var name []byte
	switch a := dst.(type) {
	case nil:
	case *unix.SockaddrInet4:
		sa := unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: a.Addr}
		binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:], uint16(a.Port))
		name = unsafe.Slice((*byte)(unsafe.Pointer(&sa)), unix.SizeofSockaddrInet4)
	case *unix.SockaddrInet6:
		sa := unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: a.Addr, Scope_id: a.ZoneId}
		binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:], uint16(a.Port))
		name = unsafe.Slice((*byte)(unsafe.Pointer(&sa)), unix.SizeofSockaddrInet6)
	default:
		return 0, fmt.Errorf("no raw form for the address %T", dst)
	}
	if len(name) > 0 {
		msg.Name = &name[0]
		msg.Namelen = uint32(len(name))
	}
	n, _, e := unix.Syscall(unix.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), uintptr(flags))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// controlBuf lays out a sendmsg's control messages as the program
// writes them: each a struct cmsghdr (cmsg_len = CMSG_LEN of the data,
// cmsg_level, cmsg_type) and its data, the value's low bytes
// little-endian, padded to CMSG_SPACE; nil for none.
func controlBuf(ms []scenario.Cmsg) []byte {
	var b []byte
	for _, m := range ms {
		n := m.DataLen()
		c := make([]byte, unix.CmsgSpace(n))
		binary.LittleEndian.PutUint64(c, uint64(unix.CmsgLen(n)))
		t := m.CmsgType()
		binary.LittleEndian.PutUint32(c[8:], uint32(t.Level))
		binary.LittleEndian.PutUint32(c[12:], uint32(t.Name))
		v := m.Data()
		for i := 0; i < n && i < 8; i++ {
			c[unix.CmsgLen(0)+i] = byte(v >> (8 * i))
		}
		b = append(b, c...)
	}
	return b
}

// sendmmsg runs sendmmsg(2) itself, each message's iovecs over one
// buffer of pages: the count __sys_sendmmsg returns, or its error when
// no message went.
func (h *host) sendmmsg(s *scenario.Sendmmsg) string {
	msgs := make([]unix.Mmsghdr, len(s.Msgs))
	for i, m := range s.Msgs {
		lens := scenario.Lengths(m)
		bufs := iovs(h.sendBuf(s.Sock, iovsSize(lens, false)), lens, false)
		iov := make([]unix.Iovec, max(len(bufs), 1))
		for j, b := range bufs {
			if len(b) > 0 {
				iov[j].Base = &b[0]
			}
			iov[j].SetLen(len(b))
		}
		msgs[i].Hdr.Iov = &iov[0]
		msgs[i].Hdr.SetIovlen(len(bufs))
	}
	var p unsafe.Pointer
	if len(msgs) > 0 {
		p = unsafe.Pointer(&msgs[0])
	}
	n, _, en := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(h.fd(s.Sock)), uintptr(p), uintptr(len(msgs)), uintptr(s.Flags.MsgFlags()), 0, 0)
	if en != 0 {
		return errRes(en)
	}
	return fmt.Sprint(n)
}

func (h *host) recvErr(s *scenario.Recvmsg) string {
	flags := int(s.Flags.MsgFlags())
	controllen := sim.ControlRoom
	if o, ok := s.Options.Lookup("control"); ok {
		controllen = int(o.Value.N)
	}
	if flags&unix.MSG_ERRQUEUE == 0 {
		fd := h.fd(s.Sock)
		h.settleBeforeRead(fd, flags)
		return recvmsgData(fd, controllen, flags)
	}
	rec, err := readErr(h.fd(s.Sock), controllen, &h.msg)
	if errors.Is(err, errCtrunc) {
		return "ctrunc"
	}
	if err != nil {
		return errRes(err)
	}
	return outcome(rec)
}

// errCtrunc is an error-queue read whose control message was cut short
// (MSG_CTRUNC): the record is gone, unseen.
var errCtrunc = errors.New("MSG_CTRUNC")

func (h *host) recv(s *scenario.Recv) string {
	flags := int(s.Flags.MsgFlags())
	fd := h.fd(s.Sock)
	h.settleBeforeRead(fd, flags)
	return h.recvData(fd, int(s.Len.N), flags)
}

// settleBeforeRead lets the network run before a blocking read that
// would wait, as the model runs it until the socket is readable. A read
// that would not wait — MSG_DONTWAIT or an O_NONBLOCK descriptor, data
// or the end of the stream to report (POLLIN, POLLHUP; not POLLERR,
// which a notification alone raises), a descriptor that names nothing
// (EBADF) — returns at once, and the network gets no time:
// the kernel's delayed ACKs would otherwise fire first, releasing data
// Nagle held and queuing notifications that merge before the next
// statement.
func (h *host) settleBeforeRead(fd, flags int) {
	if fd < 0 || !blocks(fd, flags) {
		return
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if n, err := unix.Poll(fds, 0); err == nil && n > 0 && fds[0].Revents&(unix.POLLIN|unix.POLLHUP) != 0 {
		return
	}
	h.settle()
}

// poll runs poll(2) on the socket for the statement's events and timeout
// (bounded by waitLimit) and renders what it returns.
func (h *host) poll(s *scenario.Poll) string {
	fd := h.fd(s.Sock)
	if hs := h.socks[s.Sock.Name]; hs != nil && fd < 0 && !unmadePeer(s.Sock, hs) {
		// The program's descriptor was closed: it still polls that
		// number, which names nothing now (POLLNVAL); -1, which poll
		// skips, stands for a socket whose creation failed and for a
		// TCP peer no connection has made.
		fd = closedFD
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: int16(s.PollEvents())}}
	n, err := unix.Poll(fds, int(min(time.Duration(s.Timeout.N), waitLimit)/time.Millisecond))
	if err != nil {
		return errRes(err)
	}
	return fmt.Sprint(n)
}

// unmadePeer reports whether s names the peer of a TCP socket that
// neither listens nor has connected: no descriptor ever named it.
func unmadePeer(s scenario.Sock, hs *hsock) bool {
	return s.Peer && hs.typ == unix.SOCK_STREAM && !hs.listening && !hs.peerClosed
}

// recvmsgData is a recvmsg(2) reading up to 64 KiB of data with a
// control buffer of controllen bytes: its length and, if it wrote a
// control message or set MSG_CTRUNC, what it wrote (sim.RecvControlText).
func recvmsgData(fd, controllen, flags int) string {
	buf, oob := make([]byte, 1<<16), make([]byte, controllen)
	n, oobn, rflags, _, err := unix.Recvmsg(fd, buf, oob, flags|unix.MSG_DONTWAIT)
	if err != nil {
		return errRes(err)
	}
	res := fmt.Sprint(n)
	if oobn > 0 || rflags&unix.MSG_CTRUNC != 0 {
		res += "  " + sim.RecvControlText(sock.RecvControl{Used: oobn, Ctrunc: rflags&unix.MSG_CTRUNC != 0, Cmsgs: rxCmsgs(oob[:oobn])})
	}
	return res
}

// recvData reads up to n bytes as recv(2) with flags would, never
// blocking. A blocking read of a stream socket whose first pass copies
// less than its target (readTarget) reads on as more arrives, as
// tcp_recvmsg sleeps in sk_wait_data and the model lets the network run
// (World.recvStream), until nothing readable comes for settleLimit (where
// the kernel would sleep on until SO_RCVTIMEO, the model returns once
// the network is quiet) or readOnLimit has passed. A peek does not read
// on: it would copy the same bytes again.
func (h *host) recvData(fd, n int, flags int) string {
	buf := make([]byte, max(n, 1))
	got, _, err := unix.Recvfrom(fd, buf[:n], flags|unix.MSG_DONTWAIT)
	if err != nil {
		return errRes(err)
	}
	if got == 0 || flags&unix.MSG_PEEK != 0 || !blocks(fd, flags) {
		return fmt.Sprint(got)
	}
	if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || typ != unix.SOCK_STREAM {
		return fmt.Sprint(got)
	}
	target := readTarget(fd, n, flags)
	start, last := time.Now(), time.Now()
	for got < target && time.Since(last) < settleLimit && time.Since(start) < readOnLimit {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if k, err := unix.Poll(fds, int(settlePoll/time.Millisecond)); err != nil || k == 0 {
			continue
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			if fds[0].Revents&(unix.POLLHUP|unix.POLLNVAL) != 0 {
				break
			}
			time.Sleep(settlePoll) // POLLERR alone: a record on the error queue
			continue
		}
		more, _, err := unix.Recvfrom(fd, buf[got:n], flags|unix.MSG_DONTWAIT)
		if err != nil || more == 0 {
			break
		}
		got += more
		last = time.Now()
	}
	return fmt.Sprint(got)
}

// readTarget is sock_rcvlowat for a read of n bytes on fd: all n with
// MSG_WAITALL, else min(SO_RCVLOWAT, n), at least 1 (tcp.Conn.RecvTarget).
func readTarget(fd, n, flags int) int {
	if flags&unix.MSG_WAITALL != 0 {
		return max(n, 1)
	}
	lowat, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT)
	if err != nil {
		lowat = 1
	}
	return max(min(lowat, n), 1)
}

// blocks reports whether a read with flags would sleep on fd: neither
// MSG_DONTWAIT nor the descriptor's O_NONBLOCK (sock_rcvtimeo's noblock,
// sock.Sock.NoWait), and no MSG_OOB: an urgent read answers at once
// with the byte, EINVAL or EAGAIN (tcp_recv_urg, unix_stream_recv_urg)
// and never sleeps, so the live run must not settle before it.
func blocks(fd, flags int) bool {
	if flags&(unix.MSG_DONTWAIT|unix.MSG_OOB) != 0 {
		return false
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_NONBLOCK == 0
}

// readErr reads one error-queue record with a control buffer of
// controllen bytes, and a data buffer of room for any (the model's
// reads have no bound): an ICMP error's quoted payload is what the read
// returns. If msg is not nil, it is set to the fields the read
// wrote (scenario.Field keys): msg_flags, the first control message's
// cmsg_level and cmsg_type, and the ee_* fields if its data holds the
// whole sock_extended_err, cut or not.
func readErr(fd, controllen int, msg *map[string]int64) (notify.Record, error) {
	buf := make([]byte, 1<<16)
	oob := make([]byte, max(controllen, 1))[:controllen]
	n, oobn, flags, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
	if err != nil {
		return notify.Record{}, err
	}
	if msg != nil {
		*msg = msgFields(flags, oob[:oobn])
	}
	if flags&unix.MSG_CTRUNC != 0 {
		return notify.Record{}, errCtrunc
	}
	cms, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return notify.Record{}, err
	}
	for _, cm := range cms {
		isErr := kernel.ErrqueueCmsgNames.Name(kernel.CmsgType{Level: kernel.Level(cm.Header.Level), Name: cm.Header.Type}) != ""
		if isErr && len(cm.Data) >= 16 {
			d := cm.Data
			return notify.Record{Errno: kernel.Errno(binary.LittleEndian.Uint32(d[0:])), Origin: d[4], Type: d[5], Code: d[6],
				Info: binary.LittleEndian.Uint32(d[8:]), Data: binary.LittleEndian.Uint32(d[12:]), Quoted: n}, nil
		}
	}
	return notify.Record{}, errors.New("error-queue read without a sock_extended_err")
}

// epollCtl runs epoll_ctl with the socket's descriptor as the event's
// data, so that epoll_wait can name the socket.
func (h *host) epollCtl(s *scenario.EpollCtl) string {
	op, _ := kernel.EpollOpNames.ByName(s.Op.Name)
	fd := h.fd(s.Sock)
	ev := unix.EpollEvent{Events: uint32(s.Events.EpollEvents()), Fd: int32(fd)}
	return errRes(unix.EpollCtl(h.epollFD(s.Epoll.Name), op, fd, &ev))
}

// epollFD is the instance's descriptor, -1 if it has none.
func (h *host) epollFD(name string) int {
	if fd, ok := h.epolls[name]; ok {
		return fd
	}
	return -1
}

// epollWait runs epoll_wait, a wait for ever bounded by sndTimeo, and
// renders the events as the model's timeline does: "1 [s EPOLLERR]".
func (h *host) epollWait(s *scenario.EpollWait) string {
	timeout := min(time.Duration(s.Timeout.N), waitLimit)
	if s.Forever() {
		timeout = sndTimeo
	}
	evs := make([]unix.EpollEvent, max(s.Max.Int(), 1))
	if s.Max.Int() < 1 {
		evs = nil
	}
	n, err := unix.EpollWait(h.epollFD(s.Epoll.Name), evs, int(timeout/time.Millisecond))
	if err != nil {
		return errRes(err)
	}
	if n == 0 {
		return "0"
	}
	parts := make([]string, n)
	for i, e := range evs[:n] {
		parts[i] = h.nameOf(int(e.Fd)) + " " + kernel.EpollEvents(e.Events).String()
	}
	return fmt.Sprintf("%d [%s]", n, strings.Join(parts, ", "))
}

// nameOf is the scenario name of a live descriptor.
func (h *host) nameOf(fd int) string {
	for name, hs := range h.socks {
		switch fd {
		case hs.fd:
			return name
		case hs.peer:
			return name + ".peer"
		}
	}
	return fmt.Sprint(fd)
}

// fcntl runs F_GETFL, or F_SETFL of O_NONBLOCK.
func (h *host) fcntl(s *scenario.Fcntl) string {
	fd := h.fd(s.Sock)
	if s.Cmd.Name == "F_GETFL" {
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil {
			return errRes(err)
		}
		return fmt.Sprint(fl)
	}
	fl := 0
	if s.Flags.Has("O_NONBLOCK") {
		fl = unix.O_NONBLOCK
	}
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl)
	return errRes(err)
}

// msgFields decodes what an error-queue read wrote: msg_flags and the
// first control message, which a cut buffer may hold in part.
func msgFields(flags int, oob []byte) map[string]int64 {
	m := map[string]int64{"msg_flags": int64(flags)}
	if len(oob) < unix.SizeofCmsghdr {
		return m
	}
	h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
	m["cmsg_level"], m["cmsg_type"] = int64(h.Level), int64(h.Type)
	if d := oob[unix.SizeofCmsghdr:min(len(oob), int(h.Len))]; len(d) >= 16 {
		m["ee_errno"], m["ee_origin"], m["ee_type"], m["ee_code"] = int64(binary.LittleEndian.Uint32(d)), int64(d[4]), int64(d[5]), int64(d[6])
		m["ee_info"], m["ee_data"] = int64(binary.LittleEndian.Uint32(d[8:])), int64(binary.LittleEndian.Uint32(d[12:]))
	}
	return m
}

// tcpClose is TCP_CLOSE, the tcpi_state of a closed TCP socket.
const tcpClose = 7

// settle waits until no socket has data in flight (SIOCOUTQ: unacked
// TCP bytes, or datagram memory not yet freed; a closed TCP socket has
// none), twice in a row, bounded by settleLimit; loopback completes in
// microseconds, a delayed ACK in about 40ms.
func (h *host) settle() {
	deadline := time.Now().Add(settleLimit)
	quiet := 0
	for quiet < 2 && time.Now().Before(deadline) {
		time.Sleep(settlePoll)
		busy := false
		for _, fd := range h.open {
			// A datagram socket's SIOCOUTQ counts a corked datagram too,
			// which waits for its sender, not for the network; over
			// loopback nothing else of it stays in flight.
			if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || typ != unix.SOCK_STREAM {
				continue
			}
			// A TCP socket a reset or a timeout closed keeps reporting
			// write_seq - snd_una (tcp_ioctl) though tcp_done purged its
			// queue: nothing of it is in flight.
			if info, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO); err == nil && info.State == tcpClose {
				continue
			}
			if n, err := unix.IoctlGetInt(fd, unix.SIOCOUTQ); err == nil && n > 0 {
				busy = true
			}
		}
		if busy {
			quiet = 0
		} else {
			quiet++
		}
	}
}

// pageBuf is a page-aligned buffer, so that page counts (RLIMIT_MEMLOCK)
// match the model's: mm_account_pinned_pages counts (len >> 12) + 2 anyway,
// but the data must be user memory.
// sendBuf is a send's buffer of n bytes on socket s: zeroed pages, the
// first byte an IP header's version and ihl if the socket says so (ihl=).
func (h *host) sendBuf(s scenario.Sock, n int) []byte {
	b := pageBuf(n)
	if hs := h.socks[s.Name]; hs != nil && !s.Peer && hs.ihl != nil && n > 0 {
		b[0] = 4<<4 | *hs.ihl
	}
	return b
}

func pageBuf(n int) []byte {
	sz := (n + 4095) &^ 4095
	if sz == 0 {
		sz = 4096
	}
	b, err := unix.Mmap(-1, 0, sz, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, n)
	}
	return b[:n]
}

// iovSpan is the room an iovec of n bytes takes in its buffer: n, or
// with apart whole pages, at least one.
func iovSpan(n int, apart bool) int {
	if !apart {
		return n
	}
	return max((n+4095)&^4095, 4096)
}

// iovsSize is the size of the buffer iovs lays iovecs of lengths ls over.
func iovsSize(ls []int, apart bool) int {
	size := 0
	for _, l := range ls {
		size += iovSpan(l, apart)
	}
	return size
}

// iovs cuts buf into iovecs of lengths ls, each starting where the last
// one's span ends (iovSpan).
func iovs(buf []byte, ls []int, apart bool) [][]byte {
	out := make([][]byte, len(ls))
	off := 0
	for i, l := range ls {
		out[i] = buf[off : off+l]
		off += iovSpan(l, apart)
	}
	return out
}

// rlimit is a setrlimit limit: a size or RLIM_INFINITY.
func rlimit(v scenario.Value) uint64 {
	if v.Kind == scenario.ValueWord {
		return unix.RLIM_INFINITY
	}
	return v.N
}

// errRes renders a call's error as the scenario language does.
func errRes(err error) string {
	if err == nil {
		return "0"
	}
	var en unix.Errno
	if errors.As(err, &en) {
		return "-1 " + kernel.Errno(en).String()
	}
	return "-1 " + err.Error()
}
