package ui

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"windowlab/algo"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/ui/render"
)

// chartMoments are where the chart's goldens stand: the boundary burst
// half a minute after it (the counter's estimate fallen to 50, the log's
// true count still 100), the worked example's request, the steady stream.
var chartMoments = map[string]string{"boundary-burst": "12:01:30", "worked-example": "12:01:15", "steady-stream": "12:01:30",
	"segmented-window": "12:01:50"}

// chartModel is sc at its chart moment with the chart on (v), on a dark or
// light background.
func chartModel(t *testing.T, name string, w, h int, light bool) Model {
	t.Helper()
	sc, err := scenarios.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	bg := color.Color(color.Black)
	if light {
		bg = color.White
	}
	m := update(t, newModel(t, sc, w, h), tea.BackgroundColorMsg{Color: bg})
	m = update(t, m, goTo(chartMoments[name])...)
	return update(t, m, press("v")...)
}

// TestGoldenChart pins the chart at 80×24 and 140×40: read without colour
// (NO_COLOR: the screen's text alone) for four built-ins, and with its
// colours on a dark and a light background for three (the segmented
// window's lane, its strip of segments and its line among them). Every frame keeps each
// lane's verdict whole and names every line and the limit in its legend.
func TestGoldenChart(t *testing.T) {
	for _, name := range []string{"boundary-burst", "worked-example", "steady-stream", "segmented-window"} {
		for _, sz := range sizes {
			for _, bg := range []string{"nocolor", "dark", "light"} {
				if bg != "nocolor" && name == "steady-stream" {
					continue
				}
				t.Run(fmt.Sprintf("%s/%dx%d/%s", name, sz[0], sz[1], bg), func(t *testing.T) {
					m := chartModel(t, name, sz[0], sz[1], bg == "light")
					out := screen(m)
					checkFrame(t, out, sz[0], sz[1])
					var legend string
					for _, l := range strings.Split(out, "\n") {
						if strings.HasPrefix(l, "chart ") {
							legend = l
						}
					}
					if legend == "" {
						t.Fatalf("no chart on screen:\n%s", out)
					}
					for _, a := range m.snap.Algorithms {
						if !strings.Contains(legend, render.ShortName(a)) {
							t.Errorf("the legend does not name %s: %q", render.ShortName(a), legend)
						}
					}
					if !strings.Contains(legend, "limit") {
						t.Errorf("the legend does not name the limit: %q", legend)
					}
					flat := collapse(out)
					for k, d := range m.snap.Last.Decisions {
						if sz[0] < 120 && !strings.Contains(flat, collapse(render.Explain(d))) {
							t.Errorf("lane %d's verdict %q is not whole", k, render.Explain(d))
						}
					}
					if bg == "nocolor" {
						golden.RequireEqual(t, out)
					} else {
						golden.RequireEqual(t, m.View().Content)
					}
				})
			}
		}
	}
}

// The boundary burst's picture: half a minute after it, the log's true
// count is the limit while the counter's estimate has fallen to half of
// it, and at the edge the fixed window's line runs from 0 to the limit in
// one column (its reset, and the second burst at once).
func TestChartShowsTheBoundaryBurst(t *testing.T) {
	m := chartModel(t, "boundary-burst", 140, 40, false)
	s := m.chartStates
	if s == nil || s.Known == 0 {
		t.Fatal("no states")
	}
	at := s.Decisions[s.Known-1]
	want := map[algo.Kind][2]int64{algo.KindFixedWindow: {100, 1}, algo.KindSlidingLog: {100, 1}, algo.KindSlidingCounter: {50 * 60_000, 60_000}}
	for _, d := range at {
		n, den := sim.StateRat(d)
		if w := want[d.Kind]; n*w[1] != w[0]*den {
			t.Errorf("%v at the clock: %d/%d, want %d/%d", d.Kind, n, den, w[0], w[1])
		}
	}
	edge := -1
	for i := range s.Known {
		if s.At[i] >= algo.Clock(12, 1, 0, 0) {
			edge = i
			break
		}
	}
	for k, d := range s.Lo[edge] {
		if d.Kind != algo.KindFixedWindow {
			continue
		}
		lo, _ := sim.StateRat(d)
		hi, _ := sim.StateRat(s.Hi[edge][k])
		if lo != 0 || hi != 100 {
			t.Errorf("the fixed window's column at the edge spans %d–%d, want 0–100", lo, hi)
		}
	}
	out := screen(m)
	if !strings.Contains(out, "◆ 50") || !strings.Contains(out, "● 100") {
		t.Errorf("the values at the clock are not on screen:\n%s", out)
	}
}

// atClockMatchesLanes holds the chart's last column to what the lanes show
// now: the live limiters' Peek, read by another road than the chart's
// replay of copies from a checkpoint.
func atClockMatchesLanes(t *testing.T, m Model, when string) {
	t.Helper()
	s := m.chartStates
	if m.snap.Client == "" {
		return
	}
	if s == nil || s.TooMany || s.Known == 0 {
		t.Fatalf("%s: no chart states", when)
	}
	if s.At[s.Known-1] != m.snap.Now {
		t.Fatalf("%s: the last column read is at %v, the clock at %v", when, s.At[s.Known-1], m.snap.Now)
	}
	for k, d := range s.Decisions[s.Known-1] {
		n, den := sim.StateRat(d)
		pn, pden := sim.StateRat(m.snap.Peek[k])
		if n*pden != pn*den {
			t.Errorf("%s: %v's chart value %d/%d, the lane's %d/%d", when, d.Kind, n, den, pn, pden)
		}
	}
}

// TestChartKey drives the model with v: the chart comes and goes, follows
// the clock forward and back, the zoom and the client, and its value at
// the clock is always the lanes' own.
func TestChartKey(t *testing.T) {
	m := update(t, newModel(t, fourLimiters(), 140, 40), goTo("12:01:00")...)
	if strings.Contains(screen(m), "chart ") {
		t.Fatal("a chart before v")
	}
	m = update(t, m, press("v")...)
	if !strings.Contains(screen(m), "chart client-1") {
		t.Fatalf("no chart after v:\n%s", screen(m))
	}
	atClockMatchesLanes(t, m, "after v")
	for i, k := range []string{"right", "right", "left", "]", "[", "z", "z", "Z", "c", "f", "G", "g", "G"} {
		m = update(t, m, press(k)...)
		atClockMatchesLanes(t, m, fmt.Sprintf("after key %d (%s)", i, k))
	}
	m = update(t, m, press("v")...)
	if strings.Contains(screen(m), "chart ") || m.chartStates != nil {
		t.Fatal("the chart stays after a second v")
	}
	m = update(t, m, press("V")...)
	if !strings.Contains(screen(m), "chart all clients") {
		t.Fatalf("V does not show every client's:\n%s", screen(m))
	}
	m = update(t, m, press("V")...)
	if !strings.Contains(screen(m), "chart client-1") {
		t.Fatalf("a second V does not go back to the client:\n%s", screen(m))
	}
}

// TestChartTotals: with V, the chart's value at the clock is the sum over
// every client of what the live limiters would decide on now (their Peek),
// another road than the history's counts the totals come from; the
// bucket has no line.
func TestChartTotals(t *testing.T) {
	sc, err := scenarios.Builtin("steady-stream")
	if err != nil {
		t.Fatal(err)
	}
	m := update(t, newModel(t, sc, 140, 40), press("V")...)
	for i, at := range []string{"12:00:40", "12:01:00", "12:01:30", "12:01:59.999", "12:02:30"} {
		m = update(t, m, goTo(at)...)
		s := m.chartStates
		if s == nil || s.Known == 0 || s.At[s.Known-1] != m.snap.Now {
			t.Fatalf("%d: no totals at the clock", i)
		}
		for k, l := range m.eng.Limiters() {
			if s.Apart[k] {
				continue
			}
			var sum, den int64 = 0, 1
			for _, c := range m.eng.Clients() {
				n, d := sim.StateRat(l.Peek(m.snap.Now, c))
				sum, den = sum+n, d
			}
			n, d := sim.StateRat(s.Decisions[s.Known-1][k])
			if n*den != sum*d {
				t.Errorf("at %s, %v: the chart's total %d/%d, the limiters' %d/%d", at, l.Kind(), n, d, sum, den)
			}
		}
	}
}

// TestChartWhilePlaying plays steady-stream with the chart on through the
// program's own tick loop, on a virtual wall clock: every frame's chart,
// read mostly from its cache, agrees with the lanes at the clock.
func TestChartWhilePlaying(t *testing.T) {
	sc, err := scenarios.Builtin("steady-stream")
	if err != nil {
		t.Fatal(err)
	}
	m := update(t, newModel(t, sc, 100, 30), press("v", "+", "+", "+", "+")...)
	wall := &virtualWall{now: time.Unix(1_000_000, 0)}
	m.ticker = wall.tick
	next, cmd := m.Update(keyMsg("space"))
	m = next.(Model)
	frames := 0
	for ; cmd != nil && frames < 400; frames++ {
		msg := cmd()
		if _, ok := msg.(tickMsg); !ok {
			break
		}
		next, cmd = m.Update(msg)
		m = next.(Model)
		atClockMatchesLanes(t, m, fmt.Sprintf("frame %d at %s", frames, m.snap.Now.Short()))
	}
	if frames < 50 {
		t.Fatalf("played only %d frames", frames)
	}
}

// At 80×24 with four lanes, the chart takes the timeline's place or says
// how many rows it needs; the lanes' verdicts stay whole either way.
func TestChartGivesWay(t *testing.T) {
	for _, h := range []int{24, 28, 34} {
		m := update(t, newModel(t, fourLimiters(), 80, h), goTo("12:01:00")...)
		m = update(t, m, press("v")...)
		out := screen(m)
		checkFrame(t, out, 80, h)
		if !strings.Contains(out, "chart") {
			t.Errorf("80×%d: neither the chart nor what it needs:\n%s", h, out)
		}
		flat := collapse(out)
		for k, d := range m.snap.Last.Decisions {
			if !strings.Contains(flat, collapse(render.Explain(d))) {
				t.Errorf("80×%d: lane %d's verdict %q is not whole:\n%s", h, k, render.Explain(d), out)
			}
		}
	}
}

// TestGoldenChartAllClients pins the chart of every client's state (V) on
// steady-stream, where three clients share the limiters: without colour,
// dark and light, at 80×24 and 140×40.
func TestGoldenChartAllClients(t *testing.T) {
	for _, sz := range sizes {
		for _, bg := range []string{"nocolor", "dark", "light"} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], bg), func(t *testing.T) {
				m := update(t, chartModel(t, "steady-stream", sz[0], sz[1], bg == "light"), press("V")...)
				out := screen(m)
				checkFrame(t, out, sz[0], sz[1])
				if !strings.Contains(out, "chart all clients") {
					t.Fatalf("not every client's:\n%s", out)
				}
				if bg == "nocolor" {
					golden.RequireEqual(t, out)
				} else {
					golden.RequireEqual(t, m.View().Content)
				}
			})
		}
	}
}
