package ui

import (
	"strings"
	"testing"

	"windowlab/scenarios"
)

// Every lane's totals and memory are on screen whatever the size: the
// timeline gives way first. (80×24 random-traffic after G lost the log's
// and the counter's; 120×30 boundary-burst at its second caption lost the
// counter's "memory 2 counters" while the others kept theirs, and then
// its "most admitted in one window", the line the lesson is about.)
func TestEveryLaneKeepsItsTotalsAndMemory(t *testing.T) {
	for _, c := range []struct {
		name       string
		w, h       int
		keys, want []string
	}{
		{"random-traffic", 80, 24, []string{"G"}, []string{"denied · holds "}},
		{"random-traffic", 100, 30, []string{"G"}, []string{"denied · holds "}},
		{"boundary-burst", 120, 30, []string{"tab", "tab"}, []string{"so far ✓", "memory ", "most admitted in one window"}},
		{"boundary-burst", 200, 50, []string{"tab", "tab"}, []string{"so far ✓", "memory "}},
	} {
		sc, err := scenarios.Builtin(c.name)
		if err != nil {
			t.Fatal(err)
		}
		m := newModel(t, sc, c.w, c.h)
		m = update(t, m, press(c.keys...)...)
		s := screen(m)
		for _, want := range c.want {
			if n := strings.Count(s, want); n != 3 {
				t.Errorf("%s at %dx%d after %v: %q %d times, want once a lane:\n%s", c.name, c.w, c.h, c.keys, want, n, s)
			}
		}
	}
}
