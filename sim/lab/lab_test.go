package lab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

func mustRun(t *testing.T, o Options) Result {
	t.Helper()
	r, err := RunToEnd(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete {
		t.Fatal("the run did not complete")
	}
	return r
}

// small is a seeded run small enough for a unit test, busy enough that
// sources cross the limit.
func small() Options {
	o := DefaultOptions
	o.Sources, o.Requests, o.Seed = 3000, 300_000, 42
	return o
}

// The figures of a small seeded run, pinned: a change to the model, the
// limiters or the tallies shows up here first. The sum of relative
// differences is compared to 1e-9, the rest exactly.
func TestPinnedFigures(t *testing.T) {
	r := mustRun(t, small())
	got := r.Totals
	want := Totals{
		Sources: 3000, ActiveSources: 3000, Requests: 300_000,
		ExactLimited: 47912, SourcesAbove: 9, Peak: 735,
		Approx: [2]ApproxTotals{
			{Limited: 47738, WronglyAllowed: 406, WronglyLimited: 232, RelativeSum: 36865.6747214, RelativeCount: 280015, AllowedAbove: 1, PeakAllowedAbove: 104},
			{Limited: 31394, WronglyAllowed: 16518, RelativeSum: 136207.364451, RelativeCount: 280015, AllowedAbove: 1, PeakAllowedAbove: 104},
		},
	}
	for i := range got.Approx {
		if math.Abs(got.Approx[i].RelativeSum-want.Approx[i].RelativeSum) > 1e-9*want.Approx[i].RelativeSum+1e-6 {
			t.Errorf("%v: relative sum %.12g, want %.12g", Approximations[i], got.Approx[i].RelativeSum, want.Approx[i].RelativeSum)
		}
		got.Approx[i].RelativeSum, want.Approx[i].RelativeSum = 0, 0
	}
	if got != want {
		t.Errorf("figures changed:\n got %#v\nwant %#v", got, want)
	}
	if r.Duration != 25*time.Minute+52992*time.Millisecond {
		t.Errorf("the traffic spans %v, want 25m52.992s", r.Duration)
	}
}

// The same seed gives the same figures, to the last bit, however many
// workers share the sources.
func TestSameFiguresWithAnyWorkerCount(t *testing.T) {
	o := small()
	o.Model.On, o.Model.Off = 5*time.Second, 20*time.Second
	o.Workers = 1
	one := mustRun(t, o)
	for _, n := range []int{2, 3, 8} {
		o.Workers = n
		r := mustRun(t, o)
		r.Options.Workers = 1
		if r != one {
			t.Errorf("%d workers:\n%+v\n1 worker:\n%+v", n, r.Totals, one.Totals)
		}
	}
	o.Seed++
	if other := mustRun(t, o); other.Totals == one.Totals {
		t.Error("another seed gave the same figures")
	}
}

// When every source stays far below the limit, nothing is limited and no
// decision differs from the log's.
func TestFarBelowTheLimitNothingIsWrong(t *testing.T) {
	for _, rules := range []algo.Rules{{}, algo.PresetCloudflare2017.Rules} {
		o := DefaultOptions
		o.Rules = rules
		o.Sources, o.Requests, o.Limit = 2000, 200_000, 1000
		o.Model = Model{Rates: Pareto, Alpha: 8, Median: 0.01, On: 2 * time.Second, Off: 3 * time.Second}
		r := mustRun(t, o)
		if r.Peak*2 > o.Limit {
			t.Fatalf("the busiest source sent %d in a window: not far below the limit of %d", r.Peak, o.Limit)
		}
		if r.ExactLimited != 0 || r.SourcesAbove != 0 {
			t.Errorf("%s: the log limited %d requests of %d sources", rulesName(rules), r.ExactLimited, r.SourcesAbove)
		}
		for i, a := range r.Approx {
			if a.Limited != 0 || a.WronglyAllowed != 0 || a.WronglyLimited != 0 || a.AllowedAbove != 0 || a.LimitedBelow != 0 {
				t.Errorf("%s, %v: %+v", rulesName(rules), Approximations[i], a)
			}
			if a.RelativeCount == 0 {
				t.Errorf("%v: no decision had an exact count", Approximations[i])
			}
		}
	}
}

// judgeOne decides one source's hand-made arrivals and returns its tallies.
func judgeOne(c algo.Config, at ...algo.Instant) Totals {
	j := newJudge(c)
	j.begin()
	for _, t := range at {
		j.decide(t)
	}
	var t Totals
	j.end(&t)
	return t
}

func repeat(t algo.Instant, n int) []algo.Instant {
	out := make([]algo.Instant, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// A source exactly at the limit is below the threshold: the log limits
// none of its requests. Whether an approximation then limits it decides
// whether it counts as "limited while below".
func TestSourceAtTheLimit(t *testing.T) {
	lesson := algo.Config{Limit: 10, Window: time.Minute}
	s := func(sec int) algo.Instant { return algo.Clock(0, 0, sec, 0) }
	m := func(min, sec int) algo.Instant { return algo.Clock(0, min, sec, 0) }

	t.Run("limit requests in one window: below, and no one limits it", func(t *testing.T) {
		got := judgeOne(lesson, repeat(s(30), 10)...)
		if got.SourcesAbove != 0 || got.ExactLimited != 0 {
			t.Errorf("exact log: %+v", got)
		}
		for i, a := range got.Approx {
			if a.Limited != 0 || a.LimitedBelow != 0 || a.AllowedAbove != 0 {
				t.Errorf("%v: %+v", Approximations[i], a)
			}
		}
	})
	t.Run("one more: above, and both limit it", func(t *testing.T) {
		got := judgeOne(lesson, repeat(s(30), 11)...)
		if got.SourcesAbove != 1 || got.ExactLimited != 1 || got.Peak != 11 {
			t.Errorf("exact log: %+v", got)
		}
		for i, a := range got.Approx {
			if a.Limited != 1 || a.AllowedAbove != 0 || a.WronglyAllowed+a.WronglyLimited != 0 {
				t.Errorf("%v: %+v", Approximations[i], a)
			}
		}
	})
	t.Run("at the limit across an edge: the counter limits a source below the threshold", func(t *testing.T) {
		// 10 at 00:00:01, then 6 at 00:01:02, when those 10 have left the
		// log's window: never more than 10 in any minute. The counter still
		// weighs them by 58/60: 9.67 + 1 ≥ 10 denies the second of the 6.
		got := judgeOne(lesson, append(repeat(s(1), 10), repeat(m(1, 2), 6)...)...)
		if got.SourcesAbove != 0 || got.ExactLimited != 0 || got.Peak != 10 {
			t.Errorf("exact log: %+v", got)
		}
		c, f := got.Approx[counterIdx], got.Approx[fixedIdx]
		if c.LimitedBelow != 1 || c.WronglyLimited != 5 || c.Limited != 5 {
			t.Errorf("sliding counter: %+v, want 5 wrongly limited and the source limited while below", c)
		}
		if f.LimitedBelow != 0 || f.Limited != 0 {
			t.Errorf("fixed window: %+v", f)
		}
		// Exact counts above 0: 1 to 9 for the first ten, then 1 to 5 for
		// the six at 00:01:02 (the first of them finds the log empty).
		if c.RelativeCount != 14 {
			t.Errorf("sliding counter: %d decisions with an exact count, want 14", c.RelativeCount)
		}
	})
	t.Run("above across an edge: the fixed window lets it through", func(t *testing.T) {
		// 10 at 00:00:59 and 10 at 00:01:00: 20 in two seconds. The log
		// limits the second 10, the fixed window allows all 20.
		got := judgeOne(lesson, append(repeat(s(59), 10), repeat(m(1, 0), 10)...)...)
		f := got.Approx[fixedIdx]
		if got.SourcesAbove != 1 || f.AllowedAbove != 1 || f.PeakAllowedAbove != 20 || f.WronglyAllowed != 10 {
			t.Errorf("fixed window: %+v, source %+v", f, got)
		}
	})
	t.Run("Cloudflare's rules: limit + 1 is at the threshold, limit + 2 above", func(t *testing.T) {
		cf := lesson
		cf.Rules = algo.PresetCloudflare2017.Rules
		if got := judgeOne(cf, repeat(s(30), 11)...); got.SourcesAbove != 0 || got.Approx[counterIdx].Limited != 0 {
			t.Errorf("11 with limit 10, ≤: %+v", got)
		}
		if got := judgeOne(cf, repeat(s(30), 12)...); got.SourcesAbove != 1 || got.Approx[counterIdx].AllowedAbove != 0 {
			t.Errorf("12 with limit 10, ≤: %+v", got)
		}
	})
}

// sourceArrivals generates every source's instants, as the lab does.
func sourceArrivals(o Options) (plan, [][]algo.Instant) {
	p, _ := newPlan(o.Model, o.Seed, o.Sources, o.Requests, o.Limit, int64(o.Window/time.Millisecond), new(atomic.Bool))
	a := newArrivals()
	out := make([][]algo.Instant, o.Sources)
	for s := range out {
		a.reset(&p, s, p.counts[s], new(atomic.Bool))
		for range p.counts[s] {
			out[s] = append(out[s], a.next())
		}
	}
	return p, out
}

// The lab decides exactly as the per-request engine: every source's
// traffic, merged into one stream by instant, replayed through sim.Engine
// with the keyed limiters, gets the same decisions and evidence, request by
// request; and the figures worked out from the engine's records are the lab's.
func TestAgreesWithTheEngine(t *testing.T) {
	cases := map[string]Options{}
	base := DefaultOptions
	base.Sources, base.Requests, base.Limit, base.Window = 60, 40_000, 8, 2*time.Second
	base.Model = Model{Rates: Pareto, Alpha: 1.3, Median: 0.4}
	cases["cloudflare-2017"] = base
	lesson := base
	lesson.Rules = algo.Rules{}
	cases["lesson"] = lesson
	bursty := base
	bursty.Rules, bursty.Model.On, bursty.Model.Off, bursty.Seed = algo.PresetHTTPRate.Rules, time.Second, 3*time.Second, 9
	cases["httprate, bursts"] = bursty
	lognormal := lesson
	lognormal.Model = Model{Rates: LogNormal, Sigma: 1, Median: 0.5}
	cases["lognormal"] = lognormal

	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			_, arrivals := sourceArrivals(o)
			type at struct {
				t      algo.Instant
				source int
			}
			var merged []at
			for s, ts := range arrivals {
				for _, t := range ts {
					merged = append(merged, at{t, s})
				}
			}
			slices.SortStableFunc(merged, func(a, b at) int { return int(a.t - b.t) })
			stream := make([]sim.Arrival, len(merged))
			for i, m := range merged {
				stream[i] = sim.Arrival{At: m.t, Client: fmt.Sprintf("source-%d", m.source)}
			}
			var limiters []algo.Limiter
			for _, k := range []algo.Kind{algo.KindSlidingLog, algo.KindSlidingCounter, algo.KindFixedWindow} {
				l, err := algo.New(k, o.config())
				if err != nil {
					t.Fatal(err)
				}
				limiters = append(limiters, l)
			}
			e, err := sim.New(sim.NewSliceSource(stream), limiters, sim.Options{ForwardOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			engine := make([][][3]algo.Decision, o.Sources)
			for i := 0; ; i++ {
				rec, ok := e.Step()
				if !ok {
					break
				}
				s := merged[i].source
				engine[s] = append(engine[s], [3]algo.Decision(rec.Decisions))
			}

			// The lab, source by source, traced.
			j := newJudge(o.config())
			var want Totals
			for s, ts := range arrivals {
				n := 0
				j.trace = func(t algo.Instant, exact, counter, fixed algo.Verdict) {
					d := engine[s][n]
					for k, v := range []algo.Verdict{exact, counter, fixed} {
						if v.Allowed != d[k].Allowed || v.Count != d[k].Count || v.Previous != d[k].Previous ||
							(k == 1 && v.Elapsed != d[k].Elapsed.Milliseconds()) {
							t0 := d[k]
							panic(fmt.Sprintf("source %d request %d at %v: lab %+v, engine %s", s, n, t, v, t0.Explain()))
						}
					}
					n++
				}
				j.begin()
				for _, t := range ts {
					j.decide(t)
				}
				j.end(&want)
				if n != len(engine[s]) {
					t.Fatalf("source %d: lab decided %d, engine %d", s, n, len(engine[s]))
				}
			}

			// The figures, worked out from the engine's decisions alone.
			var fromEngine Totals
			for s, ds := range engine {
				var src Totals
				src.Sources, src.Requests = 1, int64(len(ds))
				if len(ds) > 0 {
					src.ActiveSources = 1
				}
				for i, d := range ds {
					if !d[0].Allowed {
						src.ExactLimited++
					}
					for a, k := range []int{1, 2} {
						x := &src.Approx[a]
						if !d[k].Allowed {
							x.Limited++
						}
						if d[k].Allowed && !d[0].Allowed {
							x.WronglyAllowed++
						}
						if !d[k].Allowed && d[0].Allowed {
							x.WronglyLimited++
						}
						if d[0].Count > 0 {
							// |estimate − exact| / exact, both times W (as the lab
							// works it out, to the last bit).
							w := o.Window.Milliseconds()
							est := float64(d[k].Count) * float64(w)
							if k == 1 {
								est += float64(d[k].Previous) * float64(w-d[k].Elapsed.Milliseconds())
							}
							e := float64(d[0].Count) * float64(w)
							x.RelativeSum += math.Abs(est-e) * (1 / e)
							x.RelativeCount++
						}
					}
					// Requests in (t − W, t], this one included.
					n := int64(0)
					for _, u := range arrivals[s][:i+1] {
						if u > arrivals[s][i]-algo.Instant(o.Window.Milliseconds()) {
							n++
						}
					}
					src.Peak = max(src.Peak, n)
				}
				if src.ExactLimited > 0 {
					src.SourcesAbove = 1
				}
				for a := range src.Approx {
					x := &src.Approx[a]
					if src.SourcesAbove == 1 && x.Limited == 0 {
						x.AllowedAbove, x.PeakAllowedAbove = 1, src.Peak
					}
					if src.SourcesAbove == 0 && x.Limited > 0 {
						x.LimitedBelow = 1
					}
				}
				fromEngine.add(&src)
			}
			if want != fromEngine {
				t.Errorf("figures from the engine:\n%+v\nthe lab's:\n%+v", fromEngine, want)
			}
			o.Workers = 2
			if r := mustRun(t, o); r.Totals != want {
				t.Errorf("Run:\n%+v\nsource by source:\n%+v", r.Totals, want)
			}
			if want.SourcesAbove == 0 || want.Approx[0].WronglyAllowed+want.Approx[0].WronglyLimited == 0 {
				t.Errorf("the case should have sources above the limit and wrong decisions: %+v", want)
			}
		})
	}
}

// Stopping keeps the figures of the sources finished so far.
func TestStopKeepsFinishedSources(t *testing.T) {
	o := DefaultOptions
	o.Requests = 2_000_000_000
	ctx, cancel := context.WithCancel(context.Background())
	r, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	for r.Progress().Sources < 100 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	res := r.Wait()
	if res.Complete || res.Sources < 100 || res.Sources >= int64(o.Sources) || res.Requests == 0 {
		t.Errorf("after a stop: complete %v, %d sources, %d requests", res.Complete, res.Sources, res.Requests)
	}
	var b strings.Builder
	if err := Text(&b, res); err != nil || !strings.Contains(b.String(), "STOPPED EARLY") {
		t.Errorf("the report does not say it stopped early:\n%s", b.String())
	}
}

// Each source's instants are whole milliseconds in [0, D), in order, as
// many as it was given; the counts add up to the total exactly; with
// bursts, the source is silent while off.
func TestArrivals(t *testing.T) {
	o := small()
	o.Model.On, o.Model.Off = 3*time.Second, 7*time.Second
	p, arrivals := sourceArrivals(o)
	var total int64
	for s, ts := range arrivals {
		total += int64(len(ts))
		if int64(len(ts)) != p.counts[s] || !slices.IsSorted(ts) {
			t.Fatalf("source %d: %d instants (want %d), sorted %v", s, len(ts), p.counts[s], slices.IsSorted(ts))
		}
		if len(ts) > 0 && (ts[0] < 0 || int64(ts[len(ts)-1]) >= p.duration) {
			t.Fatalf("source %d: instants %v … %v outside [0, %d)", s, ts[0], ts[len(ts)-1], p.duration)
		}
	}
	if total != o.Requests {
		t.Errorf("%d requests in all, want %d", total, o.Requests)
	}
	// The busiest source: gaps longer than any on period show it was off.
	busiest := 0
	for s := range arrivals {
		if len(arrivals[s]) > len(arrivals[busiest]) {
			busiest = s
		}
	}
	var long int
	ts := arrivals[busiest]
	for i := 1; i < len(ts); i++ {
		if ts[i]-ts[i-1] > 1000 {
			long++
		}
	}
	if long < 5 {
		t.Errorf("the busiest source (%d requests) has %d gaps over a second: no off periods", len(ts), long)
	}
}

func TestApportionIsExact(t *testing.T) {
	rates := []float64{1, 1, 1, 0.5, 1e-9, 3}
	for _, total := range []int64{1, 7, 100, 1_000_003} {
		counts := apportion(rates, total)
		var sum int64
		for _, c := range counts {
			sum += c
		}
		if sum != total || counts[5] < counts[0] || counts[0] != counts[1] && counts[0] != counts[1]+1 {
			t.Errorf("total %d: %v", total, counts)
		}
	}
}

func TestParseCount(t *testing.T) {
	good := map[string]int64{"400M": 400_000_000, "270k": 270_000, "10_000_000": 10_000_000, "1.5G": 1_500_000_000,
		"2B": 2_000_000_000, "42": 42, "1,000": 1000}
	for s, want := range good {
		if got, err := ParseCount(s); err != nil || got != want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "M", "-5", "1.5", "1e9", "ten", "1.0000001K"} {
		if n, err := ParseCount(s); err == nil {
			t.Errorf("ParseCount(%q) = %d, want an error", s, n)
		}
	}
}

func TestValidateNamesTheOption(t *testing.T) {
	bad := map[string]func(*Options){
		"limit":    func(o *Options) { o.Limit = 0 },
		"window":   func(o *Options) { o.Window = 0 },
		"sources":  func(o *Options) { o.Sources = 0 },
		"requests": func(o *Options) { o.Requests = MaxRequests + 1 },
		"workers":  func(o *Options) { o.Workers = -1 },
		"alpha":    func(o *Options) { o.Model.Alpha = 1 },
		"sigma":    func(o *Options) { o.Model.Rates, o.Model.Sigma = LogNormal, -1 },
		"median":   func(o *Options) { o.Model.Median = 0 },
		"bursts":   func(o *Options) { o.Model.On = time.Second },
	}
	for option, spoil := range bad {
		o := DefaultOptions
		spoil(&o)
		err := o.Validate()
		var oe *algo.OptionError
		if !errors.As(err, &oe) || oe.Option != option {
			t.Errorf("%s: %v", option, err)
		}
	}
	if err := DefaultOptions.Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}

// largest picks the same remainders a full sort would, ties to the lower
// index, for every k.
func TestLargestIsASortsPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 2, 3, 10, 257, 5000} {
		rems := make([]uint64, n)
		for i := range rems {
			rems[i] = rng.Uint64N(uint64(n)/3 + 1) // many ties
		}
		order := make([]int32, n)
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int {
			if rems[a] != rems[b] {
				return cmp.Compare(rems[b], rems[a])
			}
			return cmp.Compare(a, b)
		})
		for _, k := range []int{0, 1, n / 2, n - 1, n} {
			got := slices.Clone(largest(rems, k))
			slices.Sort(got)
			want := slices.Clone(order[:k])
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("n %d, k %d: %v, want %v", n, k, got, want)
			}
		}
	}
}

// A lab whose busiest source would hold more of a window than the memory
// budget allows is refused once the rates are drawn, before a request is
// decided; the case, a billion requests from one source at a limit
// of a billion a week, fits (it holds a few million runs of one instant).
func TestMemoryBudgetRefusesUpFront(t *testing.T) {
	o := DefaultOptions
	o.Sources, o.Limit, o.Window, o.Model.Median = 1, 1_000_000_000, 7*24*time.Hour, 100
	o.Requests = MaxRequests
	r, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var big *TooBigError
	if !errors.As(r.Err(), &big) || r.Progress().Requests != 0 {
		t.Fatalf("100G requests from one source: err %v after %d requests, want a *TooBigError before any", r.Err(), r.Progress().Requests)
	}
	if msg := big.Error(); !strings.Contains(msg, "MiB") || !strings.Contains(msg, "--window") || strings.Contains(msg, "workers") {
		t.Errorf("the refusal says %q", msg)
	}
	o.Requests = 1_000_000_000
	var stop atomic.Bool
	p, _ := newPlan(o.Model, o.Seed, o.Sources, o.Requests, o.Limit, o.Window.Milliseconds(), &stop)
	o.Workers = 2
	if est, _ := p.footprint(o); est > algo.BudgetLive/8 {
		t.Errorf("1G requests from one source: estimate %d B, want well inside the budget", est)
	}
}

// Bursts far shorter than the run made the lab walk billions of on and off
// periods (1ms/1ms ran at 8.4k requests a second, 20 minutes for the
// default ten million): refused once the rates are drawn, before a request
// is decided, with the shortest ON+OFF the run allows; that shortest runs,
// walking at most a few periods a request.
func TestShortBurstsRefused(t *testing.T) {
	o := DefaultOptions
	o.Sources, o.Requests = 27_000, 1_000_000
	o.Model.On, o.Model.Off = time.Millisecond, time.Millisecond
	r, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var oe *algo.OptionError
	if !errors.As(r.Err(), &oe) || oe.Option != "bursts" || r.Progress().Requests != 0 {
		t.Fatalf("1ms/1ms: err %v after %d requests, want --bursts refused before any", r.Err(), r.Progress().Requests)
	}
	_, after, _ := strings.Cut(oe.Problem, "give periods of ")
	text, _, ok := strings.Cut(after, " or more together (ON+OFF)")
	shortest, err := time.ParseDuration(text)
	if !ok || err != nil || shortest < time.Second {
		t.Fatalf("the refusal %q names no shortest period", oe.Problem)
	}
	o.Model.On = (shortest + 1) / 2
	o.Model.Off = shortest - o.Model.On
	var stop atomic.Bool
	p, _ := newPlan(o.Model, o.Seed, o.Sources, o.Requests, o.Limit, o.Window.Milliseconds(), &stop)
	periods := float64(o.Sources) * float64(p.duration) / float64(shortest/time.Millisecond)
	if err := p.periodsProblem(o.Requests); err != nil || periods > maxPeriods(o.Requests, o.Sources) {
		t.Errorf("%v/%v, the shortest it named: %v (%.0f periods)", o.Model.On, o.Model.Off, err, periods)
	}
	if res := mustRun(t, o); !res.Complete || res.Requests != o.Requests {
		t.Errorf("%v/%v: %d of %d requests", o.Model.On, o.Model.Off, res.Requests, o.Requests)
	}
}
