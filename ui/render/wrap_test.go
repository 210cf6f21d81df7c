package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Common.Wrap breaks lines at spaces only: a replayed log's dates stay
// whole at every width (ansi's Wrap alone broke "2026-11-" from "29" on
// the counter's line at 80 columns), no line is wider than the width but
// a word that is, joined again the text is the same, and a text's own
// non-breaking hyphen is kept.
func TestWrapKeepsDatesWhole(t *testing.T) {
	text := "previous 2026-11-29 23:58:00–23:59:00 = 0 · current 2026-11-29 23:59:00–2026-11-30 00:00:00 = 0 · sliding-counter/httprate"
	cut := regexp.MustCompile(`\d-$|^\d\d(-\d\d)? \d\d:\d\d`) // "… 2026-11-", then "29 23:59:00"
	for _, m := range []ansi.Method{ansi.WcWidth, ansi.GraphemeWidth} {
		c := Common{Width: 80, Height: 24, Cells: m}
		for w := 30; w <= 130; w++ { // every word fits: none is cut for being wider
			out := c.Wrap(text, w)
			if strings.ReplaceAll(out, "\n", " ") != text {
				t.Errorf("width %d: joined again %q", w, strings.ReplaceAll(out, "\n", " "))
			}
			for _, line := range strings.Split(out, "\n") {
				if cut.MatchString(line) {
					t.Errorf("width %d: a date cut at a hyphen: %q in\n%s", w, line, out)
				}
				if m.StringWidth(line) > w && strings.Contains(line, " ") {
					t.Errorf("width %d: %q is %d cells", w, line, m.StringWidth(line))
				}
			}
		}
	}
	c := Common{Cells: ansi.WcWidth}
	if got := c.Wrap("a\u2011b c-d", 4); got != "a\u2011b\nc-d" {
		t.Errorf("a text's own non-breaking hyphen: %q", got)
	}
}
