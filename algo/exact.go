package algo

import (
	"math/bits"
	"time"

	"windowlab/human"
)

// This file holds the presets of issue 33's "also worth a preset where it
// is exact": redis-cell, envoyproxy/ratelimit, Kong's rate-limiting and
// Spring Cloud Gateway's RedisRateLimiter, with the settings only they use.

// TimeRead is how a limiter reads the time.
type TimeRead uint8

const (
	TimeMs      TimeRead = iota // to the millisecond, as every instant here is
	TimeSeconds                 // in whole Unix seconds (ngx.time(), Redis TIME's seconds)
)

// The token buckets these presets name (Rules.Bucket), numbered apart from
// the ones rules.go lists.
const (
	// BucketRedisCell is redis-cell's GCRA: a bucket of capacity burst
	// (max_burst + 1) whose emission interval is window/limit truncated
	// to whole nanoseconds.
	BucketRedisCell Bucket = 100 + iota
	// BucketSpring is Spring Cloud Gateway's RedisRateLimiter: whole
	// tokens refilled on whole seconds of Redis TIME.
	BucketSpring
)

// exactBucket reports whether b is one of this file's buckets.
func exactBucket(b Bucket) bool { return b == BucketRedisCell || b == BucketSpring }

var (
	// PresetRedisCell is redis-cell's CL.THROTTLE key max_burst count period
	// (src/cell/mod.rs, src/lib.rs). Rate::per_period sets the emission
	// interval T = (ns as f64 / n as f64) as i64: period·10⁹/count ns,
	// truncated (exact here: for a period below 2⁵³ ns, 104 days, the
	// double's quotient truncates to ⌊ns/count⌋). delay_variation_tolerance
	// = T·(max_burst + 1); tat = now for a new key; new_tat = max(tat, now)
	// + T; allow_at = new_tat − tolerance; denied when now − allow_at < 0,
	// tat unchanged. So allowed iff max(tat, now) − now ≤ T·max_burst: a
	// bucket of max_burst + 1 tokens gaining one every T ns, which windowlab
	// keeps in ns (one token is T units, 10⁶ gained a ms), exactly, where
	// T truncated makes it refill a little faster than count per period
	// whenever count does not divide period·10⁹. Not modelled: redis-cell
	// sets the key's TTL to new_tat − now in whole ms, so it may forget a
	// key up to 1 ms before its tat, allowing (with max_burst 0) a request
	// less than 1 ms early; CL.THROTTLE's quantity other than 1.
	//
	// Source: github.com/brandur/redis-cell src/cell/mod.rs at commit
	// 4d4233870d3caa7cf51ee90b0ee778d12969e99a, lines 32–45 (per_period),
	// 76–85 (new), 139–183 (rate_limit's tat, new_tat, allow_at, diff);
	// src/lib.rs lines 43–55 (period in whole seconds).
	PresetRedisCell = Preset{
		Name: "redis-cell", Title: "redis-cell (CL.THROTTLE)", Kind: KindTokenBucket,
		Rules: Rules{Bucket: BucketRedisCell},
		Rule:  "now ≥ max(tat, now) + T − T·(max_burst + 1), T = ⌊period·10⁹/count⌋ ns: a bucket of burst = max_burst + 1 tokens",
		Source: "github.com/brandur/redis-cell src/cell/mod.rs @4d4233870d3caa7cf51ee90b0ee778d12969e99a " +
			"L42 `time::Duration::nanoseconds(((ns as f64) / (n as f64)) as i64)`, L79 `period.whole_nanoseconds() as i64 * (quota.max_burst + 1)`, " +
			"L153 `let new_tat = if now > tat {`, L167 `let allow_at = new_tat - self.delay_variation_tolerance;`, L175 `if diff < time::Duration::ZERO` (denied, tat unchanged)",
		Takes: "burst: max_burst + 1, the bucket's capacity; the window is CL.THROTTLE's period, whole seconds, the limit its count (CL.THROTTLE k 15 30 60 is --limit 30 --window 60s --burst 16)",
	}

	// PresetSpring is Spring Cloud Gateway's RedisRateLimiter, whose
	// request_rate_limiter.lua takes now = TIME's seconds (Java passes ""),
	// delta = max(0, now − last_refreshed), filled = min(capacity,
	// last_tokens + delta·rate), allowed iff filled ≥ requested, and stores
	// filled (less requested if allowed) with now, for a denied request too;
	// a new key is full. Every value is a whole number (the config's ints),
	// so Lua's doubles are exact. windowlab's limit per W whole seconds with
	// burst B is replenishRate = limit, requestedTokens = W/1s, burstCapacity
	// = B·W/1s (with W = 1s: replenishRate limit, burstCapacity B), which
	// decides as that bucket does, exactly: whole seconds of refill, none in
	// between. Spring refuses burstCapacity < replenishRate, so its keys'
	// TTL, ⌊2·capacity/rate⌋ s, is never 0 and a key expires only once its
	// bucket is full again. Not modelled: its RedisRateLimiter allowing every
	// request while Redis fails.
	//
	// Source: github.com/spring-cloud/spring-cloud-gateway
	// spring-cloud-gateway-server-webflux/src/main/resources/META-INF/scripts/request_rate_limiter.lua
	// at commit 5227205c743d6d2b743bedf2f58cc76c65ca7408, lines 8–25, and
	// RedisRateLimiter.java lines 265 (scriptArgs, now ""), 351 (burstCapacity
	// ≥ replenishRate).
	PresetSpring = Preset{
		Name: "spring", Title: "Spring Cloud Gateway RedisRateLimiter", Kind: KindTokenBucket,
		Rules: Rules{Bucket: BucketSpring},
		Rule:  "filled = min(capacity, tokens + Δseconds·replenishRate) ≥ requested, on whole seconds of Redis TIME, starting full",
		Source: "github.com/spring-cloud/spring-cloud-gateway spring-cloud-gateway-server-webflux/src/main/resources/META-INF/scripts/request_rate_limiter.lua " +
			"@5227205c743d6d2b743bedf2f58cc76c65ca7408 L8 `local now = tonumber(ARGV[3]) or redis.call('TIME')[1]`, L17 `local delta = math.max(0, now-last_refreshed)`, " +
			"L18 `local filled_tokens = math.min(capacity, last_tokens+(delta*rate))`, L19 `local allowed = filled_tokens >= requested`; RedisRateLimiter.java L265 (now \"\"), L351 (burstCapacity ≥ replenishRate)",
		Takes: "a window of whole seconds; limit per window is replenishRate = limit with requestedTokens = window/1s; burst: burstCapacity/requestedTokens (1s: --limit replenishRate --burst burstCapacity)",
	}

	// PresetEnvoyRatelimit is envoyproxy/ratelimit, the global rate limit
	// service, with its Redis fixed-window cache: the key is the descriptor
	// and (now/divider)·divider, now Unix seconds and divider the unit's
	// seconds (windows aligned to the epoch, UTC); INCRBY hits_addend
	// before any comparison (a denied request is counted too), and
	// OVER_LIMIT when the count after the increment exceeds
	// requests_per_unit. windowlab models one descriptor a client, hits
	// addend 1, units second, minute, hour, day and week. Not modelled: the
	// request's other descriptors (a request over one descriptor's limit is
	// not counted against the others' when several are sent), shadow mode,
	// and the local over-limit cache, which changes no decision here (it
	// skips the INCRBY of a key already over its limit, for its window).
	//
	// Source: github.com/envoyproxy/ratelimit at commit
	// f2fb15770f7fd1c88ca6c3a1b58ee513917ace96: src/redis/fixed_cache_impl.go
	// line 36 (INCRBY), lines 211–214 (limitAfterIncrease), src/limiter/
	// base_limiter.go line 104 (limitAfterIncrease > overLimitThreshold),
	// src/limiter/cache_key.go line 82 ((now/divider)*divider),
	// src/utils/utilities.go lines 20–38 (UnitToDivider).
	PresetEnvoyRatelimit = Preset{
		Name: "envoy-ratelimit", Title: "envoyproxy/ratelimit (Redis, fixed window)", Kind: KindFixedWindow,
		Rules: Rules{CountRejected: true, Compare: ComparePlusOneAtMost, Time: TimeSeconds},
		Rule:  "INCRBY, then denied when the count exceeds requests_per_unit: count + 1 ≤ limit in the unit's window since the epoch; every request is counted",
		Source: "github.com/envoyproxy/ratelimit @f2fb15770f7fd1c88ca6c3a1b58ee513917ace96 src/redis/fixed_cache_impl.go L36 `\"INCRBY\", key, hitsAddend`; " +
			"src/limiter/base_limiter.go L104 `if limitInfo.limitAfterIncrease > limitInfo.overLimitThreshold {`; src/limiter/cache_key.go L82 `(now/divider)*divider`",
		Takes: "a window of one unit: 1s, 1m, 1h, 1d or 7d (second … week), aligned to UTC; a client is a descriptor",
	}

	// PresetKong is Kong's open-source rate-limiting plugin: usage is the
	// period's counter at time()·1000 (ngx.time(), whole seconds), periods
	// the UTC calendar's second, minute, hour, day (month and year too, past
	// windowlab's longest window); the request is denied when limit − usage
	// ≤ 0, before any increment, and an allowed request's increment is done
	// after the decision (a timer, or with policy redis and a sync_rate a
	// local delta). One request at a time on one tally, that is the lesson's
	// fixed window: usage < limit allows, only allowed requests counted,
	// which windowlab models. What it does not model by itself is the
	// deferred increment: requests that read the tally before an earlier
	// one's increment lands all pass; fixed-window/kong~5ms models a tally
	// shared in Redis whose increment lands 5 ms after its read, and
	// fixed-window/kong@3 policy local on three nodes (a counter each); the
	// timer's own delay varies, which no log shows.
	//
	// Source: github.com/Kong/kong at commit
	// 22246ef28c16842098369b494eef879222e30c7b: kong/plugins/rate-limiting/
	// handler.lua lines 108–109 (remaining <= 0), 127 (time() * 1000),
	// 194–200 (denied before the increment), 208–213 (increment, or a
	// timer); policies/init.lua lines 302–327 (local: shm:incr, shm:get by
	// timestamp.get_timestamps).
	PresetKong = Preset{
		Name: "kong", Title: "Kong rate-limiting (OSS)", Kind: KindFixedWindow,
		Rules: Rules{Time: TimeSeconds},
		Rule:  "usage < limit in the calendar second, minute, hour or day (UTC); only allowed requests are counted, after the decision",
		Source: "github.com/Kong/kong @22246ef28c16842098369b494eef879222e30c7b kong/plugins/rate-limiting/handler.lua L108 `if remaining <= 0 then`, " +
			"L127 `local current_timestamp = time() * 1000`, L194 `if stop then`, L200 `return kong.response.error(…)`, L212 `timer_at(0, increment, …)` after it; policies/init.lua L302–327",
		Takes: "a window of 1s, 1m, 1h or 1d (second … day); fixed-window/kong~RTT for a shared tally's late increment, @N for policy local on N nodes",
	}
)

// FixedPresets lists the presets of fixed windows alone, whose clock in
// whole seconds the other window limiters do not model: not --rules's.
var FixedPresets = []Preset{PresetEnvoyRatelimit, PresetKong}

// exactWindows are the windows the unit-window presets take.
var (
	kongWindows           = []time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour}
	envoyRatelimitWindows = []time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}
)

// validateExact checks what this file's presets need of c beyond Validate's
// ranges: whole-second windows, units, and redis-cell's nanoseconds.
func (c Config) validateExact() error {
	r := c.Rules
	if r.Time > TimeSeconds {
		return Problem("rules", "unknown clock %d; use ms or seconds", r.Time)
	}
	// Kong's rules, or envoyproxy/ratelimit's (Racy's tally counts every
	// request under either: CountRejected alone does not tell them apart).
	switch {
	case r.Time == TimeSeconds && r.Compare == ComparePlusOneAtMost:
		return c.unitWindow("envoy-ratelimit", "envoyproxy/ratelimit counts per unit", envoyRatelimitWindows)
	case r.Time == TimeSeconds:
		return c.unitWindow("kong", "Kong's rate-limiting counts per second, minute, hour or day", kongWindows)
	}
	if !exactBucket(r.Bucket) {
		return nil
	}
	if c.Window%time.Second != 0 {
		return Problem("window", "%s: %s takes a whole number of seconds (its period or rate is per second)", human.Duration(c.Window), presetName(r))
	}
	if r.Bucket == BucketSpring {
		// RedisRateLimiter.Config: burstCapacity ≥ replenishRate, that is
		// B·W/1s ≥ limit.
		if hi, lo := bits.Mul64(uint64(c.Capacity()), uint64(c.Window/time.Second)); hi == 0 && lo < uint64(c.Limit) {
			ws := int64(c.Window / time.Second)
			return Problem("burst", "%d: Spring's burstCapacity, burst × %d, must be at least its replenishRate, the limit %d: give a burst of at least %d",
				c.Capacity(), ws, c.Limit, (c.Limit+ws-1)/ws)
		}
		return nil
	}
	t := redisCellInterval(c)
	if t == 0 {
		return Problem("limit", "%d in %s: redis-cell's emission interval, period/count in whole ns, would be 0 (\"Zero rates are not supported\")", c.Limit, human.Duration(c.Window))
	}
	if hi, lo := bits.Mul64(uint64(t), uint64(c.Capacity())); hi != 0 || lo > 1<<62 {
		return Problem("burst", "%d: redis-cell's delay_variation_tolerance, %d ns × burst, passes its int64: give a smaller burst", c.Capacity(), t)
	}
	return nil
}

// unitWindow checks a unit-window preset's window and its UTC alignment.
func (c Config) unitWindow(name, what string, units []time.Duration) error {
	for _, u := range units {
		if c.Window == u {
			if c.Offset != 0 {
				return Problem("offset", "%s: %s aligns its windows to UTC's calendar, not a zone's: leave out tz (--tz)", human.Duration(c.Offset), name)
			}
			return nil
		}
	}
	names := "1s, 1m, 1h or 1d"
	if len(units) == len(envoyRatelimitWindows) {
		names = "1s, 1m, 1h, 1d or 7d"
	}
	return Problem("window", "%s: %s (%s): give %s", human.Duration(c.Window), name, what, names)
}

func presetName(r Rules) string {
	if p, ok := presetFor(r); ok {
		return p.Kind.String() + "/" + p.Name
	}
	return r.String()
}

// checkClockKind refuses a clock in whole seconds on a kind it is not
// modelled for: on a fixed window of whole seconds aligned to whole
// seconds, reading the time in whole seconds changes no window.
func checkClockKind(k Kind, r Rules) error {
	if r.Time != TimeMs && k != KindFixedWindow {
		return Problem("rules", "%s reads the clock in whole seconds, modelled for a fixed window only", r.String())
	}
	return nil
}

// redisCellInterval is redis-cell's emission interval in ns: the window's
// ns over the limit, truncated.
func redisCellInterval(c Config) int64 { return int64(c.Window) / c.Limit }

// exactString names this file's settings, for Rules.String.
func (r Rules) exactString(parts []string) []string {
	switch r.Bucket {
	case BucketRedisCell:
		parts = append(parts, "redis-cell")
	case BucketSpring:
		parts = append(parts, "Spring")
	}
	if r.Time == TimeSeconds {
		parts = append(parts, "clock in whole seconds")
	}
	return parts
}

// InProcessOnly reports whether rules decide in this process only:
// redis-cell's and Spring's buckets, whose units windowlab's Redis script
// for the token bucket (the lesson's, in ms) does not keep.
func (r Rules) InProcessOnly() bool { return exactBucket(r.Bucket) }
