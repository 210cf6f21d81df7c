package ui

import (
	"fmt"
	"strings"
	"testing"

	"windowlab/scenarios"
)

// Without colour the windows are still drawn, and the legend on screen
// names every mark, the counter's counted part of the previous window too,
// from 80×24 up: the built-in worked example at 12:01:15, as issue 31 saw
// it under NO_COLOR (the screen read without its colours).
func TestTimelineWindowsReadWithoutColour(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 30}, {140, 40}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			sc, err := scenarios.Builtin("worked-example")
			if err != nil {
				t.Fatal(err)
			}
			out := screen(update(t, newModel(t, sc, sz[0], sz[1]), goTo("12:01:15")...))
			var legend, fixed, counter string
			for _, l := range strings.Split(out, "\n") {
				switch {
				case strings.HasPrefix(l, "timeline"):
					legend = l
				case strings.HasPrefix(l, "fixed "):
					fixed = l
				case strings.HasPrefix(l, "counter "):
					counter = l
				}
			}
			for _, mark := range []string{"✓ allowed", "✗ denied", "± both", "┃ edge", "▔ window", "▁ p"} {
				if !strings.Contains(legend, mark) {
					t.Errorf("the legend does not name %q:\n%s", mark, out)
				}
			}
			// From 120 columns the keys that change the timeline stay beside what they change.
			if sz[0] >= 120 && (!strings.Contains(legend, "(f)") || !strings.Contains(legend, "(z/Z)")) {
				t.Errorf("at %d columns the legend drops its keys (f) and (z/Z):\n%s", sz[0], legend)
			}
			if !strings.Contains(fixed, "▔") || !strings.Contains(counter, "▁") || !strings.Contains(counter, "▔") {
				t.Errorf("the windows are not drawn in glyphs:\n%s", out)
			}
		})
	}
}
