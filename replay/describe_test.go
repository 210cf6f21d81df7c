package replay

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"windowlab/accesslog"
	"windowlab/sim/report"
)

// The summary's lines wrap at the report's 80 columns, between words: a
// date and time, a count with its noun and a file's name are never cut,
// whatever the names' lengths put where (names of up to 60 characters,
// three files read as one).
func TestDescribeWrapsWhole(t *testing.T) {
	var text strings.Builder
	for i := range 40 {
		fmt.Fprintf(&text, "10.0.%d.%d - - [30/Nov/2026:06:%02d:%02d +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n", i/7, i%7, 31+i/60, i%60)
	}
	date := regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)
	for n := range 30 {
		dir := "/srv/web logs/" + strings.Repeat("d", n) + "/" // a space a name must keep
		l, err := accesslog.Read(strings.NewReader(text.String()), accesslog.Options{Name: dir + "access.log.2.gz … " + dir + "access.log", Reorder: accesslog.DefaultReorder})
		if err != nil {
			t.Fatal(err)
		}
		l.Files = []string{dir + "access.log.2.gz", dir + "access.log.1", dir + "access.log"}
		var b strings.Builder
		Describe(&b, l, nil)
		out := b.String()
		for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if w := utf8.RuneCountInString(line); w > report.Width {
				t.Errorf("dir of %d: a line of %d columns:\n%s", n, w, out)
			}
		}
		whole := strings.ReplaceAll(out, "\n"+describeIndent, " ")
		if got := len(date.FindAllString(out, -1)); got != 2 {
			t.Errorf("dir of %d: %d whole dates, want 2:\n%s", n, got, out)
		}
		for _, want := range []string{"40 lines, combined; 40 requests", "40 clients by ip", strings.Join(l.Files, ", ")} {
			if !strings.Contains(whole, want) {
				t.Errorf("dir of %d: %q not whole:\n%s", n, want, out)
			}
		}
		for _, f := range l.Files {
			if !strings.Contains(out, f) {
				t.Errorf("dir of %d: %s cut:\n%s", n, f, out)
			}
		}
	}
}
