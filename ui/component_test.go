package ui

import (
	"fmt"
	"strings"
	"testing"

	"windowlab/algo"
	"windowlab/scenarios"
	"windowlab/ui/render"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// fourLimiters is the boundary burst through all four limiters.
func fourLimiters() *scenarios.Scenario {
	s := boundaryBurst()
	for _, name := range []string{"token-bucket"} {
		a, err := algo.ParseAlgorithm(name)
		if err != nil {
			panic(err)
		}
		s.Algorithms = append(s.Algorithms, a)
	}
	return s
}

// componentSizes are a stacked layout and a wide one, lanes side by side.
var componentSizes = [][2]int{{80, 24}, {160, 40}}

// plain is a rendered component as a golden file holds it.
func plain(lines []string) string {
	return strings.ReplaceAll(ansi.Strip(strings.Join(lines, "\n")), render.NoBreak, " ")
}

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
		{"fixed-window", fourLimiters, "12:01:00", 0, []string{"100/100 full", "⚠ 200 ", "to client-1 in 2 seconds (12:00:59–12:01:00)"}},
		{"sliding-log", fourLimiters, "12:01:00", 1, []string{"100/100 in the last 1m", "oldest 12:00:59 leaves in 59s", "████████████████ 100/100"}},
		{"sliding-counter", workedExample, "12:01:15", 2, []string{"30 + 84 × 0.75 = 93 → allow (93 < 100)", "0.75"}},
		{"token-bucket", fourLimiters, "12:01:00", 3, []string{"next token in"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sz := range componentSizes {
				t.Run(fmt.Sprint(sz[0]), func(t *testing.T) {
					m := update(t, newModel(t, c.scenario(), sz[0], sz[1]), goTo(c.at)...)
					out := plain(m.lanes().LaneLines(c.lane))
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
					m := update(t, newModel(t, boundaryBurst(), sz[0], sz[1]), goTo("12:01:00")...)
					if zoom == "zoomed" {
						m = update(t, m, press("z")...)
					}
					lines := render.Timeline{C: m.c, Snap: &m.snap}.Render()
					if len(lines) != 3+3 { // legend, labels, ticks, a row a limiter
						t.Errorf("%d lines, want 6", len(lines))
					}
					for i, l := range lines {
						if w := ansi.StringWidth(l); w > sz[0] {
							t.Errorf("line %d is %d wide", i+1, w)
						}
					}
					out := plain(lines)
					if !strings.Contains(out, "cell") || !strings.Contains(out, "so far") || !strings.Contains(out, "✓200") || !strings.Contains(out, "✗100") {
						t.Errorf("timeline:\n%s", out)
					}
					golden.RequireEqual(t, out)
				})
			}
		})
	}
}
