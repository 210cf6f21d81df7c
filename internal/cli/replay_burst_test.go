package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windowlab/internal/schematest"
	"windowlab/replay"
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

// The token bucket's capacity, when it is not the limit, is named where the
// setting is: the report's header, the sweep's setting column (token
// buckets' rows only), run's JSON (scenario.burst) and --compare's; goldens
// of each.
func TestReplayBurstShown(t *testing.T) {
	log := filepath.Join("testdata", "replay", "burst.log")
	args := []string{"replay", log, "--window", "1s", "--algorithms", "fixed-window,token-bucket/gcra", "--burst", "25"}
	for _, c := range []struct {
		name  string
		extra []string
	}{
		{"burst.txt", []string{"--limit", "10"}},
		{"burst-sweep.txt", []string{"--limits", "10,20"}},
		{"burst.json", []string{"--limit", "10", "--json"}},
	} {
		out, errOut, code := windowlab(t, append(args, c.extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.extra, code, errOut)
		}
		golden(t, c.name, out)
	}
	out, _, _ := windowlab(t, append(args, "--limit", "10")...)
	if !strings.Contains(out, "limit 10 per 1s (token bucket burst 25)") {
		t.Errorf("the header does not name the burst:\n%s", out)
	}
	sweep, _, _ := windowlab(t, append(args, "--limits", "10,20")...)
	for _, want := range []string{"10 per 1s burst 25", "20 per 1s burst 25"} {
		if !strings.Contains(sweep, want) {
			t.Errorf("the sweep does not name %q:\n%s", want, sweep)
		}
	}
	if strings.Contains(sweep, "Fixed window                       10 per 1s burst") {
		t.Errorf("the sweep names a burst on the fixed window's row:\n%s", sweep)
	}
	// run names a scenario's burst: the same way.
	sc := filepath.Join(t.TempDir(), "b.yaml")
	if err := os.WriteFile(sc, []byte("limit: 60\nwindow: 1m\nburst: 10\nalgorithms: [token-bucket]\ntraffic:\n  - {at: \"12:00:00\", count: 20}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, _ := windowlab(t, "run", sc); !strings.Contains(out, "limit 60 per 1m (token bucket burst 10), 20 requests") {
		t.Errorf("run does not name the scenario's burst:\n%s%s", out, errOut)
	}
	// Without --burst, or with the limit itself, nothing is named.
	for _, extra := range [][]string{{"--limit", "25"}, {"--limit", "10", "--burst", "10"}} {
		plain := append([]string{"replay", log, "--window", "1s", "--algorithms", "token-bucket"}, extra...)
		if out, _, _ := windowlab(t, plain...); strings.Contains(strings.ReplaceAll(out, "burst.log", ""), "burst") {
			t.Errorf("%v names a burst:\n%s", extra, out)
		}
	}
}

// A burst a preset cannot be configured with is refused before the log is
// read, naming --burst and the preset: Spring's burstCapacity (burst × the
// window's seconds) is at least its replenishRate.
func TestReplayBurstPresetBounds(t *testing.T) {
	_, errOut, code := windowlab(t, "replay", filepath.Join("testdata", "replay", "burst.log"), "--window", "1m", "--limit", "120",
		"--algorithms", "token-bucket/spring", "--burst", "1")
	if code != 2 || !strings.Contains(errOut, "--burst 1 for token-bucket/spring") || !strings.Contains(errOut, "at least 2") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// --compare's JSON names a token bucket's burst in its setting (and only
// a token bucket's), and meets its schema.
func TestReplayBurstInCompareJSON(t *testing.T) {
	out, errOut, code := windowlab(t, "replay", filepath.Join("testdata", "replay", "burst.log"), "--limit", "10", "--window", "1s",
		"--algorithms", "fixed-window,token-bucket", "--burst", "25", "--compare", "status", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	schematest.Validate(t, "compare.schema.json", []byte(out))
	var doc replay.CompareDocument
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Settings) != 2 || doc.Settings[0].Burst != 0 || doc.Settings[1].Burst != 25 {
		t.Errorf("settings: %+v", doc.Settings)
	}
}
