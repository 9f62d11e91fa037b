//go:build linux

package probe

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zcsim/zcsim/sim/scenario"
)

// limits bound a live run beyond its sockets' own SO_SNDTIMEO and
// SO_RCVTIMEO (sndTimeo): the longest one statement may take before the
// watchdog wakes it, the longest the statements may take together, and
// how long an unprivileged child may live before it is killed.
type limits struct {
	call, run, kill time.Duration
}

// runLimits are the bounds of every live run: a call gets five times
// the sockets' timeout, longer than any wait of the run's own (a wait
// statement 2s, a settle 500ms); the statements 30s together, which
// the calibration files stay well within; the child the sum and 5s
// more.
var runLimits = limits{call: 5 * sndTimeo, run: 30 * time.Second, kill: 40 * time.Second}

// bounded records the socket fd as the run's and sets its SO_SNDTIMEO
// and SO_RCVTIMEO to sndTimeo, so that a connect or send
// (sock_sndtimeo) and an accept (sock_rcvtimeo) that would wait for
// ever return.
func (h *host) bounded(fd int) int {
	tv := unix.NsecToTimeval(int64(sndTimeo))
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	return h.track(fd)
}

// guarded runs st with the watchdog armed: if it has not returned after
// h.lim.call, every socket of the run is shut down (SHUT_RDWR ends a
// wait in connect, accept, send or recv: inet_shutdown wakes the
// socket) and woken is true; the run then ends there. took is how long
// the statement ran.
func (h *host) guarded(st scenario.Stmt) (res string, isCall bool, took time.Duration, woken bool) {
	t := time.AfterFunc(h.lim.call, h.wake)
	start := time.Now()
	res, isCall = h.exec(st)
	took = time.Since(start)
	t.Stop()
	h.mu.Lock()
	defer h.mu.Unlock()
	return res, isCall, took, h.woken
}

// wake is the watchdog: it shuts down every socket of the run.
func (h *host) wake() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.woken = true
	for _, fd := range h.open {
		unix.Shutdown(fd, unix.SHUT_RDWR)
	}
}

// socketBound says why a call's answer is the live run's and not the
// kernel's alone, or "": a connect, accept or send that took the
// sockets' timeout waited for something and was ended by SO_SNDTIMEO
// or SO_RCVTIMEO (EINPROGRESS, EAGAIN, a partial count), where the model
// waits on.
func socketBound(st scenario.Stmt, took time.Duration) string {
	if took < sndTimeo {
		return ""
	}
	switch st.(type) {
	case *scenario.Connect, *scenario.Accept, *scenario.Send, *scenario.Sendto, *scenario.Sendmsg, *scenario.Sendmmsg:
		return fmt.Sprintf("the call waited %v: the live run's %v SO_SNDTIMEO and SO_RCVTIMEO ended it, where the model waits on", took.Round(time.Millisecond), sndTimeo)
	}
	return ""
}

// timeoutObs is the observation of a statement the run's bounds ended
// the run at: its result is "timeout", and why says which bound.
func timeoutObs(st scenario.Stmt, why string) Obs {
	return Obs{Line: st.Pos().Line, Stmt: scenario.FormatCall(st), Result: "timeout", Cut: why, Timeout: true}
}
