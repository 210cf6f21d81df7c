package redisstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/internal/long"
	"windowlab/internal/redisclustertest"
	"windowlab/internal/redistest"
	"windowlab/redisstore"
	"windowlab/scenarios"
	"windowlab/sim"
)

func open(t *testing.T, url string, pipelined bool) *redisstore.Store {
	return openB(t, url, pipelined)
}

func openB(t testing.TB, url string, pipelined bool) *redisstore.Store {
	t.Helper()
	s, err := redisstore.Open(context.Background(), url, redisstore.Options{Pipelined: pipelined})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// wrap puts every limiter that can run on Redis there (Store.WrapAll).
func wrap(t *testing.T, s *redisstore.Store, ls []algo.Limiter) []algo.Limiter {
	t.Helper()
	out, err := s.WrapAll(ls)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decisions runs an engine to its end and returns every decision in order,
// and its figures.
func decisions(t *testing.T, src sim.Source, ls []algo.Limiter, start algo.Instant) ([][]algo.Decision, []sim.Stats) {
	t.Helper()
	e, err := sim.New(src, ls, sim.Options{Start: start, ForwardOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]algo.Decision
	for {
		r, ok := e.Step()
		if !ok {
			break
		}
		out = append(out, append([]algo.Decision(nil), r.Decisions...))
	}
	return out, e.Stats()
}

// compare reports the first request where two runs differ.
func compare(t *testing.T, name string, want, got [][]algo.Decision, wantStats, gotStats []sim.Stats) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d decisions in process, %d through Redis", name, len(want), len(got))
	}
	for i := range want {
		for j := range want[i] {
			if want[i][j] != got[i][j] {
				t.Fatalf("%s: request %d, limiter %d:\n in process %+v\n     Redis %+v", name, i, j, want[i][j], got[i][j])
			}
		}
	}
	if !reflect.DeepEqual(wantStats, gotStats) {
		t.Fatalf("%s: figures differ:\n in process %+v\n     Redis %+v", name, wantStats, gotStats)
	}
}

// Every built-in scenario decides on a real Redis exactly as in process,
// request for request and figure for figure, unpipelined (each decision
// Redis's own answer) and pipelined (answers checked in batches). The
// quick run takes the big ones (a round trip a decision is some 100 µs)
// pipelined only; WINDOWLAB_LONG=1 both ways.
func TestBuiltinsDecideTheSameOnRedis(t *testing.T) {
	builtinsDecideTheSame(t, redistest.Start(t).URL)
}

// The same on a Redis Cluster of three primaries: each client's keys under
// a tag of its own shard, every script in one slot.
func TestBuiltinsDecideTheSameOnACluster(t *testing.T) {
	builtinsDecideTheSame(t, redisclustertest.Shared(t).URL)
}

func builtinsDecideTheSame(t *testing.T, url string) {
	for _, sc := range scenarios.Builtins() {
		t.Run(sc.Name, func(t *testing.T) {
			want, wantStats := decisions(t, sc.Source(), sc.Limiters(), sc.Start)
			modes := []bool{false, true}
			if len(want) > 5000 && !long.Enabled() {
				modes = []bool{true}
			}
			for _, pipelined := range modes {
				s := open(t, url, pipelined)
				ls := wrap(t, s, sc.Limiters())
				got, gotStats := decisions(t, sc.Source(), ls, sc.Start)
				s.Flush()
				if err := s.Err(); err != nil {
					t.Fatalf("pipelined %v: %v", pipelined, err)
				}
				compare(t, fmt.Sprintf("%s (pipelined %v)", sc.Name, pipelined), want, got, wantStats, gotStats)
			}
		})
	}
}

// randomConfig is a seeded random limiter: any kind, any rules, small
// limits and windows so the edges are crossed often, and now and then the
// largest limit and window, whose products pass 2^53.
func randomConfig(r *rand.Rand) (algo.Kind, algo.Config) {
	k := algo.All[r.IntN(len(algo.All))]
	c := algo.Config{Limit: 1 + r.Int64N(12), Window: time.Duration(1+r.IntN(3000)) * time.Millisecond}
	if r.IntN(2) == 0 { // windows of a few ms: estimates land on the limit exactly, often
		c.Limit, c.Window = 1+r.Int64N(4), time.Duration(2+r.IntN(9))*time.Millisecond
	}
	if r.IntN(8) == 0 {
		c.Limit, c.Window = algo.MaxLimit-r.Int64N(3), algo.MaxWindow-time.Duration(r.IntN(1000))*time.Millisecond
	}
	if r.IntN(3) == 0 {
		c.Offset = time.Duration(r.Int64N(int64(c.Window/time.Millisecond))) * time.Millisecond
	}
	c.NoExpiry = r.IntN(4) == 0
	if k == algo.KindTokenBucket && r.IntN(2) == 0 {
		c.Burst = 1 + r.Int64N(20)
	}
	if k == algo.KindSegmentedWindow && r.IntN(2) == 0 { // S a divisor of the window up to 64
		w := int64(c.Window / time.Millisecond)
		for s := min(w, 1+r.Int64N(64)); s >= 1; s-- {
			if w%s == 0 {
				c.Segments = s
				break
			}
		}
	}
	if k == algo.KindTokenBucket && r.IntN(2) == 0 { // a library's bucket: token-bucket/gcra
		if p := algo.BucketPresets[r.IntN(len(algo.BucketPresets))]; !p.Rules.InProcessOnly() {
			c.Rules = p.Rules
		}
	}
	if k != algo.KindTokenBucket {
		switch r.IntN(3) {
		case 0: // the lesson's rules
		case 1:
			c.Rules = algo.Presets[r.IntN(len(algo.Presets))].Rules
		default:
			c.Rules = algo.Rules{
				CountRejected: r.IntN(2) == 0,
				Rounding:      algo.Rounding(r.IntN(3)),
				Compare:       algo.Compare(r.IntN(3)),
			}
		}
		if k == algo.KindFixedWindow && r.IntN(3) == 0 {
			c.Rules.WindowStart = algo.WindowFirstRequest
		}
	}
	return k, c
}

// randomArrivals is a seeded stream: a few clients, instants rising by
// nothing, by a little and now and then by a lot, on the scenario clock
// or on dated instants.
func randomArrivals(r *rand.Rand, w time.Duration) []sim.Arrival {
	n := 1 + r.IntN(300)
	at := algo.Instant(r.Int64N(100_000))
	if r.IntN(2) == 0 {
		at += algo.Dated + algo.Instant(r.Int64N(1<<40))
	}
	wms := int64(w / time.Millisecond)
	out := make([]sim.Arrival, n)
	clients := 1 + r.IntN(5)
	for i := range out {
		switch r.IntN(6) {
		case 0: // the same instant
		case 1:
			at += algo.Instant(r.Int64N(min(wms, 1<<40)*3 + 1))
		default:
			at += algo.Instant(r.Int64N(min(wms, 1000)/4 + 2))
		}
		out[i] = sim.Arrival{At: at, Client: fmt.Sprintf("c%d", r.IntN(clients))}
	}
	return out
}

// 100 seeded random scenarios (1,000 with WINDOWLAB_LONG=1) decide on
// Redis exactly as in process.
func TestRandomScenariosDecideTheSameOnRedis(t *testing.T) {
	randomDecideTheSame(t, redistest.Start(t).URL)
}

// The same on a Redis Cluster.
func TestRandomScenariosDecideTheSameOnACluster(t *testing.T) {
	randomDecideTheSame(t, redisclustertest.Shared(t).URL)
}

func randomDecideTheSame(t *testing.T, url string) {
	n := 100
	if long.Enabled() {
		n = 1000
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 14))
		k, c := randomConfig(r)
		arrivals := randomArrivals(r, c.Window)
		local, err := algo.New(k, c)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want, wantStats := decisions(t, sim.NewSliceSource(arrivals), []algo.Limiter{local}, 0)
		fresh, _ := algo.New(k, c)
		s := open(t, url, seed%2 == 1)
		ls := wrap(t, s, []algo.Limiter{fresh})
		got, gotStats := decisions(t, sim.NewSliceSource(arrivals), ls, 0)
		s.Flush()
		if err := s.Err(); err != nil {
			t.Fatalf("seed %d (%v %+v): %v", seed, k, c, err)
		}
		compare(t, fmt.Sprintf("seed %d (%v %+v)", seed, k, c), want, got, wantStats, gotStats)
	}
}

// Stepping back restores a checkpoint: on Redis, a copy of the lane's keys.
// Replayed forward from it, every decision is the same again.
func TestSteppingBackOnRedis(t *testing.T) {
	steppingBack(t, redistest.Start(t).URL)
}

// The same on a Redis Cluster: a checkpoint's COPY stays in its tag's slot.
func TestSteppingBackOnACluster(t *testing.T) {
	steppingBack(t, redisclustertest.Shared(t).URL)
}

func steppingBack(t *testing.T, url string) {
	sc, err := scenarios.Builtin("boundary-burst")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := decisions(t, sc.Source(), sc.Limiters(), sc.Start)
	s := open(t, url, false)
	e, err := sim.New(sc.Source(), wrap(t, s, sc.Limiters()), sim.Options{Start: sc.Start})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToEnd()
	e.SeekIndex(int64(len(want) / 3))
	for i := len(want) / 3; ; i++ {
		r, ok := e.Step()
		if !ok {
			break
		}
		if !reflect.DeepEqual(r.Decisions, want[i]) {
			t.Fatalf("request %d after stepping back: %+v, want %+v", i, r.Decisions, want[i])
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}
