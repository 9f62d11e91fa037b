package main

import (
	"io"

	"github.com/zcsim/zcsim/sim"
)

// header is the config record that opens the JSON Lines of the listing
// commands (bugs, profiles): the schema version, shared with run's
// traces, and the command that produced the records.
type header struct {
	Schema  int    `json:"schema"`
	Command string `json:"command"`
	Seed    uint64 `json:"seed,omitempty"`
	A       string `json:"a,omitempty"`
	B       string `json:"b,omitempty"`
}

// jsonWriter writes records as JSON Lines in the shape every zcsim report
// shares (sim.WriteJSONLine), stopping at the first error.
type jsonWriter struct {
	w   io.Writer
	err error
}

// config writes the header record.
func (j *jsonWriter) config(h header) {
	h.Schema = sim.SchemaVersion
	j.record("config", h)
}

// record writes one record of the kind.
func (j *jsonWriter) record(kind string, v any) {
	if j.err == nil {
		j.err = sim.WriteJSONLine(j.w, kind, v)
	}
}
