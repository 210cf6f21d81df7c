package replay

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// writeWrapped keeps a line within its width where the items allow, puts
// an item that does not fit on a new indented line, never splits one,
// and joined again is the line it would have been unwrapped.
func TestWriteWrapped(t *testing.T) {
	items := []string{"10.0.48.57 74,161", "10.55.169.234 60,527", "10.111.35.155 49,247", "10.166.157.76 40,323",
		strings.Repeat("k", 90) + " 7", "10.222.22.253 33,130"}
	head := "  Sliding window counter, 120 per 1h:"
	for _, width := range []int{40, 60, 80, 1000} {
		var b strings.Builder
		writeWrapped(&b, head, items, " ·", "    ", width)
		out := b.String()
		if !strings.HasSuffix(out, "\n") {
			t.Fatalf("width %d: no final line break: %q", width, out)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for i, line := range lines {
			n := utf8.RuneCountInString(line)
			alone := i > 0 && !strings.Contains(strings.TrimPrefix(line, "    "), " · ")
			if n > width && !alone && !(i == 0 && line == head) {
				t.Errorf("width %d: line %d is %d columns and holds more than one item: %q", width, i, n, line)
			}
			if i > 0 && !strings.HasPrefix(line, "    ") {
				t.Errorf("width %d: line %d is not indented: %q", width, i, line)
			}
		}
		if joined, want := strings.ReplaceAll(out, "\n    ", " "), head+" "+strings.Join(items, " · ")+"\n"; joined != want {
			t.Errorf("width %d: joined again\n%q\nwant\n%q", width, joined, want)
		}
		if width == 1000 && len(lines) != 1 {
			t.Errorf("width 1000: %d lines, want 1", len(lines))
		}
		if width == 80 && len(lines) < 3 {
			t.Errorf("width 80: %d lines; the 92-column key wants a line of its own", len(lines))
		}
	}
}
