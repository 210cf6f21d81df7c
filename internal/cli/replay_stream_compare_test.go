package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// --compare and --denied stream the log as the report does: a log longer
// than the requests windowlab keeps is neither refused before reading
// nor at the line, and is compared and listed whole, as text, as JSON,
// at one setting and at a sweep.
func TestReplayCompareAndDeniedStreamPastTheRequestLimit(t *testing.T) {
	withRequestLimit(t, 2_000)
	base := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	var b strings.Builder
	for i := range 60_000 {
		status := 200
		if i%13 == 0 {
			status = 429
		}
		fmt.Fprintf(&b, "10.0.0.%d - - [%s] \"GET /items/%d HTTP/1.1\" %d 512 \"-\" \"test agent\"\n", i%3, base.Add(time.Duration(i)*50*time.Millisecond).Format("02/Jan/2006:15:04:05 -0700"), i%1000, status)
	}
	long := writeFile(t, "long.log", []byte(b.String()))
	dir := t.TempDir()
	for i, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--limit", "5", "--window", "1s", "--compare", "status"}, []string{"60,000 requests", "agreement with the server's own decisions", " of 60,000 "}},
		{[]string{"--limits", "5,20", "--windows", "1s,1m", "--compare", "status"}, []string{"most denied", "agreement with the server's own decisions", " of 60,000 "}},
		{[]string{"--limit", "5", "--window", "1s", "--compare", "status", "--json"}, []string{`"requests": 60000`, `"compared": 60000`}},
		{[]string{"--limit", "5", "--window", "1s", "--denied", filepath.Join(dir, "one.csv")}, []string{"60,000 requests", "wrote " + filepath.Join(dir, "one.csv")}},
		{[]string{"--limits", "5,20", "--windows", "1s,1m", "--compare", "status", "--denied", filepath.Join(dir, "sweep.jsonl")}, []string{"most denied", "agreement", "wrote " + filepath.Join(dir, "sweep.jsonl")}},
	} {
		out, errOut, code := windowlab(t, append([]string{"replay", long}, c.args...)...)
		for _, w := range c.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Fatalf("%d %v: exit %d, want %q:\n%s\n%s", i, c.args, code, w, out, errOut)
			}
		}
		if strings.Contains(errOut, "keeps every") {
			t.Errorf("%v: refused:\n%s", c.args, errOut)
		}
	}
	// Three clients, each 6 or 7 requests a second: at 20 a second none is
	// denied, at 5 a second and in a minute each by every limiter; the
	// sweep's file has a row per limiter (3), setting denying (3) and
	// client (3).
	data, err := os.ReadFile(filepath.Join(dir, "sweep.jsonl"))
	if err != nil || strings.Count(string(data), "\n") != 3*3*3 {
		t.Fatalf("the sweep's --denied file: %v\n%s", err, data)
	}
	if _, err := os.Stat(filepath.Join(dir, "one.csv")); err != nil {
		t.Fatal(err)
	}
}
