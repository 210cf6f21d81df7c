package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replay --segments splits the segmented windows' window: 10 requests at
// 06:31:00.400 and 10 at 06:31:01.200 under 10 a second. One segment (the
// fixed window) or two of 500ms admit both tens: the segment holding .400
// has left the window by 1.200. Four of 250ms, or a thousand (the log),
// still hold it: 10. Out of range or not dividing the window, --segments
// is refused with exit 2, named.
func TestReplaySegments(t *testing.T) {
	log := filepath.Join(t.TempDir(), "access.jsonl")
	var lines []string
	for _, at := range []string{"00.400", "01.200"} {
		for range 10 {
			lines = append(lines, `{"time": "2026-11-30T06:31:`+at+`Z", "ip": "10.0.0.1"}`)
		}
	}
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"replay", log, "--limit", "10", "--window", "1s", "--algorithms", "segmented-window,fixed-window"}
	for _, c := range []struct {
		segments string
		allowed  string // segmented, fixed
	}{{"1", "20 20"}, {"2", "20 20"}, {"4", "10 20"}, {"1000", "10 20"}} {
		out, errOut, code := windowlab(t, append(args, "--segments", c.segments)...)
		if code != 0 {
			t.Fatalf("--segments %s: exit %d\n%s", c.segments, code, errOut)
		}
		fields := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "allowed") && !strings.Contains(l, ":") {
				fields = strings.Join(strings.Fields(l), " ")
			}
		}
		if want := "allowed " + c.allowed; fields != want {
			t.Errorf("--segments %s: %q, want %q\n%s", c.segments, fields, want, out)
		}
	}
	for bad, why := range map[string]string{
		"0":      "--segments 0: give the segments",
		"100001": "--segments 100001: give the segments",
		"7":      "--segments 7 does not divide the window (1s) into whole milliseconds: give a divisor of 1000, such as 8",
	} {
		_, errOut, code := windowlab(t, append(args, "--segments", bad)...)
		if code != 2 || !strings.Contains(errOut, why) {
			t.Errorf("--segments %s: exit %d, %q", bad, code, errOut)
		}
	}
}
