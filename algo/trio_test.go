package algo

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestTrioDecidesAsTheThree runs random traffic (bursts at one instant,
// quiet gaps of several windows, many clients and few, windows with an
// offset) through a Trio and through the three limiters it stands for
// (checkTrio).
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
		reqs := randomTrioTraffic(rng, window)
		t.Run(fmt.Sprintf("seed %d limit %d window %v offset %v", seed, cfg.Limit, cfg.Window, cfg.Offset), func(t *testing.T) {
			checkTrio(t, cfg, reqs)
		})
	}
}

// randomTrioTraffic is 3,000 requests of up to 40 clients, a few of them
// busy, in bursts at one instant, steps within the window and quiet gaps
// of several windows (which sweeps expire).
func randomTrioTraffic(rng *rand.Rand, window time.Duration) []trioRequest {
	w := int64(window / time.Millisecond)
	clients := 1 + rng.IntN(40)
	var reqs []trioRequest
	at := Instant(1_700_000_000_000 + rng.Int64N(1_000_000))
	for range 3000 {
		switch r := rng.IntN(20); {
		case r == 0:
			at += Instant(rng.Int64N(4 * w)) // quiet: windows pass, sweeps expire
		case r < 8:
			at += Instant(rng.Int64N(w/4 + 1))
		}
		c := rng.IntN(clients)
		if rng.IntN(3) == 0 {
			c = rng.IntN(min(clients, 3)) // a few busy clients
		}
		reqs = append(reqs, trioRequest{at, c})
	}
	return reqs
}

// TestTrioCountsPastSixteenBits: the Trio keeps its counts in 32 bits
// (trioState); a limit past what 16 hold, reached in two windows by a
// client sending a request a millisecond (and a second client a tenth of
// them), and then by the counter's estimate across their edge, decides as
// the three do.
func TestTrioCountsPastSixteenBits(t *testing.T) {
	cfg := Config{Limit: 40_000, Window: time.Minute}
	var reqs []trioRequest
	at := Instant(1_700_000_000_000).Truncate(time.Minute) + 5_000
	for i := range 130_000 {
		reqs = append(reqs, trioRequest{at + Instant(i), min(i%10, 1)})
	}
	checkTrio(t, cfg, reqs)
}

// FuzzTrio is TestTrioDecidesAsTheThree and
// TestTrioOfSeveralDecidesAsEachAlone on traffic the fuzzer makes: three
// header bytes (the limit, 1 to 8, and in its high bits a second and a
// third; the window, 1 to 64 ms or, with the top bit, up to some minutes;
// the offset, a share of the window), then two bytes a request (how far
// the clock moves, nothing for a burst at one instant; the client, of up
// to 16).
//
//	go test -run '^$' -fuzz FuzzTrio -fuzztime 10m ./algo/
func FuzzTrio(f *testing.F) {
	f.Add([]byte{3, 9, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0, 0, 0, 0, 0})
	f.Add([]byte{0x81, 0xc0, 0x40, 5, 1, 0, 1, 200, 2, 0, 1, 0x80, 3, 1, 1, 0, 0, 7, 4})
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
		checkTrio(t, configs[0], reqs)
		checkTrioOfSeveral(t, configs, reqs)
	})
}

// fuzzTrioTraffic decodes FuzzTrio's bytes, data[0] aside (the limits),
// into a Config without a limit and the requests.
func fuzzTrioTraffic(data []byte) (Config, []trioRequest) {
	w := 1 + int64(data[1]&0x3f)
	if data[1]&0x80 != 0 {
		w *= 4001
	}
	cfg := Config{Window: time.Duration(w) * time.Millisecond, Offset: time.Duration(int64(data[2])*w/256) * time.Millisecond}
	var reqs []trioRequest
	at := Instant(1_700_000_000_000)
	for b := data[3:]; len(b) >= 2; b = b[2:] {
		at += Instant(int64(b[0]) * int64(b[0]) * w / 512) // quadratic: bursts, steps and gaps of windows
		reqs = append(reqs, trioRequest{at, int(b[1] & 15)})
	}
	return cfg, reqs
}

// trioRequest is a request of client c at at, for checkTrio.
type trioRequest struct {
	at Instant
	c  int
}

// checkTrio decides reqs in a Trio of cfg and in the three limiters it
// stands for, all numbering the clients by one Names, and asks after every
// request that each decision and each limiter's Memory are the same, and
// that the log's count in the window and its oldest are what a plain list
// of the instants it admitted says; at the end, MemoryAt too.
func checkTrio(t *testing.T, cfg Config, reqs []trioRequest) {
	t.Helper()
	trio, ok := NewTrio(cfg)
	if !ok {
		t.Fatalf("NewTrio refused %+v", cfg)
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
	admitted := map[int][]Instant{} // the log's, by client
	w := Instant(cfg.Window / time.Millisecond)
	var at Instant
	for i, r := range reqs {
		at = r.at
		id := names.ID(fmt.Sprintf("client-%d", r.c*7919)) // names of several lengths
		var one [1]TrioDecision
		trio.Allow(at, id, one[:])
		got := one[0]
		for k, l := range three {
			var d Decision
			l.AllowIDInto(at, id, &d)
			if got.Allowed[k] != d.Allowed {
				t.Fatalf("request %d at %v, client %d: %v says %v, the Trio %v", i, at, r.c, TrioKinds[k], d.Allowed, got.Allowed[k])
			}
			if m := l.Memory(); trio.Memory(0, k) != m {
				t.Fatalf("request %d at %v: %v holds %+v, the Trio says %+v", i, at, TrioKinds[k], m, trio.Memory(0, k))
			}
			if k != 1 || !d.Allowed {
				continue
			}
			list := append(admitted[r.c], at)
			for len(list) > 0 && list[0] <= at-w {
				list = list[1:]
			}
			admitted[r.c] = list
			if got.LogCount != int64(len(list)) || trio.LogOldest(0, id) != list[0] {
				t.Fatalf("request %d at %v, client %d: the log admitted %d in its window from %v, the Trio says %d from %v", i, at, r.c, len(list), list[0], got.LogCount, trio.LogOldest(0, id))
			}
		}
	}
	for k, l := range three {
		if m, want := trio.MemoryAt(at, 0, k), l.MemoryAt(at); m != want {
			t.Errorf("%v: MemoryAt %+v, its limiter %+v", TrioKinds[k], m, want)
		}
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
	if _, ok := NewTrio(Config{Limit: MaxLimit, Window: time.Second}); !ok {
		t.Error("NewTrio refused the largest limit, which its 32-bit counts hold")
	}
}
