package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/internal/long"
)

// maxInWindow is the figure by brute force from the decisions: for each
// request a limiter admitted, how many it admitted to that client in the
// window ending there; the first time a count beats the best so far wins.
type maxInWindow struct {
	n           int64
	client      string
	first, last algo.Instant
}

func bruteMaxInWindow(arrivals []Arrival, allowed [][]bool, k int, w algo.Instant) maxInWindow {
	var best maxInWindow
	for i, a := range arrivals {
		if !allowed[i][k] {
			continue
		}
		n, first := int64(0), a.At
		for j := i; j >= 0 && arrivals[j].At > a.At-w; j-- {
			if allowed[j][k] && arrivals[j].Client == a.Client {
				n, first = n+1, arrivals[j].At
			}
		}
		if n > best.n {
			best = maxInWindow{n, a.Client, first, a.At}
		}
	}
	return best
}

// The engine's most-admitted-in-one-window agrees with brute force on
// random traffic, for every kind of limiter and rule set, including a log
// that counts rejected requests (which keeps more than it admitted, so the
// engine tracks its admissions itself), with expiry on and off, whichever
// route the engine took.
func TestMaxInWindowAgainstBruteForce(t *testing.T) {
	cases := long.N(150, 1500)
	for seed := range uint64(cases) {
		r := rand.New(rand.NewPCG(seed, 77))
		window := time.Duration(r.IntN(5)+1) * time.Second
		cfg := algo.Config{Limit: int64(r.IntN(6) + 1), Window: window, NoExpiry: r.IntN(3) == 0}
		var ls []algo.Limiter
		for _, k := range algo.All {
			l, _ := algo.New(k, cfg)
			ls = append(ls, l)
		}
		for _, p := range algo.Presets {
			c := cfg
			c.Rules = p.Rules
			l, _ := algo.New(p.Kind, c)
			ls = append(ls, l)
		}
		counting := cfg
		counting.Rules.CountRejected = true
		l, _ := algo.New(algo.KindSlidingLog, counting)
		ls = append(ls, l)

		var arrivals []Arrival
		at := algo.Instant(r.IntN(1000))
		for range r.IntN(120) + 1 {
			at += algo.Instant(r.IntN(700))
			if r.IntN(3) == 0 {
				at += 0 // a burst: the same instant again
			}
			for range r.IntN(3) + 1 {
				arrivals = append(arrivals, Arrival{At: at, Client: []string{"a", "b", "c"}[r.IntN(3)]})
			}
		}
		checkMaxInWindow(t, seed, r, arrivals, ls, window, 10)
	}
}

// With as many tracked limiters as an engine takes, a record's inline runs
// count at most 3 requests each (its masks take the rest of their words):
// bursts spill to the buffer, and the figure is still brute force's.
func TestMaxInWindowWithEveryLimiterTracked(t *testing.T) {
	cases := long.N(20, 200)
	kinds := []algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingCounter}, {Kind: algo.KindTokenBucket}}
	for _, p := range algo.Presets {
		kinds = append(kinds, algo.Algorithm{Kind: p.Kind, Rules: p.Rules})
	}
	for seed := range uint64(cases) {
		r := rand.New(rand.NewPCG(seed, 78))
		cfg := algo.Config{Limit: int64(r.IntN(8) + 1), Window: time.Duration(r.IntN(3)+1) * time.Second}
		var ls []algo.Limiter
		for len(ls) < MaxLimiters {
			l, err := kinds[len(ls)%len(kinds)].New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ls = append(ls, l)
		}
		var arrivals []Arrival
		at := algo.Instant(r.IntN(1000))
		for range r.IntN(200) + 1 {
			at += algo.Instant(r.IntN(400))
			for range 1 + r.IntN(6) {
				arrivals = append(arrivals, Arrival{At: at, Client: []string{"a", "b"}[r.IntN(2)]})
			}
		}
		checkMaxInWindow(t, seed, r, arrivals, ls, cfg.Window, 20)
	}
}

// checkMaxInWindow replays arrivals through an engine of ls, stepping back
// and on again by replay once in every seekEvery arrivals, and holds each
// limiter's most admitted in one window to brute force's.
func checkMaxInWindow(t *testing.T, seed uint64, r *rand.Rand, arrivals []Arrival, ls []algo.Limiter, window time.Duration, seekEvery int) {
	t.Helper()
	e, err := New(NewSliceSource(arrivals), ls, Options{})
	if err != nil {
		t.Fatal(err)
	}
	allowed := make([][]bool, len(arrivals))
	for i := range arrivals {
		rec, _ := e.Step()
		for _, d := range rec.Decisions {
			allowed[i] = append(allowed[i], d.Allowed)
		}
		if r.IntN(seekEvery) == 0 {
			e.SeekIndex(int64(r.IntN(i + 1))) // back, from a checkpoint's copy, and on again by replay
			e.SeekIndex(int64(i + 1))
		}
	}
	for k, s := range e.Stats() {
		want := bruteMaxInWindow(arrivals, allowed, k, algo.Instant(window/time.Millisecond))
		got := maxInWindow{s.MaxInWindow, s.MaxInWindowClient, s.MaxInWindowFirst, s.MaxInWindowLast}
		if want.n == 0 {
			got.client, got.first, got.last = "", 0, 0
		}
		if got != want {
			t.Fatalf("seed %d, limiter %d (%v): got %+v, want %+v", seed, k, s.Algorithm, got, want)
		}
	}
}
