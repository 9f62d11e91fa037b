package interp

import "testing"

// nicEpoll is a zerocopy send over a NIC whose completion comes 2ms
// later, its socket watched by an epoll instance, edge-triggered.
const nicEpoll = `
device eth0 nic delay=1ms
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
epoll_create ep => 4
epoll_ctl ep EPOLL_CTL_ADD s EPOLLIN|EPOLLET => 0
send s 1000 MSG_ZEROCOPY => 1000
`

// epoll_wait over a NIC: a wait with a timeout lets the network run until
// the completion's wakeup, a wait for ever too, and one that nothing can
// end blocks forever; a closed socket leaves the instance.
func TestEpollWaits(t *testing.T) {
	tr := runSrc(t, nicEpoll+`epoll_wait ep 8 => 0
epoll_wait ep 8 1ms => 0
epoll_wait ep 8 10ms => 1 [s EPOLLERR]
send s 1000 MSG_ZEROCOPY => 1000
epoll_wait ep 8 -1 => 1 [s EPOLLERR]
epoll_wait ep 8 -1 => 0
close s => 0
epoll_ctl ep EPOLL_CTL_DEL s => -1 EBADF
epoll_wait ep 1 => 0
close ep => 0
close ep => -1 EBADF
`)
	requireMismatches(t, tr, "test.zcs:13: the call to return | it blocks forever: nothing left in the network will wake it")
}

// Readiness from data: a datagram wakes a reader, a TCP peer's FIN
// wakes with EPOLLIN|EPOLLRDHUP, and maxevents bounds what one wait
// returns, the rest left for the next.
func TestEpollData(t *testing.T) {
	tr := runSrc(t, `
socket u AF_INET SOCK_DGRAM
socket s AF_INET SOCK_STREAM
connect s => 0
connect u => 0
epoll_create ep => 5
epoll_ctl ep EPOLL_CTL_ADD u.peer EPOLLIN|EPOLLET => 0
epoll_ctl ep EPOLL_CTL_ADD s EPOLLIN|EPOLLRDHUP|EPOLLET => 0
send u 10 0 => 10
close s.peer => 0
epoll_wait ep 1 => 1 [u.peer EPOLLIN]
epoll_wait ep 1 => 1 [s EPOLLIN|EPOLLRDHUP]
epoll_wait ep 1 => 0
`)
	requireOK(t, tr)
}

// epoll_wait's timeout is whole milliseconds: a shorter one does not
// wait, so five of 900µs leave the completion, 2ms away, for the next
// wait.
func TestEpollWaitMilliseconds(t *testing.T) {
	tr := runSrc(t, nicEpoll+`repeat 5 { epoll_wait ep 8 900us => 0 }
epoll_wait ep 8 10ms => 1 [s EPOLLERR]
`)
	requireOK(t, tr)
}
