package algo

import (
	"fmt"
	"strings"
	"time"

	"windowlab/human"
)

// NginxLimitReq is nginx's limit_req on one zone, one limit_req directive
// per location, as ngx_http_limit_req_module.c decides it (PresetNginx,
// PresetNginxNodelay): each client (the zone's key) keeps excess, in
// thousandths of a request, and last, the millisecond it was last
// brought up to date. A request at now, ms = now − last after it:
//
//	excess' = max(0, excess − rate·ms/1000 + 1000)   (integer division)
//
// is denied when excess' > burst·1000, changing nothing; admitted, excess
// becomes excess' and last becomes now when ms ≠ 0. A client nginx does
// not know is admitted with excess 0. An admitted request with excess' >
// delay·1000 is delayed by (excess' − delay·1000)·1000/rate ms (integer
// division; a delay of 0 ms is no delay): the third outcome,
// Decision.Delay. rate is nginx's, in thousandths of a request a second:
// ⌊Limit·1000·1000/Window_ms⌋, which for 1s is Limit·1000 (r/s) and for
// 1m ⌊Limit·1000/60⌋ (r/m, truncated as nginx truncates).
//
// Where windowlab differs: nginx reads its cached monotonic clock, a
// replay the log's wall clock (the same differences, to the ms, while
// the clock is not stepped); nginx's ms < 0 clamps never apply, since
// instants here never go backwards; and nginx forgets a key on its own
// schedule (up to two least recently used keys idle 60 s and drained,
// when it stores a new key), after which the key's next request is
// admitted as new, where windowlab, keeping it, may delay it or (burst 0)
// deny it. windowlab forgets a client only when that changes nothing
// (excess − rate·ms/1000 ≤ −1000). One limit_req per location: nginx's
// several limits on one request (the largest delay of them) are not
// modelled.
type NginxLimitReq struct {
	cfg     Config
	rate    int64 // thousandths of a request a second, at least 1
	burst   int64 // Config.Burst·1000
	delay   int64 // Config.Delay·1000, or -1 under nodelay: never delayed
	clients map[string]nginxState
	clock   clock
	mem     Memory
}

type nginxState struct {
	excess int64   // thousandths of a request
	last   Instant // nginx's lr->last
}

// NginxRate is the rate nginx keeps for Limit per Window, in thousandths of
// a request a second: ⌊Limit·1000·1000/Window_ms⌋ (r/s: Limit·1000; r/m:
// ⌊Limit·1000/60⌋, nginx's ctx->rate = rate·1000/scale).
func NginxRate(limit int64, window time.Duration) int64 {
	return limit * 1_000_000 / int64(window/time.Millisecond)
}

// NginxMaxDelay is the longest delay a delaying nginx limit can give:
// (burst − delay)·1000·1000/rate ms, 0 when delay ≥ burst or under nodelay.
func NginxMaxDelay(c Config) time.Duration {
	if c.Rules.Bucket != BucketNginx || c.Delay >= c.Burst {
		return 0
	}
	return time.Duration((c.Burst-c.Delay)*1000*1000/NginxRate(c.Limit, c.Window)) * time.Millisecond
}

// NewNginxLimitReq returns nginx's limit_req under c; c must be valid and
// its Rules.Bucket BucketNginx or BucketNginxNodelay.
func NewNginxLimitReq(c Config) *NginxLimitReq {
	l := &NginxLimitReq{cfg: c, rate: NginxRate(c.Limit, c.Window), burst: c.Burst * 1000, delay: c.Delay * 1000,
		clients: map[string]nginxState{}, clock: newClock()}
	if c.Rules.Bucket == BucketNginxNodelay {
		l.delay = -1
	}
	return l
}

func (l *NginxLimitReq) Kind() Kind     { return KindTokenBucket }
func (l *NginxLimitReq) Config() Config { return l.cfg }
func (l *NginxLimitReq) Memory() Memory { return l.mem }

// excessAt is excess' for a request at t on s: nginx's lookup.
func (l *NginxLimitReq) excessAt(s nginxState, t Instant) (excess int64, ms int64) {
	ms = int64(t - s.last)
	if ms < 0 {
		ms = 0
	}
	// Past (excess + 1000)·1000/rate ms the drain covers excess + 1000:
	// excess' is 0, and rate·ms is not taken where it could overflow.
	if ms > (s.excess+1000)*1000/l.rate {
		return 0, ms
	}
	drain := l.rate * ms / 1000
	excess = s.excess - drain + 1000
	return max(excess, 0), ms
}

// decide is the decision at t on client's state s (known when ok), and
// the state after it.
func (l *NginxLimitReq) decide(t Instant, s nginxState, ok bool) (Decision, nginxState) {
	excess, ms := int64(0), int64(0)
	if ok {
		excess, ms = l.excessAt(s, t)
	}
	d := Decision{Kind: KindTokenBucket, At: t, Limit: l.cfg.Limit, Window: l.cfg.Window, Rules: l.cfg.Rules,
		Capacity: l.cfg.Capacity(), Tokens: l.burst + 1000 - excess}
	if ok && excess > l.burst {
		return d, s
	}
	d.Allowed = true
	if l.delay >= 0 && excess > l.delay {
		d.Delay = time.Duration((excess-l.delay)*1000/l.rate) * time.Millisecond
	}
	if !ok || ms != 0 {
		s.last = t
	}
	s.excess = excess
	return d, s
}

func (l *NginxLimitReq) Allow(t Instant, client string) Decision {
	t = l.advance(t)
	s, ok := l.clients[client]
	d, next := l.decide(t, s, ok)
	if d.Allowed {
		if !ok {
			l.mem.Clients++
			l.mem.Entries += bucketsPerClient
			l.mem.Bytes += clientBytes[nginxState](len(client))
		}
		l.clients[client] = next
	}
	return d
}

func (l *NginxLimitReq) Peek(t Instant, client string) Decision {
	t = l.clock.at(t)
	s, ok := l.clients[client]
	d, _ := l.decide(t, s, ok)
	return d
}

// drained reports whether forgetting s at t changes no decision: its next
// request's excess' is 0, as a new key's.
func (l *NginxLimitReq) drained(s nginxState, t Instant) bool {
	e, _ := l.excessAt(s, t)
	return e == 0 && t > s.last
}

func (l *NginxLimitReq) Expire(t Instant) {
	l.clock.seen(t)
	if l.cfg.NoExpiry {
		return
	}
	for k, s := range l.clients {
		if l.drained(s, t) {
			delete(l.clients, k)
			l.mem.Clients--
			l.mem.Entries -= bucketsPerClient
			l.mem.Bytes -= clientBytes[nginxState](len(k))
		}
	}
}

func (l *NginxLimitReq) Clone() Limiter {
	c := *l
	c.clients = make(map[string]nginxState, len(l.clients))
	for k, s := range l.clients {
		c.clients[k] = s
	}
	return &c
}

func (l *NginxLimitReq) MemoryAt(t Instant) Memory {
	if l.cfg.NoExpiry {
		return l.mem
	}
	var m Memory
	for k, s := range l.clients {
		if !l.drained(s, t) {
			m.Clients++
			m.Entries += bucketsPerClient
			m.Bytes += clientBytes[nginxState](len(k))
		}
	}
	return m
}

// advance reads t on the clock and sweeps drained clients once a window.
func (l *NginxLimitReq) advance(t Instant) Instant {
	t, sweep := l.clock.advance(t)
	if sweep {
		l.clock.schedule(t, l.cfg.windowMs())
		l.Expire(t)
	}
	return t
}

// isNginx reports whether d is an nginx limit_req's decision.
func (d Decision) isNginx() bool {
	return d.Kind == KindTokenBucket && (d.Rules.Bucket == BucketNginx || d.Rules.Bucket == BucketNginxNodelay)
}

// nginxExplain writes an nginx decision out in nginx's own terms:
// "excess 1.500 of burst 2 → allow, delayed 500ms (excess > delay 1)".
func (d Decision) nginxExplain(b *strings.Builder) {
	burst := d.Capacity - 1
	excess := burst*1000 + 1000 - d.Tokens
	fmt.Fprintf(b, "excess %s of burst %s", human.Decimal(excess, 1000), human.Int(burst))
	switch {
	case !d.Allowed:
		fmt.Fprintf(b, " → deny (%s > %s)", human.Decimal(excess, 1000), human.Int(burst))
	case d.Delay > 0:
		fmt.Fprintf(b, " → allow, delayed %s", human.Duration(d.Delay))
	default:
		b.WriteString(" → allow")
	}
}

// nginxNext is NextToken for nginx: how long after At until the level, as
// this request leaves it, reaches the next whole token (burst + 1 − excess
// in thousandths), at nginx's rate; about, since nginx drains from its
// last update, which may lie before At.
func (d Decision) nginxNext() time.Duration {
	after := d.Tokens
	if d.Allowed {
		after -= 1000
	}
	rate := NginxRate(d.Limit, d.Window)
	if rate <= 0 || after < 0 {
		return 0
	}
	need := 1000 - after%1000 // thousandths to the next whole token, 1..1000
	return time.Duration((need*1000+rate-1)/rate) * time.Millisecond
}

// validateNginx checks nginx's settings: a rate nginx can hold (at least
// 0.001 r/s) and a delay from 0.
func (c Config) validateNginx() error {
	if c.Delay < 0 || c.Delay > MaxLimit {
		return Problem("delay", "%d is out of range: nginx's delay=N is a whole number from 1 to %d, or 0 (nginx's default: every request in excess is delayed)", c.Delay, MaxLimit)
	}
	if c.Rules.Bucket != BucketNginx && c.Rules.Bucket != BucketNginxNodelay {
		return nil
	}
	if c.Window >= time.Millisecond && c.Limit >= 1 && c.Limit <= MaxLimit && NginxRate(c.Limit, c.Window) < 1 {
		return Problem("limit", "%d per %s is below nginx's smallest rate, 0.001 requests a second", c.Limit, human.Duration(c.Window))
	}
	return nil
}

// nginxSource is where the nginx presets' arithmetic was read.
const nginxSource = "github.com/nginx/nginx src/http/modules/ngx_http_limit_req_module.c @352a7d2bc4aa6b51e6e5c13f811bf961201c763d (release-1.22.1) " +
	"L939 `ctx->rate = rate * 1000 / scale`, L1060 `limit->burst = burst * 1000`, L1061 `limit->delay = delay * 1000`, L1021 nodelay `delay = NGX_MAX_INT_T_VALUE / 1000`; " +
	"lookup: L447–452 ms clamps, L454 `excess = lr->excess - ctx->rate * ms / 1000 + 1000`, L456 `if (excess < 0) excess = 0`, " +
	"L462 `if ((ngx_uint_t) excess > limit->burst) return NGX_BUSY` (state unchanged), L469 `if (ms) lr->last = now`, L512 a new key's `lr->excess = 0`; " +
	"account: L547 `if ((ngx_uint_t) excess <= (*limit)->delay) max_delay = 0`, L552 `max_delay = (excess - (*limit)->delay) * 1000 / ctx->rate`, L296 `if (!delay)` PASSED"

// The nginx presets (NginxLimitReq): limit_req zone=… rate=R burst=B
// [delay=D | nodelay], R written as Limit per Window (1s: r/s; 1m: r/m).
var (
	// PresetNginx is limit_req without nodelay: admitted requests beyond
	// delay (Config.Delay, 0 by default) are delayed, not denied.
	PresetNginx = Preset{
		Name: "nginx", Title: "nginx limit_req", Kind: KindTokenBucket,
		Rules: Rules{Bucket: BucketNginx},
		Rule: "excess' = max(0, excess − rate·ms/1000 + 1000) in thousandths, rate = ⌊limit·1000/window_s⌋; denied if excess' > burst·1000 (nothing changes); " +
			"admitted, delayed (excess' − delay·1000)·1000/rate ms when excess' > delay·1000; a new client is admitted with excess 0",
		Source: nginxSource,
		Takes:  "burst: limit_req's burst= (0, nginx's default, admits one at a time); delay: limit_req's delay= (0, the default, delays every request in excess) (scenario fields burst:, delay:; replay --burst, --delay)",
	}
	// PresetNginxNodelay is limit_req … nodelay: never delayed, so a token
	// bucket of capacity burst + 1 refilling at nginx's truncated rate.
	PresetNginxNodelay = Preset{
		Name: "nginx-nodelay", Title: "nginx limit_req nodelay", Kind: KindTokenBucket,
		Rules: Rules{Bucket: BucketNginxNodelay},
		Rule: "excess' = max(0, excess − rate·ms/1000 + 1000) in thousandths, rate = ⌊limit·1000/window_s⌋; denied if excess' > burst·1000 (nothing changes); " +
			"never delayed: a bucket of burst + 1",
		Source: nginxSource,
		Takes:  "burst: limit_req's burst= (0, nginx's default, admits one at a time) (scenario field burst:, replay --burst)",
	}
)

// NginxPresets lists nginx limit_req's presets, the delaying one first.
var NginxPresets = []Preset{PresetNginx, PresetNginxNodelay}

// nginx is the listing of an nginx limit_req decision: the module's
// lookup and account, in thousandths of a request.
func (c *coder) nginx() {
	d := c.d
	burst := d.Capacity - 1
	excess := burst*1000 + 1000 - d.Tokens
	c.line("n := zone[client]  // a new client: excess 0", "")
	c.line("excess := max(0, n.excess - rate*ms/1000 + 1000)", fmt.Sprintf("%d, rate %d a second", excess, NginxRate(d.Limit, d.Window)))
	c.line("if excess > burst*1000 {", fmt.Sprintf("%d > %d", excess, burst*1000))
	c.depth++
	c.line("// a denied request changes nothing", "")
	next := ""
	if !d.Allowed {
		next = "next token in " + human.Duration(d.NextToken())
	}
	c.ret(false, next)
	c.depth--
	c.line("}", "")
	c.line("n.excess, n.last = excess, now", "")
	if d.Rules.Bucket == BucketNginx {
		delayed := d.Allowed && d.Delay > 0
		c.line("if d := (excess - delay*1000)*1000/rate; d > 0 {", "")
		c.depth++
		c.lines = append(c.lines, CodeLine{Indent: c.depth, Code: "return allow", Values: pick(delayed, "after "+human.Duration(d.Delay), ""), Here: delayed})
		c.depth--
		c.line("}", "")
	}
	c.lines = append(c.lines, CodeLine{Indent: c.depth, Code: "return allow", Here: d.Allowed && d.Delay == 0})
}
