package algo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestTrioOfSeveralDecidesAsEachAlone runs random traffic (as
// TestTrioDecidesAsTheThree makes it) through a Trio of two to five limits
// and through a Trio of each alone (checkTrioOfSeveral).
func TestTrioOfSeveralDecidesAsEachAlone(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 11))
		window := time.Duration(1+rng.IntN(5000)) * time.Millisecond
		if seed%4 == 0 {
			window = time.Minute
		}
		base := Config{Window: window}
		if seed%3 == 0 {
			base.Offset = time.Duration(rng.Int64N(int64(window/time.Millisecond))) * time.Millisecond
		}
		var configs []Config
		for range 2 + rng.IntN(4) {
			c := base
			c.Limit = int64(1 + rng.IntN(8)) // in any order, now and then twice
			configs = append(configs, c)
		}
		reqs := randomTrioTraffic(rng, window)
		t.Run(fmt.Sprintf("seed %d %d limits window %v offset %v", seed, len(configs), base.Window, base.Offset), func(t *testing.T) {
			checkTrioOfSeveral(t, configs, reqs)
		})
	}
}

// checkTrioOfSeveral decides reqs in a Trio of configs and in a Trio of
// each alone (which checkTrio holds to the three limiters; one member's
// record never splits), all numbering the clients
// by one Names, and asks after every request that each member's decisions,
// its limiters' Memory and its log's count, oldest and timestamps are its
// Trio's; at the end, each Peak and MemoryAt too.
func checkTrioOfSeveral(t *testing.T, configs []Config, reqs []trioRequest) {
	t.Helper()
	several, ok := NewTrio(configs...)
	if !ok {
		t.Fatalf("NewTrio refused %+v", configs)
	}
	names := NewNames()
	several.UseNames(names)
	trios := make([]*Trio, len(configs))
	for g, c := range configs {
		trios[g], _ = NewTrio(c)
		trios[g].UseNames(names)
	}
	got := make([]TrioDecision, len(configs))
	var at Instant
	for i, r := range reqs {
		at = r.at
		id := names.ID(fmt.Sprintf("client-%d", r.c*7919))
		several.Allow(at, id, got)
		for g, trio := range trios {
			var one [1]TrioDecision
			trio.Allow(at, id, one[:])
			want := one[0]
			if got[g] != want {
				t.Fatalf("request %d at %v, client %d, limit %d: the Trio of several decided %+v, alone %+v", i, at, r.c, configs[g].Limit, got[g], want)
			}
			for k := range TrioKinds {
				if m, want := several.Memory(g, k), trio.Memory(0, k); m != want {
					t.Fatalf("request %d at %v, limit %d: %v holds %+v in the Trio of several, %+v alone", i, at, configs[g].Limit, TrioKinds[k], m, want)
				}
			}
			if n, want := several.LogLen(g, id), trio.LogLen(0, id); n != want {
				t.Fatalf("request %d, limit %d: the Trio of several's log holds %d, alone %d", i, configs[g].Limit, n, want)
			}
			if n := trio.LogLen(0, id); n > 0 && several.LogOldest(g, id) != trio.LogOldest(0, id) {
				t.Fatalf("request %d, limit %d: the Trio of several's log starts at %v, alone at %v", i, configs[g].Limit, several.LogOldest(g, id), trio.LogOldest(0, id))
			}
			if runs, want := runsOf(several.LogRuns(g, id)), runsOf(trio.LogRuns(0, id)); !slices.Equal(runs, want) {
				t.Fatalf("request %d, limit %d: the Trio of several's log holds %v, alone %v", i, configs[g].Limit, runs, want)
			}
		}
	}
	for g, trio := range trios {
		for k := range TrioKinds {
			if p, want := several.Peak(g, k), trio.Peak(0, k); p != want {
				t.Errorf("limit %d, %v: peak %+v, alone %+v", configs[g].Limit, TrioKinds[k], p, want)
			}
			if m, want := several.MemoryAt(at, g, k), trio.MemoryAt(at, 0, k); m != want {
				t.Errorf("limit %d, %v: MemoryAt %+v, alone %+v", configs[g].Limit, TrioKinds[k], m, want)
			}
		}
	}
}

// runsOf is a log's runs, each as an instant and a count.
func runsOf(runs func(yield func(Instant, int64) bool)) [][2]int64 {
	var out [][2]int64
	for at, n := range runs {
		out = append(out, [2]int64{int64(at), n})
	}
	return out
}

// TestTrioSplitsAndMerges: a client under every limit shares one
// record; a burst past the smallest splits it; once the burst has left
// every window, an expiry finds its records the same and merges them, and
// the block they took is taken by the next client to split.
func TestTrioSplitsAndMerges(t *testing.T) {
	configs := []Config{{Limit: 3, Window: time.Second}, {Limit: 5, Window: time.Second}}
	several, _ := NewTrio(configs...)
	names := NewNames()
	several.UseNames(names)
	a, b := names.ID("a"), names.ID("b")
	d := make([]TrioDecision, 2)
	split := func(id int32) bool { return several.recs.getID(id).held&trioSplit != 0 }
	at := Instant(1_700_000_000_000)
	for i := range 3 {
		several.Allow(at+Instant(i), a, d)
	}
	if split(a) {
		t.Fatal("a client under both limits split")
	}
	several.Allow(at+3, a, d) // the fourth: 3 a second denies, 5 allows
	if !split(a) || d[0].Allowed != [3]bool{} || d[1].Allowed != [3]bool{true, true, true} {
		t.Fatalf("the fourth request: split %v, decided %+v", split(a), d)
	}
	// A request a second, from well past the burst: every window the
	// burst was in has passed by the third, and its expiry sweep merges.
	for s := range 4 {
		several.Allow(at+Instant(2_500+1000*s), a, d)
	}
	if split(a) || len(several.free) != 1 {
		t.Fatalf("after the burst: split %v, %d blocks free", split(a), len(several.free))
	}
	for i := range 4 {
		several.Allow(at+Instant(6_000+i), b, d)
	}
	if !split(b) || len(several.free) != 0 || len(several.blocks) != 2 {
		t.Fatalf("a second burst: split %v, %d blocks free of %d records", split(b), len(several.free), len(several.blocks))
	}
}

// TestTrioOfSeveralRefuses: a Trio's members differ in their limit only.
func TestTrioOfSeveralRefuses(t *testing.T) {
	minute := Config{Limit: 5, Window: time.Minute}
	for _, configs := range [][]Config{
		nil,
		{minute, {Limit: 5, Window: time.Hour}},
		{minute, {Limit: 5, Window: time.Minute, Offset: time.Second}},
		{minute, {Limit: 5, Window: time.Minute, NoExpiry: true}},
	} {
		if _, ok := NewTrio(configs...); ok {
			t.Errorf("NewTrio(%+v) took configurations a Trio does not decide", configs)
		}
	}
}
