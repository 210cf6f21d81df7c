package cli

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"windowlab/internal/schematest"
	"windowlab/replay"
)

// --recommend on a small log of fourteen clients, two heavy: its report
// as a golden file; its JSON meets its schema and picks the same limits.
func TestReplayRecommend(t *testing.T) {
	log := filepath.Join("testdata", "replay", "recommend.log")
	out, errOut, code := windowlab(t, "replay", log, "--recommend", "--deny-at-most", "10%")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "recommend.txt", out)
	js, errOut, code := windowlab(t, "replay", log, "--recommend", "--deny-at-most", "10%", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	schematest.Validate(t, "recommend.schema.json", []byte(js))
	var doc replay.RecommendDocument
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Smallest) != 3 || doc.Clients != 14 || doc.DenyAtMost != "10%" || !doc.Complete {
		t.Fatalf("%+v", doc)
	}
	if r0, r1 := doc.Smallest[0].Round, doc.Smallest[1].Round; r0 == nil || r0.Limit != 20 || r1 == nil || r1.Limit != 50 {
		t.Errorf("round limits: %+v, %+v; want 20 for the fixed window (its pick, round already) and 50 for the log", r0, r1)
	}
	for _, p := range doc.Smallest {
		if !p.Found || p.At == nil || !strings.Contains(out, replay.PerWindow(p.At.Limit, 60_000_000_000)+" ") {
			t.Errorf("%s: %+v, not in the text report", p.Algorithm, p.At)
		}
	}
}

// schema/recommend.schema.json is what replay --recommend --json's Go
// types give.
func TestRecommendSchema(t *testing.T) {
	schematest.Keep(t, "recommend.schema.json", replay.RecommendDocument{}, "windowlab replay --recommend --json",
		"each client's peak in one window, as percentiles over clients and a histogram; what candidate limits deny; each limiter's smallest limit denying at most a share of clients")
}

// A bad --deny-at-most, or --recommend with what it cannot do, is a usage
// error naming the flag, before the log is read.
func TestReplayRecommendRefusals(t *testing.T) {
	log := filepath.Join("testdata", "replay", "recommend.log")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--deny-at-most", "abc"}, `--deny-at-most "abc": give a share of clients as a percentage`},
		{[]string{"--deny-at-most", "150%"}, `--deny-at-most "150%"`},
		{[]string{"--deny-at-most=-1%"}, `--deny-at-most "-1%"`},
		{[]string{"--deny-at-most", "0.1"}, `--deny-at-most "0.1"`},
		{[]string{"--windows", "1m,1h"}, "--recommend finds the limit for one --window"},
		{[]string{"--tui"}, "not with --save, --tui or --store"},
		{[]string{"--compare", "status"}, "--recommend searches limits of its own; give it without --compare and --denied"},
		{[]string{"--denied", "denied.csv"}, "--recommend searches limits of its own"},
	} {
		args := append([]string{"replay", log, "--recommend"}, c.args...)
		if out, errOut, code := windowlab(t, args...); code != 2 || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("windowlab %s: exit %d, want 2 and %q:\n%s%s", strings.Join(args, " "), code, c.want, out, errOut)
		}
	}
}

// --recommend holds each request's instant, 8 bytes, grouped by client
// for the peaks: the memory budget counts them as the log is read and
// refuses, exit 2, saying so, a log the plain replay fits.
func TestReplayRecommendMemoryBudget(t *testing.T) {
	same := logOf(t, "same.log", func(w io.Writer) { identicalLines(w, 1_000_000) })
	withBudget(t, 4<<20)
	if _, errOut, code := windowlab(t, "replay", same); code != 0 {
		t.Fatalf("the plain replay: exit %d\n%s", code, errOut)
	}
	out, errOut, code := windowlab(t, "replay", same, "--recommend")
	for _, want := range []string{"same.log:", "more than the 4 MiB", " MiB for each request's instant, grouped by client, for --recommend's peaks", "; cut the log to the hours you want"} {
		if code != 2 || out != "" || !strings.Contains(errOut, want) {
			t.Fatalf("exit %d, want 2 and %q:\n%s%s", code, want, out, errOut)
		}
	}
}

// A bucket's capacity does not grow with the limit: where a client's burst
// is larger than nginx's burst + 1, no limit lets it through, and the
// recommendation says so and names the setting to change, not the limit.
func TestReplayRecommendABucketTooSmall(t *testing.T) {
	log := filepath.Join("testdata", "replay", "recommend.log")
	out, errOut, code := windowlab(t, "replay", log, "--recommend", "--deny-at-most", "10%", "--algorithms", "token-bucket/nginx,fixed-window")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Read as words, across the lines the sentence wraps onto.
	if !strings.Contains(words(out), "Token bucket · nginx limit_req: none at burst 0 (a bucket of 1): a client's burst of more is turned away at every limit tried; try a larger --burst.") {
		t.Errorf("nginx's default burst: no line naming it:\n%s", out)
	}
	if strings.Contains(out, "even a limit of a client's every request") {
		t.Errorf("the fixed window found no limit:\n%s", out)
	}
	if !strings.Contains(out, " burst 0 ") {
		t.Errorf("nginx's candidate rows do not name its burst 0:\n%s", out)
	}
}
