package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replay --burst gives the token buckets their capacity: 30 requests in one
// second through a bucket of 10 a second and burst 25 admit 25; without it
// 10; a burst out of range, 0 too (it used to mean the limit), is refused
// with exit 2 in one line, naming --burst.
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
	for _, bad := range []string{"-1", "1000000001", "0"} {
		_, errOut, code := windowlab(t, append(args, "--burst", bad)...)
		var said []string // the message's lines, without the ERROR heading
		for _, l := range strings.Split(errOut, "\n") {
			if l = strings.TrimSpace(l); l != "" && l != "ERROR" {
				said = append(said, l)
			}
		}
		if code != 2 || len(said) != 1 || !strings.HasPrefix(said[0], "--burst "+bad+": ") {
			t.Errorf("--burst %s: exit %d, %q", bad, code, errOut)
		}
	}
	if _, errOut, _ := windowlab(t, append(args, "--burst", "0")...); !strings.Contains(errOut, "leave it out for the limit") {
		t.Errorf("--burst 0 does not say how to get the limit: %q", errOut)
	}
}
