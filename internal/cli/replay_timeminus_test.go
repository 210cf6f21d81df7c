package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"windowlab/replay"
)

// nginx logs $msec when a request ends: a delayed one is logged after
// requests that came after it. --time-minus request_time takes each
// request back to when it began, when limit_req decided it, and the
// preset then agrees with every decision; without it, it cannot.
// (1 r/s, burst=1: alice's second request at 0 ms is delayed 1 s; her
// third at 300 ms finds excess 1000 − 300 + 1000 = 1.7 > 1, rejected.)
func TestReplayTimeMinus(t *testing.T) {
	log := writeFile(t, "nginx.jsonl", []byte(
		`{"msec":"1796294400.000","request_time":"0.000","limit_req":"PASSED","client":"alice"}`+"\n"+
			`{"msec":"1796294400.300","request_time":"0.000","limit_req":"REJECTED","client":"alice"}`+"\n"+
			`{"msec":"1796294401.000","request_time":"1.000","limit_req":"DELAYED","client":"alice"}`+"\n"+
			// bob: his first at 2 s, a second in the same ms (excess 1, delayed
			// 1 s), a third 1 s later: 1000 − 1000 + 1000 = 1 ≤ 1, admitted,
			// and 1 ms earlier refused (1.001 > 1): within 1 ms of flipping.
			`{"msec":"1796294402.000","request_time":"0.000","limit_req":"PASSED","client":"bob"}`+"\n"+
			`{"msec":"1796294403.000","request_time":"1.000","limit_req":"DELAYED","client":"bob"}`+"\n"+
			`{"msec":"1796294404.000","request_time":"1.000","limit_req":"DELAYED","client":"bob"}`+"\n"))
	args := []string{"replay", log, "--key", "field:client", "--compare", "field:limit_req",
		"--algorithms", "token-bucket/nginx", "--limit", "1", "--window", "1s", "--burst", "1", "--json"}
	compare := func(extra ...string) replay.CompareEntry {
		t.Helper()
		out, errOut, code := windowlab(t, append(args, extra...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var doc replay.CompareDocument
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Settings[0]
	}
	if s := compare("--time-minus", "request_time"); s.Agree != 6 || s.Compared != 6 || s.NearFlip != 1 {
		t.Errorf("with --time-minus: %d of %d agree, %d within 1 ms of flipping; want 6 of 6 and 1 (bob's third): %+v", s.Agree, s.Compared, s.NearFlip, s.Disagreements)
	}
	if s := compare(); s.Agree == s.Compared {
		t.Errorf("without --time-minus the log's end times cannot agree with nginx, yet %d of %d do", s.Agree, s.Compared)
	}
	text, _, _ := windowlab(t, append(args[:len(args)-1], "--time-minus", "request_time")...)
	if !strings.Contains(words(text), "1 request within 1 ms of flipping") {
		t.Errorf("the text should say how many sat within 1 ms of flipping:\n%s", text)
	}
}
