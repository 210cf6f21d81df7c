package scenarios

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// randomRuns are n runs in time order from 2026-11-30 23:58, of clients
// with awkward names (quotes, backslashes, tabs, non-ASCII, escapes a
// terminal would act on, none at all), a quarter of them of up to most
// requests.
func randomRuns(rng *rand.Rand, n int, most int64) []Run {
	names := []string{`10.0.0.1`, `2001:db8::1`, `a "quoted" key`, `back\slash`, "tab\there", "café ☕", "key /api/items?page=2",
		"\x1b]0;PWNED\x07\x1b[2J\u202e", "", "a\nb\x00", " spaced ", `"\x1b]0;PWNED\a\x1b[2J\u202e"`, "\u3164", "bad\xffbyte"}
	for i := range 200 {
		names = append(names, fmt.Sprintf("10.1.%d.%d", i/250, i%250))
	}
	at := algo.Instant(time.Date(2026, 11, 30, 23, 58, 0, 0, time.UTC).UnixMilli())
	var runs []Run
	for range n {
		if rng.IntN(3) > 0 {
			at += algo.Instant(rng.IntN(2000))
		}
		count := int64(1)
		if rng.IntN(4) == 0 {
			count = 1 + rng.Int64N(most)
		}
		runs = append(runs, Run{At: at, Client: names[rng.IntN(len(names))], Count: count})
	}
	return runs
}

func arrivalsOf(s *Scenario) []sim.Arrival { return drain(s.Source()) }

// A recorded file written, then parsed from memory, loaded from disk as
// it streams, or built without writing it (Record) is one scenario: the
// same settings, start, requests in the same order and load.
func TestRecordedFileRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	cfg := algo.Config{Limit: 7, Window: 20 * time.Second}
	algos := []algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingCounter, Rules: algo.PresetHTTPRate.Rules}}
	for round := range 5 {
		runs := randomRuns(rng, 1+rng.IntN(3000), 300)
		rec := Recorded{From: "/var/log/nginx/access.log.1.gz", Config: cfg, Algorithms: algos}
		var file bytes.Buffer
		if err := WriteRecorded(&file, rec, slices.Values(runs)); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "saved.yaml")
		if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		parsed, err := Parse("saved.yaml", file.Bytes())
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		loaded, err := LoadContext(context.Background(), path)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		built, err := Record(rec, slices.Values(runs))
		if err != nil {
			t.Fatal(err)
		}
		// Built from the log, a scenario keeps its keys exactly; saved, it
		// names each by its savedName, which tells them apart as well.
		var exact, saved []sim.Arrival
		for _, r := range runs {
			for range r.Count {
				exact = append(exact, sim.Arrival{At: r.At, Client: r.Client})
				saved = append(saved, sim.Arrival{At: r.At, Client: savedName(r.Client)})
			}
		}
		for name, s := range map[string]*Scenario{"parsed": parsed, "loaded": loaded, "built": built} {
			want := saved
			if name == "built" {
				want = exact
			}
			if s.Name != "access-log-1" || s.Title != "access.log.1.gz: your traffic" || s.Config != cfg || !slices.Equal(s.Algorithms, algos) {
				t.Errorf("round %d, %s: name %q title %q config %+v algorithms %v", round, name, s.Name, s.Title, s.Config, s.Algorithms)
			}
			if s.Start != runs[0].At.Truncate(cfg.Window) || s.Len() != int64(len(want)) {
				t.Errorf("round %d, %s: start %v, len %d; want %v and %d", round, name, s.Start, s.Len(), runs[0].At.Truncate(cfg.Window), len(want))
			}
			if got := arrivalsOf(s); !slices.Equal(got, want) {
				t.Errorf("round %d, %s: the arrivals differ from the runs written", round, name)
			}
			got, wantLoad := s.Load(), parsed.Load()
			if name == "built" && got.KeyBytes <= wantLoad.KeyBytes {
				got.KeyBytes = wantLoad.KeyBytes // its exact keys, no longer than their Visible forms
			}
			if got != wantLoad || got.Runs != int64(len(runs)) {
				t.Errorf("round %d, %s: load %+v, want %+v with %d runs", round, name, got, wantLoad, len(runs))
			}
		}
		// The most runs in a window, counted directly.
		most := 0
		for i := range runs {
			j := i
			for j < len(runs) && runs[j].At < runs[i].At+20_000 {
				j++
			}
			most = max(most, j-i)
		}
		if got := parsed.Load().RunsInWindow; got != int64(most) {
			t.Errorf("round %d: %d runs in a window, want %d", round, got, most)
		}
	}
}

// A what-if of a recorded scenario (another limit, no expiry) written from
// the view reads back as recorded again, with its settings and the same
// requests (a log's keys by their saved names); so does a what-if of
// that, name for name; a hand-written scenario with dated instants does
// too.
func TestWhatIfOfRecordedTrafficReadsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	runs := randomRuns(rng, 500, 300)
	s, err := Record(Recorded{From: "access.log", Config: algo.Config{Limit: 5, Window: time.Minute}, Algorithms: lessonAlgorithms()}, slices.Values(runs))
	if err != nil {
		t.Fatal(err)
	}
	hand, err := Parse("dated.yaml", []byte("limit: 2\nwindow: 1s\ntraffic:\n  - {at: \"2026-11-30T23:59:59.250Z\", count: 3}\n  - {from: \"2026-11-30T23:59:59.900Z\", to: \"2026-12-01T00:00:01.000Z\", every: 100ms, client: b}\n"))
	if err != nil {
		t.Fatal(err)
	}
	visible := func(as []sim.Arrival) []sim.Arrival {
		for i := range as {
			as[i].Client = savedName(as[i].Client)
		}
		return as
	}
	var back *Scenario
	for _, orig := range []*Scenario{s, nil, hand} {
		if orig == nil {
			orig = back // read from a file: its names stay as they are
		}
		w, err := orig.WhatIf(algo.Config{Limit: 9, Window: 30 * time.Second, NoExpiry: true}, lessonAlgorithms()[:2])
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		bw := bufio.NewWriter(&out)
		if err := w.WriteYAML(bw, "What if: a test\nsecond line"); err != nil {
			t.Fatal(err)
		}
		bw.Flush()
		back, err = Parse("what-if.yaml", out.Bytes())
		if err != nil {
			t.Fatalf("%s: the what-if does not read back: %v\n%s", orig.File, err, out.String()[:min(out.Len(), 600)])
		}
		if recorded, was := back.rec != nil, orig.rec != nil; recorded != was {
			t.Errorf("%s: recorded %v after the what-if", orig.File, recorded)
		}
		if back.Config != w.Config || !slices.Equal(back.Algorithms, w.Algorithms) || back.Start != w.Start {
			t.Errorf("%s: read back %+v %v %v, want %+v %v %v", orig.File, back.Config, back.Algorithms, back.Start, w.Config, w.Algorithms, w.Start)
		}
		want := arrivalsOf(orig)
		if orig == s {
			want = visible(want)
		}
		if !reflect.DeepEqual(arrivalsOf(back), want) {
			t.Errorf("%s: the what-if's requests differ", orig.File)
		}
	}
}

// Far past the 50,000 runs the YAML library could take: a log's traffic
// of a few hundred thousand runs reads back in a few bytes a run.
func TestRecordedFilesAtScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	runs := randomRuns(rng, 400_000, 3)
	var file bytes.Buffer
	if err := WriteRecorded(&file, Recorded{From: "big.log", Config: algo.Config{Limit: 100, Window: time.Minute}, Algorithms: lessonAlgorithms()}, slices.Values(runs)); err != nil {
		t.Fatal(err)
	}
	s, err := Parse("big.yaml", file.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if s.rec == nil {
		t.Fatal("not read as recorded traffic")
	}
	if s.rec.runs != int64(len(runs)) || len(s.rec.clients) != 214 {
		t.Fatalf("%d runs of %d clients, want %d of 214", s.rec.runs, len(s.rec.clients), len(runs))
	}
	var stored int
	for _, c := range s.rec.chunks {
		stored += len(c)
	}
	if per := float64(stored) / float64(len(runs)); per > 8 {
		t.Errorf("%.1f bytes a run stored; want at most 8", per)
	}
	e, err := s.Engine(sim.Options{ForwardOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToEnd()
	var total int64
	for _, r := range runs {
		total += r.Count
	}
	if st := e.Stats()[0]; st.Allowed+st.Denied != total {
		t.Errorf("decided %d requests, want %d", st.Allowed+st.Denied, total)
	}
}

// Whatever a log's keys are, their saved names are names a recorded file
// may hold, and two keys stay two clients: a key that looks like another's
// quoted form included.
func TestSavedNamesKeepKeysApart(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 29))
	alphabet := []string{"a", " ", `"`, `\`, "x1b", "\x00", "\a", "\x1b", "\n", "\x7f", "\u0085", "\u009b", "\u00a0", "\u200b", "\u202e", "\u2066", "\u3164", "\u0301", "é", "\xff"}
	seen := map[string]string{}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(7) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		key := b.String()
		name := savedName(key)
		if !clientName(name) || human.Acts(name) >= 0 {
			t.Fatalf("savedName(%q) = %q, not a client name", key, name)
		}
		if other, dup := seen[name]; dup && other != key {
			t.Fatalf("savedName(%q) = savedName(%q) = %s", key, other, name)
		}
		seen[name] = key
	}
}

// Reading a run of a known client without escapes costs no allocation:
// a file of twice the runs allocates about as often.
func TestRecordedRunsReadWithoutAllocating(t *testing.T) {
	allocs := func(n int) float64 {
		var runs []Run
		for i := range n {
			runs = append(runs, Run{At: algo.Dated + algo.Instant(i), Client: fmt.Sprintf("10.0.0.%d", i%200), Count: 1})
		}
		var file bytes.Buffer
		if err := WriteRecorded(&file, Recorded{From: "a.log", Config: algo.Config{Limit: 100, Window: time.Minute}, Algorithms: lessonAlgorithms()}, slices.Values(runs)); err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(3, func() {
			if _, err := Parse("a.yaml", file.Bytes()); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(20_000), allocs(40_000)
	if large-small > 200 {
		t.Errorf("20,000 runs more cost %.0f allocations more (%.0f, then %.0f)", large-small, small, large)
	}
}
