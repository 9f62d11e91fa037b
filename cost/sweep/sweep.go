// Package sweep runs a family of scenarios across send sizes and prices
// every run with the cost model (package cost): the table and the plot of
// `zcsim sweep`.
//
// # Families
//
// A family is a scenario template (Go text/template) and its variants.
// The template sees, for each size and variant, a Point:
//
//	{{.Size}}     the size of one send, in bytes
//	{{.Count}}    how many sends move the family's total bytes: Total / Size, at least 1
//	{{.Every}}    how many sends the program makes between collecting notifications
//	{{.Variant}}  the variant's name
//	{{.ZC}}       true in every variant but the first (the baseline)
//	{{.Flags}}    "MSG_ZEROCOPY" where ZC, else "0"
//
// and the functions div, mod and sub of two integers ({{div .Count .Every}}).
//
// Each expanded scenario runs with interp.Run (its expectations and
// invariants hold, or the sweep fails), streams through a cost.Meter,
// and is priced with the calibrated constants. Every variant's process
// and system cost is also given as a percentage of the baseline's at
// the same size (seed 000's "%" columns).
//
// The built-in families (Families) are the three comparisons of the
// seeds: netperf over a NIC (seed 000), loopback with and without the
// RFC's receive switch (seed 004), and error-queue reads against
// SCM_ZC_NOTIFICATION (seed 003). A user's template (Parse) has the two
// variants copy and zerocopy.
//
// # Output
//
// A Result renders as a text table (WriteText), JSON Lines (WriteJSON:
// a config record, one "row" record per size and variant, a summary) and
// an SVG plot of the percentages (WriteSVG). All three are deterministic
// functions of the family, the sizes and the constants.
package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/zcsim/zcsim/cost"
	"github.com/zcsim/zcsim/sim"
	"github.com/zcsim/zcsim/sim/interp"
	"github.com/zcsim/zcsim/sim/scenario"
)

// Point is what the template sees for one run.
type Point struct {
	Size, Count, Every int
	Variant            string
	ZC                 bool
	Flags              string
}

// Reference is a figure a seed reported: a variant's cost as a
// percentage of the baseline's at one size.
type Reference struct {
	Variant string
	Size    int
	// Process and System are percentages; 0 is "not reported".
	Process, System float64
}

// Family is a scenario template and its variants.
type Family struct {
	Name  string
	About string
	// Variants are the variants' names, the baseline first.
	Variants []string
	// Sizes are the send sizes swept unless the caller gives others.
	Sizes []int
	// Total is the bytes each run moves (Point.Count).
	Total int
	// Every is Point.Every: sends between two collections of
	// notifications.
	Every int
	// Seeds are the figures the family reproduces, if any.
	Seeds []Reference
	// file names the template in errors.
	file string
	tmpl *template.Template
}

// Error is a template that cannot be parsed or expanded, at file:line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// templateLine finds "NAME:LINE:" in a text/template error.
var templateLine = regexp.MustCompile(`^template: [^:]*:(\d+):(?:\d+:)? ?(.*)$`)

// templateError turns a text/template error into an Error at its line.
func templateError(file string, err error) error {
	msg := err.Error()
	if m := templateLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: line, Msg: strings.TrimSpace(m[2])}
	}
	return &Error{File: file, Line: 1, Msg: msg}
}

// Parse makes a family of a user's template, whose variants are copy
// (the baseline) and zerocopy, moving total bytes per run and collecting
// notifications every every sends.
func Parse(file string, src []byte, total, every int) (*Family, error) {
	f := &Family{Name: file, About: "a scenario template", Variants: []string{"copy", "zerocopy"},
		Sizes: DefaultSizes(), Total: total, Every: every}
	return f, f.parse(file, string(src))
}

var funcs = template.FuncMap{
	"div": func(a, b int) int { return a / b },
	"mod": func(a, b int) int { return a % b },
	"sub": func(a, b int) int { return a - b },
}

func (f *Family) parse(file, src string) error {
	if f.Total <= 0 || f.Every <= 0 {
		return fmt.Errorf("sweep: total %d and every %d, want both at least 1", f.Total, f.Every)
	}
	t, err := template.New(file).Option("missingkey=error").Funcs(funcs).Parse(src)
	if err != nil {
		return templateError(file, err)
	}
	f.file, f.tmpl = file, t
	return nil
}

// DefaultSizes are seed 000's write sizes: 4 KB to 1 MB.
func DefaultSizes() []int { return []int{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20} }

// Expand is the scenario of one point.
func (f *Family) Expand(p Point) ([]byte, error) {
	var b bytes.Buffer
	if err := f.tmpl.Execute(&b, p); err != nil {
		return nil, templateError(f.file, err)
	}
	return b.Bytes(), nil
}

// point is the Point of size and variant v (an index of Variants).
func (f *Family) point(size, v int) Point {
	p := Point{Size: size, Count: max(f.Total/size, 1), Every: f.Every, Variant: f.Variants[v], ZC: v > 0, Flags: "0"}
	if p.ZC {
		p.Flags = "MSG_ZEROCOPY"
	}
	return p
}

// Row is one run's account.
type Row struct {
	Point
	Account cost.Account
	// ProcessPct and SystemPct are the account's process and system
	// cost as a percentage of the baseline's at the same size.
	ProcessPct, SystemPct float64
}

// Result is a sweep: the family, the constants it was priced with and
// a row per size and variant, sizes ascending, variants in order.
type Result struct {
	Family      *Family
	Calibration *cost.Calibration
	Rows        []Row
}

// ErrRun is a scenario of the family that did not run clean: an input
// error, or a run with a violation or an unmet expectation.
var ErrRun = errors.New("sweep")

// Run sweeps the family over sizes, pricing with k from calibration c.
func Run(f *Family, sizes []int, c *cost.Calibration, k cost.Constants) (*Result, error) {
	res := &Result{Family: f, Calibration: c}
	for _, size := range sizes {
		if size <= 0 {
			return nil, fmt.Errorf("sweep: size %d, want at least 1 byte", size)
		}
		var base cost.Account
		for v := range f.Variants {
			p := f.point(size, v)
			src, err := f.Expand(p)
			if err != nil {
				return nil, err
			}
			var m meter
			name := fmt.Sprintf("%s[size=%d variant=%s]", f.file, size, p.Variant)
			tr, err := interp.Run(name, src, interp.Options{Seed: 1, Sink: &m})
			var list scenario.ErrorList
			switch {
			case errors.As(err, &list):
				return nil, err
			case err != nil:
				return nil, fmt.Errorf("%s: %w", name, err)
			case !tr.OK():
				return nil, fmt.Errorf("%w: %s did not run clean: %s", ErrRun, name, m.bad)
			}
			a := cost.Price(m.Counts(), &k)
			if v == 0 {
				base = a
			}
			res.Rows = append(res.Rows, Row{Point: p, Account: a,
				ProcessPct: pct(a.Process(), base.Process()), SystemPct: pct(a.System(), base.System())})
		}
	}
	return res, nil
}

// meter is a cost.Meter that keeps the first thing that went wrong.
type meter struct {
	cost.Meter
	bad string
}

func (m *meter) Put(r *sim.Record) error {
	if m.bad == "" {
		switch {
		case r.Violation != nil:
			m.bad = fmt.Sprintf("step %d: invariant %s: %s", r.Violation.Step, r.Violation.Rule, r.Violation.Message)
		case r.Mismatch != nil:
			m.bad = fmt.Sprintf("%s: expected %s, got %s", r.Mismatch.Source, r.Mismatch.Expected, r.Mismatch.Got)
		}
	}
	return m.Meter.Put(r)
}

func pct(x, base float64) float64 {
	if base == 0 {
		return 0
	}
	return 100 * x / base
}
