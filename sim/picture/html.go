package picture

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/zcsim/zcsim/sim"
)

// Geometry of the lane diagram, in pixels.
const (
	colW   = 26  // one step
	rowH   = 30  // one lane
	labelW = 150 // the lane names
	headH  = 28  // the step numbers
)

// WriteHTML writes the run as one self-contained HTML page (no network,
// no external script or style): a diagram with a lane per object —
// sockets, their error queues, uargs, skbs, shared infos, pages — and a
// column per step, where each lane shows the object's life, a dot for
// each step that touched it (its history entries on hover) with the
// refcount it left, and a line of the refcount rising and falling; arrows
// join each send that got an id to the notification that reported it.
// Beside it, the list of steps. Hovering or clicking a step, in the list
// or on the diagram, highlights what it touched and shows the step's
// explanation (zcsim explain --step).
func WriteHTML(w io.Writer, tr *sim.Trace) error {
	m := build(tr)
	page, err := htmlPage(m)
	if err != nil {
		return err
	}
	return pageTmpl.Execute(w, page)
}

// htmlData is what the page template reads.
type htmlData struct {
	Title   string
	ColW    int
	Width   int
	Height  int
	Lanes   []htmlLane
	Cols    []htmlCol
	Flows   []htmlFlow
	Steps   []step
	Stories template.JS
}

type htmlLane struct {
	Index      int
	Name, Kind string
	Y, MidY    int
	BarX, BarW int
	Line       string // SVG points of the refcount line, "" for none
	Dots       []htmlDot
}

type htmlDot struct {
	Step  uint64
	X, Y  int
	Label string // the count, "" for none
	Title string
}

type htmlCol struct {
	Step uint64
	X    int
}

type htmlFlow struct {
	Path, Title string
	Send        uint64
}

// htmlCols places the steps' columns.
type htmlCols struct{ index map[uint64]int }

// x is the centre of step n's column.
func (c *htmlCols) x(n uint64) int { return labelW + c.index[n]*colW + colW/2 }

func htmlPage(m *model) (*htmlData, error) {
	cols := &htmlCols{index: map[uint64]int{}}
	d := &htmlData{Title: fmt.Sprintf("zcsim %s (profile %s, seed %d)", m.File, m.Profile, m.Seed), Steps: m.Steps, ColW: colW}
	for i, st := range m.Steps {
		cols.index[st.N] = i
		d.Cols = append(d.Cols, htmlCol{Step: st.N, X: labelW + i*colW})
	}
	d.Width = labelW + len(m.Steps)*colW + colW
	d.Height = headH + len(m.Lanes)*rowH + rowH/2
	last := uint64(0)
	if n := len(m.Steps); n > 0 {
		last = m.Steps[n-1].N
	}
	laneY := map[string]int{}
	for i, l := range m.Lanes {
		y := headH + i*rowH
		laneY[l.Name] = y + rowH/2
		end := l.Freed
		if end == 0 {
			end = last
		}
		hl := htmlLane{Index: i, Name: l.Name, Kind: kindName[l.Kind], Y: y, MidY: y + rowH/2,
			BarX: cols.x(l.Born) - colW/2, BarW: cols.x(end) - cols.x(l.Born) + colW}
		hl.Line = valueLine(cols, l, y)
		for _, mk := range l.Marks {
			// One dot per step: its title lists what happened, its label
			// is the count the step left.
			if n := len(hl.Dots); n > 0 && hl.Dots[n-1].Step == mk.Step {
				hl.Dots[n-1].Title += "\n" + mk.Text
			} else {
				hl.Dots = append(hl.Dots, htmlDot{Step: mk.Step, X: cols.x(mk.Step), Y: y + rowH/2,
					Title: fmt.Sprintf("%s, step %d:\n%s", l.Name, mk.Step, mk.Text)})
			}
			if mk.HasValue {
				hl.Dots[len(hl.Dots)-1].Label = fmt.Sprint(mk.Value)
			}
		}
		d.Lanes = append(d.Lanes, hl)
	}
	for _, f := range m.Flows {
		x1, y1 := cols.x(f.Send), laneY[f.From]
		x2, y2 := cols.x(f.Notify), laneY[f.To]
		d.Flows = append(d.Flows, htmlFlow{Send: f.Send,
			Path:  fmt.Sprintf("M%d %d C%d %d %d %d %d %d", x1, y1, x1+colW, y1-rowH, x2-colW, y2-rowH, x2, y2),
			Title: fmt.Sprintf("id %d on %s: sent at step %d, notified at step %d", f.ID, f.Socket, f.Send, f.Notify)})
	}
	type story struct {
		Text    string   `json:"text"`
		Story   string   `json:"story"`
		Touched []int    `json:"touched"`
		Broke   []string `json:"broke,omitempty"`
	}
	stories := map[string]story{}
	for _, st := range m.Steps {
		stories[fmt.Sprint(st.N)] = story{Text: st.Text, Story: st.Story, Touched: st.Touched, Broke: st.Violations}
	}
	js, err := json.Marshal(stories)
	if err != nil {
		return nil, err
	}
	// The JSON sits in a script element; json.Marshal escapes "<", so no
	// "</script>" can end it early.
	d.Stories = template.JS(js)
	return d, nil
}

// valueLine draws a lane's counts as a step line within its row, scaled
// to the largest count, or "" for a lane without counts.
func valueLine(cols *htmlCols, l *lane, y int) string {
	var max int64
	for _, mk := range l.Marks {
		if mk.HasValue && mk.Value > max {
			max = mk.Value
		}
	}
	if max == 0 {
		return ""
	}
	var b strings.Builder
	prev := ""
	for _, mk := range l.Marks {
		if !mk.HasValue {
			continue
		}
		x := cols.x(mk.Step)
		vy := y + rowH - 4 - int(mk.Value*int64(rowH-8)/max)
		if prev != "" {
			fmt.Fprintf(&b, " %d,%s", x, prev)
		}
		fmt.Fprintf(&b, " %d,%d", x, vy)
		prev = fmt.Sprint(vy)
	}
	return strings.TrimSpace(b.String())
}

var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 0; display: flex; height: 100vh; color: #222; }
#diagram { flex: 1; overflow: auto; border-right: 1px solid #ccc; }
#side { width: 38em; display: flex; flex-direction: column; }
#side h1 { font-size: 14px; margin: 8px; }
#steps { flex: 1; overflow: auto; margin: 0; padding: 0 8px; list-style: none; font-family: ui-monospace, monospace; font-size: 12px; }
#steps li { padding: 2px 4px; cursor: pointer; border-radius: 3px; }
#steps li.hl { background: #ffe08a; }
#story { height: 40%; overflow: auto; margin: 0; padding: 8px; border-top: 1px solid #ccc; background: #fafafa; white-space: pre-wrap; font-size: 12px; }
svg text { font-size: 11px; }
.lanename { font-family: ui-monospace, monospace; }
.lanename.hl { font-weight: bold; fill: #b00; }
.col { fill: transparent; cursor: pointer; }
.col.hl { fill: #fff3c4; }
.bar { opacity: .35; }
.bar.socket { fill: #4a7; } .bar.errqueue { fill: #a6c; } .bar.uarg { fill: #e84; } .bar.skb { fill: #48c; } .bar.shinfo { fill: #8ac; } .bar.pages { fill: #999; }
.line { fill: none; stroke: #333; stroke-width: 1.2; }
.dot { fill: #fff; stroke: #333; cursor: pointer; }
.dot.hl { fill: #ffd23f; stroke: #b00; stroke-width: 2; }
.count { text-anchor: middle; font-size: 9px; pointer-events: none; }
.flow { fill: none; stroke: #b00; stroke-width: 1.5; opacity: .6; }
.flow.hl { opacity: 1; stroke-width: 3; }
.stepno { text-anchor: middle; font-size: 9px; fill: #666; }
</style>
</head>
<body>
<div id="diagram">
<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0 0L10 5L0 10z" fill="#b00"/></marker></defs>
{{range .Cols}}<rect class="col" data-step="{{.Step}}" x="{{.X}}" y="0" width="{{$.ColW}}" height="{{$.Height}}"/><text class="stepno" x="{{.X}}" dx="13" y="16">{{.Step}}</text>
{{end}}{{range .Lanes}}<g class="lane">
<text id="lane-{{.Index}}" class="lanename" x="4" y="{{.MidY}}" dy="4">{{.Name}}</text>
<rect class="bar {{.Kind}}" x="{{.BarX}}" y="{{.Y}}" width="{{.BarW}}" height="26" rx="4"/>
{{if .Line}}<polyline class="line" points="{{.Line}}"/>
{{end}}{{range .Dots}}<circle class="dot" data-step="{{.Step}}" cx="{{.X}}" cy="{{.Y}}" r="7"><title>{{.Title}}</title></circle>{{if .Label}}<text class="count" x="{{.X}}" y="{{.Y}}" dy="3">{{.Label}}</text>{{end}}
{{end}}</g>
{{end}}{{range .Flows}}<path class="flow" data-step="{{.Send}}" d="{{.Path}}" marker-end="url(#arrow)"><title>{{.Title}}</title></path>
{{end}}</svg>
</div>
<div id="side">
<h1>{{.Title}}</h1>
<ol id="steps">
{{range .Steps}}<li data-step="{{.N}}">step {{.N}}: {{.Text}}</li>
{{end}}</ol>
<pre id="story">Hover over or click a step to see what it touched and why.</pre>
</div>
<script id="stories" type="application/json">{{.Stories}}</script>
<script>
(function () {
  var stories = JSON.parse(document.getElementById("stories").textContent);
  var lit = [];
  function show(step) {
    lit.forEach(function (e) { e.classList.remove("hl"); });
    lit = Array.prototype.slice.call(document.querySelectorAll('[data-step="' + step + '"]'));
    var s = stories[step];
    if (s) {
      s.touched.forEach(function (i) { var l = document.getElementById("lane-" + i); if (l) { lit.push(l); } });
      var text = s.story || ("step " + step + ": " + s.text);
      if (s.broke) { text += "\n" + s.broke.join("\n"); }
      document.getElementById("story").textContent = text;
    }
    lit.forEach(function (e) { e.classList.add("hl"); });
  }
  document.addEventListener("mouseover", function (ev) {
    var t = ev.target.closest ? ev.target.closest("[data-step]") : null;
    if (t) { show(t.getAttribute("data-step")); }
  });
  document.addEventListener("click", function (ev) {
    var t = ev.target.closest ? ev.target.closest("[data-step]") : null;
    if (t) { show(t.getAttribute("data-step")); }
  });
})();
</script>
</body>
</html>
`))
