package algo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestTrioSetDecidesAsItsTrios runs random traffic (as
// TestTrioDecidesAsTheThree makes it) through a TrioSet of two to five
// limits and through a Trio of each (checkTrioSet).
func TestTrioSetDecidesAsItsTrios(t *testing.T) {
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
			checkTrioSet(t, configs, reqs)
		})
	}
}

// FuzzTrioSet is TestTrioSetDecidesAsItsTrios on traffic the fuzzer
// makes, in FuzzTrio's bytes, the first byte's high bits giving a second
// limit and a third.
//
//	go test -run '^$' -fuzz FuzzTrioSet -fuzztime 10m ./algo/
func FuzzTrioSet(f *testing.F) {
	f.Add([]byte{0x53, 9, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0, 0, 0, 0, 0})
	f.Add([]byte{0xc1, 0xc0, 0x40, 5, 1, 0, 1, 200, 2, 0, 1, 0x80, 3, 1, 1, 0, 0, 7, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		base, reqs := fuzzTrioTraffic(data)
		var configs []Config
		for _, limit := range []byte{data[0] & 7, data[0] >> 3 & 3, data[0] >> 5} {
			c := base
			c.Limit = 1 + int64(limit)
			configs = append(configs, c)
		}
		checkTrioSet(t, configs, reqs)
	})
}

// checkTrioSet decides reqs in a TrioSet of configs and in a Trio of each
// (which checkTrio holds to the three limiters), all numbering the clients
// by one Names, and asks after every request that each member's decisions,
// its limiters' Memory and its log's count, oldest and timestamps are its
// Trio's; at the end, each Peak and MemoryAt too.
func checkTrioSet(t *testing.T, configs []Config, reqs []trioRequest) {
	t.Helper()
	set, ok := NewTrioSet(configs)
	if !ok {
		t.Fatalf("NewTrioSet refused %+v", configs)
	}
	names := NewNames()
	set.UseNames(names)
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
		set.Allow(at, id, got)
		for g, trio := range trios {
			var want TrioDecision
			trio.Allow(at, id, &want)
			if got[g] != want {
				t.Fatalf("request %d at %v, client %d, limit %d: the set decided %+v, its Trio %+v", i, at, r.c, configs[g].Limit, got[g], want)
			}
			for k := range TrioKinds {
				if m, want := set.Memory(g, k), trio.Memory(k); m != want {
					t.Fatalf("request %d at %v, limit %d: %v holds %+v in the set, %+v in its Trio", i, at, configs[g].Limit, TrioKinds[k], m, want)
				}
			}
			if n, want := set.LogLen(g, id), trio.LogLen(id); n != want {
				t.Fatalf("request %d, limit %d: the set's log holds %d, its Trio's %d", i, configs[g].Limit, n, want)
			}
			if n := trio.LogLen(id); n > 0 && set.LogOldest(g, id) != trio.LogOldest(id) {
				t.Fatalf("request %d, limit %d: the set's log starts at %v, its Trio's at %v", i, configs[g].Limit, set.LogOldest(g, id), trio.LogOldest(id))
			}
			if runs, want := runsOf(set.LogRuns(g, id)), runsOf(trio.LogRuns(id)); !slices.Equal(runs, want) {
				t.Fatalf("request %d, limit %d: the set's log holds %v, its Trio's %v", i, configs[g].Limit, runs, want)
			}
		}
	}
	for g, trio := range trios {
		for k := range TrioKinds {
			if p, want := set.Peak(g, k), trio.Peak(k); p != want {
				t.Errorf("limit %d, %v: peak %+v, its Trio's %+v", configs[g].Limit, TrioKinds[k], p, want)
			}
			if m, want := set.MemoryAt(at, g, k), trio.MemoryAt(at, k); m != want {
				t.Errorf("limit %d, %v: MemoryAt %+v, its Trio's %+v", configs[g].Limit, TrioKinds[k], m, want)
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

// TestTrioSetSplitsAndMerges: a client under every limit shares one
// record; a burst past the smallest splits it; once the burst has left
// every window, an expiry finds its records the same and merges them, and
// the block they took is taken by the next client to split.
func TestTrioSetSplitsAndMerges(t *testing.T) {
	configs := []Config{{Limit: 3, Window: time.Second}, {Limit: 5, Window: time.Second}}
	set, _ := NewTrioSet(configs)
	names := NewNames()
	set.UseNames(names)
	a, b := names.ID("a"), names.ID("b")
	d := make([]TrioDecision, 2)
	split := func(id int32) bool { return set.recs.getID(id).held&trioSplit != 0 }
	at := Instant(1_700_000_000_000)
	for i := range 3 {
		set.Allow(at+Instant(i), a, d)
	}
	if split(a) {
		t.Fatal("a client under both limits split")
	}
	set.Allow(at+3, a, d) // the fourth: 3 a second denies, 5 allows
	if !split(a) || d[0].Allowed != [3]bool{} || d[1].Allowed != [3]bool{true, true, true} {
		t.Fatalf("the fourth request: split %v, decided %+v", split(a), d)
	}
	// A request a second, from well past the burst: every window the
	// burst was in has passed by the third, and its expiry sweep merges.
	for s := range 4 {
		set.Allow(at+Instant(2_500+1000*s), a, d)
	}
	if split(a) || len(set.free) != 1 {
		t.Fatalf("after the burst: split %v, %d blocks free", split(a), len(set.free))
	}
	for i := range 4 {
		set.Allow(at+Instant(6_000+i), b, d)
	}
	if !split(b) || len(set.free) != 0 || len(set.blocks) != 2 {
		t.Fatalf("a second burst: split %v, %d blocks free of %d records", split(b), len(set.free), len(set.blocks))
	}
}

// TestTrioSetRefuses: a TrioSet's members differ in their limit only.
func TestTrioSetRefuses(t *testing.T) {
	minute := Config{Limit: 5, Window: time.Minute}
	for _, configs := range [][]Config{
		nil,
		{minute, {Limit: 5, Window: time.Hour}},
		{minute, {Limit: 5, Window: time.Minute, Offset: time.Second}},
		{minute, {Limit: 5, Window: time.Minute, NoExpiry: true}},
	} {
		if _, ok := NewTrioSet(configs); ok {
			t.Errorf("NewTrioSet(%+v) took configurations a set does not decide", configs)
		}
	}
}
