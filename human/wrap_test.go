package human

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Wrap keeps a line within its width where the words allow, breaks only
// at spaces and never at NoBreak (written back as a space), puts a word
// wider than a line on a line of its own, and joined again gives the
// text it was given: the sweep's most denied, a client and its count
// glued, the dot ending each line.
func TestWrap(t *testing.T) {
	items := []string{"10.0.48.57 74,161", "10.55.169.234 60,527", "10.111.35.155 49,247", "10.166.157.76 40,323",
		strings.Repeat("k", 90) + " 7", "alice /x 33,130"}
	var glued []string
	for _, it := range items {
		glued = append(glued, Glue(it))
	}
	first, indent := "  Sliding window counter, 120 per 1h: ", "    "
	widths := []int{1000}
	for w := 30; w <= 100; w++ {
		widths = append(widths, w)
	}
	for _, width := range widths {
		out := Wrap(first, indent, strings.Join(glued, NoBreak+"· "), width)
		if !strings.HasSuffix(out, "\n") || strings.Contains(out, NoBreak) {
			t.Fatalf("width %d: no final line break, or a NoBreak left: %q", width, out)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for i, line := range lines {
			body := line
			if i == 0 {
				body = strings.TrimPrefix(line, first)
			} else if !strings.HasPrefix(line, indent) {
				t.Errorf("width %d: line %d is not indented: %q", width, i, line)
			}
			if n := utf8.RuneCountInString(line); n > width && strings.Count(body, " · ")+1 > 1 {
				t.Errorf("width %d: line %d is %d characters and holds more than one client: %q", width, i, n, line)
			}
			for _, part := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(body, indent), " ·"), " · ") {
				if !slices.Contains(items, part) {
					t.Errorf("width %d: line %d holds %q, not a whole client and count (a break inside one, or before its dot): %q", width, i, part, line)
				}
			}
		}
		if joined, want := strings.ReplaceAll(out, "\n"+indent, " "), first+strings.Join(items, " · ")+"\n"; joined != want {
			t.Errorf("width %d: joined again\n%q\nwant\n%q", width, joined, want)
		}
		if width == 1000 && len(lines) != 1 {
			t.Errorf("width 1000: %d lines, want 1", len(lines))
		}
		if width == 80 && len(lines) < 3 {
			t.Errorf("width 80: %d lines; the 92-character key wants a line of its own", len(lines))
		}
	}
}
