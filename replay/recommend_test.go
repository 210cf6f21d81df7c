package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/sim"
)

// randomLog is a small log of a few clients, some bursting, to the
// millisecond: requests at equal instants, within a window and across
// window edges.
func randomLog(t *testing.T, rng *rand.Rand) *accesslog.Log {
	t.Helper()
	clients := 1 + rng.IntN(6)
	return millisLog(t, rng, time.Date(2026, 11, 30, 23, 59, 50, 0, time.UTC), clients, 20+rng.IntN(200), 700)
}

// millisLog is a log of lines requests from clients addresses from at
// on, to the millisecond: each a quarter of the time at the instant of
// the one before (a burst), otherwise up to gapMs later.
func millisLog(t *testing.T, rng *rand.Rand, at time.Time, clients, lines, gapMs int) *accesslog.Log {
	t.Helper()
	var b strings.Builder
	for range lines {
		if rng.IntN(4) > 0 {
			at = at.Add(time.Duration(rng.IntN(gapMs)) * time.Millisecond)
		}
		fmt.Fprintf(&b, "10.0.0.%d - - [%s] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n", rng.IntN(clients), at.Format("02/Jan/2006:15:04:05.000 -0700"))
	}
	l, err := accesslog.Read(strings.NewReader(b.String()), accesslog.Options{Name: "random.log", Reorder: accesslog.DefaultReorder})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// instantsByClient are the log's instants of each client, by name.
func instantsByClient(l *accesslog.Log) map[string][]int64 {
	out := map[string][]int64{}
	src := l.Source()
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		out[a.Client] = append(out[a.Client], int64(a.At))
	}
	return out
}

// The peaks and their percentiles are what counting every interval and
// every aligned window by hand gives, on random small logs at random
// windows and offsets.
func TestPeaksAgainstBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 33))
		l := randomLog(t, rng)
		w := int64(1 + rng.IntN(5000))
		cfg := algo.Config{Limit: 1, Window: time.Duration(w) * time.Millisecond, Offset: time.Duration(rng.Int64N(w)) * time.Millisecond}
		p := FindPeaks(l, cfg)
		for name, ts := range instantsByClient(l) {
			c := l.ClientNumber(name)
			var sliding, aligned int64
			windows := map[int64]int64{}
			for _, end := range ts {
				var n int64
				for _, u := range ts {
					if end-w < u && u <= end { // (end − W, end]
						n++
					}
				}
				sliding = max(sliding, n)
				start := end - ((end-int64(cfg.Offset/time.Millisecond))%w+w)%w
				windows[start]++
				aligned = max(aligned, windows[start])
			}
			if p.Sliding[c] != sliding || p.Aligned[c] != aligned || p.Total[c] != int64(len(ts)) {
				t.Fatalf("seed %d, window %d ms, client %s: peaks %d sliding, %d aligned, %d in all; by hand %d, %d, %d",
					seed, w, name, p.Sliding[c], p.Aligned[c], p.Total[c], sliding, aligned, len(ts))
			}
		}
		for _, peaks := range [][]int64{p.Sliding, p.Aligned} {
			got := Percentiles(peaks)
			for i, pc := range percentiles {
				// Nearest rank: the smallest value at least pc of the clients are at or below.
				want := int64(-1)
				for _, v := range slices.Sorted(slices.Values(peaks)) {
					var below int64
					for _, u := range peaks {
						if u <= v {
							below++
						}
					}
					if below*pc.den >= pc.num*int64(len(peaks)) {
						want = v
						break
					}
				}
				if got[i] != want {
					t.Fatalf("seed %d: %s of %v is %d, by hand %d", seed, pc.name, peaks, got[i], want)
				}
			}
		}
	}
}

// deniedByEngine replays the log at one limiter and limit through the
// engine directly, counting the clients it denies.
func deniedByEngine(t *testing.T, l *accesslog.Log, cfg algo.Config, a algo.Algorithm, limit int64) int64 {
	t.Helper()
	cfg.Limit = limit
	e, err := sim.Setup{Algorithms: []algo.Algorithm{a}, Config: cfg}.Engine(l.Source(), sim.Options{ForwardOnly: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	denied := map[string]bool{}
	for r, ok := e.Step(); ok; r, ok = e.Step() {
		if !r.Decisions[0].Allowed {
			denied[r.Arrival.Client] = true
		}
	}
	return int64(len(denied))
}

// Each limiter's recommended limit is the smallest that denies at most the
// share of clients: every limit from 1 up to it, replayed through the
// engine one by one, is checked, and the limit below it does not meet
// the share; on random logs, windows and shares.
func TestRecommendIsTheSmallest(t *testing.T) {
	algos := []algo.Algorithm{mustAlgorithm(t, "fixed-window"), mustAlgorithm(t, "sliding-log"), mustAlgorithm(t, "sliding-counter")}
	shares := []string{"0%", "10%", "25%", "50%", "100%", "0.1%", "33.333%"}
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 34))
		l := randomLog(t, rng)
		share, err := ParseShare("--deny-at-most", shares[rng.IntN(len(shares))])
		if err != nil {
			t.Fatal(err)
		}
		w := time.Duration(1+rng.IntN(4000)) * time.Millisecond
		s := Setting{Config: algo.Config{Limit: 1, Window: w}, Algorithms: algos}
		r, err := Recommend(context.Background(), l, s, share, nil)
		if err != nil || !r.Complete {
			t.Fatalf("seed %d: %v (complete %v)", seed, err, r != nil && r.Complete)
		}
		clients := int64(len(l.Clients()))
		for i, a := range algos {
			p := r.Picks[i]
			want := int64(0)
			for limit := int64(1); want == 0; limit++ {
				if share.Meets(deniedByEngine(t, l, s.Config, a, limit), clients) {
					want = limit
				}
			}
			if p.At == nil || p.At.Limit != want {
				t.Fatalf("seed %d, %s, window %v, %s: picked %+v, the smallest by the engine is %d", seed, a, w, share.Text, p.At, want)
			}
			if got := deniedByEngine(t, l, s.Config, a, want); p.At.Clients != got {
				t.Errorf("seed %d, %s: the pick says %d clients denied, the engine %d", seed, a, p.At.Clients, got)
			}
			if want > 1 && (p.Below == nil || p.Below.Limit != want-1 || share.Meets(p.Below.Clients, clients)) {
				t.Errorf("seed %d, %s: below the pick %d: %+v", seed, a, want, p.Below)
			}
		}
	}
}

// --deny-at-most takes a percentage from 0% to 100%, exactly; anything
// else is refused naming the flag.
func TestParseShare(t *testing.T) {
	for _, c := range []struct {
		in       string
		num, den int64
	}{{"0.1%", 1, 1000}, {"5%", 5, 100}, {"100%", 100, 100}, {"0%", 0, 100}, {"0.0005%", 5, 1000000}, {" 2.50% ", 250, 10000}} {
		s, err := ParseShare("--deny-at-most", c.in)
		if err != nil || s.Num*c.den != c.num*s.Den {
			t.Errorf("%q: %d/%d, %v; want %d/%d", c.in, s.Num, s.Den, err, c.num, c.den)
		}
	}
	for _, bad := range []string{"abc", "150%", "-1%", "0.1", "%", ".5%", "1e2%", "0.0000001%", "100.5%", "1.%x"} {
		if _, err := ParseShare("--deny-at-most", bad); err == nil || !strings.Contains(err.Error(), "--deny-at-most") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func mustAlgorithm(t *testing.T, name string) algo.Algorithm {
	t.Helper()
	a, err := algo.ParseAlgorithm(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustAlgorithms(t *testing.T, names ...string) []algo.Algorithm {
	t.Helper()
	out := make([]algo.Algorithm, len(names))
	for i, name := range names {
		out[i] = mustAlgorithm(t, name)
	}
	return out
}

// Round limits: 1, 2, 5 × 10^k, listed between two bounds, and the first at
// or above any n; each pick's Round is the smallest of them at or above the
// pick that the engine, replaying the log, finds denying at most the share.
func TestRecommendRoundLimits(t *testing.T) {
	if got := fmt.Sprint(roundLimits(3, 1000)); got != "[5 10 20 50 100 200 500 1000]" {
		t.Errorf("roundLimits(3, 1000) = %s", got)
	}
	if got := fmt.Sprint(roundLimits(1, 1)); got != "[1]" {
		t.Errorf("roundLimits(1, 1) = %s", got)
	}
	for n, want := range map[int64]int64{1: 1, 2: 2, 3: 5, 6: 10, 11: 20, 21: 50, 51: 100, 999_999_999: 1_000_000_000} {
		if got := roundUp(n); got != want {
			t.Errorf("roundUp(%d) = %d, want %d", n, got, want)
		}
	}
	algos := []algo.Algorithm{mustAlgorithm(t, "fixed-window"), mustAlgorithm(t, "sliding-log"), mustAlgorithm(t, "token-bucket")}
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 35))
		l := randomLog(t, rng)
		share, _ := ParseShare("--deny-at-most", []string{"0%", "10%", "50%"}[rng.IntN(3)])
		s := Setting{Config: algo.Config{Limit: 1, Window: time.Duration(1+rng.IntN(4000)) * time.Millisecond}, Algorithms: algos}
		r, err := Recommend(context.Background(), l, s, share, nil)
		if err != nil || !r.Complete {
			t.Fatalf("seed %d: %v", seed, err)
		}
		clients := int64(len(l.Clients()))
		for i, a := range algos {
			p := r.Picks[i]
			if p.At == nil {
				continue
			}
			want := int64(0)
			for _, limit := range roundLimits(p.At.Limit, 10*roundUp(p.At.Limit)) {
				if share.Meets(deniedByEngine(t, l, s.Config, a, limit), clients) {
					want = limit
					break
				}
			}
			if p.Round == nil || p.Round.Limit != want {
				t.Errorf("seed %d, %s: pick %d, round %+v, the engine's smallest round limit meeting %s is %d", seed, a, p.At.Limit, p.Round, share.Text, want)
			}
		}
	}
}
