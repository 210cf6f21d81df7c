package algo

import (
	"fmt"
	"math/bits"
	"strings"
)

// Rules are the decisions a window limiter makes at its edges, where real
// libraries differ while computing the same count or estimate. The zero value
// is the lesson's rules: only accepted requests are counted, the estimate is
// compared exactly, a request is allowed while the count is below the limit,
// and fixed windows are aligned to the clock.
//
// The token bucket has no windows and ignores every rule but Bucket.
type Rules struct {
	// CountRejected counts every request, not only accepted ones (fixed
	// window and sliding counter: the counters; sliding log: a timestamp for
	// every request), so a client that keeps hammering stays blocked. Counts
	// can then exceed the limit without bound; every comparison stays exact.
	CountRejected bool
	// Rounding is applied to the sliding counter's estimate before it is
	// compared. Counts of the fixed window and log are whole already.
	Rounding Rounding
	// Compare is the test a request must pass to be allowed.
	Compare Compare
	// WindowStart is where a window begins: a fixed window's
	// (WindowFirstRequest), the sliding counter's (WindowFirstEvent).
	WindowStart WindowStart
	// Bucket names the token bucket a library runs (token bucket only); it
	// decides as the lesson's bucket of capacity Config.Burst does.
	Bucket Bucket

	// Time is how the limiter reads the clock (exact.go): TimeSeconds,
	// whole Unix seconds, names Kong's and envoyproxy/ratelimit's fixed
	// windows, whose whole-second windows it changes no request's window of.
	Time TimeRead
	// Segmented names the segmented window a library runs (segmented
	// window only); it decides as the lesson's of Config.Segments does.
	Segmented Segmented
}

// Segmented is the library whose segmented window the rules name.
type Segmented uint8

const (
	SegmentedLesson Segmented = iota // the lesson's segmented window
	SegmentedDotNet                  // ASP.NET Core's SlidingWindowRateLimiter
)

// Bucket is the library whose token bucket the rules name.
type Bucket uint8

const (
	BucketLesson       Bucket = iota // the lesson's token bucket
	BucketGCRA                       // a GCRA (go-redis/redis_rate): a bucket of capacity burst
	BucketEnvoy                      // Envoy's local rate limit, continuous: a bucket of max_tokens
	BucketNginx                      // nginx limit_req, delaying past Config.Delay (NginxLimitReq)
	BucketNginxNodelay               // nginx limit_req … nodelay: never delayed
)

// Rounding is how the sliding counter's estimate is rounded before comparing.
// The current window's count is a whole number, so rounding the estimate
// current + previous × weight is the same as rounding the weighted previous
// count alone and adding the current count: Floor is also the "floor the
// weighted previous count" rule.
type Rounding uint8

const (
	RoundExact  Rounding = iota // no rounding: the exact fraction is compared
	RoundFloor                  // ⌊estimate⌋
	RoundHalfUp                 // ⌊estimate + ½⌋: halves round up (Go's math.Round for positive values)
)

// Compare is the test that allows a request, given the count or (rounded)
// estimate v of what is already there.
type Compare uint8

const (
	CompareLess          Compare = iota // v < limit: the lesson's rule
	ComparePlusOneAtMost                // v + 1 ≤ limit: the request itself is counted and must fit
	CompareAtMost                       // v ≤ limit: denied only once the count already exceeds the limit
)

// WindowStart is where a fixed window begins.
type WindowStart uint8

const (
	// WindowAligned windows are the multiples of W since midnight
	// (calendar minutes for W = 1m).
	WindowAligned WindowStart = iota
	// WindowFirstRequest starts a client's window at its first request; it
	// runs for W, and the next one starts at the client's first request at
	// or after its end.
	WindowFirstRequest
	// WindowFirstEvent starts a sliding counter's windows at the client's
	// first request, rounded down to an even millisecond, and runs them
	// back to back; a request two windows or more after the current
	// window's start starts a new one, with nothing before it (HAProxy's
	// freq_ctr; see PresetHAProxy). The sliding counter only.
	WindowFirstEvent
)

func (r Rounding) String() string {
	switch r {
	case RoundExact:
		return "exact"
	case RoundFloor:
		return "floor"
	case RoundHalfUp:
		return "round"
	}
	return fmt.Sprintf("rounding(%d)", uint8(r))
}

func (c Compare) String() string {
	switch c {
	case CompareLess:
		return "< limit"
	case ComparePlusOneAtMost:
		return "+ 1 ≤ limit"
	case CompareAtMost:
		return "≤ limit"
	}
	return fmt.Sprintf("compare(%d)", uint8(c))
}

func (w WindowStart) String() string {
	switch w {
	case WindowAligned:
		return "aligned"
	case WindowFirstRequest:
		return "first-request"
	case WindowFirstEvent:
		return "first-event"
	}
	return fmt.Sprintf("window-start(%d)", uint8(w))
}

// validate reports an out-of-range setting.
func (r Rules) validate() error {
	if r.Rounding > RoundHalfUp {
		return Problem("rules", "unknown rounding %d; use exact, floor or round", r.Rounding)
	}
	if r.Compare > CompareAtMost {
		return Problem("rules", "unknown comparison %d; use < limit, + 1 ≤ limit or ≤ limit", r.Compare)
	}
	if r.WindowStart > WindowFirstEvent {
		return Problem("rules", "unknown window start %d; use aligned, first-request or first-event", r.WindowStart)
	}
	if r.Bucket > BucketNginxNodelay && !exactBucket(r.Bucket) {
		return Problem("rules", "unknown token bucket %d; use the lesson's, gcra, envoy, nginx, nginx-nodelay, redis-cell or spring", r.Bucket)
	}
	if r.Segmented > SegmentedDotNet {
		return Problem("rules", "unknown segmented window %d; use the lesson's or dotnet", r.Segmented)
	}
	return nil
}

// String describes the settings that differ from the lesson's, for example
// "count rejected, floor, estimate + 1 ≤ limit"; "" for the lesson's rules.
func (r Rules) String() string {
	var parts []string
	if r.CountRejected {
		parts = append(parts, "count rejected")
	}
	if r.Rounding != RoundExact {
		parts = append(parts, r.Rounding.String())
	}
	if r.Compare != CompareLess {
		parts = append(parts, "estimate "+r.Compare.String())
	}
	switch r.WindowStart {
	case WindowFirstRequest:
		parts = append(parts, "window from first request")
	case WindowFirstEvent:
		parts = append(parts, "windows from first request, back to back")
	}
	switch r.Bucket {
	case BucketGCRA:
		parts = append(parts, "GCRA")
	case BucketEnvoy:
		parts = append(parts, "Envoy")
	case BucketNginx:
		parts = append(parts, "nginx")
	case BucketNginxNodelay:
		parts = append(parts, "nginx nodelay")
	}
	parts = r.exactString(parts) // exact.go's buckets and clock
	if r.Segmented == SegmentedDotNet {
		parts = append(parts, "ASP.NET Core")
	}
	return strings.Join(parts, ", ")
}

// Name is the preset these rules are ("httprate", …), "" for the lesson's
// rules, and otherwise their description (Rules.String).
func (r Rules) Name() string {
	if p, ok := presetFor(r); ok {
		return p.Name
	}
	return r.String()
}

// RulesName is c.Rules.Name(): "" for the lesson's rules, a preset's name,
// or a description of custom rules.
func (c Config) RulesName() string { return c.Rules.Name() }

// Preset is a named set of Rules reproducing the documented behaviour of a
// well-known limiter, checked against its public source or documentation.
type Preset struct {
	Name   string // as the CLI and scenario files spell it
	Title  string // the project
	Kind   Kind   // the algorithm the project implements
	Rules  Rules
	Rule   string // the exact rule, in words
	Source string // where it was verified
	Takes  string // the setting it needs beyond limit and window, in words; "" for none
}

// The presets. Each rule below was read in the cited source; where a library
// computes in floating point, windowlab computes the same rule exactly.
var (
	// PresetHTTPRate is go-chi/httprate's sliding window counter. Handler
	// computes rate = prevCount·(W − diff)/W + currCount in float64
	// (calculateRate), rounds it with math.Round (half away from zero) and
	// denies when rate + increment > limit, increment being 1 per request;
	// only an allowed request increments the counter (IncrementBy runs after
	// the deny branch). Windows are time.Now().UTC().Truncate(windowLength).
	//
	// Source: github.com/go-chi/httprate limiter.go at commit
	// 6556a110e55c3cb66461cafc139984af1d33cda1: lines 102 (rate :=
	// int(math.Round(rateFloat))), 109 (if rate+increment > limit {), 118
	// (IncrementBy), 142–143 (diff, rate).
	PresetHTTPRate = Preset{
		Name: "httprate", Title: "go-chi/httprate", Kind: KindSlidingCounter,
		Rules: Rules{Rounding: RoundHalfUp, Compare: ComparePlusOneAtMost},
		Rule:  "round(current + previous × weight) + 1 ≤ limit; only allowed requests are counted",
		Source: "github.com/go-chi/httprate limiter.go @6556a110e55c3cb66461cafc139984af1d33cda1 " +
			"L102 `rate := int(math.Round(rateFloat))`, L109 `if rate+increment > limit {`, L118 IncrementBy after the deny branch",
	}

	// PresetUpstash is @upstash/ratelimit's slidingWindow. Its Lua script
	// floors the weighted previous count and denies when
	// floor((1 − (now % window)/window) · previous) + current ≥ limit,
	// returning before INCRBY, so rejected requests are not counted. Windows
	// are Math.floor(now / windowSize), aligned to the clock.
	//
	// Source: github.com/upstash/ratelimit-js src/lua-scripts/single.ts at
	// commit e00d2224b06e31d63dcbcf6ffe103955c2066371, slidingWindowLimitScript,
	// lines 44–51.
	PresetUpstash = Preset{
		Name: "upstash", Title: "upstash/ratelimit", Kind: KindSlidingCounter,
		Rules: Rules{Rounding: RoundFloor},
		Rule:  "current + ⌊previous × weight⌋ < limit; only allowed requests are counted",
		Source: "github.com/upstash/ratelimit-js src/lua-scripts/single.ts @e00d2224b06e31d63dcbcf6ffe103955c2066371 " +
			"L46 `requestsInPreviousWindow = math.floor(( 1 - percentageInCurrent ) * requestsInPreviousWindow)`, " +
			"L47 `if requestsInPreviousWindow + requestsInCurrentWindow >= tokens then return -1`, L51 INCRBY after it",
	}

	// PresetCloudflare2017 is the sliding window of Cloudflare's 2017 post
	// "Counting things, a lot of different things": "Every request that
	// matches the rule is counted per client IP address" and "Once that
	// counter exceeds a threshold, further requests are not allowed"; the
	// rate is 42 × ((60 − 15)/60) + 18 = 49.5 with no rounding. So every
	// request is counted and a request is denied once the estimate of those
	// before it exceeds the limit. Not modelled: the post's asynchronous
	// increments and its mitigation that, once started, lasts a set time.
	//
	// Source: https://blog.cloudflare.com/counting-things-a-lot-of-different-things/
	// (2017-06-07), the opening list and "Sliding windows to the rescue".
	PresetCloudflare2017 = Preset{
		Name: "cloudflare-2017", Title: "Cloudflare (2017 blog post)", Kind: KindSlidingCounter,
		Rules: Rules{CountRejected: true, Compare: CompareAtMost},
		Rule:  "current + previous × weight ≤ limit, exact; every request is counted",
		Source: "https://blog.cloudflare.com/counting-things-a-lot-of-different-things/ — " +
			"\"Every request that matches the rule is counted\", \"Once that counter exceeds a threshold, further requests are not allowed\", " +
			"\"rate = 42 * ((60-15)/60) + 18 = 49.5 requests\"",
	}

	// PresetExpressRateLimit is express-rate-limit with its default
	// MemoryStore: a fixed window per client that starts at the client's
	// first request (resetTime = now + windowMs, reset once resetTime ≤ now),
	// every request increments the hit count before the check, and a request
	// is denied when totalHits > limit, totalHits including itself.
	//
	// Source: github.com/express-rate-limit/express-rate-limit
	// source/memory-store.ts at commit 658c2015a6562135458adf0d96138a46043c79b8
	// (increment, resetClient) and source/rate-limit.ts at commit
	// c45ecb914afc56fa195a2a8da18bf0e0ea6e1cdf (store.increment(key) before
	// `if (totalHits > limit)`).
	PresetExpressRateLimit = Preset{
		Name: "express-rate-limit", Title: "express-rate-limit (MemoryStore)", Kind: KindFixedWindow,
		Rules: Rules{CountRejected: true, Compare: ComparePlusOneAtMost, WindowStart: WindowFirstRequest},
		Rule:  "count + 1 ≤ limit in a window that starts at the client's first request; every request is counted",
		Source: "github.com/express-rate-limit/express-rate-limit source/memory-store.ts @658c2015a6562135458adf0d96138a46043c79b8 " +
			"increment(): `if (client.resetTime.getTime() <= now) this.resetClient(client, now)`, `client.totalHits++`; " +
			"resetClient(): `client.resetTime.setTime(now + this.windowMs)`; source/rate-limit.ts @c45ecb914afc56fa195a2a8da18bf0e0ea6e1cdf " +
			"`await config.store.increment(key)` then `if (totalHits > limit)`",
	}

	// PresetHAProxy is HAProxy's stick-table request rate: a frontend with
	// `stick-table ... store http_req_rate(P)`, `http-request track-sc0 KEY`
	// and `http-request deny if { sc_http_req_rate(0) gt N }`. track-sc0
	// counts the request (update_freq_ctr_period) before any later rule, so
	// denied requests count too; the fetch then reads
	// ⌊(prev·remain + curr·P)/P⌋, remain = tick + P − now_ms, curr
	// including this request, and `gt N` denies: admitted iff
	// ⌊prev·remain/P⌋ + curr_before + 1 ≤ N. The period (tick) starts at
	// the key's first request, not the calendar: a new entry is zeroed, so
	// its first update finds two periods missed and sets tick = now_ms; a
	// request at or after tick + P rolls (prev = curr, tick += P), and one
	// at or after tick + 2P starts over (prev = 0, tick = now_ms). The tick
	// is stored with its low bit cleared (the bit is the rotation's lock),
	// so a period starts on an even millisecond: windowlab does the same.
	// The read's "flapping correction" (curr = 0, prev ≤ 1) never applies
	// to the track-sc read, curr holding this request. HAProxy decides on
	// now_ms, the poll loop's wall-clock milliseconds (2.6: now_offset 0,
	// so now_ms = the date's ms mod 2³²), read once a loop; its log's
	// accept date (%Ts%ms) is the date at accept, a millisecond or so
	// before: a request within a millisecond or two of flipping could be
	// decided otherwise from a log. A stick-table entry idle past its
	// `expire` is forgotten, which decides as an idle one two periods on.
	//
	// Source: github.com/haproxy/haproxy at v2.6.0
	// (a1efc048bf8a5e14466dbe7317e73117e8d66176; no commit to these lines
	// since is in 2.6): include/haproxy/freq_ctr.h update_freq_ctr_period
	// L51–73 and read_freq_ctr_period L99–103, src/freq_ctr.c
	// freq_ctr_total L78–96, src/http_act.c http_action_track_sc L2026–2057,
	// src/stick_table.c smp_fetch_sc_http_req_rate L3870.
	PresetHAProxy = Preset{
		Name: "haproxy", Title: "HAProxy stick table", Kind: KindSlidingCounter,
		Rules: Rules{CountRejected: true, Rounding: RoundFloor, Compare: ComparePlusOneAtMost, WindowStart: WindowFirstEvent},
		Rule: "⌊previous × weight⌋ + current + 1 ≤ limit in windows from the client's first request, back to back, " +
			"anew after two idle windows; every request is counted",
		Source: "github.com/haproxy/haproxy @a1efc048bf8a5e14466dbe7317e73117e8d66176 (v2.6.0) include/haproxy/freq_ctr.h " +
			"L51 `if (now_ms_tmp - curr_tick < period)`, L64 `HA_ATOMIC_STORE(&ctr->prev_ctr, HA_ATOMIC_XCHG(&ctr->curr_ctr, inc))`, " +
			"L65 `curr_tick += period`, L66 `if (likely(now_ms_tmp - curr_tick >= period))` (\"we missed at least two periods\") L68 `HA_ATOMIC_STORE(&ctr->prev_ctr, 0)` L69 `curr_tick = now_ms_tmp`, " +
			"L73 `curr_tick & ~1`, L103 `div64_32(total, period)`; src/freq_ctr.c L78 `remain = tick + period - global_now_ms`, " +
			"L96 `past * remain + (curr + pend) * period`; src/http_act.c L2056 update_freq_ctr_period in track-sc, before the deny rule",
		Takes: "limit: N of `sc_http_req_rate(0) gt N`; window: P of http_req_rate(P); a client is the tracked key",
	}

	// PresetGCRA is go-redis/redis_rate's GCRA (Limit{Rate, Burst, Period}):
	// emission_interval T = period/rate, tat = max(tat, now) (now for a new
	// key), new_tat = tat + T, allow_at = new_tat − T·burst, and the request
	// is denied when (now − allow_at)/T < 0, leaving tat unchanged; allowed,
	// tat becomes new_tat. So allowed iff max(tat, now) − now ≤ T·(burst − 1):
	// with tokens = burst − (max(tat, now) − now)/T that is tokens ≥ 1, the
	// token bucket of capacity burst refilling rate per period, starting full.
	// redis_rate computes in float seconds from Redis TIME; windowlab the same
	// rule exactly, in ms. Its older lua.go rounded remaining = ⌊diff/T + ½⌋
	// and allowed from diff ≥ −T/2: this preset is the current script.
	//
	// Source: github.com/go-redis/redis_rate script_allow_n.lua at commit
	// d865963d7888d004d5195bf57822a7ae787f871e.
	PresetGCRA = Preset{
		Name: "gcra", Title: "go-redis/redis_rate (GCRA)", Kind: KindTokenBucket,
		Rules: Rules{Bucket: BucketGCRA},
		Rule:  "now ≥ max(tat, now) + T − T·burst, T = window/limit: a bucket of burst tokens, limit per window, starting full",
		Source: "github.com/go-redis/redis_rate script_allow_n.lua @d865963d7888d004d5195bf57822a7ae787f871e " +
			"`tat = math.max(tat, now)`, `local allow_at = new_tat - burst_offset`, `local remaining = diff / emission_interval`, `if remaining < 0 then` (denied, tat unchanged)",
		Takes: "burst: redis_rate's Limit.Burst, the bucket's capacity (scenario field burst:, replay --burst; without it, the limit)",
	}

	// PresetEnvoy is Envoy's local rate limit (envoy.filters.http.local_ratelimit)
	// with its continuous bucket, AtomicTokenBucketImpl, which
	// LocalRateLimiterImpl builds when the runtime flag
	// envoy.reloadable_features.no_timer_based_rate_limit_token_bucket is on
	// (otherwise a timer adds tokens_per_fill every fill_interval, in steps
	// whose phase a log does not show). The bucket keeps the instant it was
	// empty: tokens = min(max_tokens, (now − time_old)·fill_rate), fill_rate
	// = tokens_per_fill/fill_interval; consume() takes one token when tokens
	// ≥ 1 (time_new = now − (tokens − 1)/fill_rate) and changes nothing
	// otherwise; it starts full. So a token bucket of capacity max_tokens,
	// tokens_per_fill per fill_interval, decided exactly here where Envoy
	// computes in double seconds. One bucket per descriptor: windowlab's
	// client.
	//
	// Source: github.com/envoyproxy/envoy
	// source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc
	// at commit 5a6c7aa8adbf857c5f3d6279653df5c835459ca6 (AtomicTokenBucket,
	// consume: `total < tokens ? 0.0 : tokens`) and
	// source/common/common/token_bucket_impl.h (AtomicTokenBucketImpl::consume).
	PresetEnvoy = Preset{
		Name: "envoy", Title: "Envoy local_ratelimit (continuous)", Kind: KindTokenBucket,
		Rules: Rules{Bucket: BucketEnvoy},
		Rule:  "tokens = min(max_tokens, tokens + elapsed·tokens_per_fill/fill_interval) ≥ 1, starting full: a bucket of burst tokens, limit per window",
		Source: "github.com/envoyproxy/envoy source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc @5a6c7aa8adbf857c5f3d6279653df5c835459ca6 " +
			"AtomicTokenBucket::consume `total < tokens ? 0.0 : tokens` (with no_timer_based_rate_limit_token_bucket); source/common/common/token_bucket_impl.h " +
			"AtomicTokenBucketImpl::consume `std::min(max_tokens_, (time_now - time_old) * fill_rate_)`, `time_new = time_now - (total_tokens_new / fill_rate_)`",
		Takes: "burst: max_tokens; limit per window: tokens_per_fill per fill_interval; a client is a descriptor (scenario field burst:, replay --burst; without it, the limit)",
	}
)

// Presets lists the named rule sets of the window limiters, sliding
// counters first: the rule sets --rules takes.
var Presets = []Preset{PresetHTTPRate, PresetUpstash, PresetCloudflare2017, PresetHAProxy, PresetExpressRateLimit}

// BucketPresets lists the token buckets of real libraries that the
// bucket's capacity (Config.Burst) makes exact.
var BucketPresets = []Preset{PresetGCRA, PresetEnvoy,
	PresetRedisCell, PresetSpring, // exact.go
}

// AllPresets lists every preset: the window limiters', the fixed windows'
// alone (exact.go), the token buckets', nginx's, then the segmented windows'.
func AllPresets() []Preset {
	return append(append(append(append(append([]Preset(nil), Presets...), FixedPresets...), BucketPresets...), NginxPresets...), SegmentedPresets...)
}

// ParseRules returns the rules named name: "" or "lesson" for the lesson's,
// otherwise a preset's name.
func ParseRules(name string) (Rules, bool) {
	if name == "" || name == "lesson" {
		return Rules{}, true
	}
	for _, p := range Presets {
		if p.Name == name {
			return p.Rules, true
		}
	}
	return Rules{}, false
}

// RuleSetNames lists every name ParseRules accepts, the lesson's first.
func RuleSetNames() []string {
	names := []string{"lesson"}
	for _, p := range Presets {
		names = append(names, p.Name)
	}
	return names
}

func presetFor(r Rules) (Preset, bool) {
	for _, list := range [][]Preset{Presets, FixedPresets, BucketPresets, NginxPresets, SegmentedPresets} {
		for _, p := range list {
			if p.Rules == r {
				return p, true
			}
		}
	}
	return Preset{}, false
}

// admitsCount applies the comparison to a whole count n.
func (r Rules) admitsCount(n, limit int64) bool {
	if r.Compare == CompareAtMost {
		return n <= limit
	}
	// For a whole n, n + 1 ≤ limit is n < limit.
	return n < limit
}

// roundWeighted rounds previous × wn / w by r.Rounding (not RoundExact),
// exactly in 128 bits. The result is at most previous. It is the rounded
// estimate a Decision shows; the decision itself is estimateRule's, which
// reaches the same verdict without the division.
func (r Rules) roundWeighted(previous, wn, w int64) int64 {
	p := mul64(uint64(previous), uint64(wn))
	if r.Rounding == RoundHalfUp {
		// ⌊p/w + ½⌋ = ⌊(2p + w) / 2w⌋
		return int64(p.add(p).add(u128{lo: uint64(w)}).div(2 * uint64(w)))
	}
	return int64(p.div(uint64(w)))
}

// estimateRule is the sliding counter's test for one limiter's rules,
// window w and limit (from 1 to below 2⁶², so 2·limit + 1 fits), worked out once
// so that a request costs two multiplies and a comparison. The estimate is
// current + x, x = previous × wn / w the previous window's count weighted by
// wn, the part of it (0 ≤ wn ≤ w) the last w still overlaps; it is rounded
// (x alone, current being whole) and compared as the rules say. With
// v = current·w + previous·wn, the estimate·w, every rule set admits
// exactly the v up to a bound, most; each product is taken in 128 bits, so
// any counts up to MaxInt64 are exact.
type estimateRule struct {
	w             int64
	most          u128 // the largest v the rules admit
	countRejected bool // Rules.CountRejected: a denied request is counted too
}

func (r Rules) estimate(w, limit int64) estimateRule {
	// A rounded estimate is whole: the comparisons admit it up to m.
	m := limit - 1
	if r.Compare == CompareAtMost {
		m = limit
	}
	var most u128
	switch r.Rounding {
	case RoundFloor:
		// current + ⌊x⌋ ≤ m ⟺ x < m − current + 1 ⟺ v < (m + 1)·w.
		most = mul64(uint64(m+1), uint64(w)).minus(1)
	case RoundHalfUp:
		// current + ⌊x + ½⌋ ≤ m ⟺ x < m − current + ½ ⟺ 2v < (2m + 1)·w.
		p := mul64(uint64(2*m+1), uint64(w)).minus(1)
		most = u128{p.hi >> 1, p.lo>>1 | p.hi<<63}
	default:
		// The exact estimate is a fraction, each comparison v + e ≤ limit·w:
		// e = 1 for v < limit·w (both whole), 0 for v ≤ limit·w, w for
		// v + w ≤ limit·w.
		most = mul64(uint64(limit), uint64(w))
		switch r.Compare {
		case CompareLess:
			most = most.minus(1)
		case ComparePlusOneAtMost:
			most = most.minus(uint64(w))
		}
	}
	return estimateRule{w: w, most: most, countRejected: r.CountRejected}
}

// admits reports whether the rules admit a request in a window holding
// current, after one that held previous, wn of whose w the last w still
// overlaps: v ≤ most, on the 64-bit halves, without a branch.
func (e *estimateRule) admits(current, previous, wn int64) bool {
	h1, l1 := bits.Mul64(uint64(current), uint64(e.w))
	h2, l2 := bits.Mul64(uint64(previous), uint64(wn))
	lo, c := bits.Add64(l1, l2, 0)
	hi := h1 + h2 + c
	_, b := bits.Sub64(e.most.lo, lo, 0)
	_, b = bits.Sub64(e.most.hi, hi, b)
	return b == 0
}

// satAdd is a + b for non-negative a and b, saturating at MaxInt64.
func satAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return 1<<63 - 1
}

// u128 is an unsigned 128-bit integer, for exact products of counts and
// window lengths.
type u128 struct{ hi, lo uint64 }

func mul64(a, b uint64) u128 {
	hi, lo := bits.Mul64(a, b)
	return u128{hi, lo}
}

func (x u128) add(y u128) u128 {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	hi, _ := bits.Add64(x.hi, y.hi, c)
	return u128{hi, lo}
}

// minus is x − d, for d ≤ x.
func (x u128) minus(d uint64) u128 {
	lo, b := bits.Sub64(x.lo, d, 0)
	return u128{x.hi - b, lo}
}

func (x u128) cmp(y u128) int {
	switch {
	case x.hi < y.hi:
		return -1
	case x.hi > y.hi:
		return 1
	case x.lo < y.lo:
		return -1
	case x.lo > y.lo:
		return 1
	}
	return 0
}

// div is ⌊x / d⌋ for d > 0. The quotient must fit in 64 bits (x.hi < d),
// as it does for every caller here: bits.Div64 panics otherwise.
func (x u128) div(d uint64) uint64 {
	q, _ := bits.Div64(x.hi, x.lo, d)
	return q
}
