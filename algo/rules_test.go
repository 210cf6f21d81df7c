package algo

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"windowlab/human"
	"windowlab/internal/long"
)

// allRules is every combination of the rule settings, the lesson's first.
func allRules() []Rules {
	var out []Rules
	for _, count := range []bool{false, true} {
		for r := RoundExact; r <= RoundHalfUp; r++ {
			for c := CompareLess; c <= CompareAtMost; c++ {
				for w := WindowAligned; w <= WindowFirstEvent; w++ {
					out = append(out, Rules{CountRejected: count, Rounding: r, Compare: c, WindowStart: w})
				}
			}
		}
	}
	return out
}

func TestRulesZeroValueIsTheLesson(t *testing.T) {
	var c Config
	if c.Rules != (Rules{}) || c.RulesName() != "" || c.Rules.String() != "" {
		t.Errorf("zero Rules: name %q, string %q", c.RulesName(), c.Rules.String())
	}
	if r, ok := ParseRules("lesson"); !ok || r != (Rules{}) {
		t.Errorf("ParseRules(lesson) = %+v, %v", r, ok)
	}
	if r, ok := ParseRules(""); !ok || r != (Rules{}) {
		t.Errorf("ParseRules(\"\") = %+v, %v", r, ok)
	}
	if _, ok := ParseRules("nginx"); ok {
		t.Error("ParseRules accepted an unknown preset")
	}
	names := map[string]bool{}
	for _, p := range Presets {
		if names[p.Name] {
			t.Errorf("preset name %q twice", p.Name)
		}
		names[p.Name] = true
		if r, ok := ParseRules(p.Name); !ok || r != p.Rules {
			t.Errorf("ParseRules(%q) = %+v, %v", p.Name, r, ok)
		}
		cfg := Config{Limit: 50, Window: time.Minute, Rules: p.Rules}
		if cfg.RulesName() != p.Name {
			t.Errorf("RulesName of %s's rules = %q", p.Name, cfg.RulesName())
		}
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		if p.Rule == "" || p.Source == "" || p.Title == "" {
			t.Errorf("preset %q lacks its rule or its source", p.Name)
		}
	}
	custom := Rules{CountRejected: true, Rounding: RoundFloor}
	if got, want := custom.Name(), "count rejected, floor"; got != want {
		t.Errorf("custom Name = %q, want %q", got, want)
	}
	all := Rules{CountRejected: true, Rounding: RoundHalfUp, Compare: ComparePlusOneAtMost, WindowStart: WindowFirstRequest}
	if got, want := all.String(), "count rejected, round, estimate + 1 ≤ limit, window from first request"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	for _, bad := range []Rules{{Rounding: 3}, {Compare: 3}, {WindowStart: 3}} {
		if err := (Config{Limit: 1, Window: time.Second, Rules: bad}).Validate(); err == nil {
			t.Errorf("Validate accepted %+v", bad)
		}
	}
}

// cloudflareExample replays the example of Cloudflare's 2017 post
// (https://blog.cloudflare.com/counting-things-a-lot-of-different-things/):
// "a limit of 50 requests per minute", "18 requests during the current
// minute, which started 15 seconds ago, and 42 requests during the entire
// previous minute": the 42 at 12:00:30, the 18 at 12:01:14, then a request at
// 12:01:15, where rate = 42 × (60 − 15)/60 + 18 = 49.5.
func cloudflareExample(t *testing.T, k Kind, r Rules) (Limiter, Decision) {
	t.Helper()
	l := mustNew(t, k, Config{Limit: 50, Window: time.Minute, Rules: r})
	allowN(l, Clock(12, 0, 30, 0), "c", 42)
	allowN(l, Clock(12, 1, 14, 0), "c", 18)
	return l, l.Allow(Clock(12, 1, 15, 0), "c")
}

// Each preset's documented decision on the Cloudflare example.
func TestPresetsOnTheCloudflareExample(t *testing.T) {
	at := Clock(12, 1, 15, 0)
	cases := []struct {
		name    string
		rules   Rules
		allowed bool
		explain string
	}{
		// The lesson: 49.5 < 50.
		{"lesson", Rules{}, true, "18 + 42 × 0.75 = 49.5 → allow (49.5 < 50)"},
		// go-chi/httprate limiter.go (@6556a110, L102 and L109):
		// rate := int(math.Round(rateFloat)) gives 50, and
		// `if rate+increment > limit` (50 + 1 > 50) denies.
		{"httprate", PresetHTTPRate.Rules, false, "18 + 42 × 0.75 = 49.5, rounded 50 → deny (50 + 1 > 50)"},
		// upstash/ratelimit-js src/lua-scripts/single.ts (@e00d2224, L46–L47):
		// math.floor((1 − 0.25) × 42) = 31, and 31 + 18 = 49 >= 50 is
		// false, so the script goes on to INCRBY: allowed.
		{"upstash", PresetUpstash.Rules, true, "18 + 42 × 0.75 = 49.5, floored 49 → allow (49 < 50)"},
		// Cloudflare's post: 49.5 has not exceeded the threshold of 50,
		// so this request passes; "One more request during the next second
		// and the rate limiter will start being very angry!" (checked below).
		{"cloudflare-2017", PresetCloudflare2017.Rules, true, "18 + 42 × 0.75 = 49.5 → allow (49.5 ≤ 50)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, d := cloudflareExample(t, KindSlidingCounter, c.rules)
			checkEvidence(t, "12:01:15", d, Decision{Kind: KindSlidingCounter, At: at, Allowed: c.allowed,
				Count: 18, Previous: 42, WindowStart: Clock(12, 1, 0, 0), Elapsed: 15 * time.Second})
			if n, w := d.EstimateRat(); n != 99*w/2 {
				t.Errorf("EstimateRat = %d/%d, want 49.5", n, w)
			}
			if got := d.Explain(); got != c.explain {
				t.Errorf("Explain = %q, want %q", got, c.explain)
			}
			if wantName := pick(c.name == "lesson", "", c.name); d.Rules != c.rules || l.Config().RulesName() != wantName {
				t.Errorf("Rules %+v, RulesName %q", d.Rules, l.Config().RulesName())
			}
		})
	}

	// Cloudflare: the allowed request was counted, so one more at the same
	// instant sees 19 + 31.5 = 50.5, over the threshold.
	l, _ := cloudflareExample(t, KindSlidingCounter, PresetCloudflare2017.Rules)
	d := l.Allow(at, "c")
	if d.Allowed || d.Count != 19 || d.Explain() != "19 + 42 × 0.75 = 50.5 → deny (50.5 > 50)" {
		t.Errorf("cloudflare-2017, one more request: %+v %q", d, d.Explain())
	}
	// Counted although denied: the next one sees 20.
	if d := l.Allow(at, "c"); d.Allowed || d.Count != 20 {
		t.Errorf("cloudflare-2017, the request after: %+v", d)
	}

	// express-rate-limit is a fixed window opened by the client's first
	// request (source/memory-store.ts: resetTime = now + windowMs): the 42 at
	// 12:00:30 open the window 12:00:30–12:01:30, so the 18 at 12:01:14 fall
	// in it too; 8 of them fit, all 18 are counted (store.increment runs
	// before `if (totalHits > limit)`), and the request at 12:01:15 sees 60.
	l, d = cloudflareExample(t, KindFixedWindow, PresetExpressRateLimit.Rules)
	checkEvidence(t, "express-rate-limit", d, Decision{Kind: KindFixedWindow, At: at, Allowed: false,
		Count: 60, WindowStart: Clock(12, 0, 30, 0)})
	if got, want := d.Explain(), "window 12:00:30–12:01:30 holds 60 → deny (60 + 1 > 50)"; got != want {
		t.Errorf("express-rate-limit Explain = %q, want %q", got, want)
	}
	if l.Config().RulesName() != "express-rate-limit" {
		t.Errorf("RulesName = %q", l.Config().RulesName())
	}
}

// The presets' comparisons at the edges, one request each, by hand.
func TestPresetEdges(t *testing.T) {
	// Limit 2 per 4 ms; 2 in the previous window, the request 1 ms in:
	// estimate = current + 2 × 3/4 = current + 1.5.
	cases := []struct {
		rules   Rules
		current int
		allowed bool
		explain string
	}{
		{Rules{}, 0, true, "0 + 2 × 0.75 = 1.5 → allow (1.5 < 2)"},
		{PresetHTTPRate.Rules, 0, false, "0 + 2 × 0.75 = 1.5, rounded 2 → deny (2 + 1 > 2)"},
		{PresetUpstash.Rules, 0, true, "0 + 2 × 0.75 = 1.5, floored 1 → allow (1 < 2)"},
		{PresetUpstash.Rules, 1, false, "1 + 2 × 0.75 = 2.5, floored 2 → deny (2 ≥ 2)"},
		{PresetCloudflare2017.Rules, 0, true, "0 + 2 × 0.75 = 1.5 → allow (1.5 ≤ 2)"},
		{Rules{Compare: ComparePlusOneAtMost}, 0, false, "0 + 2 × 0.75 = 1.5 → deny (1.5 + 1 > 2)"},
		{Rules{Rounding: RoundHalfUp}, 0, false, "0 + 2 × 0.75 = 1.5, rounded 2 → deny (2 ≥ 2)"},
		{Rules{Rounding: RoundFloor, Compare: ComparePlusOneAtMost}, 0, true, "0 + 2 × 0.75 = 1.5, floored 1 → allow (1 + 1 ≤ 2)"},
	}
	for i, c := range cases {
		l := mustNew(t, KindSlidingCounter, Config{Limit: 2, Window: 4 * time.Millisecond, Rules: c.rules})
		allowN(l, 0, "c", 2)
		allowN(l, 5, "c", c.current) // these fit under every rule set here
		d := l.Allow(5, "c")
		if d.Allowed != c.allowed || d.Count != int64(c.current) || d.Previous != 2 || d.Explain() != c.explain {
			t.Errorf("case %d (%s): %+v\n  Explain %q\n  want    %q", i, c.rules.Name(), d, d.Explain(), c.explain)
		}
	}
	// Round half up: 1.25 rounds to 1, 1.75 to 2.
	r := Rules{Rounding: RoundHalfUp}
	if got := r.roundWeighted(5, 1, 4); got != 1 {
		t.Errorf("round(1.25) = %d", got)
	}
	if got := r.roundWeighted(7, 1, 4); got != 2 {
		t.Errorf("round(1.75) = %d", got)
	}
	if got := r.roundWeighted(3, 1, 2); got != 2 {
		t.Errorf("round(1.5) = %d", got)
	}
}

// Counting rejected requests keeps a client that keeps hammering blocked.
func TestCountRejectedKeepsHammeringClientBlocked(t *testing.T) {
	// Limit 3 per second; the client asks every 200 ms from 12:00:00 to
	// 12:00:04.800 (25 requests), then pauses for a second.
	base := Clock(12, 0, 0, 0)
	hammer := func(l Limiter) (perSecond [5]int) {
		for i := range 25 {
			if l.Allow(base+Instant(i*200), "c").Allowed {
				perSecond[i/5]++
			}
		}
		return perSecond
	}
	cfg := Config{Limit: 3, Window: time.Second}
	counting := cfg
	counting.Rules.CountRejected = true

	// Sliding log. The lesson's rules let 3 through in every second once the
	// oldest accepted timestamp leaves; counting every request, the window
	// always holds 4 or 5 timestamps after the first second.
	if got, want := hammer(mustNew(t, KindSlidingLog, cfg)), [5]int{3, 3, 3, 3, 3}; got != want {
		t.Errorf("log, lesson: allowed per second %v, want %v", got, want)
	}
	l := mustNew(t, KindSlidingLog, counting)
	if got, want := hammer(l), [5]int{3, 0, 0, 0, 0}; got != want {
		t.Errorf("log, count rejected: allowed per second %v, want %v", got, want)
	}
	if d := l.Peek(base+4999, "c"); d.Allowed || d.Count != 5 {
		t.Errorf("log, count rejected, at 12:00:04.999: %+v, want denied with 5 in the window", d)
	}
	// A whole window without requests frees it (the last was at 4.800).
	if d := l.Allow(base+5800, "c"); !d.Allowed || d.Count != 0 {
		t.Errorf("log, count rejected, after a quiet second: %+v", d)
	}
	if m := l.Memory(); m.Entries != 1 {
		t.Errorf("log, count rejected: %d timestamps held after expiry, want 1", m.Entries)
	}

	// Sliding counter. The lesson's rules: 3 per window (at 12:00:01.200
	// 0 + 3 × 0.8 = 2.4 allows, at .600 2 + 3 × 0.4 = 3.2 denies, at .800
	// 2 + 3 × 0.2 = 2.6 allows). Counting every request, each window ends with
	// 5 counted, and current + 5 × weight = 5 at every request of the next.
	if got, want := hammer(mustNew(t, KindSlidingCounter, cfg)), [5]int{3, 3, 3, 3, 3}; got != want {
		t.Errorf("counter, lesson: allowed per second %v, want %v", got, want)
	}
	l = mustNew(t, KindSlidingCounter, counting)
	if got, want := hammer(l), [5]int{3, 0, 0, 0, 0}; got != want {
		t.Errorf("counter, count rejected: allowed per second %v, want %v", got, want)
	}
	d := l.Allow(base+5800, "c") // 0 + 5 × 0.2 = 1 < 3
	if !d.Allowed || d.Previous != 5 || d.Explain() != "0 + 5 × 0.2 = 1 → allow (1 < 3)" {
		t.Errorf("counter, count rejected, after the pause: %+v %q", d, d.Explain())
	}

	// Fixed window: the same decisions (a full window denies the rest of
	// it either way), but the count keeps growing.
	if got, want := hammer(mustNew(t, KindFixedWindow, cfg)), [5]int{3, 3, 3, 3, 3}; got != want {
		t.Errorf("fixed, lesson: %v, want %v", got, want)
	}
	l = mustNew(t, KindFixedWindow, counting)
	if got, want := hammer(l), [5]int{3, 3, 3, 3, 3}; got != want {
		t.Errorf("fixed, count rejected: %v, want %v", got, want)
	}
	if d := l.Peek(base+4999, "c"); d.Count != 5 || d.Explain() != "window 12:00:04–12:00:05 holds 5 → deny (5 ≥ 3)" {
		t.Errorf("fixed, count rejected: %+v %q", d, d.Explain())
	}
}

// A fixed window that starts at the client's first request.
func TestFirstRequestWindows(t *testing.T) {
	cfg := Config{Limit: 2, Window: time.Minute, Rules: Rules{WindowStart: WindowFirstRequest}}
	w0 := Clock(12, 0, 30, 0)
	w1 := Clock(12, 1, 30, 0)
	w2 := Clock(12, 5, 0, 250)
	runSteps(t, KindFixedWindow, cfg, []step{
		{at: w0, want: Decision{Allowed: true, WindowStart: w0}},
		{at: Clock(12, 0, 40, 0), want: Decision{Allowed: true, Count: 1, WindowStart: w0}},
		{at: Clock(12, 1, 0, 0), want: Decision{Allowed: false, Count: 2, WindowStart: w0},
			explain: "window 12:00:30–12:01:30 holds 2 → deny (2 ≥ 2)"},
		{at: w1 - 1, want: Decision{Allowed: false, Count: 2, WindowStart: w0}},
		// The window ends at 12:01:30: the next request opens the next one.
		{at: w1, want: Decision{Allowed: true, WindowStart: w1},
			explain: "window 12:01:30–12:02:30 holds 0 → allow (0 < 2)"},
		{at: w1 + 1, client: "other", want: Decision{Allowed: true, WindowStart: w1 + 1}},
		// After a quiet spell the window starts at the first request, not on a boundary.
		{at: w2, want: Decision{Allowed: true, WindowStart: w2},
			explain: "window 12:05:00.250–12:06:00.250 holds 0 → allow (0 < 2)"},
		{at: w2 + 59_999, want: Decision{Allowed: true, Count: 1, WindowStart: w2}},
		{at: w2 + 59_999, want: Decision{Allowed: false, Count: 2, WindowStart: w2}},
		{at: w2 + 60_000, want: Decision{Allowed: true, WindowStart: w2 + 60_000}},
	})

	// The lesson's boundary burst: the window opened at 12:00:59 runs to
	// 12:01:59, so the 100 at 12:01:00 are in it: 100 allowed, not 200.
	l := mustNew(t, KindFixedWindow, Config{Limit: 100, Window: time.Minute, Rules: Rules{WindowStart: WindowFirstRequest}})
	got := allowN(l, Clock(12, 0, 59, 0), "client-1", 100) + allowN(l, Clock(12, 1, 0, 0), "client-1", 100)
	if got != 100 {
		t.Errorf("first-request window, boundary burst: %d allowed, want 100", got)
	}
	// Its expiry: the client is dropped exactly when its window ends.
	if m := l.MemoryAt(Clock(12, 1, 58, 999)); m.Clients != 1 {
		t.Errorf("MemoryAt(12:01:58.999) = %+v, want 1 client", m)
	}
	if m := l.MemoryAt(Clock(12, 1, 59, 0)); m != (Memory{}) {
		t.Errorf("MemoryAt(12:01:59) = %+v, want nothing", m)
	}
	// The sliding counter ignores WindowStart: its windows are aligned.
	c := mustNew(t, KindSlidingCounter, Config{Limit: 2, Window: time.Minute, Rules: Rules{WindowStart: WindowFirstRequest}})
	if d := c.Allow(w0, "c"); d.WindowStart != Clock(12, 0, 0, 0) {
		t.Errorf("sliding counter WindowStart = %v, want 12:00:00", d.WindowStart)
	}
}

// The counter's exact comparison in 128 bits, for counts far past the limit
// at the largest config, against big.Rat.
func TestRulesLargestCounts(t *testing.T) {
	c := Config{Limit: MaxLimit, Window: MaxWindow}
	w := c.windowMs()
	const maxI = math.MaxInt64
	counts := []int64{0, 1, MaxLimit - 1, MaxLimit, MaxLimit + 1, 1 << 40, maxI / w, maxI/w + 1, maxI / 2, maxI - 1, maxI}
	elapsed := []int64{0, 1, w / 4, w / 2, w - 1}
	r := newRef(KindSlidingCounter, c)
	checked := 0
	for _, rules := range allRules() {
		if rules.WindowStart != WindowAligned || rules.CountRejected {
			continue // neither changes a single comparison
		}
		c.Rules, r.rules = rules, rules
		l := NewSlidingCounter(c)
		for _, cur := range counts {
			for _, prev := range counts {
				for _, e := range elapsed {
					idx := int64(3)
					d := l.decide(Instant(idx*w+e), idx, cur, prev)
					est := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(prev), big.NewInt(w-e)), big.NewInt(w))
					est.Add(est, new(big.Rat).SetInt64(cur))
					want := r.admits(r.round(est))
					if d.Allowed != want {
						t.Fatalf("%s: current %d previous %d elapsed %d: Allowed %v, want %v (estimate %s)",
							rules.Name(), cur, prev, e, d.Allowed, want, est.FloatString(3))
					}
					if rv, ok := d.Rounded(); ok && cur+prev >= cur { // when current + previous fits
						if want := r.round(est); new(big.Rat).SetInt64(rv).Cmp(want) != 0 {
							t.Fatalf("Rounded = %d, want %s", rv, want.FloatString(0))
						}
					}
					if d.EstimateBig().Cmp(est) != 0 {
						t.Fatalf("EstimateBig = %s, want %s", d.EstimateBig(), est)
					}
					checked++
				}
			}
		}
	}
	if checked < 5000 {
		t.Errorf("only %d cases", checked)
	}
	// Explain stays exact for counts whose products pass int64.
	l := NewSlidingCounter(Config{Limit: MaxLimit, Window: MaxWindow, Rules: Rules{CountRejected: true}})
	d := l.decide(Instant(w/2), 0, maxI/w+1, 0)
	n := human.Int(maxI/w + 1)
	if want := fmt.Sprintf("%s + 0 × 0.5 = %s → deny (%s ≥ %s)", n, n, n, human.Int(MaxLimit)); d.Explain() != want {
		t.Errorf("Explain = %q, want %q", d.Explain(), want)
	}
}

// u128 against math/big on random and extreme operands.
func TestU128(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	edge := []uint64{0, 1, 2, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, math.MaxUint64}
	operand := func() uint64 {
		if r.IntN(3) == 0 {
			return edge[r.IntN(len(edge))]
		}
		return r.Uint64() >> r.IntN(64)
	}
	big128 := func(x u128) *big.Int {
		v := new(big.Int).SetUint64(x.hi)
		return v.Lsh(v, 64).Add(v, new(big.Int).SetUint64(x.lo))
	}
	for range 20000 {
		a, b, c, d := operand(), operand(), operand(), operand()
		x, y := mul64(a, b), mul64(c, d)
		bx, by := big128(x), big128(y)
		if bx.Cmp(new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))) != 0 {
			t.Fatalf("mul64(%d, %d) = %v", a, b, x)
		}
		if x.cmp(y) != bx.Cmp(by) {
			t.Fatalf("cmp(%v, %v) = %d", x, y, x.cmp(y))
		}
		sum := new(big.Int).Add(bx, by)
		if sum.BitLen() <= 128 && big128(x.add(y)).Cmp(sum) != 0 {
			t.Fatalf("add(%v, %v) = %v", x, y, x.add(y))
		}
		if div := c | 1; x.hi < div {
			if got, want := x.div(div), new(big.Int).Quo(bx, new(big.Int).SetUint64(div)); want.Cmp(new(big.Int).SetUint64(got)) != 0 {
				t.Fatalf("div(%v, %d) = %d, want %s", x, div, got, want)
			}
		}
	}
}

// Every variant against the reference on random sequences, with expiry on
// and off, Peek, Expire and memory checked as for the lesson's rules.
func TestDifferentialVariants(t *testing.T) {
	sequences := long.N(4*len(allRules()), 1000) // every variant a few times, or many
	variants := allRules()
	for _, k := range All {
		for _, noExpiry := range []bool{false, true} {
			name := k.String() + pick(noExpiry, "/no-expiry", "/expiry")
			t.Run(name, func(t *testing.T) {
				events := 0
				for seed := range uint64(sequences) {
					r := rand.New(rand.NewPCG(seed, 0x7275_6c65))
					s := randomStream(r, seed%4 == 3)
					s.cfg.NoExpiry = noExpiry
					// Each variant takes four seeds in a row, one of them with
					// backwards steps (seed%4 == 3).
					s.cfg.Rules = variants[seed/4%uint64(len(variants))]
					if k == KindTokenBucket {
						// The lesson's bucket, the GCRA's or Envoy's: each a
						// bucket of capacity Burst, as the reference keeps.
						s.cfg.Rules = Rules{Bucket: Bucket(seed / 4 % 3)}
						s.cfg.Burst = r.Int64N(7) // 0 = Limit
					}
					// Every other run of four seeds decides by dense ids.
					newLimiter, how := mustNew, "by name"
					if seed%8 >= 4 {
						newLimiter, how = newByName, "by id"
					}
					c := &checker{t: t, name: fmt.Sprintf("seed %d %s, %+v", seed, how, s.cfg),
						l: newLimiter(t, k, s.cfg), r: newRef(k, s.cfg)}
					for _, e := range s.events {
						if c.step(e); c.failed {
							return
						}
					}
					events += len(s.events)
				}
				if events < 50*sequences {
					t.Errorf("only %d events checked", events)
				}
			})
		}
	}
}

// For every variant and the token bucket: expiry changes no decision, Peek
// predicts Allow and changes nothing, and a clone evolves on its own.
func TestVariantInvariants(t *testing.T) {
	variants := allRules()
	for _, k := range All {
		for seed := range uint64(300) {
			r := rand.New(rand.NewPCG(seed, 0x1a7))
			s := randomStream(r, seed%2 == 1)
			s.cfg.Rules = variants[seed%uint64(len(variants))]
			if k == KindTokenBucket {
				s.cfg.Rules, s.cfg.Burst = Rules{Bucket: Bucket(seed % 3)}, r.Int64N(7)
			}
			off := s.cfg
			off.NoExpiry = true
			on, no, peeked := mustNew(t, k, s.cfg), mustNew(t, k, off), mustNew(t, k, s.cfg)
			var cl, twin Limiter
			for i, e := range s.events {
				if i == len(s.events)/2 {
					cl, twin = on.Clone(), mustNew(t, k, s.cfg)
					for _, e2 := range s.events[:i] { // twin: the same history, never cloned
						switch e2.op {
						case opAllow:
							twin.Allow(e2.at, e2.client)
						case opExpire:
							twin.Expire(e2.at)
						}
					}
					if cl.Memory() != on.Memory() {
						t.Fatalf("%v seed %d: clone Memory %+v, original %+v", k, seed, cl.Memory(), on.Memory())
					}
				}
				if cl != nil { // the clone gets other traffic
					cl.Allow(e.at, "clone-only")
				}
				var a, b Decision
				switch e.op {
				case opAllow:
					p := peeked.Peek(e.at, e.client)
					before := peeked.Memory()
					peeked.Peek(e.at+7, "someone-else")
					if peeked.Memory() != before {
						t.Fatalf("%v seed %d: Peek changed Memory", k, seed)
					}
					a, b = on.Allow(e.at, e.client), no.Allow(e.at, e.client)
					if pa := peeked.Allow(e.at, e.client); pa != a || p != a {
						t.Fatalf("%v %s seed %d event %d: peek %+v, allow %+v, plain %+v", k, s.cfg.Rules.Name(), seed, i, p, pa, a)
					}
					if twin != nil {
						if tw := twin.Allow(e.at, e.client); tw != a {
							t.Fatalf("%v seed %d: the cloned original decides %+v, its twin %+v", k, seed, a, tw)
						}
					}
				case opPeek:
					a, b = on.Peek(e.at, e.client), no.Peek(e.at, e.client)
				case opExpire:
					on.Expire(e.at)
					no.Expire(e.at)
					peeked.Expire(e.at)
					if twin != nil {
						twin.Expire(e.at)
					}
				}
				if a != b {
					t.Fatalf("%v %s seed %d event %d %v: expiry on %+v, off %+v", k, s.cfg.Rules.Name(), seed, i, e, a, b)
				}
			}
			if on.Memory().Entries > no.Memory().Entries {
				t.Errorf("%v seed %d: expiry on holds more entries than off", k, seed)
			}
		}
	}
}

// The sliding counter's test, one bound on current·w + previous·wn worked
// out per limiter, against the estimate itself in rationals, rounded and
// compared by the reference's definitions: for every rounding and
// comparison, at the edges (wn 0 and w, counts at and next to the limit,
// saturated counts, the longest window, the largest limit and limits past
// it, whose bounds need all 128 bits) and at random.
func TestEstimateRuleAgainstRationals(t *testing.T) {
	maxW := MaxWindow.Milliseconds()
	r := rand.New(rand.NewPCG(15, 0xe57))
	pickCount := func(limit int64) int64 {
		switch r.IntN(4) {
		case 0:
			return r.Int64N(3)
		case 1:
			return max(0, limit+r.Int64N(5)-2)
		case 2:
			return math.MaxInt64 - r.Int64N(3)
		}
		return r.Int64N(math.MaxInt64)
	}
	checked := 0
	for _, rules := range allRules() {
		if rules.CountRejected || rules.WindowStart != WindowAligned {
			continue // they do not change the test
		}
		for range 4000 {
			w := []int64{1, 2, 3, 4, 1000, 60_000, maxW, 1 + r.Int64N(maxW)}[r.IntN(8)]
			limit := []int64{1, 2, 10, 100, MaxLimit, 1 + r.Int64N(MaxLimit), 1 << 40, 1<<62 - 1}[r.IntN(8)]
			current, previous := pickCount(limit), pickCount(limit)
			wn := []int64{0, w, w / 2, w - 1, 1, r.Int64N(w + 1)}[r.IntN(6)]
			wn = min(max(wn, 0), w)
			e := rules.estimate(w, limit)
			got := e.admits(current, previous, wn)

			est := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(previous), big.NewInt(wn)), big.NewInt(w))
			est.Add(est, new(big.Rat).SetInt64(current))
			ref := &ref{limit: limit, rules: rules}
			if want := ref.admits(ref.round(est)); got != want {
				t.Fatalf("%s: current %d, previous %d, wn %d of w %d, limit %d: admits %v, want %v (estimate %s)",
					rules.Name(), current, previous, wn, w, limit, got, want, est.FloatString(6))
			}
			checked++
		}
	}
	if checked < 9*4000 {
		t.Errorf("only %d cases checked", checked)
	}
}
