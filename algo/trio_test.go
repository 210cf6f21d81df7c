package algo

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestTrioDecidesAsTheThree runs random traffic (bursts at one instant,
// quiet gaps of several windows, many clients and few, windows with an
// offset) through a Trio and through the three limiters it stands for,
// all numbering the clients by one Names, and asks after every request that each
// decision and each limiter's Memory are the same, and that the log's
// count in the window and its oldest are what a plain list of the
// instants it admitted says; at the end, MemoryAt too.
func TestTrioDecidesAsTheThree(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		window := time.Duration(1+rng.IntN(5000)) * time.Millisecond
		if seed%4 == 0 {
			window = time.Minute
		}
		cfg := Config{Limit: int64(1 + rng.IntN(6)), Window: window}
		if seed%3 == 0 {
			cfg.Offset = time.Duration(rng.Int64N(int64(window/time.Millisecond))) * time.Millisecond
		}
		t.Run(fmt.Sprintf("seed %d limit %d window %v offset %v", seed, cfg.Limit, cfg.Window, cfg.Offset), func(t *testing.T) {
			trio, ok := NewTrio(cfg)
			if !ok {
				t.Fatal("NewTrio refused the lesson's rules")
			}
			names := NewNames()
			trio.UseNames(names)
			three := []interface {
				Limiter
				ByID
				Writer
			}{NewFixedWindow(cfg), NewSlidingLog(cfg), NewSlidingCounter(cfg)}
			for _, l := range three {
				if !l.UseNames(names) {
					t.Fatal("UseNames refused")
				}
			}
			clients := 1 + rng.IntN(40)
			admitted := make([][]Instant, clients) // the log's, by client
			at := Instant(1_700_000_000_000 + rng.Int64N(1_000_000))
			for i := range 3000 {
				switch r := rng.IntN(20); {
				case r == 0:
					at += Instant(rng.Int64N(4 * int64(window/time.Millisecond))) // quiet: windows pass, sweeps expire
				case r < 8:
					at += Instant(rng.Int64N(int64(window/time.Millisecond)/4 + 1))
				}
				c := rng.IntN(clients)
				if rng.IntN(3) == 0 {
					c = rng.IntN(min(clients, 3)) // a few busy clients
				}
				id := names.ID(fmt.Sprintf("client-%d", c*7919)) // names of several lengths
				var got TrioDecision
				trio.Allow(at, id, &got)
				for k, l := range three {
					var d Decision
					l.AllowIDInto(at, id, &d)
					if got.Allowed[k] != d.Allowed {
						t.Fatalf("request %d at %v, client %d: %v says %v, the Trio %v", i, at, c, TrioKinds[k], d.Allowed, got.Allowed[k])
					}
					if m := l.Memory(); trio.Memory(k) != m {
						t.Fatalf("request %d at %v: %v holds %+v, the Trio says %+v", i, at, TrioKinds[k], m, trio.Memory(k))
					}
					if k != 1 || !d.Allowed {
						continue
					}
					// The log's count: what a plain list of its admitted instants holds.
					list := append(admitted[c], at)
					for len(list) > 0 && list[0] <= at-Instant(window/time.Millisecond) {
						list = list[1:]
					}
					admitted[c] = list
					if got.LogCount != int64(len(list)) || trio.LogOldest(id) != list[0] {
						t.Fatalf("request %d at %v, client %d: the log admitted %d in its window from %v, the Trio says %d from %v", i, at, c, len(list), list[0], got.LogCount, trio.LogOldest(id))
					}
				}
			}
			for k, l := range three {
				if m, want := trio.MemoryAt(at, k), l.MemoryAt(at); m != want {
					t.Errorf("%v: MemoryAt %+v, its limiter %+v", TrioKinds[k], m, want)
				}
			}
		})
	}
}

// TestTrioRefuses: a Trio decides only as the lesson's three limiters do.
func TestTrioRefuses(t *testing.T) {
	for _, cfg := range []Config{
		{Limit: 5, Window: time.Second, NoExpiry: true},
		{Limit: 5, Window: time.Second, Rules: Rules{CountRejected: true}},
		{Limit: 5, Window: time.Second, Rules: Rules{WindowStart: WindowFirstEvent}},
		{Limit: 0, Window: time.Second},
	} {
		if _, ok := NewTrio(cfg); ok {
			t.Errorf("NewTrio(%+v) took a configuration its limiters decide otherwise", cfg)
		}
	}
}
