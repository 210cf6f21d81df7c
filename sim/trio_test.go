package sim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"windowlab/algo"
)

// TestFiguresOnlyMatchesTheEngine decides random traffic (bursts, quiet
// windows, a few busy clients among many, many at one instant, windows
// moved by an offset, the limiters in another order, one setting or a
// sweep's pass of two) twice: by the engine limiter by limiter and by
// Options.FiguresOnly's Trios. Each request's Allowed and, at the end,
// every figure of Stats must be the same, and the Trios must be what
// decided.
func TestFiguresOnlyMatchesTheEngine(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 11))
		window := time.Duration(1+rng.IntN(3000)) * time.Millisecond
		cfg := algo.Config{Limit: int64(1 + rng.IntN(8)), Window: window}
		if seed%2 == 1 {
			cfg.Offset = time.Duration(rng.Int64N(int64(window/time.Millisecond))) * time.Millisecond
		}
		kinds := append([]algo.Kind(nil), algo.Lesson...)
		if seed%3 == 0 {
			rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
		}
		var arrivals []Arrival
		at := algo.Instant(1_800_000_000_000)
		clients := 1 + rng.IntN(60)
		for range 4000 {
			switch r := rng.IntN(30); {
			case r == 0:
				at += algo.Instant(rng.Int64N(5 * int64(window/time.Millisecond)))
			case r < 12:
				at += algo.Instant(rng.Int64N(int64(window/time.Millisecond)/5 + 1))
			}
			c := rng.IntN(clients)
			if rng.IntN(2) == 0 {
				c = rng.IntN(min(3, clients))
			}
			arrivals = append(arrivals, Arrival{At: at, Client: fmt.Sprintf("10.0.%d.%d", c/250, c%250)})
		}
		// Every third seed, a sweep's pass: a second setting of another limit.
		limits := []int64{cfg.Limit}
		if seed%3 == 1 {
			limits = append(limits, cfg.Limit+1+rng.Int64N(5))
		}
		t.Run(fmt.Sprintf("seed %d %v %v limits %v", seed, cfg, kinds, limits), func(t *testing.T) {
			figuresOnlyAsTheEngine(t, arrivals, cfg, kinds, limits)
		})
	}
}

// TestFiguresOnlySplitsWhileItMust: a client's record of what its fixed
// window and counter admitted is kept only while its limiters disagree in
// the window (trioRun.split), and must be kept until nothing any of them
// admitted is left in it.
func TestFiguresOnlySplitsWhileItMust(t *testing.T) {
	for name, c := range map[string]struct {
		limit int64
		at    []algo.Instant
		most  [3]int64
	}{
		// They first disagree at 1000, the fixed window alone admitting
		// twice; at 1500 the log alone admits. At 2100 what the fixed
		// window and the counter admitted (by 1100) has left the window,
		// but the log's 1500 has not: taken for theirs, the log's count
		// (2) made the counter's most in one window 3.
		"the log's own timestamp": {2, []algo.Instant{100, 400, 500, 1000, 1000, 1100, 1500, 2100, 2100, 2800}, [3]int64{4, 2, 2}},
		// The counter alone denies at 2000 and alone admits at 2800. At
		// 3700 the log holds nothing before it, but the counter's 2800 is
		// in the window: forgotten, its most in one window was 1, not 2.
		"the counter's own admission": {1, []algo.Instant{1000, 1100, 2000, 2800, 3700, 4800, 5000}, [3]int64{2, 1, 2}},
	} {
		t.Run(name, func(t *testing.T) {
			const base = algo.Instant(1_800_000_000_000)
			var arrivals []Arrival
			for _, at := range c.at {
				arrivals = append(arrivals, Arrival{At: base + at, Client: "a"})
			}
			cfg := algo.Config{Limit: c.limit, Window: time.Second}
			got := figuresOnlyAsTheEngine(t, arrivals, cfg, algo.Lesson, []int64{c.limit})
			for i, want := range c.most {
				if n := got[i].MaxInWindow; n != want {
					t.Errorf("%v: most in one window %d, want %d", got[i].Kind, n, want)
				}
			}
		})
	}
}

// figuresOnlyAsTheEngine decides arrivals by the engine limiter by
// limiter and by FiguresOnly's Trios (kinds in that order, a setting a
// limit) and fails unless each request's Allowed and every figure are the
// same, also after a step back; it returns the figures.
func figuresOnlyAsTheEngine(t *testing.T, arrivals []Arrival, cfg algo.Config, kinds []algo.Kind, limits []int64) []Stats {
	t.Helper()
	engine := func(figuresOnly bool) *Engine {
		var ls []algo.Limiter
		for _, limit := range limits {
			c := cfg
			c.Limit = limit
			for _, k := range kinds {
				l, err := algo.New(k, c)
				if err != nil {
					t.Fatal(err)
				}
				ls = append(ls, l)
			}
		}
		e, err := New(NewSliceSource(arrivals), ls, Options{ForwardOnly: true, FiguresOnly: figuresOnly, AnyLimits: len(limits) > 1})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	want, got := engine(false), engine(true)
	if r := got.trio; r == nil || len(r.d) != len(limits) {
		t.Fatal("FiguresOnly with the lesson's three limiters did not decide by a Trio, a member a setting")
	}
	for {
		w, ok := want.StepNumbered()
		g, gok := got.StepNumbered()
		if ok != gok {
			t.Fatalf("one engine ended before the other")
		}
		if !ok {
			break
		}
		for i := range w.Decisions {
			if w.Decisions[i].Allowed != g.Decisions[i].Allowed || w.Arrival != g.Arrival {
				t.Fatalf("request %d (%v): limiter %d allowed %v, FiguresOnly's %v", w.Index, w.Arrival, i, w.Decisions[i].Allowed, g.Decisions[i].Allowed)
			}
		}
	}
	if !reflect.DeepEqual(got.Stats(), want.Stats()) {
		t.Errorf("FiguresOnly's figures differ from the engine's:\n got %+v\nwant %+v", got.Stats(), want.Stats())
	}
	// Back to the middle and on to the end again: a forward-only
	// engine replays from its start, its Trios afresh.
	got.SeekIndex(int64(len(arrivals) / 2))
	got.RunToEnd()
	if !reflect.DeepEqual(got.Stats(), want.Stats()) {
		t.Errorf("after a step back, FiguresOnly's figures differ from the engine's:\n got %+v\nwant %+v", got.Stats(), want.Stats())
	}
	return got.Stats()
}

// TestFiguresOnlyNeedsTheThree: another set of limiters, other rules or
// a history keep the engine's own way, with FiguresOnly or not.
func TestFiguresOnlyNeedsTheThree(t *testing.T) {
	cfg := algo.Config{Limit: 3, Window: time.Second}
	mk := func(a ...algo.Algorithm) []algo.Limiter {
		var ls []algo.Limiter
		for _, x := range a {
			c := cfg
			c.Rules = x.Rules
			l, err := algo.New(x.Kind, c)
			if err != nil {
				t.Fatal(err)
			}
			ls = append(ls, l)
		}
		return ls
	}
	fw, lg, sc := algo.Algorithm{Kind: algo.KindFixedWindow}, algo.Algorithm{Kind: algo.KindSlidingLog}, algo.Algorithm{Kind: algo.KindSlidingCounter}
	for name, c := range map[string]struct {
		ls   []algo.Limiter
		opts Options
	}{
		"two limiters":        {mk(fw, lg), Options{ForwardOnly: true, FiguresOnly: true}},
		"one twice":           {mk(fw, fw, sc), Options{ForwardOnly: true, FiguresOnly: true}},
		"other rules":         {mk(fw, lg, algo.Algorithm{Kind: algo.KindSlidingCounter, Rules: algo.Rules{CountRejected: true}}), Options{ForwardOnly: true, FiguresOnly: true}},
		"without FiguresOnly": {mk(fw, lg, sc), Options{ForwardOnly: true}},
		"with a history":      {mk(fw, lg, sc), Options{ForwardOnly: true, FiguresOnly: true, History: true}},
		"stepping back":       {mk(fw, lg, sc), Options{FiguresOnly: true}},
	} {
		e, err := New(NewSliceSource([]Arrival{{At: 1000, Client: "a"}}), c.ls, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e.trio != nil {
			t.Errorf("%s: decided by the Trio", name)
		}
	}
}
