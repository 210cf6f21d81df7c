package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"windowlab/accesslog"
)

// withRequestLimit lowers the requests a replay may keep for the test (not
// parallel: the package's parallel tests wait for it).
func withRequestLimit(t *testing.T, n int64) {
	old := accesslog.RequestLimit
	accesslog.RequestLimit = n
	t.Cleanup(func() { accesslog.RequestLimit = old })
}

// A log longer than the requests windowlab keeps replays to a report and
// to a sweep (they keep none); --save, which keeps them,
// are refused before reading when the file's size tells, naming the flag
// (exit 2, nothing written), and at the line as ever when it cannot (a
// slice, which may fit) or only just.
func TestReplayStreamsPastTheRequestLimit(t *testing.T) {
	withRequestLimit(t, 2_000)
	base := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	var b strings.Builder
	for i := range 60_000 {
		fmt.Fprintf(&b, "10.0.%d.%d - - [%s] \"GET /items/%d HTTP/1.1\" 200 512 \"-\" \"test agent\"\n", i%7, i%97, base.Add(time.Duration(i)*50*time.Millisecond).Format("02/Jan/2006:15:04:05 -0700"), i%1000)
	}
	long := writeFile(t, "long.log", []byte(b.String()))
	just := writeFile(t, "just.log", []byte(strings.Join(strings.SplitAfter(b.String(), "\n")[:2_100], "")))
	save := filepath.Join(t.TempDir(), "saved.yaml")

	out, errOut, code := windowlab(t, "replay", long, "--limit", "10", "--window", "1s")
	if code != 0 || !strings.Contains(out, "60,000 requests") {
		t.Fatalf("the report: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = windowlab(t, "replay", long, "--limits", "10,20", "--windows", "1s,1m")
	if code != 0 || !strings.Contains(out, "60,000 requests") || !strings.Contains(out, "most denied") {
		t.Fatalf("the sweep: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--save", save}, "this log holds about 60,000 requests (a line each; by its size and its first megabytes); --save keeps every request, at most 2,000: use a report or a sweep, which keep none, or --from/--to"},
	} {
		out, errOut, code = windowlab(t, append([]string{"replay", long}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "lines, ") {
			t.Errorf("%v: exit %d, want 2, nothing read, and %q:\n%s\n%s", c.args, code, c.want, out, errOut)
		}
	}
	if _, err := os.Stat(save); err == nil {
		t.Error("--save refused wrote its file")
	}
	for _, args := range [][]string{
		{"replay", long, "--save", save, "--from", "2026-11-30 06:10"},
		{"replay", just, "--save", save},
	} {
		_, errOut, code = windowlab(t, args...)
		if code != 2 || !strings.Contains(errOut, "more than 2,000 requests; windowlab keeps every one") {
			t.Errorf("%v: exit %d, want refused at the line:\n%s", args, code, errOut)
		}
	}
}
