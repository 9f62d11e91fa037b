package interp

import "testing"

// A blocking read at the urgent byte skips it and, with nothing else
// queued, sleeps in sk_wait_data until data comes; a blocking peek there
// sleeps too, the byte staying queued. With nothing coming each returns
// EAGAIN, as SO_RCVTIMEO would end it.
func TestUrgentBlockingRead(t *testing.T) {
	requireOK(t, runSrc(t, `
device eth0 nic delay=1ms
socket s AF_INET SOCK_STREAM via=eth0
connect s => 0
send s 5 MSG_OOB => 5
recv s.peer 100 => 4
recv s.peer 100 MSG_PEEK => -1 EAGAIN
send s 3 0 => 3
recv s.peer 100 MSG_PEEK => 3
recv s.peer 100 => 3
recv s.peer 100 MSG_OOB => -1 EINVAL
send s 2 MSG_OOB => 2
recv s.peer 100 => 1
recv s.peer 100 => -1 EAGAIN
`))
}
