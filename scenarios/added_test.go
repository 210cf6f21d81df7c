package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"windowlab/algo"
	"windowlab/sim"
)

// allRecords are every record of a fresh engine over s, the source's client
// numbers left out (sim.Arrival.Number is how a source spares the engine a
// hash, not part of a decision).
func allRecords(t *rapid.T, s *Scenario) []sim.Record {
	e, err := s.Engine(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []sim.Record
	for {
		r, ok := e.Step()
		if !ok {
			return out
		}
		r.Arrival.Number = 0
		r.Decisions = append([]algo.Decision(nil), r.Decisions...)
		out = append(out, r)
	}
}

// TestPropAddedIsTheFile: traffic added at the clock (bursts and streams,
// the clock moved forward and back between them, some undone) decides
// exactly as the same traffic written in the file: the scenario w saves,
// read back, replays to the same records as the engine that took the
// additions live, and every request decided live is the file's.
func TestPropAddedIsTheFile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		noon := algo.Clock(12, 0, 0, 0)
		cfg := algo.Config{Limit: rapid.Int64Range(1, 6).Draw(t, "limit"), Window: time.Duration(rapid.Int64Range(2, 50).Draw(t, "window")) * time.Millisecond}
		algos := []algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingLog}, {Kind: algo.KindSlidingCounter}, {Kind: algo.KindTokenBucket}}
		base, err := Empty("prop", "", cfg, algos, noon)
		if err != nil {
			t.Fatal(err)
		}
		if rapid.Bool().Draw(t, "file traffic") {
			base.Traffic = []Traffic{
				{Shape: Burst, Client: "ann", At: noon + algo.Instant(rapid.Int64Range(0, 100).Draw(t, "burst at")), Count: rapid.Int64Range(1, 9).Draw(t, "burst")},
				{Shape: Stream, Client: "bob", From: noon, To: noon + 150, Every: time.Duration(rapid.Int64Range(1, 9).Draw(t, "every")) * time.Millisecond},
			}
		}
		e, err := base.Engine(sim.Options{History: true})
		if err != nil {
			t.Fatal(err)
		}
		var added []Traffic
		var runs []int // runs injected per addition, for undo
		for range rapid.IntRange(1, 12).Draw(t, "ops") {
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0, 1:
				now := e.Now()
				client := rapid.SampledFrom([]string{"ann", "bob", "cy"}).Draw(t, "client")
				tr := Traffic{Shape: Burst, Client: client, At: now, Count: rapid.Int64Range(1, 12).Draw(t, "count")}
				if rapid.Bool().Draw(t, "stream") {
					tr = Traffic{Shape: Stream, Client: client, From: now, To: now + algo.Instant(rapid.Int64Range(1, 60).Draw(t, "span")),
						Every: time.Duration(rapid.Int64Range(1, 7).Draw(t, "every")) * time.Millisecond}
				}
				if _, err := base.WithTraffic(append(added, tr)); err != nil {
					t.Fatal(err)
				}
				rs := tr.Runs(now, now+1<<40)
				if err := e.Inject(rs); err != nil {
					t.Fatal(err)
				}
				added, runs = append(added, tr), append(runs, len(rs))
				e.Seek(rs[len(rs)-1].At)
			case 2:
				if len(added) == 0 {
					continue
				}
				if err := e.Uninject(runs[len(runs)-1]); err != nil {
					t.Fatal(err)
				}
				added, runs = added[:len(added)-1], runs[:len(runs)-1]
			case 3:
				e.SeekIndex(max(0, e.Processed()-rapid.Int64Range(0, 30).Draw(t, "back")))
			}
		}
		played, err := base.WithTraffic(added)
		if err != nil {
			t.Fatal(err)
		}
		if len(played.Traffic) == 0 {
			return // an empty list is no file
		}
		file, err := Parse("played.yaml", played.YAML("a property's file"))
		if err != nil {
			t.Fatalf("the saved scenario does not read back: %v\n%s", err, played.YAML(""))
		}
		want := allRecords(t, file)
		e.SeekIndex(0)
		for i := range want {
			r, ok := e.Step()
			if !ok {
				t.Fatalf("the live engine ends at %d, the file at %d", i, len(want))
			}
			r.Arrival.Number = 0
			if !reflect.DeepEqual(r.Decisions, want[i].Decisions) || r.Arrival != want[i].Arrival || r.Index != want[i].Index {
				t.Fatalf("record %d: live %+v, from the file %+v", i, r, want[i])
			}
		}
		if _, ok := e.Step(); ok {
			t.Fatal("the live engine has more records than the file")
		}
	})
}

// TestWithTrafficRefuses: what the view's prompts refuse, and the file's
// request budget, leave the scenario as it was.
func TestWithTrafficRefuses(t *testing.T) {
	s, err := Empty("play", "", algo.Config{Limit: 100, Window: time.Minute}, []algo.Algorithm{{Kind: algo.KindFixedWindow}}, algo.Clock(12, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	at := algo.Clock(12, 0, 59, 0)
	for _, c := range []struct {
		tr   Traffic
		want string
	}{
		{Traffic{Shape: Burst, Client: "bob", At: at, Count: 0}, "a burst of 0"},
		{Traffic{Shape: Burst, Client: "bob", At: at, Count: 1_000_000_000_000}, "a burst of 1,000,000,000,000"},
		{Traffic{Shape: Burst, Client: "b\x1bob", At: at, Count: 1}, "not a client name"},
		{Traffic{Shape: Burst, Client: " bob", At: at, Count: 1}, "not a client name"},
		{Traffic{Shape: Stream, Client: "bob", From: at, To: at, Every: time.Millisecond}, "a stream every"},
		{Traffic{Shape: Random, Client: "bob", From: at, To: at + 1000, Rate: 1, Clients: 1}, "cannot be added"},
	} {
		if _, err := s.WithTraffic([]Traffic{c.tr}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.tr, err, c.want)
		}
	}
	full := []Traffic{{Shape: Burst, Client: "bob", At: at, Count: MaxRequests}}
	if _, err := s.WithTraffic(full); err != nil {
		t.Fatalf("the budget itself is refused: %v", err)
	}
	_, err = s.WithTraffic(append(full, Traffic{Shape: Burst, Client: "bob", At: at, Count: 1}))
	if err == nil || !strings.Contains(err.Error(), "at most 50,000,000") {
		t.Fatalf("one past the budget: %v", err)
	}
	if len(s.Traffic) != 0 {
		t.Fatal("a refusal changed the scenario")
	}
}
