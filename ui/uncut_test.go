package ui

import (
	"strings"
	"testing"

	"windowlab/scenarios"
)

// cutLines are the lines of a frame cut at its right edge: as wide as
// the terminal and ending in "…".
func cutLines(out string, width int) []string {
	var cut []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), "…") && stringWidth(strings.TrimRight(l, " ")) >= width-1 {
			cut = append(cut, l)
		}
	}
	return cut
}

// Nothing is cut at the right edge: every built-in at every caption and
// at its last request, and the keys that open panels and make traffic,
// at 80x24 and 100x30 (the status, the help and the panels wrap or say
// less; the timeline gives way first).
func TestNothingIsCut(t *testing.T) {
	type walk struct {
		name string
		sc   *scenarios.Scenario
		keys [][]string
	}
	var walks []walk
	for _, sc := range scenarios.Builtins() {
		var keys [][]string
		for range sc.Captions {
			keys = append(keys, []string{"tab"})
		}
		keys = append(keys, []string{"G"}, []string{"v"}, []string{"d"}, []string{"?"})
		walks = append(walks, walk{sc.Name, sc, keys})
	}
	walks = append(walks, walk{"play", emptyClock(t), [][]string{
		{"r"}, {"b", "enter"}, {"s", "6", "enter"}, {"space"}, {">"}, {"v"}, {"d"}, {"x"}, {"esc"}, {"u"}, {"?"},
	}})
	for _, sz := range [][2]int{{80, 24}, {100, 30}} {
		for _, w := range walks {
			m := newModel(t, w.sc, sz[0], sz[1])
			for i, k := range w.keys {
				m = update(t, m, press(k...)...)
				if cut := cutLines(screen(m), sz[0]); len(cut) > 0 {
					t.Errorf("%s at %dx%d after %v (step %d): cut:\n%s", w.name, sz[0], sz[1], k, i, strings.Join(cut, "\n"))
				}
			}
		}
	}
}
