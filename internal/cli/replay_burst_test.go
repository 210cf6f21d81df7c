package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replay --burst gives the token buckets their capacity: 30 requests in one
// second through a bucket of 10 a second and burst 25 admit 25; without it
// 10; a burst out of range is refused with exit 2, naming --burst.
func TestReplayBurst(t *testing.T) {
	log := filepath.Join(t.TempDir(), "access.log")
	line := `10.0.0.1 - - [30/Nov/2026:06:31:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-"` + "\n"
	if err := os.WriteFile(log, []byte(strings.Repeat(line, 30)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"replay", log, "--limit", "10", "--window", "1s", "--algorithms", "token-bucket,token-bucket/gcra"}
	for _, c := range []struct {
		extra   []string
		allowed string
	}{{nil, "10"}, {[]string{"--burst", "25"}, "25"}} {
		out, errOut, code := windowlab(t, append(args, c.extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.extra, code, errOut)
		}
		fields := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "allowed") && !strings.Contains(l, ":") {
				fields = strings.Join(strings.Fields(l), " ")
			}
		}
		if want := "allowed " + c.allowed + " " + c.allowed; fields != want {
			t.Errorf("%v: %q, want %q\n%s", c.extra, fields, want, out)
		}
	}
	for _, bad := range []string{"-1", "1000000001"} {
		_, errOut, code := windowlab(t, append(args, "--burst", bad)...)
		if code != 2 || !strings.Contains(errOut, "--burst "+bad) {
			t.Errorf("--burst %s: exit %d, %q", bad, code, errOut)
		}
	}
}
