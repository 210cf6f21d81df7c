package replay

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"windowlab/accesslog"
	"windowlab/algo"
)

// A sweep decided in passes (the settings that share a window in one
// engine) gives every row as an engine a setting does: random logs,
// random sweeps of random limiters, limits, bursts, windows and offsets,
// against each setting replayed alone by a brute force that counts the
// denials in maps; every row equal, its figures, most denied and charts.
func TestPassesDecideAsOneEngineASetting(t *testing.T) {
	names := append(algo.AlgorithmNames(), "fixed-window@3", "sliding-log@2~split", "sliding-counter@2~sync=1s", "fixed-window~2ms")
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 37))
		l := burstyLog(t, rng)
		var algos []algo.Algorithm
		for range 1 + rng.IntN(4) {
			a, err := algo.ParseAlgorithm(names[rng.IntN(len(names))])
			if err != nil {
				t.Fatal(err)
			}
			algos = append(algos, a)
		}
		windows := []time.Duration{time.Second, 10 * time.Second, time.Minute}
		var settings []Setting
		for range 1 + rng.IntN(12) {
			c := algo.Config{Limit: 1 + rng.Int64N(30), Window: windows[rng.IntN(len(windows))]}
			if rng.IntN(3) == 0 {
				c.Burst = 1 + rng.Int64N(40)
			}
			if rng.IntN(4) == 0 {
				c.Offset = c.Window / 2
			}
			s := Setting{Config: c}
			for _, a := range algos {
				if _, err := a.New(c); err == nil {
					s.Algorithms = append(s.Algorithms, a)
				}
			}
			if len(s.Algorithms) > 0 {
				settings = append(settings, s)
			}
		}
		want := alone(t, l, settings)
		for _, cores := range []int{1, 2, 3} {
			bySetting := make([][]Outcome, len(settings))
			for _, p := range passes(settings, cores) {
				rows, errs := replayPass(context.Background(), l.Source(), pick(settings, p), nil)
				for j, i := range p {
					if errs[j] != nil {
						t.Fatal(errs[j])
					}
					bySetting[i] = rows[j]
				}
			}
			got := slices.Concat(bySetting...)
			if len(got) != len(want) {
				t.Fatalf("seed %d, %d cores: %d rows, want %d", seed, cores, len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("seed %d, %d cores: row %d (%s) differs:\n%+v\nalone:\n%+v", seed, cores, i, want[i].label(), got[i], want[i])
				}
			}
		}
		rows, whole, err := sweep(context.Background(), l.Source, settings, nil)
		if err != nil || whole != len(settings) || !reflect.DeepEqual(rows, want) {
			t.Fatalf("seed %d: sweep's rows differ from the settings alone (%v, %d whole)", seed, err, whole)
		}
	}
}

// burstyLog is a short log of a few to many clients, bursts at one
// instant included.
func burstyLog(t *testing.T, rng *rand.Rand) *accesslog.Log {
	t.Helper()
	clients := 1 + rng.IntN(60)
	return millisLog(t, rng, time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC), clients, 500+rng.IntN(3000), 200)
}

// alone replays the log at each setting in an engine of its own and makes
// its rows by brute force: each limiter's denials in a map by client, the
// five most denied by sorting them all.
func alone(t *testing.T, l *accesslog.Log, settings []Setting) []Outcome {
	t.Helper()
	var out []Outcome
	for _, s := range settings {
		e, err := Engine(context.Background(), l.Source(), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		deniedBy := make([]map[string]int64, len(s.Algorithms))
		allowed := make([]histogram, len(s.Algorithms))
		var sent histogram
		for r, ok := e.Step(); ok; r, ok = e.Step() {
			sent.add(r.Arrival.At)
			for k, d := range r.Decisions {
				if d.Allowed {
					allowed[k].add(r.Arrival.At)
				} else {
					if deniedBy[k] == nil {
						deniedBy[k] = map[string]int64{}
					}
					deniedBy[k][r.Arrival.Client]++
				}
			}
		}
		for k, st := range e.Stats() {
			o := Outcome{setting: s, stats: st, allowed: allowed[k], sent: sent, affected: len(deniedBy[k])}
			for c, n := range deniedBy[k] {
				o.top = append(o.top, denied{c, n})
			}
			slices.SortFunc(o.top, func(a, b denied) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.client, b.client)) })
			o.top = o.top[:min(len(o.top), 5)]
			if len(o.top) == 0 {
				o.top = nil
			}
			out = append(out, o)
		}
	}
	return out
}

// The passes hold every setting once, in its order; a pass's settings
// share everything but Limit and Burst, none is on a store, none holds
// more than maxPassLimiters limiters (but a setting alone); and there are
// as many passes as cores while the settings allow.
func TestPassesGroupByWindow(t *testing.T) {
	three := mustAlgorithms(t, "fixed-window", "sliding-log", "sliding-counter")
	store := &failingStore{}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 3))
		var settings []Setting
		for range 1 + rng.IntN(24) {
			s := Setting{Config: algo.Config{Limit: 1 + rng.Int64N(5), Window: time.Duration(1+rng.IntN(3)) * time.Second}, Algorithms: three[:1+rng.IntN(3)]}
			if rng.IntN(3) == 0 {
				s.Config.Burst = 7
			}
			if rng.IntN(10) == 0 {
				s.Store = store
			}
			settings = append(settings, s)
		}
		cores := 1 + rng.IntN(4)
		ps := passes(settings, cores)
		var all []int
		for _, p := range ps {
			all = append(all, p...)
			if !slices.IsSorted(p) {
				t.Fatalf("seed %d: pass %v out of order", seed, p)
			}
			if len(p) > 1 && passLimiters(settings, p) > maxPassLimiters {
				t.Fatalf("seed %d: pass %v holds %d limiters", seed, p, passLimiters(settings, p))
			}
			for _, i := range p[1:] {
				a, b := settings[p[0]].Config, settings[i].Config
				a.Limit, a.Burst, b.Limit, b.Burst = 0, 0, 0, 0
				if a != b || settings[i].Store != nil || settings[p[0]].Store != nil {
					t.Fatalf("seed %d: pass %v mixes settings %+v and %+v", seed, p, settings[p[0]], settings[i])
				}
			}
		}
		slices.Sort(all)
		for i, j := range all {
			if i != j {
				t.Fatalf("seed %d: the passes %v do not hold every setting once", seed, ps)
			}
		}
		// Every core has a pass while any pass deciding a limiter at a
		// time can be halved; a pass deciding its settings together
		// stays whole.
		halvable := 0
		for _, p := range ps {
			if together(settings, p) {
				halvable++
			} else {
				halvable += len(p)
			}
		}
		if len(ps) < min(cores, halvable) {
			t.Fatalf("seed %d: %d passes for %d cores and %d settings", seed, len(ps), cores, len(settings))
		}
	}
}

// TestPassesKeepTogetherWhole: four limits at one window, of the lesson's
// three limiters, are one pass on any number of cores, decided from one
// record a client; with a fourth limiter they decide one at a time, the
// pass is halved for a second core.
func TestPassesKeepTogetherWhole(t *testing.T) {
	three := mustAlgorithms(t, "fixed-window", "sliding-log", "sliding-counter")
	settings, err := Settings([]int64{30, 60, 120, 240}, []time.Duration{time.Minute}, three)
	if err != nil {
		t.Fatal(err)
	}
	if ps := passes(settings, 2); len(ps) != 1 || !together(settings, ps[0]) {
		t.Errorf("the lesson's three at four limits: passes %v, want one, together", ps)
	}
	four := append(slices.Clone(three), mustAlgorithms(t, "token-bucket")...)
	settings, err = Settings([]int64{30, 60, 120, 240}, []time.Duration{time.Minute}, four)
	if err != nil {
		t.Fatal(err)
	}
	if ps := passes(settings, 2); len(ps) != 2 || together(settings, ps[0]) {
		t.Errorf("with a token bucket: passes %v, want two, a limiter at a time", ps)
	}
}

// failingStore is a Store the passes keep apart; it decides nothing.
type failingStore struct{}

func (*failingStore) WrapAll(ls []algo.Limiter) ([]algo.Limiter, error) { return ls, nil }
func (*failingStore) Err() error                                        { return nil }

// BenchmarkSweepOfFour decides a sweep of 4 (60 and 120 per 1m and 1h,
// the three default limiters) on one core over a log kept in memory
// (200,000 lines, 20,000 clients drawn Zipf-like): in two passes, the
// settings of a window together, against an engine a setting.
func BenchmarkSweepOfFour(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, 20_000-1)
	var text strings.Builder
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	const lines = 200_000
	for range lines {
		at = at.Add(time.Duration(rng.IntN(800)) * time.Millisecond)
		c := zipf.Uint64()
		fmt.Fprintf(&text, "10.0.%d.%d - - [%s] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n", c>>8, c&255, at.Format("02/Jan/2006:15:04:05 -0700"))
	}
	l, err := accesslog.Read(strings.NewReader(text.String()), accesslog.Options{Reorder: accesslog.DefaultReorder})
	if err != nil {
		b.Fatal(err)
	}
	settings, err := Settings([]int64{60, 120}, []time.Duration{time.Minute, time.Hour}, mustAlgorithms(&testing.T{}, "fixed-window", "sliding-log", "sliding-counter"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ps   [][]int
	}{{"passes", passes(settings, 1)}, {"alone", [][]int{{0}, {1}, {2}, {3}}}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				for _, p := range c.ps {
					replayPass(context.Background(), l.Source(), pick(settings, p), nil)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/lines, "ns/request")
		})
	}
}
