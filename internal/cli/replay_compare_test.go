package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"windowlab/internal/schematest"
	"windowlab/replay"
)

// --compare status counts, for each limiter, the requests it decided as
// the log's status says the server did (429 and 503 denied), against a
// brute force written apart: random small JSON logs of a few clients, in
// time order, some lines with no status (not compared, counted apart).
func TestReplayCompareAgreesWithABruteForce(t *testing.T) {
	const first = int64(1_796_083_200_000) // 2026-12-01T00:00:00Z, in ms
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 33))
		limit, window := int64(1+rng.IntN(4)), int64(100*(1+rng.IntN(20)))
		n := 5 + rng.IntN(60)
		type req struct {
			at     int64
			client int
			status int // 0: no status
		}
		var reqs []req
		at := first + rng.Int64N(3000)
		var b strings.Builder
		for range n {
			at += rng.Int64N(window / 2)
			r := req{at: at, client: rng.IntN(3), status: []int{200, 200, 204, 429, 503, 0}[rng.IntN(6)]}
			reqs = append(reqs, r)
			if r.status == 0 {
				fmt.Fprintf(&b, `{"ts":%d,"ip":"10.0.0.%d"}`+"\n", r.at, r.client)
			} else {
				fmt.Fprintf(&b, `{"ts":%d,"ip":"10.0.0.%d","status":%d}`+"\n", r.at, r.client, r.status)
			}
		}
		// The first line names the fields the log is planned from.
		if reqs[0].status == 0 {
			continue
		}
		// The brute force: each client's allowed instants, by limiter.
		agree := map[string]int{}
		compared, missing := 0, 0
		fixed, slog := map[int][]int64{}, map[int][]int64{}
		for _, r := range reqs {
			inFixed, inLog := 0, 0
			for _, a := range fixed[r.client] {
				if a/window == r.at/window {
					inFixed++
				}
			}
			for _, a := range slog[r.client] {
				if a > r.at-window {
					inLog++
				}
			}
			allowFixed, allowLog := inFixed < int(limit), inLog < int(limit)
			if allowFixed {
				fixed[r.client] = append(fixed[r.client], r.at)
			}
			if allowLog {
				slog[r.client] = append(slog[r.client], r.at)
			}
			if r.status == 0 {
				missing++
				continue
			}
			compared++
			server := r.status != 429 && r.status != 503
			if allowFixed == server {
				agree["Fixed window"]++
			}
			if allowLog == server {
				agree["Sliding window log"]++
			}
		}
		log := writeFile(t, "log.jsonl", []byte(b.String()))
		out, errOut, code := windowlab(t, "replay", log, "--limit", fmt.Sprint(limit), "--window", fmt.Sprintf("%dms", window),
			"--algorithms", "fixed-window,sliding-log", "--compare", "status")
		if code != 0 {
			t.Fatalf("seed %d: exit %d: %s", seed, code, errOut)
		}
		for _, name := range []string{"Fixed window", "Sliding window log"} {
			re := regexp.MustCompile(`(?m)^    ` + name + ` +([0-9,]+) of ([0-9,]+) `)
			m := re.FindStringSubmatch(out)
			if m == nil || m[1] != fmt.Sprint(agree[name]) || m[2] != fmt.Sprint(compared) {
				t.Errorf("seed %d, %d per %dms: %s should agree on %d of %d:\n%s\n%s", seed, limit, window, name, agree[name], compared, b.String(), out)
			}
		}
		wantMissing := ""
		if missing > 0 {
			wantMissing = fmt.Sprintf("not compared: %d request", missing)
		}
		if strings.Contains(out, "not compared") != (missing > 0) || !strings.Contains(out, wantMissing) {
			t.Errorf("seed %d: %d requests had no status:\n%s", seed, missing, out)
		}
	}
}

// An nginx log whose log_format appends $limit_req_status after the agent
// (a copy of combined.log, with a client's burst): the golden of the
// report, its agreement and its first disagreements, DELAYED counted as
// allowed, "-" (no limit_req there) not compared.
func TestReplayCompareReport(t *testing.T) {
	log := filepath.Join("testdata", "replay", "limit-req.log")
	out, errOut, code := windowlab(t, "replay", log, "--limit", "2", "--window", "10s", "--compare", "field:extra1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "limit-req.txt", out)
	out, errOut, code = windowlab(t, "replay", log, "--limits", "2,3", "--windows", "10s", "--compare", "field:extra1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "limit-req-sweep.txt", out)
	// The JSON holds the same figures as the text.
	jout, errOut, code := windowlab(t, "replay", log, "--limits", "2,3", "--windows", "10s", "--compare", "field:extra1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Missing  int64
		Settings []struct {
			Limiter         string
			Limit           int64
			Compared, Agree int64
			Disagreements   []struct{ Line int64 }
		}
	}
	if err := json.Unmarshal([]byte(jout), &doc); err != nil || len(doc.Settings) != 6 || doc.Missing != 1 {
		t.Fatalf("%v: %s", err, jout)
	}
	for _, e := range doc.Settings {
		want := map[int64][2]int64{2: {11, 12}, 3: {10, 12}}[e.Limit]
		if e.Agree != want[0] || e.Compared != want[1] || len(e.Disagreements) != int(want[1]-want[0]) || e.Disagreements[len(e.Disagreements)-1].Line != 13 {
			t.Errorf("%s at %d: %+v, want %d of %d as the text says", e.Limiter, e.Limit, e, want[0], want[1])
		}
	}
}

// A FIELD that is no field, one the log lacks, and a value that is
// neither allowed nor denied: exit 2, naming it (and the line).
func TestReplayCompareRefusesWhatItCannotRead(t *testing.T) {
	jsonl := writeFile(t, "log.jsonl", []byte(`{"ts":1796083200000,"ip":"a","status":200,"rl":"PASSED"}`+"\n"+
		`{"ts":1796083200001,"ip":"a","status":200,"rl":"maybe"}`+"\n"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare", "bogus"}, `--compare "bogus": name where the log holds the server's decision`},
		{[]string{"--compare", "field:"}, `--compare "field:"`},
		{[]string{"--compare", "field:limit_req_status"}, `--compare field:limit_req_status: the first record has no field "limit_req_status"`},
		{[]string{"--compare", "column:rl"}, `log.jsonl:2: --compare field:rl: "maybe" is neither allowed nor denied`},
		{[]string{"--denied", "d.csv", "--json"}, `--denied writes its file in process beside a text report or --compare's JSON`},
	} {
		out, errOut, code := windowlab(t, append([]string{"replay", jsonl}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("replay %s: exit %d, want 2 with %q:\n%s%s", strings.Join(c.args, " "), code, c.want, out, errOut)
		}
	}
}

// Lines a little out of order are decided in time order and each
// disagreement still names its own line: the line travels with the
// request through --reorder's queue and heap.
func TestReplayCompareNamesLinesOutOfOrder(t *testing.T) {
	log := writeFile(t, "ooo.jsonl", []byte(strings.Join([]string{
		`{"ts":1796083200000,"ip":"a","status":200}`,
		`{"ts":1796083200300,"ip":"a","status":200}`,
		`{"ts":1796083200100,"ip":"a","status":429}`,
		`{"ts":1796083200200,"ip":"b","status":200}`,
		`{"ts":1796083200150,"ip":"a","status":200}`}, "\n")+"\n"))
	out, errOut, code := windowlab(t, "replay", log, "--limit", "2", "--window", "1s", "--algorithms", "sliding-log", "--compare", "status")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// In time order: lines 1, 3, 5, 4, 2; the log admits a's first two (lines 1 and 3).
	re := regexp.MustCompile(`ooo\.jsonl:(\d+): a at \S+ (\S+): the server (\w+), the model (\w+)`)
	var got []string
	for _, m := range re.FindAllStringSubmatch(words(out), -1) { // each sentence however it wrapped
		got = append(got, m[1]+" "+m[2]+" "+m[3]+" "+m[4])
	}
	want := []string{"3 00:00:00.100 denied allowed", "5 00:00:00.150 allowed denied", "2 00:00:00.300 allowed denied"}
	if strings.Join(got, "|") != strings.Join(want, "|") || !strings.Contains(out, "2 of 5") {
		t.Errorf("disagreements %q, want %q:\n%s", got, want, out)
	}
}

// schema/compare.schema.json is what replay.CompareDocument gives
// (go test -run Schema -update-schemas ./internal/cli rewrites it).
func TestCompareSchema(t *testing.T) {
	schematest.Keep(t, "compare.schema.json", replay.CompareDocument{}, "windowlab replay --compare FIELD --json",
		"How often each limiter, at each setting, decided an access log's requests as the server did, by the decision the log holds; the first requests decided otherwise.")
}
