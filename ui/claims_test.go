package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/ui/render"
)

// walked are the scenarios whose every caption the claims walk visits:
// the built-ins and the lesson's steps.
func walked() []*scenarios.Scenario {
	return append(scenarios.Builtins(), scenarios.Lesson()...)
}

// collapse joins text as a reader reads it: line breaks and runs of
// spaces are one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// captionOnScreen is the caption the frame shows, its lines joined.
func captionOnScreen(m Model) string {
	var parts []string
	on := false
	for _, l := range strings.Split(screen(m), "\n") {
		switch {
		case strings.HasPrefix(l, "» "):
			on = true
			parts = append(parts, strings.TrimPrefix(l, "» "))
		case on && strings.HasPrefix(l, "  "):
			parts = append(parts, l)
		default:
			on = false
		}
	}
	return collapse(strings.Join(parts, " "))
}

// holdsCaption checks that the frame at caption i's moment tells its
// story: the caption whole, and every claim it makes true of what the
// lanes show, the decision they explain printed in its lane.
func holdsCaption(t *testing.T, m Model, sc *scenarios.Scenario, i int, route string) {
	t.Helper()
	c := &sc.Captions[i]
	where := fmt.Sprintf("%s captions[%d] at %s by %s (%dx%d)", sc.Name, i, c.At.Short(), route, m.c.Width, m.c.Height)
	if got := m.captionIndex(); got != i {
		t.Errorf("%s: caption %d is on, not this one", where, got)
		return
	}
	if got, want := captionOnScreen(m), collapse(c.Text); got != want {
		t.Errorf("%s: the screen shows the caption as\n  %q\nwant\n  %q", where, got, want)
	}
	for j, x := range c.Shows {
		k := slices.Index(sc.Algorithms, x.Algorithm)
		var d *algo.Decision
		if m.snap.HasLast {
			d = &m.snap.Last.Decisions[k]
		}
		for _, f := range sc.Shown(i, j, m.snap.Stats[k], d) {
			t.Errorf("%s: the screen contradicts the caption: %s", where, f)
		}
		if x.Last != nil && d != nil && m.c.Width >= 160 {
			if lane := collapse(plain(m.lanes().LaneLines(k))); !strings.Contains(lane, collapse(render.Explain(*d))) {
				t.Errorf("%s: lane %s does not print the decision it is claimed to show, %q:\n%s", where, x.Algorithm, render.Explain(*d), lane)
			}
		}
	}
	holdsFigures(t, m, sc, i, where)
	if c.Client != "" && m.snap.Client != c.Client {
		t.Errorf("%s: the lanes show client %q, the caption speaks of %q", where, m.snap.Client, c.Client)
	}
}

// holdsFigures checks that every figure caption i prints is its lane's at
// the frame: read off the frame's snapshot as the caption's was read off
// the engine, and, for a lane's figure, printed in that lane.
func holdsFigures(t *testing.T, m Model, sc *scenarios.Scenario, i int, where string) {
	t.Helper()
	lanes := make([]scenarios.Lane, len(m.snap.Stats))
	for k := range lanes {
		lanes[k] = scenarios.Lane{Stats: m.snap.Stats[k], Now: m.snap.Peek[k]}
		if m.snap.HasLast {
			lanes[k].Last = &m.snap.Last.Decisions[k]
		}
	}
	for j, r := range sc.Captions[i].Refs {
		got, ok := sc.Figure(i, j, lanes)
		if !ok || got != r.Value {
			t.Errorf("%s: the caption prints {%s} as %q, the screen's figure is %q", where, r.Name, r.Value, got)
			continue
		}
		if !r.InLane() || m.c.Width < 160 {
			continue
		}
		k := slices.Index(sc.Algorithms, r.Algorithm)
		if lane := collapse(plain(m.lanes().LaneLines(k))); !strings.Contains(lane, collapse(r.Value)) {
			t.Errorf("%s: the caption prints {%s} as %q, which lane %s does not print:\n%s", where, r.Name, r.Value, r.Algorithm, lane)
		}
	}
}

// Every caption of every built-in and lesson step, reached by tab, by t
// and by pressing only space, shows the screen its claims describe.
func TestCaptionsHoldOnScreen(t *testing.T) {
	for _, sc := range walked() {
		t.Run(sc.Name, func(t *testing.T) {
			for _, size := range [][2]int{{80, 24}, {100, 30}, {200, 50}} {
				m := newModel(t, sc, size[0], size[1])
				for i := range sc.Captions {
					if i > 0 || m.captionIndex() != 0 { // an opening caption is on from the start
						m = update(t, m, press("tab")...)
					}
					holdsCaption(t, m, sc, i, "tab")
				}
				for i, c := range sc.Captions {
					if i > 0 && sc.Captions[i-1].At == c.At {
						continue // t lands on the first caption of an instant
					}
					m := update(t, newModel(t, sc, size[0], size[1]), goTo(c.At.String())...)
					holdsCaption(t, m, sc, i, "t")
				}
			}
			// → alone, through every request (of the smaller scenarios): a
			// caption that speaks of a request is never on before it, and
			// landing on it shows what it claims.
			if sc.Len() <= 5000 {
				m := newModel(t, sc, 100, 30)
				held := map[int]bool{}
				for n := int64(0); n < sc.Len(); n++ {
					m = update(t, m, press("right")...)
					i := m.captionIndex()
					if i < 0 || !sc.Captions[i].Speaks() {
						continue
					}
					if !m.held.on && !m.reached(i) {
						t.Errorf("→ to request %d: captions[%d] is on before its moment", n+1, i)
					}
					if m.held.on && !held[i] {
						held[i] = true
						holdsCaption(t, m, sc, i, "→")
					}
				}
				e, _ := sc.Engine(sim.Options{})
				for i, c := range sc.Captions {
					if c.Speaks() && (c.Client != "" || c.Request.Set) && sc.SeekCaption(e, i) && !held[i] {
						t.Errorf("→ through every request never landed on captions[%d] at %s", i, c.At.Short())
					}
				}
			}
			// Space alone: play, and play again at every pause.
			m := newModel(t, sc, 100, 30)
			at := time.Unix(1000, 0)
			seen := -1
			for n := 0; n < 200_000 && seen < len(sc.Captions)-1; n++ {
				if !m.Playing() {
					if now, _ := m.Position(); now >= m.end {
						break
					}
					m = update(t, m, press("space")...)
				}
				at = at.Add(frame)
				m = update(t, m, tickMsg{at: at, gen: m.gen})
				if i := m.captionIndex(); i > seen {
					for k := seen + 1; k < i; k++ {
						t.Errorf("playing never showed captions[%d] at %s", k, sc.Captions[k].At.Short())
					}
					seen = i
					holdsCaption(t, m, sc, i, "space")
				}
			}
			if seen < len(sc.Captions)-1 {
				t.Errorf("playing to the end showed captions up to %d of %d", seen+1, len(sc.Captions))
			}
		})
	}
}
