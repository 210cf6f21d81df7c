package algo

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The lesson's race: 99 requests in, then two servers read the tally 1 ms
// apart, both before either write lands (2 ms): both read 99, both allow,
// and 101 get through a limit of 100. In one script, 100.
func TestRacyTallyLetsTheRaceThrough(t *testing.T) {
	cfg := Config{Limit: 100, Window: time.Minute}
	for _, k := range Lesson {
		racy, err := Algorithm{Kind: k, Racy: true, RTT: 2 * time.Millisecond}.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		atomic, _ := Algorithm{Kind: k}.New(cfg)
		for i := range 99 {
			at := Clock(12, 0, 0, 0) + Instant(10*i)
			racy.Allow(at, "c")
			atomic.Allow(at, "c")
		}
		a, b := racy.Allow(Clock(12, 0, 1, 0), "c"), racy.Allow(Clock(12, 0, 1, 1), "c")
		x, y := atomic.Allow(Clock(12, 0, 1, 0), "c"), atomic.Allow(Clock(12, 0, 1, 1), "c")
		if !a.Allowed || !b.Allowed || a.Count != 99 || b.Count != 99 {
			t.Errorf("%v racy: %+v and %+v; want both allowed, both reading 99", k, a, b)
		}
		if !x.Allowed || y.Allowed || y.Count != 100 {
			t.Errorf("%v atomic: %+v and %+v; want the first allowed, the second denied at 100", k, x, y)
		}
		if late := racy.Allow(Clock(12, 0, 1, 3), "c"); late.Allowed || late.Count != 101 {
			t.Errorf("%v racy, after the writes land: %+v; want denied, reading 101", k, late)
		}
		if a.Rules != (Rules{}) {
			t.Errorf("%v: the racy tally's decision says rules %+v", k, a.Rules)
		}
	}
}

// With no time between the read and the write, the racy tally is the
// atomic one, decision for decision, under every rule set.
func TestRacyTallyWithNoRoundTripIsAtomic(t *testing.T) {
	variants := append([]Rules{{}}, allRules()...)
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 0x5ace))
		s := randomStream(r, false)
		s.cfg.Rules = variants[seed%uint64(len(variants))]
		for _, k := range Lesson {
			racy, err := NewRacy(Algorithm{Kind: k, Rules: s.cfg.Rules}, s.cfg, 0)
			if k == KindSlidingCounter && s.cfg.Rules.WindowStart == WindowFirstEvent {
				if err == nil {
					t.Fatalf("a racy tally of windows from the first request was not refused")
				}
				continue // refused: its windows roll at every request, written or not
			}
			if err != nil {
				t.Fatal(err)
			}
			atomic := mustNew(t, k, s.cfg)
			for i, e := range s.events {
				if e.op != opAllow {
					continue
				}
				if got, want := racy.Allow(e.at, e.client), atomic.Allow(e.at, e.client); got != want {
					t.Fatalf("%v seed %d event %d %v: racy %+v, atomic %+v", k, seed, i, e, got, want)
				}
			}
		}
	}
}

// Against a model written from the definition: a request at t sees the
// earlier allowed requests whose writes landed by t (t_j + RTT ≤ t), and
// is allowed while those in its window are fewer than the limit; by name
// and by dense id alike.
func TestRacyTallyAgainstItsDefinition(t *testing.T) {
	type req struct {
		at      Instant
		client  string
		allowed bool
	}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 0x7ace))
		s := randomStream(r, false)
		s.cfg.Offset = 0
		rtt := time.Duration(r.Int64N(3*int64(s.cfg.Window/time.Millisecond)+1)) * time.Millisecond
		w := Instant(s.cfg.Window / time.Millisecond)
		for _, k := range []Kind{KindFixedWindow, KindSlidingLog} {
			racy, _ := NewRacy(Algorithm{Kind: k}, s.cfg, rtt)
			byID, _ := NewRacy(Algorithm{Kind: k}, s.cfg, rtt)
			names := NewNames()
			byID.UseNames(names)
			var seen []req
			for i, e := range s.events {
				if e.op != opAllow {
					continue
				}
				var in int64
				for _, p := range seen {
					if !p.allowed || p.client != e.client || p.at+Instant(rtt/time.Millisecond) > e.at {
						continue
					}
					same := floorDiv(int64(p.at), int64(w)) == floorDiv(int64(e.at), int64(w))
					if k == KindSlidingLog {
						same = p.at > e.at-w
					}
					if same {
						in++
					}
				}
				want := in < s.cfg.Limit
				got := racy.Allow(e.at, e.client)
				if got.Allowed != want || got.Count != in {
					t.Fatalf("%v seed %d (rtt %v) event %d %v: %+v; the definition sees %d, allowed %v", k, seed, rtt, i, e, got, in, want)
				}
				if id := byID.AllowID(e.at, names.ID(e.client)); id != got {
					t.Fatalf("%v seed %d event %d: by id %+v, by name %+v", k, seed, i, id, got)
				}
				seen = append(seen, req{e.at, e.client, got.Allowed})
			}
		}
	}
}

func TestParseRacy(t *testing.T) {
	a, err := ParseAlgorithm("sliding-counter/httprate~2ms")
	if want := (Algorithm{Kind: KindSlidingCounter, Rules: PresetHTTPRate.Rules, Racy: true, RTT: 2 * time.Millisecond}); err != nil || a != want {
		t.Fatalf("%+v %v", a, err)
	}
	if a.String() != "sliding-counter/httprate~2ms" || a.Title() != "Sliding window counter · go-chi/httprate · shared, GET then INCR 2ms apart" {
		t.Errorf("%q, %q", a.String(), a.Title())
	}
	if l, err := a.New(Config{Limit: 3, Window: time.Second}); err != nil || Of(l) != a {
		t.Errorf("New: %v %v", l, err)
	}
	for _, bad := range []string{"token-bucket~2ms", "fixed-window@3~2ms", "fixed-window~-1ms", "fixed-window~2", "fixed-window~1h"} {
		if _, err := ParseAlgorithm(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
