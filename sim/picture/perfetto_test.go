package picture_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
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

// The trace follows the Trace Event Format (the JSON the Perfetto UI and
// chrome://tracing import) for every event of every example: a known
// phase, a name, integer pid and tid (a counter's and a process's
// metadata may have none: they belong to the process), a timestamp (all but metadata), a
// duration for complete events, numbers for counters, an id and a
// category for flow events — and each flow event lies inside a slice of
// its own thread, the slice it binds to (the start to the enclosing one,
// a finish with "bp":"e" too), or the viewer draws no arrow.
func TestPerfettoTraceEventFormat(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.zcs"))
	require.NoError(t, err)
	for _, f := range files {
		got := render(t, perfetto, run(t, filepath.Base(f)))
		var doc struct {
			TraceEvents []map[string]any `json:"traceEvents"`
		}
		require.NoError(t, json.Unmarshal(got, &doc), f)
		require.NotEmpty(t, doc.TraceEvents, f)
		type span struct{ from, to float64 }
		slices := map[float64][]span{}
		for _, e := range doc.TraceEvents {
			if e["ph"] == "X" {
				ts, dur := e["ts"].(float64), e["dur"].(float64)
				slices[e["tid"].(float64)] = append(slices[e["tid"].(float64)], span{ts, ts + dur})
			}
		}
		for i, e := range doc.TraceEvents {
			where := fmt.Sprintf("%s: event %d %v", f, i, e)
			ph, _ := e["ph"].(string)
			require.Contains(t, []string{"M", "X", "i", "C", "s", "t", "f"}, ph, where)
			require.NotEmpty(t, e["name"], where)
			require.True(t, isInt(e["pid"]), "%s: pid", where)
			if tid, ok := e["tid"]; ok || (ph != "M" && ph != "C") { // metadata and counters may be process-wide
				require.True(t, isInt(tid), "%s: tid", where)
			}
			if ph != "M" {
				require.IsType(t, float64(0), e["ts"], where)
				require.GreaterOrEqual(t, e["ts"].(float64), 0.0, where)
			}
			switch ph {
			case "M":
				require.Contains(t, []string{"process_name", "thread_name", "process_sort_index", "thread_sort_index"}, e["name"], where)
				require.IsType(t, map[string]any{}, e["args"], where)
			case "X":
				require.GreaterOrEqual(t, e["dur"].(float64), 0.0, where)
			case "C":
				args := e["args"].(map[string]any)
				require.NotEmpty(t, args, where)
				for k, v := range args {
					require.IsType(t, float64(0), v, "%s: counter %s", where, k)
				}
			case "s", "t", "f":
				require.True(t, isInt(e["id"]), "%s: flow id", where)
				require.NotEmpty(t, e["cat"], where)
				inside := false
				for _, sp := range slices[e["tid"].(float64)] {
					ts := e["ts"].(float64)
					inside = inside || (sp.from <= ts && ts <= sp.to)
				}
				require.True(t, inside, "%s: no slice of its thread encloses the flow event", where)
			}
		}
	}
}

func isInt(v any) bool {
	f, ok := v.(float64)
	return ok && f == float64(int64(f))
}
