package render

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"windowlab/algo"
	"windowlab/scenarios"
	"windowlab/sim"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// boundaryBurst is the lesson's fixed-window trap: 100 requests at 12:00:59
// and 100 at 12:01:00, limit 100 per minute.
func boundaryBurst() *scenarios.Scenario { return fixture("testdata/fixtures/boundary-burst.yaml") }

// workedExample is the lesson's sliding-counter arithmetic: 84 requests in
// the 12:00 window, 30 at 12:01:14, one more at 12:01:15.
func workedExample() *scenarios.Scenario { return fixture("testdata/fixtures/worked-example.yaml") }

// fourLimiters is the boundary burst through all four limiters.
func fourLimiters() *scenarios.Scenario {
	s := boundaryBurst()
	a, err := algo.ParseAlgorithm("token-bucket")
	if err != nil {
		panic(err)
	}
	s.Algorithms = append(s.Algorithms, a)
	return s
}

// segmentedWindow is the built-in: the boundary burst through a window of
// 6 segments beside the fixed window and the log.
func segmentedWindow() *scenarios.Scenario {
	s, err := scenarios.Builtin("segmented-window")
	if err != nil {
		panic(err)
	}
	return s
}

func parse(yaml string) *scenarios.Scenario {
	s, err := scenarios.Parse("test.yaml", []byte(yaml))
	if err != nil {
		panic(err) // the test's own scenario is wrong
	}
	return s
}

// fixture reads a scenario from testdata/fixtures (ui's tests read them too).
func fixture(path string) *scenarios.Scenario {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return parse(string(b))
}

// plain is a rendered component as a golden file holds it.
func plain(lines []string) string {
	return strings.ReplaceAll(ansi.Strip(strings.Join(lines, "\n")), NoBreak, " ")
}

// atCaption is what the view shows, w×h on a dark background, having gone
// to the time of sc's caption that speaks of a request there: the
// caption's request held and its client in focus (ui's go-to-time lands
// so), the timeline at zoom z.
func atCaption(t *testing.T, sc *scenarios.Scenario, when string, w, h int, z func(Zoom) Zoom) (Common, *Snapshot) {
	t.Helper()
	at, err := algo.ParseClock(when)
	if err != nil {
		t.Fatal(err)
	}
	e, err := sc.EngineWith(sim.Options{History: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(sc.Captions, func(c scenarios.Caption) bool { return c.At == at && c.Speaks() })
	if i < 0 {
		t.Fatalf("%s has no caption at %s that speaks of a request", sc.Name, when)
	}
	sc.SeekCaption(e, i)
	held, ok := e.Last()
	if !ok {
		t.Fatalf("no request at %s", when)
	}
	held.Decisions = slices.Clone(held.Decisions)
	c := Common{Width: w, Height: h, Styles: NewStyles(true, false)}
	s := Take(e, Focus{Client: held.Arrival.Client, Why: FocusCaption}, &held, sc.Captions[i].Text)
	s.CountWindows(e, Lanes{C: c, Snap: &s, Question: -1}.StripCells)
	s.Timeline = z(NewZoom(e.Window())).CellsAt(e.History(), s.Now, w, len(s.Algorithms), -1)
	return c, &s
}

func autoZoom(z Zoom) Zoom { return z }

// componentSizes are a stacked layout and a wide one, lanes side by side.
var componentSizes = [][2]int{{80, 24}, {160, 40}}

// TestGoldenLanes pins each kind of lane on its own, at the lesson's
// moments, stacked and in a box: a change to one lane rewrites its goldens
// only.
func TestGoldenLanes(t *testing.T) {
	cases := []struct {
		name     string
		scenario func() *scenarios.Scenario
		at       string
		lane     int
		want     []string
	}{
		{"fixed-window", fourLimiters, "12:01:00", 0, []string{"100/100 full", "⚠ 200 ", "to client-1 within 1s (12:00:59–12:01:00)"}},
		{"sliding-log", fourLimiters, "12:01:00", 1, []string{"100/100 in the last 1m", "oldest 12:00:59 leaves in 59s", "████████████████ 100/100"}},
		{"sliding-counter", workedExample, "12:01:15", 2, []string{"30 + 84 × 0.75 = 93 → allow (93 < 100)", "0.75"}},
		{"token-bucket", fourLimiters, "12:01:00", 3, []string{"next token in"}},
		{"segmented-window", segmentedWindow, "12:01:00", 1, []string{"6 segments 12:00:10–12:01:10 hold 100 → deny (100 ≥ 100)",
			"[12:00:10 ▕", "oldest count 100 (12:00:50–12:01:00) leaves in 50s", "100/100 full in 6 segments of 10s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sz := range componentSizes {
				t.Run(fmt.Sprint(sz[0]), func(t *testing.T) {
					c0, snap := atCaption(t, c.scenario(), c.at, sz[0], sz[1], autoZoom)
					out := plain(Lanes{C: c0, Snap: snap, Question: -1}.LaneLines(c.lane))
					for _, w := range c.want {
						if !strings.Contains(strings.Join(strings.Fields(out), " "), w) {
							t.Errorf("lane lacks %q:\n%s", w, out)
						}
					}
					golden.RequireEqual(t, out)
				})
			}
		})
	}
}

// TestGoldenTimeline pins the timeline alone: the boundary burst at
// 12:01:00, at two widths, at the zoom the width picks and one finer; its
// figures are the totals so far, as the lanes say.
func TestGoldenTimeline(t *testing.T) {
	for _, zoom := range []string{"auto", "zoomed"} {
		t.Run(zoom, func(t *testing.T) {
			for _, sz := range componentSizes {
				t.Run(fmt.Sprint(sz[0]), func(t *testing.T) {
					z := autoZoom
					if zoom == "zoomed" { // z, once
						z = func(z Zoom) Zoom { return z.In(sz[0]) }
					}
					c0, snap := atCaption(t, boundaryBurst(), "12:01:00", sz[0], sz[1], z)
					lines := Timeline{C: c0, Snap: snap}.Render()
					if len(lines) != 3+3 { // legend, labels, ticks, a row a limiter
						t.Errorf("%d lines, want 6", len(lines))
					}
					for i, l := range lines {
						if w := ansi.StringWidth(l); w > sz[0] {
							t.Errorf("line %d is %d wide", i+1, w)
						}
					}
					out := plain(lines)
					// At 80 columns the legend's marks leave no room for the figures' heading.
					if !strings.Contains(out, "cell") || (sz[0] > 80 && !strings.Contains(out, "so far")) || !strings.Contains(out, "✓200") || !strings.Contains(out, "✗100") {
						t.Errorf("timeline:\n%s", out)
					}
					golden.RequireEqual(t, out)
				})
			}
		})
	}
}

// TestGoldenTimelineWithoutColour pins the worked example's timeline at
// 12:01:15 as a screen without colour shows it (NO_COLOR: the styles'
// colours gone, the glyphs left): each limiter's window in glyphs, ▔ over
// the current window, ▁ under the part of the previous window the counter
// still counts, and a legend naming every mark, at every width.
func TestGoldenTimelineWithoutColour(t *testing.T) {
	for _, w := range []int{80, 100, 140, 200} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			c0, snap := atCaption(t, workedExample(), "12:01:15", w, 24, autoZoom)
			lines := strings.Split(plain(Timeline{C: c0, Snap: snap}.Render()), "\n")
			for _, mark := range []string{"✓ allowed", "✗ denied", "± both", "┃ edge", "▔ window", "▁ p"} {
				if !strings.Contains(lines[0], mark) {
					t.Errorf("the legend does not name %q: %q", mark, lines[0])
				}
			}
			rows := map[string]string{}
			for _, l := range lines[3:] {
				rows[strings.Fields(l)[0]] = l
			}
			if !strings.Contains(rows["fixed"], "▔") || !strings.Contains(rows["log"], "▔") || !strings.Contains(rows["counter"], "▔") {
				t.Errorf("a window is not drawn over its row:\n%s", strings.Join(lines, "\n"))
			}
			if !strings.Contains(rows["counter"], "▁") || strings.Contains(rows["fixed"]+rows["log"], "▁") {
				t.Errorf("the counter's counted part of the previous window is not its own:\n%s", strings.Join(lines, "\n"))
			}
			golden.RequireEqual(t, strings.Join(lines, "\n"))
		})
	}
}

// A field whose label fills the label column ("replica") leads its text,
// a space between, where the stacked lanes would run them together.
func TestWideLabelLeadsItsText(t *testing.T) {
	sc, err := scenarios.Builtin("replica-lag")
	if err != nil {
		t.Fatal(err)
	}
	for _, sz := range componentSizes {
		c, snap := atCaption(t, sc, "12:00:31.633", sz[0], sz[1], autoZoom)
		out := plain(Lanes{C: c, Snap: snap, Question: -1}.LaneLines(1))
		if !strings.Contains(out, "replica took over at 12:00:31") {
			t.Errorf("%dx%d: the replica's line runs its label into its text:\n%s", sz[0], sz[1], out)
		}
	}
}
