package picture_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/picture"
)

func perfetto(b *bytes.Buffer, tr *sim.Trace) error { return picture.WritePerfetto(b, tr) }

type traceEvent struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   int64          `json:"ts"`
	Tid  int            `json:"tid"`
	ID   int            `json:"id"`
	Args map[string]any `json:"args"`
}

// The trace of a loopback copy is golden; it is a Chrome trace whose
// tracks are all named, whose flows each start at a send and finish at a
// notification, and whose uarg counter rises and falls back to 0.
func TestPerfetto(t *testing.T) {
	got := render(t, perfetto, run(t, "tcp-loopback.zcs"))
	require.Equal(t, got, render(t, perfetto, run(t, "tcp-loopback.zcs")), "deterministic")
	golden(t, "tcp-loopback.perfetto.json", got)

	var doc struct {
		TraceEvents []traceEvent `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(got, &doc))
	named := map[int]string{}
	starts, finishes := map[int]int64{}, map[int]int64{}
	var refcnt []float64
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				named[e.Tid] = e.Args["name"].(string)
			}
		case "s":
			starts[e.ID] = e.Ts
		case "f":
			finishes[e.ID] = e.Ts
		case "C":
			if e.Name == "refcnt uarg#28" {
				refcnt = append(refcnt, e.Args["refcnt"].(float64))
			}
		}
	}
	for _, e := range doc.TraceEvents {
		if e.Tid != 0 {
			require.NotEmpty(t, named[e.Tid], "track %d of %q is named", e.Tid, e.Name)
		}
	}
	require.Len(t, starts, 2, "two sends got an id")
	for id, ts := range starts {
		require.GreaterOrEqual(t, finishes[id], ts, "flow %d ends at the notification, at or after the send", id)
	}
	require.Equal(t, float64(1), refcnt[0], "msg_zerocopy_alloc: one reference")
	require.Equal(t, float64(0), refcnt[len(refcnt)-1], "the last put")
	require.Contains(t, named, 1)
	require.Equal(t, "sock#1", named[1], "sockets first")
}
