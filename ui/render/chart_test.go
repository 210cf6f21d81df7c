package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"windowlab/sim"
)

// chartAt is the chart over the four limiters' boundary burst at 12:01:00,
// w columns wide, its states read from a second engine at the same place.
func chartAt(t *testing.T, w int) Chart {
	t.Helper()
	sc := fourLimiters()
	c, snap := atCaption(t, sc, "12:01:00", w, 40, autoZoom)
	e, err := sc.EngineWith(sim.Options{History: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.SeekIndex(snap.Processed)
	s := e.StatesAt(snap.Client, ChartInstants(snap.Timeline, snap.Now), 1<<20, nil)
	return Chart{C: c, Snap: snap, States: &s}
}

// TestChartFit: in every height the chart and the timeline take at most
// that many lines, each at most the width: both whole, the chart in the
// timeline's place with its axis, or a line saying what the chart needs;
// never more than ChartMaxRows plotted rows.
func TestChartFit(t *testing.T) {
	for _, w := range []int{80, 140} {
		p := chartAt(t, w)
		full := len(Timeline{C: p.C, Snap: p.Snap}.Render())
		for h := 0; h <= 30; h++ {
			out := p.Fit(h)
			if len(out) > h {
				t.Errorf("%d wide, %d rows: %d lines", w, h, len(out))
			}
			for i, l := range out {
				if n := p.C.Cells.StringWidth(l); n > w {
					t.Errorf("%d wide, %d rows: line %d is %d wide", w, h, i, n)
				}
			}
			text := plain(out)
			switch {
			case h >= full+1+ChartBesideRows:
				if !strings.Contains(text, "timeline") || !strings.Contains(text, "chart client-1") {
					t.Errorf("%d rows: not both:\n%s", h, text)
				}
			case h >= 3+ChartMinRows:
				if strings.Contains(text, "timeline") || !strings.HasPrefix(text, "chart client-1") {
					t.Errorf("%d rows: the chart is not in the timeline's place:\n%s", h, text)
				}
			case h >= 1:
				if !strings.HasPrefix(text, fmt.Sprintf("chart: needs %d rows, has %d", 3+ChartMinRows, h)) {
					t.Errorf("%d rows: no word of what the chart needs:\n%s", h, text)
				}
			}
			if len(out) > full+1+ChartMaxRows {
				t.Errorf("%d rows: %d lines, more than the timeline and the most rows", h, len(out))
			}
		}
	}
}

// TestGoldenChartComponent pins the chart of the four limiters at the
// boundary burst's second burst, in its own place (12 rows) and beside the
// timeline, and what it says when it cannot replay or has no client.
func TestGoldenChartComponent(t *testing.T) {
	for _, w := range []int{80, 140} {
		p := chartAt(t, w)
		t.Run(fmt.Sprintf("%d/alone", w), func(t *testing.T) { golden.RequireEqual(t, plain(p.Fit(12))) })
		t.Run(fmt.Sprintf("%d/beside", w), func(t *testing.T) { golden.RequireEqual(t, plain(p.Fit(30))) })
		t.Run(fmt.Sprintf("%d/too-many", w), func(t *testing.T) {
			q := p
			q.States = &sim.States{At: p.States.At, TooMany: true}
			out := plain(q.Fit(12))
			if !strings.Contains(out, "zoom in (z)") {
				t.Errorf("no word of zooming in:\n%s", out)
			}
			golden.RequireEqual(t, out)
		})
	}
	// Each line's glyph is its own: the legend names ■ ● ◆ ▲ and the limit.
	legend := plain([]string{chartAt(t, 140).legend()})
	for _, g := range []string{"■ fixed", "● log", "◆ counter", "▲ bucket", "┄ limit 100"} {
		if !strings.Contains(legend, g) {
			t.Errorf("the legend lacks %q: %s", g, legend)
		}
	}
}
