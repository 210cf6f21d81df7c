package algo

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// redisCell is redis-cell's rate_limit for one key at quantity 1, written
// from src/cell/mod.rs and nothing of TokenBucket: emission interval T =
// (ns as f64 / count as f64) as i64, tolerance T·(max_burst + 1), tat =
// now for a new key, new_tat = max(tat, now) + T, allow_at = new_tat −
// tolerance, denied when now − allow_at < 0 (tat unchanged). Instants are
// absolute nanoseconds, now = t·10⁶.
type redisCell struct {
	t, tolerance int64
	tat          map[string]int64
}

func newRedisCell(maxBurst, count int64, period time.Duration) *redisCell {
	t := int64(float64(period.Nanoseconds()) / float64(count)) // Rate::per_period, as Rust's `as i64` truncates
	return &redisCell{t: t, tolerance: t * (maxBurst + 1), tat: map[string]int64{}}
}

func (c *redisCell) allow(at Instant, key string) bool {
	now := int64(at) * 1_000_000
	tat, ok := c.tat[key]
	if !ok {
		tat = now
	}
	var newTAT int64
	if now > tat {
		newTAT = now + c.t
	} else {
		newTAT = tat + c.t
	}
	allowAt := newTAT - c.tolerance
	if now-allowAt < 0 {
		return false
	}
	c.tat[key] = newTAT
	return true
}

// spring is Spring Cloud Gateway's request_rate_limiter.lua for one key,
// with its own arguments: rate (replenishRate), capacity (burstCapacity),
// requested (requestedTokens), now = TIME's whole seconds; the keys expire
// ttl = ⌊2·capacity/rate⌋ s after they are written, as Redis's SETEX does.
type spring struct {
	rate, capacity, requested int64
	tokens, stamp, expires    map[string]int64
}

func newSpring(rate, capacity, requested int64) *spring {
	return &spring{rate: rate, capacity: capacity, requested: requested,
		tokens: map[string]int64{}, stamp: map[string]int64{}, expires: map[string]int64{}}
}

func (s *spring) allow(at Instant, key string) bool {
	now := int64(at) / 1000 // at ≥ 0 here: TIME's seconds
	if e, ok := s.expires[key]; ok && int64(at) >= e {
		delete(s.tokens, key)
		delete(s.stamp, key)
	}
	ttl := 2 * s.capacity / s.rate // math.floor(capacity / rate * 2), exact for these integers
	last, ok := s.tokens[key]
	if !ok {
		last = s.capacity
	}
	lastRefreshed := s.stamp[key] // 0 when absent
	delta := max(0, now-lastRefreshed)
	filled := min(s.capacity, last+delta*s.rate)
	allowed := filled >= s.requested
	newTokens := filled
	if allowed {
		newTokens = filled - s.requested
	}
	if ttl > 0 {
		s.tokens[key], s.stamp[key], s.expires[key] = newTokens, now, int64(at)+ttl*1000
	}
	return allowed
}

// unitWindow is envoyproxy/ratelimit's and Kong's fixed window, written
// from their sources: the key is the client and (now/divider)·divider,
// now in whole Unix seconds. envoyproxy/ratelimit INCRBYs first and
// denies when the count after exceeds the limit; Kong denies when limit −
// usage ≤ 0 and increments only an allowed request, after.
type unitWindow struct {
	envoy   bool
	limit   int64
	divider int64 // the unit in seconds
	count   map[string]int64
}

func (u *unitWindow) allow(at Instant, client string) bool {
	now := int64(at) / 1000
	key := fmt.Sprintf("%s_%d", client, (now/u.divider)*u.divider)
	if u.envoy {
		u.count[key]++
		return !(u.count[key] > u.limit)
	}
	if u.limit-u.count[key] <= 0 {
		return false
	}
	u.count[key]++
	return true
}

// TestRedisCellPresetDecidesAsRedisCell runs token-bucket/redis-cell and
// redis-cell's GCRA side by side on random traffic, request for request,
// over periods and counts whose emission interval truncates.
func TestRedisCellPresetDecidesAsRedisCell(t *testing.T) {
	a, err := ParseAlgorithm("token-bucket/redis-cell")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(33, 11))
	for run := range 400 {
		period := time.Duration(1+r.Int64N(120)) * time.Second
		count := 1 + r.Int64N(20)
		switch r.IntN(4) {
		case 0: // T of a few ns: the truncation is a large share of it
			count = period.Nanoseconds()/(1+r.Int64N(4)) - r.Int64N(1000)
		case 1:
			count = 1 + r.Int64N(100_000)
		}
		count = min(max(count, 1), MaxLimit)
		maxBurst := r.Int64N(3 * min(count, 50))
		cfg := Config{Limit: count, Window: period, Burst: maxBurst + 1, NoExpiry: r.IntN(2) == 0}
		l, err := a.New(cfg)
		if err != nil {
			t.Fatalf("run %d (%+v): %v", run, cfg, err)
		}
		c := newRedisCell(maxBurst, count, period)
		at := Instant(r.Int64N(1_000_000))
		gap := max(period.Milliseconds()/count, 1)
		for i := range 400 {
			switch r.IntN(4) {
			case 0: // the same ms
			case 1:
				at += Instant(r.Int64N(3 * gap * (maxBurst + 1)))
			default:
				at += Instant(r.Int64N(gap + 2))
			}
			client := fmt.Sprintf("k%d", r.IntN(3))
			if got, want := l.Allow(at, client).Allowed, c.allow(at, client); got != want {
				t.Fatalf("run %d (%+v), request %d from %s at %v: token-bucket/redis-cell says %v, redis-cell %v", run, cfg, i, client, at, got, want)
			}
		}
	}
}

// TestRedisCellTruncates: where count does not divide the period's ns,
// redis-cell's T is shorter than period/count and it refills faster than
// the exact GCRA of token-bucket/gcra; the preset follows redis-cell. At
// 999,999,999 per second T is 1 ns: a drained bucket of 10⁶ tokens is full
// again 1 ms later, where the exact rate gives back 999,999.
func TestRedisCellTruncates(t *testing.T) {
	cfg := Config{Limit: 999_999_999, Window: time.Second, Burst: 1_000_000}
	admitted := func(name string) (first, second int64) {
		a, err := ParseAlgorithm(name)
		if err != nil {
			t.Fatal(err)
		}
		l, err := a.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []Instant{0, 1} {
			var n int64
			for range 1_100_000 {
				if l.Allow(at, "k").Allowed {
					n++
				}
			}
			first, second = second, n
		}
		return first, second
	}
	c := newRedisCell(cfg.Burst-1, cfg.Limit, cfg.Window)
	var want int64
	for range 1_000_000 {
		c.allow(0, "k")
	}
	for range 1_100_000 {
		if c.allow(1, "k") {
			want++
		}
	}
	if _, got := admitted("token-bucket/redis-cell"); got != want || want != 1_000_000 {
		t.Errorf("redis-cell preset admits %d at 1 ms, redis-cell %d (want 1,000,000)", got, want)
	}
	if _, got := admitted("token-bucket/gcra"); got != 999_999 {
		t.Errorf("the exact GCRA admits %d at 1 ms, want 999,999", got)
	}
}

// TestSpringPresetDecidesAsSpring runs token-bucket/spring and Spring's
// script side by side, request for request, with traffic that crosses
// whole seconds, for windows of one second and more (requestedTokens =
// the window's seconds).
func TestSpringPresetDecidesAsSpring(t *testing.T) {
	a, err := ParseAlgorithm("token-bucket/spring")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(33, 12))
	for run := range 400 {
		ws := int64(1)
		if r.IntN(3) == 0 {
			ws = 1 + r.Int64N(90)
		}
		limit := 1 + r.Int64N(20)
		burst := (limit+ws-1)/ws + r.Int64N(2*limit+1) // burstCapacity ≥ replenishRate
		if r.IntN(4) == 0 {
			burst = 0 // the limit
		}
		cfg := Config{Limit: limit, Window: time.Duration(ws) * time.Second, Burst: burst, NoExpiry: r.IntN(2) == 0}
		l, err := a.New(cfg)
		if err != nil {
			t.Fatalf("run %d (%+v): %v", run, cfg, err)
		}
		s := newSpring(limit, cfg.Capacity()*ws, ws)
		at := Instant(r.Int64N(1_000_000))
		for i := range 400 {
			switch r.IntN(5) {
			case 0: // the same ms
			case 1: // just before or at a whole second
				at = Instant((int64(at)/1000+1)*1000 - r.Int64N(2))
			case 2:
				at += Instant(r.Int64N(3000 * ws))
			default:
				at += Instant(r.Int64N(1000*ws/limit + 2))
			}
			client := fmt.Sprintf("s%d", r.IntN(3))
			if got, want := l.Allow(at, client).Allowed, s.allow(at, client); got != want {
				t.Fatalf("run %d (%+v), request %d from %s at %v: token-bucket/spring says %v, Spring's script %v", run, cfg, i, client, at, got, want)
			}
		}
	}
}

// TestSpringWholeSeconds: Spring refills on whole seconds only. At 1 per
// second with a burst of 1, a request at 0.999 s after one at 0 s is
// allowed (a new second), one at 1.999 s after one at 1.000 s is not.
func TestSpringWholeSeconds(t *testing.T) {
	a, _ := ParseAlgorithm("token-bucket/spring")
	l, err := a.New(Config{Limit: 1, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   Instant
		want bool
	}{{0, true}, {999, false}, {1000, true}, {1999, false}, {2000, true}, {2000, false}, {4999, true}, {5000, true}, {5000, false}} {
		d := l.Allow(c.at, "k")
		if d.Allowed != c.want {
			t.Errorf("at %d ms: allowed %v, want %v (%s)", c.at, d.Allowed, c.want, d.Explain())
		}
		if !d.Allowed {
			if next := d.At.Add(d.NextToken()); int64(next)%1000 != 0 || !l.Peek(next, "k").Allowed || l.Peek(next-1, "k").Allowed {
				t.Errorf("at %d ms: next token at %v, want the whole second it is back", c.at, next)
			}
		}
	}
}

// TestUnitWindowPresetsDecideAsTheirSources: fixed-window/envoy-ratelimit
// and fixed-window/kong against their sources' keys and counts, at every
// unit they take.
func TestUnitWindowPresetsDecideAsTheirSources(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 13))
	for _, p := range []struct {
		name  string
		envoy bool
		units []time.Duration
	}{{"fixed-window/envoy-ratelimit", true, envoyRatelimitWindows}, {"fixed-window/kong", false, kongWindows}} {
		a, err := ParseAlgorithm(p.name)
		if err != nil {
			t.Fatal(err)
		}
		for run := range 200 {
			unit := p.units[r.IntN(len(p.units))]
			limit := 1 + r.Int64N(8)
			cfg := Config{Limit: limit, Window: unit, NoExpiry: r.IntN(2) == 0}
			l, err := a.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			u := &unitWindow{envoy: p.envoy, limit: limit, divider: int64(unit / time.Second), count: map[string]int64{}}
			at := Instant(r.Int64N(1 << 40))
			step := unit.Milliseconds() / (limit + 1)
			for i := range 300 {
				switch r.IntN(4) {
				case 0:
				case 1: // at or just before an edge
					w := unit.Milliseconds()
					at = Instant((int64(at)/w+1)*w - r.Int64N(2))
				default:
					at += Instant(r.Int64N(step + 2))
				}
				client := fmt.Sprintf("c%d", r.IntN(2))
				if got, want := l.Allow(at, client).Allowed, u.allow(at, client); got != want {
					t.Fatalf("%s run %d (%+v), request %d at %v: %v, the source's rule %v", p.name, run, cfg, i, at, got, want)
				}
			}
		}
	}
}

// The exact presets refuse, with the setting named, what their projects
// cannot be configured to do.
func TestExactPresetsRefuse(t *testing.T) {
	for _, c := range []struct {
		name   string
		cfg    Config
		option string
		says   string
	}{
		{"fixed-window/kong", Config{Limit: 5, Window: 5 * time.Minute}, "window", "1s, 1m, 1h or 1d"},
		{"fixed-window/kong", Config{Limit: 5, Window: time.Hour, Offset: 30 * time.Minute}, "offset", "UTC"},
		{"fixed-window/envoy-ratelimit", Config{Limit: 5, Window: 1500 * time.Millisecond}, "window", "1s, 1m, 1h, 1d or 7d"},
		{"token-bucket/spring", Config{Limit: 5, Window: 1500 * time.Millisecond}, "window", "whole number of seconds"},
		{"token-bucket/spring", Config{Limit: 10, Window: time.Second, Burst: 4}, "burst", "at least 10"},
		{"token-bucket/spring", Config{Limit: 10, Window: 4 * time.Second, Burst: 2}, "burst", "at least 3"},
		{"token-bucket/redis-cell", Config{Limit: 5, Window: 2500 * time.Millisecond}, "window", "whole number of seconds"},
		{"token-bucket/redis-cell", Config{Limit: 1, Window: MaxWindow, Burst: MaxLimit}, "burst", "int64"},
	} {
		a, err := ParseAlgorithm(c.name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.New(c.cfg)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != c.option || !strings.Contains(oe.Problem, c.says) {
			t.Errorf("%s %+v: %v, want the %s named with %q", c.name, c.cfg, err, c.option, c.says)
		}
	}
	// Kong's deferred increment: on a tally shared in Redis (~RTT) and on
	// nodes of their own (@N) it runs, at its units only.
	for _, name := range []string{"fixed-window/kong~5ms", "fixed-window/kong@3", "fixed-window/envoy-ratelimit~2ms"} {
		a, err := ParseAlgorithm(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.New(Config{Limit: 5, Window: time.Minute}); err != nil {
			t.Errorf("%s at 1m: %v", name, err)
		}
		if _, err := a.New(Config{Limit: 5, Window: 90 * time.Second}); err == nil {
			t.Errorf("%s at 90s is made", name)
		}
	}
	// A clock in whole seconds is a fixed window's only.
	if _, err := New(KindSlidingLog, Config{Limit: 5, Window: time.Second, Rules: PresetKong.Rules}); err == nil {
		t.Error("a sliding log with Kong's rules is made")
	}
	if _, ok := ParseRules("kong"); ok {
		t.Error("--rules takes kong, which the sliding limiters do not model")
	}
}

// fitExact moves c's window to one the exact presets take (whole seconds;
// 1s for the unit windows) and its burst to Spring's least, for tests that
// draw any algorithm at any window.
func fitExact(a Algorithm, c Config) Config {
	switch {
	case a.Rules.Time == TimeSeconds:
		c.Window, c.Offset = time.Second, 0
	case exactBucket(a.Rules.Bucket):
		c.Window = max(c.Window/time.Second, 1) * time.Second
		if ws := int64(c.Window / time.Second); a.Rules.Bucket == BucketSpring && c.Capacity()*ws < c.Limit {
			c.Burst = (c.Limit + ws - 1) / ws
		}
	}
	return c
}
