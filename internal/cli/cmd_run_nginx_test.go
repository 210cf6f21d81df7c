package cli

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// run on nginx limit_req (5r/s, burst=4, delay=1) reports the third
// outcome: each allowed request's delay in the JSON, worked out by hand
// from the module's formula (excess' − 1000)·1000/5000 ms, the delayed
// count and the longest delay in the text, ◔ in the trace.
func TestRunReportsNginxDelays(t *testing.T) {
	out, errOut, code := windowlab(t, "run", "testdata/nginx-delay.yaml", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Requests []struct {
			Decisions map[string]struct {
				Allowed bool   `json:"allowed"`
				DelayMs *int64 `json:"delay_ms"`
			} `json:"decisions"`
		} `json:"requests"`
		Algorithms []struct {
			Name       string `json:"name"`
			Delayed    *int64 `json:"delayed"`
			MaxDelayMs *int64 `json:"max_delay_ms"`
		} `json:"algorithms"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// alice's 7 at 12:00:00: excess' 0, 1, 2, 3, 4 (admitted), 5, 5
	// (denied); at 12:00:00.500, 2.5 drained: 2.5, 3.5; bob's 3: 0, 1, 2.
	want := []int64{0, 0, 200, 400, 600, -1, -1, 300, 500, 0, 0, 200}
	var got []int64
	for _, r := range doc.Requests {
		d := r.Decisions["token-bucket/nginx"]
		switch {
		case !d.Allowed && d.DelayMs == nil:
			got = append(got, -1)
		case d.Allowed && d.DelayMs != nil:
			got = append(got, *d.DelayMs)
		default:
			t.Fatalf("a decision %+v: an allowed one has delay_ms, a denied one none", d)
		}
		if nd := r.Decisions["token-bucket/nginx-nodelay"]; nd.DelayMs != nil {
			t.Errorf("nodelay has a delay_ms: %d", *nd.DelayMs)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("delays %v, want %v (-1: denied)", got, want)
	}
	for _, a := range doc.Algorithms {
		delaying := a.Name == "token-bucket/nginx"
		if delaying != (a.Delayed != nil) || delaying && (*a.Delayed != 6 || *a.MaxDelayMs != 600) {
			t.Errorf("%s: delayed %v, max_delay_ms %v; want 6 and 600 for the delaying limit, neither for the others", a.Name, a.Delayed, a.MaxDelayMs)
		}
	}

	text, _, _ := windowlab(t, "run", "testdata/nginx-delay.yaml")
	// Three columns pass 80: the third limiter's table is below the two.
	for _, re := range []string{`(?m)^\s+delayed\s+6\s+0$`, `(?m)^\s+longest delay\s+600ms\s+0s$`, `(?m)^\s+delayed\s+0$`, `(?m)^\s+longest delay\s+0s$`} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("the report lacks %s:\n%s", re, text)
		}
	}
	trace, _, _ := windowlab(t, "run", "testdata/nginx-delay.yaml", "--trace")
	if !strings.Contains(trace, "token-bucket/nginx          ◔  excess 4 of burst 4 → allow, delayed 600ms") {
		t.Errorf("the trace should mark the delayed request ◔ with its delay:\n%s", trace)
	}
	plain, _, _ := windowlab(t, "run", "token-bucket")
	if strings.Contains(plain, "delayed") {
		t.Errorf("a report without a delaying limiter has no delayed row:\n%s", plain)
	}
}

// Bad nginx settings on the command line and in a file are located and
// exit 2.
func TestNginxSettingsExitTwo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "testdata/replay/limit-req.log", "--algorithms", "token-bucket/nginx", "--delay", "-1"}, "--delay -1"},
		{[]string{"replay", "testdata/replay/limit-req.log", "--algorithms", "token-bucket/nginx", "--limit", "1", "--window", "1h"}, "nginx's smallest rate"},
		{[]string{"replay", "testdata/replay/limit-req.log", "--time-minus", "request_time"}, "--time-minus request_time"},
		{[]string{"run", writeFile(t, "bad.yaml", []byte("limit: 5\nwindow: 1s\ndelay: -2\nalgorithms: [token-bucket/nginx]\ntraffic:\n  - {at: \"12:00:00\", count: 1}\n"))}, "bad.yaml:3:"},
	} {
		_, errOut, code := windowlab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("windowlab %s: exit %d, %q; want exit 2 naming %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}
