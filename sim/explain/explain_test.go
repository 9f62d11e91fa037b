package explain_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
	"github.com/zcsim/zcsim/sim/explain"
	"github.com/zcsim/zcsim/sim/interp"
)

// Every step and every id of every example has a story, and each id's
// story ends: with the read that returned it, or saying why none did.
func TestEveryStepAndIDOfTheExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.zcs"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		tr, err := interp.Run(f, src, interp.Options{Seed: 1})
		require.NoError(t, err, f)
		steps := 0
		for _, r := range tr.Records {
			if r.Event == nil {
				continue
			}
			steps++
			story, err := explain.Step(tr, r.Event.Step)
			require.NoError(t, err, "%s step %d", f, r.Event.Step)
			require.True(t, strings.HasPrefix(story, "Step "), story)
		}
		_, err = explain.Step(tr, uint64(steps+1))
		var e *explain.Error
		require.True(t, errors.As(err, &e), "%s: a step past the end is an explain.Error, got %v", f, err)
		for sock, ids := range explain.IDs(tr) {
			for _, id := range ids {
				story, err := explain.ID(tr, sock, id)
				require.NoError(t, err, "%s id %d on %s", f, id, sock)
				lines := strings.Split(strings.TrimSpace(story), "\n")
				last := lines[len(lines)-1]
				require.True(t, strings.Contains(last, "recvmsg(MSG_ERRQUEUE) returns") ||
					strings.Contains(last, "No error-queue read") || strings.Contains(last, "still holding") ||
					strings.Contains(last, "queues nothing"), "%s id %d: the story ends with its fate:\n%s", f, id, story)
			}
		}
	}
}

// A notification that does not follow the queued record is appended, and
// the story says why; a later one that follows is merged.
func TestIDMergeReasons(t *testing.T) {
	tr, err := interp.Run("gap.zcs", []byte(`device eth0 nic
socket s AF_INET SOCK_STREAM via=eth0
setsockopt s SOL_SOCKET SO_ZEROCOPY 1 => 0
connect s => 0
send s 1000 MSG_ZEROCOPY => 1000
settle
send s 1000 MSG_ZEROCOPY => 1000
settle
recvmsg s MSG_ERRQUEUE => zerocopy [0,1]
`), interp.Options{Seed: 1})
	require.NoError(t, err)
	first, err := explain.ID(tr, "s", 0)
	require.NoError(t, err)
	require.Contains(t, first, "queues it as a new record: the error queue held no record")
	second, err := explain.ID(tr, "s", 1)
	require.NoError(t, err)
	require.Contains(t, second, "merges it into the queued record: its ids follow the queued record's")
	require.Contains(t, second, "recvmsg(MSG_ERRQUEUE) returns [0,1]: from here the program may reuse the buffer of id 1.")
	require.Contains(t, second, "not COPIED")
}

// A step that broke an invariant says which, by name.
func TestStepNamesTheBrokenInvariant(t *testing.T) {
	f := filepath.Join("..", "bugs", "r1-abort-gap.zcs")
	src, err := os.ReadFile(f)
	require.NoError(t, err)
	tr, err := interp.Run("sim/bugs/r1-abort-gap.zcs", src, interp.Options{Seed: 1, Bugs: []kernel.Bug{kernel.BugAbortGap}})
	require.NoError(t, err)
	var step uint64
	for _, r := range tr.Records {
		if r.Violation != nil {
			step = r.Violation.Step
			break
		}
	}
	require.NotZero(t, step, "the bug's scenario breaks an invariant")
	story, err := explain.Step(tr, step)
	require.NoError(t, err)
	require.Contains(t, story, "It broke invariant ids (docs/invariants.md): sock#1: ")
	require.Contains(t, story, "It failed with EPIPE because tcp_sendmsg_locked: EPIPE")
}
