package algo

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// gcra is go-redis/redis_rate's script_allow_n.lua for one key, written from
// its formula and nothing of TokenBucket: emission interval T = window/limit,
// tat = max(tat, now) (now for a new key), new_tat = tat + T, allow_at =
// new_tat − T·burst; denied when now − allow_at < 0 (tat unchanged),
// otherwise tat = new_tat. Every instant is kept in units of 1/limit ms, so
// T is the window in ms and every quantity is a whole number.
type gcra struct {
	limit, w, burst int64
	tat             map[string]int64
}

func (g *gcra) allow(t Instant, client string) bool {
	now := int64(t) * g.limit
	tat, ok := g.tat[client]
	if !ok {
		tat = now
	}
	tat = max(tat, now)
	newTAT := tat + g.w
	allowAt := newTAT - g.w*g.burst
	if now-allowAt < 0 {
		return false
	}
	g.tat[client] = newTAT
	return true
}

// TestGCRAPresetDecidesAsRedisRate runs token-bucket/gcra with a burst and
// an independent GCRA side by side on random traffic, request for request.
func TestGCRAPresetDecidesAsRedisRate(t *testing.T) {
	a, err := ParseAlgorithm("token-bucket/gcra")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(33, 1))
	for run := range 400 {
		limit := 1 + r.Int64N(10)
		w := 1 + r.Int64N(2000)
		if r.IntN(2) == 0 {
			w = 2 + r.Int64N(9)
		}
		burst := 1 + r.Int64N(3*limit)
		cfg := Config{Limit: limit, Window: time.Duration(w) * time.Millisecond, Burst: burst, NoExpiry: r.IntN(2) == 0}
		l, err := a.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		g := &gcra{limit: limit, w: w, burst: burst, tat: map[string]int64{}}
		at := Instant(r.Int64N(1_000_000))
		for i := range 300 {
			switch r.IntN(4) {
			case 0: // the same instant
			case 1:
				at += Instant(r.Int64N(3 * w))
			default:
				at += Instant(r.Int64N(w/int64(max(1, limit)) + 2))
			}
			client := fmt.Sprintf("c%d", r.IntN(3))
			want := g.allow(at, client)
			if got := l.Allow(at, client).Allowed; got != want {
				t.Fatalf("run %d (%+v), request %d from %s at %v: token-bucket/gcra says %v, redis_rate's GCRA %v",
					run, cfg, i, client, at, got, want)
			}
		}
	}
}

// envoyBucket is Envoy's AtomicTokenBucketImpl for one descriptor, written
// from its formula: the instant the bucket was empty, time_old; tokens =
// min(max_tokens, (now − time_old)·fill_rate); a token is taken when
// tokens ≥ 1, time_new = now − (tokens − 1)/fill_rate; it starts full.
// Instants are in units of 1/limit ms and tokens in 1/W, so fill_rate is
// one unit a unit and every quantity is whole.
type envoyBucket struct {
	limit, w, maxTokens int64
	timeOld             map[string]int64
}

func (e *envoyBucket) allow(t Instant, client string) bool {
	now := int64(t) * e.limit
	old, ok := e.timeOld[client]
	if !ok {
		old = now - e.maxTokens*e.w // init_fill: full at its start
	}
	total := min(e.maxTokens*e.w, now-old)
	if total < e.w {
		return false
	}
	e.timeOld[client] = now - (total - e.w)
	return true
}

// TestEnvoyPresetDecidesAsEnvoy runs token-bucket/envoy with a burst
// (max_tokens) and Envoy's continuous bucket side by side, request for
// request.
func TestEnvoyPresetDecidesAsEnvoy(t *testing.T) {
	a, err := ParseAlgorithm("token-bucket/envoy")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(33, 2))
	for run := range 400 {
		limit, w := 1+r.Int64N(10), 2+r.Int64N(2000)
		burst := 1 + r.Int64N(3*limit)
		cfg := Config{Limit: limit, Window: time.Duration(w) * time.Millisecond, Burst: burst, NoExpiry: r.IntN(2) == 0}
		l, err := a.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		e := &envoyBucket{limit: limit, w: w, maxTokens: burst, timeOld: map[string]int64{}}
		at := Instant(r.Int64N(1_000_000))
		for i := range 300 {
			if r.IntN(3) > 0 {
				at += Instant(r.Int64N(w/limit + 2))
			}
			client := fmt.Sprintf("d%d", r.IntN(3))
			if got, want := l.Allow(at, client).Allowed, e.allow(at, client); got != want {
				t.Fatalf("run %d (%+v), request %d from %s at %v: token-bucket/envoy says %v, Envoy's bucket %v", run, cfg, i, client, at, got, want)
			}
		}
	}
}

// TestPropTokenBucketBoundReached: a client that asks more than the rate at
// every millisecond from a full bucket at x is admitted exactly capacity +
// ⌊limit·d/W⌋ times in [x, x + d], the bound TestPropTokenBucketBound
// holds it to, when the bucket holds a millisecond's refill and a token
// more (a smaller one overflows between two milliseconds).
func TestPropTokenBucketBoundReached(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.Int64Range(1, 8).Draw(t, "limit")
		w := rapid.Int64Range(1, 60).Draw(t, "window ms")
		burst := rapid.Int64Range(1+(limit+w-1)/w, 20).Draw(t, "burst")
		span := rapid.Int64Range(0, 3*w).Draw(t, "span")
		cfg := Config{Limit: limit, Window: time.Duration(w) * time.Millisecond, Burst: burst}
		l := NewTokenBucket(cfg)
		x := Instant(rapid.Int64Range(0, 1_000_000).Draw(t, "x"))
		perMs := burst + limit/w + 1 // more than the bucket can give at any instant
		var n int64
		for d := int64(0); d <= span; d++ {
			for range perMs {
				if l.Allow(x+Instant(d), "c").Allowed {
					n++
				}
			}
		}
		if want := burst + limit*span/w; n != want {
			t.Fatalf("%d admitted in [x, x + %d ms], want capacity %d + ⌊%d·%d/%d⌋ = %d", n, span, burst, limit, span, w, want)
		}
	})
}

func TestGCRAPresetNames(t *testing.T) {
	a, err := ParseAlgorithm("token-bucket/gcra")
	if err != nil {
		t.Fatal(err)
	}
	if got := a.String(); got != "token-bucket/gcra" {
		t.Errorf("String = %q", got)
	}
	if got := a.Title(); got != "Token bucket · go-redis/redis_rate (GCRA)" {
		t.Errorf("Title = %q", got)
	}
	var perr *PresetKindError
	if _, err := ParseAlgorithm("sliding-counter/gcra"); err == nil || !errors.As(err, &perr) {
		t.Errorf("sliding-counter/gcra: %v, want a PresetKindError", err)
	}
	if _, ok := ParseRules("gcra"); ok {
		t.Error("--rules takes gcra, a token bucket's preset, for the window limiters")
	}
	if err := (Config{Limit: 1, Window: time.Second, Rules: Rules{Bucket: BucketNginxNodelay + 1}}).Validate(); err == nil {
		t.Error("an unknown token bucket validates")
	}
}
