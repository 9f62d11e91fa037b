package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/zcsim/zcsim/cost"
)

// SchemaVersion is the version of the JSON Lines output.
const SchemaVersion = 1

// WriteText writes the table: one line per size and variant with its
// system calls, process and system cost in microseconds, and both as a
// percentage of the baseline; then the seed's figures beside the model's,
// where the family has them.
func (r *Result) WriteText(w io.Writer) error {
	f := r.Family
	fmt.Fprintf(w, "# zcsim sweep %s: %s\n", f.Name, f.About)
	fmt.Fprintf(w, "# %d bytes per run; costs calibrated on %s, Linux %s, %s\n", f.Total, r.Calibration.Machine, r.Calibration.Kernel, r.Calibration.Date)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size\tvariant\tsyscalls\tprocess µs\tsystem µs\tprocess %\tsystem %\t")
	for _, row := range r.Rows {
		a := &row.Account
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.1f\t%.0f\t%.0f\t\n", sizeName(row.Size), row.Variant,
			a.Counts.Total(cost.Syscall), a.Process()/1e3, a.System()/1e3, row.ProcessPct, row.SystemPct)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(f.Seeds) == 0 {
		return nil
	}
	fmt.Fprintln(w, "# the seed's figures, % of the baseline:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size\tvariant\tseed process %\tmodel process %\tseed system %\tmodel system %\t")
	for _, ref := range f.Seeds {
		row, ok := r.row(ref.Size, ref.Variant)
		if !ok {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%s\t%.0f\t\n", sizeName(ref.Size), ref.Variant,
			reported(ref.Process), row.ProcessPct, reported(ref.System), row.SystemPct)
	}
	return tw.Flush()
}

func reported(pct float64) string {
	if pct == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", pct)
}

// row is the row of a size and variant.
func (r *Result) row(size int, variant string) (Row, bool) {
	for _, row := range r.Rows {
		if row.Size == size && row.Variant == variant {
			return row, true
		}
	}
	return Row{}, false
}

// sizeName writes a size as the seeds do: 4K, 64K, 1M.
func sizeName(n int) string {
	switch {
	case n >= mib && n%mib == 0:
		return fmt.Sprintf("%dM", n/mib)
	case n >= 1024 && n%1024 == 0:
		return fmt.Sprintf("%dK", n/1024)
	}
	return fmt.Sprint(n)
}

// configJSON is the first record of the JSON output.
type configJSON struct {
	Schema   int      `json:"schema"`
	Family   string   `json:"family"`
	About    string   `json:"about"`
	Variants []string `json:"variants"`
	Total    int      `json:"total_bytes"`
	Every    int      `json:"every"`
	Machine  string   `json:"machine"`
	Kernel   string   `json:"kernel"`
	Date     string   `json:"date"`
	// Nanos are the constants the rows were priced with.
	Nanos map[string]float64 `json:"ns"`
}

// rowJSON is one row: the point, the counts and costs of each term.
type rowJSON struct {
	Size       int                `json:"size"`
	Variant    string             `json:"variant"`
	Sends      int                `json:"sends"`
	ProcessNs  float64            `json:"process_ns"`
	SystemNs   float64            `json:"system_ns"`
	ProcessPct float64            `json:"process_pct"`
	SystemPct  float64            `json:"system_pct"`
	Process    map[string]termRow `json:"process"`
	Softirq    map[string]termRow `json:"softirq"`
}

// termRow is one term of one context: its count and its cost.
type termRow struct {
	Count int64   `json:"count"`
	Ns    float64 `json:"ns"`
}

// seedJSON is one of the seed's figures beside the model's.
type seedJSON struct {
	Size         int      `json:"size"`
	Variant      string   `json:"variant"`
	SeedProcess  *float64 `json:"seed_process_pct,omitempty"`
	ModelProcess float64  `json:"model_process_pct"`
	SeedSystem   *float64 `json:"seed_system_pct,omitempty"`
	ModelSystem  float64  `json:"model_system_pct"`
}

// WriteJSON writes JSON Lines: a "config" record, a "row" per size and
// variant, a "seed" per figure of the seed's, and a "summary".
func (r *Result) WriteJSON(w io.Writer) error {
	f := r.Family
	enc := json.NewEncoder(w)
	put := func(kind string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return enc.Encode(json.RawMessage(`{"kind":"` + kind + `",` + string(b[1:])))
	}
	if err := put("config", configJSON{Schema: SchemaVersion, Family: f.Name, About: f.About, Variants: f.Variants,
		Total: f.Total, Every: f.Every, Machine: r.Calibration.Machine, Kernel: r.Calibration.Kernel,
		Date: r.Calibration.Date, Nanos: r.Calibration.Nanos}); err != nil {
		return err
	}
	for _, row := range r.Rows {
		a := &row.Account
		if err := put("row", rowJSON{Size: row.Size, Variant: row.Variant, Sends: row.Count,
			ProcessNs: round(a.Process()), SystemNs: round(a.System()),
			ProcessPct: round(row.ProcessPct), SystemPct: round(row.SystemPct),
			Process: terms(a, cost.Process), Softirq: terms(a, cost.Softirq)}); err != nil {
			return err
		}
	}
	for _, ref := range f.Seeds {
		row, ok := r.row(ref.Size, ref.Variant)
		if !ok {
			continue
		}
		if err := put("seed", seedJSON{Size: ref.Size, Variant: ref.Variant, SeedProcess: given(ref.Process),
			ModelProcess: round(row.ProcessPct), SeedSystem: given(ref.System), ModelSystem: round(row.SystemPct)}); err != nil {
			return err
		}
	}
	return put("summary", struct {
		Rows int `json:"rows"`
	}{len(r.Rows)})
}

func given(pct float64) *float64 {
	if pct == 0 {
		return nil
	}
	return &pct
}

func terms(a *cost.Account, c cost.Context) map[string]termRow {
	m := map[string]termRow{}
	for t := range cost.NumTerms {
		if n := a.Counts.Of(c, t); n != 0 {
			m[t.String()] = termRow{Count: n, Ns: round(a.Nanos[c][t])}
		}
	}
	return m
}

// round keeps two decimals, so that output does not depend on the last
// bits of a float sum.
func round(x float64) float64 { return math.Round(x*100) / 100 }

// Plot geometry, in SVG user units.
const (
	plotW, plotH         = 640, 400
	left, right, top, bo = 60, 170, 40, 50
)

// WriteSVG draws each variant's process and system cost as a percentage
// of the baseline's against the send size (log scale), solid for
// process and dashed for system, with the seed's figures as circles
// (filled: process, open: system).
func (r *Result) WriteSVG(w io.Writer) error {
	f := r.Family
	sizes := r.sizes()
	if len(sizes) == 0 {
		return fmt.Errorf("sweep: nothing to plot")
	}
	ymax := 100.0
	for _, row := range r.Rows {
		ymax = math.Max(ymax, math.Max(row.ProcessPct, row.SystemPct))
	}
	for _, ref := range f.Seeds {
		ymax = math.Max(ymax, math.Max(ref.Process, ref.System))
	}
	ymax = math.Ceil(ymax/25) * 25
	lo, hi := math.Log2(float64(sizes[0])), math.Log2(float64(sizes[len(sizes)-1]))
	if hi == lo {
		hi = lo + 1
	}
	x := func(size int) float64 {
		return left + (math.Log2(float64(size))-lo)/(hi-lo)*(plotW-left-right)
	}
	y := func(pct float64) float64 { return plotH - bo - pct/ymax*(plotH-top-bo) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", plotW, plotH, plotW, plotH)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", plotW, plotH)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14">%s: cost as %% of %s</text>`+"\n", left, esc(f.Name), esc(f.Variants[0]))
	for pct := 0.0; pct <= ymax; pct += 25 {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%.0f%%</text>`+"\n",
			left, y(pct), plotW-right, y(pct), left-6, y(pct)+4, pct)
	}
	for _, s := range sizes {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(s), plotH-bo+18, sizeName(s))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">send size</text>`+"\n", (plotW-right+left)/2, plotH-12)
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd"}
	legend := top
	for v, name := range f.Variants[1:] {
		c := colors[v%len(colors)]
		for i, dash := range []string{"", ` stroke-dasharray="6 4"`} {
			var pts []string
			for _, s := range sizes {
				if row, ok := r.row(s, name); ok {
					pct := row.ProcessPct
					if i == 1 {
						pct = row.SystemPct
					}
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(s), y(pct)))
				}
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", c, dash, strings.Join(pts, " "))
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><text x="%d" y="%d">%s %s</text>`+"\n",
				plotW-right+10, legend, plotW-right+30, legend, c, dash, plotW-right+35, legend+4, esc(name), []string{"process", "system"}[i])
			legend += 18
		}
		for _, ref := range f.Seeds {
			if ref.Variant != name {
				continue
			}
			if ref.Process != 0 {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>`+"\n", x(ref.Size), y(ref.Process), c)
			}
			if ref.System != 0 {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="white" stroke="%s" stroke-width="2"/>`+"\n", x(ref.Size), y(ref.System), c)
			}
		}
	}
	if len(f.Seeds) > 0 {
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="4" fill="#444"/><text x="%d" y="%d">seed, process</text>`+"\n", plotW-right+20, legend, plotW-right+35, legend+4)
		legend += 18
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="4" fill="white" stroke="#444" stroke-width="2"/><text x="%d" y="%d">seed, system</text>`+"\n", plotW-right+20, legend, plotW-right+35, legend+4)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// sizes are the sizes of the rows, ascending as Run made them.
func (r *Result) sizes() []int {
	var out []int
	for _, row := range r.Rows {
		if len(out) == 0 || out[len(out)-1] != row.Size {
			out = append(out, row.Size)
		}
	}
	return out
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
