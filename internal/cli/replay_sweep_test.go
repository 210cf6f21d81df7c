package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"windowlab/internal/loggen"
	"windowlab/sim/report"
)

// TestSweepFitsEighty: a sweep of the lesson's limiters at four settings
// over a busy day (the benchmark's log, smaller) prints every line of its
// summary, table, chart and most denied within 80 columns, as a terminal
// of 80 shows it, and so do --recommend, --compare and a summary naming
// bad lines; and the sweep's table is a line for each setting with the
// three limiters' rows under it, in the order given.
func TestSweepFitsEighty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "access.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := loggen.Write(f, loggen.Options{Seed: 3, Lines: 30_000, Clients: 5_000, Heavy: 5, Format: "combined"}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// --recommend's report of the same log fits too: its sentences, its
	// percentiles and its table of candidates.
	rec, errOut, code := windowlab(t, "replay", path, "--recommend")
	if code != 0 || !strings.Contains(rec, "smallest limit denying") {
		t.Fatalf("--recommend: exit %d: %s%s", code, rec, errOut)
	}
	fits(t, rec)
	// --compare's table and its disagreements (every line of this log is
	// a 200 its limiters at 5 a minute deny some of), wrapped.
	// A log with bad and late lines: the summary names each, wrapped.
	bad, errOut, code := windowlab(t, "replay", filepath.Join("testdata", "replay", "combined.log"), "--limits", "1,2", "--windows", "10s,1h")
	if code != 0 || !strings.Contains(bad, "bad lines, not replayed") {
		t.Fatalf("combined.log: exit %d: %s%s", code, bad, errOut)
	}
	fits(t, bad)
	cmp, errOut, code := windowlab(t, "replay", path, "--limits", "5,20", "--window", "1m", "--compare", "status")
	if code != 0 || !strings.Contains(cmp, "disagrees") {
		t.Fatalf("--compare: exit %d: %s%s", code, cmp, errOut)
	}
	fits(t, cmp)
	out, errOut, code := windowlab(t, "replay", path, "--limits", "5,20", "--windows", "1m,1h")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	fits(t, out)
	if !strings.Contains(out, "▁") || !strings.Contains(out, "most denied") {
		t.Fatalf("no chart or no clients denied:\n%s", out)
	}
	table := out[strings.Index(out, "limiter"):strings.Index(out, "allowed per")]
	var got []string // each line's first column: the header's, a setting, a limiter
	for line := range strings.Lines(strings.TrimSpace(table)) {
		row := strings.TrimPrefix(line, "  ")
		label, _, _ := strings.Cut(row, "  ")
		got = append(got, strings.TrimSpace(label))
	}
	want := []string{"limiter"}
	for _, s := range []string{"5 per 1m", "20 per 1m", "5 per 1h", "20 per 1h"} {
		want = append(want, s, "Fixed window", "Sliding window log", "Sliding window counter")
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the table's rows are\n%q, want\n%q:\n%s", got, want, table)
	}
}

// fits fails on any line of out wider than report.Width.
func fits(t *testing.T, out string) {
	t.Helper()
	for line := range strings.Lines(out) {
		if w := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); w > report.Width {
			t.Errorf("a line of %d columns: %q", w, line)
		}
	}
}
