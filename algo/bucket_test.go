package algo

import (
	"math"
	"testing"
	"time"
)

// A bucket of 100 tokens refilling 100 per minute: one token is 60,000
// units, and 100 units arrive every millisecond.
func TestTokenBucketExplain(t *testing.T) {
	l := mustNew(t, KindTokenBucket, perMinute)
	t0 := Clock(12, 0, 0, 0)
	d := l.Allow(t0, "c")
	if !d.Allowed || d.Tokens != 100*60_000 || d.Capacity != 100 {
		t.Fatalf("first request: %+v", d)
	}
	if got, want := d.Explain(), "bucket 100 of 100 tokens → allow (100 ≥ 1)"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	if n, w := d.TokensRat(); n != 6_000_000 || w != 60_000 {
		t.Errorf("TokensRat = %d/%d", n, w)
	}
	allowN(l, t0, "c", 99) // empty now
	// 150 ms later: 15,000 units, a quarter of a token; the rest takes 450 ms.
	d = l.Allow(t0+150, "c")
	if d.Allowed || d.Tokens != 15_000 || d.NextToken() != 450*time.Millisecond {
		t.Errorf("at +150ms: %+v, NextToken %v", d, d.NextToken())
	}
	if got, want := d.Explain(), "bucket 0.25 of 100 tokens → deny (0.25 < 1), next token in 450ms"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	// 2.1 s after it emptied: 3.5 tokens.
	d = l.Allow(t0+2100, "c")
	if !d.Allowed || d.Tokens != 210_000 {
		t.Errorf("at +2.1s: %+v", d)
	}
	if got, want := d.Explain(), "bucket 3.5 of 100 tokens → allow (3.5 ≥ 1)"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	// Left with 2.5 tokens: the next whole one (3) is 0.5 token = 300 ms away.
	if d.NextToken() != 300*time.Millisecond {
		t.Errorf("NextToken after taking one of 3.5 = %v, want 300ms", d.NextToken())
	}
	if d.Kind.Title() != "Token bucket" || (Decision{Kind: KindFixedWindow}).NextToken() != 0 {
		t.Error("Title or NextToken of another kind")
	}
}

// Exactly one token allows; a millisecond short of it (0.996) denies.
func TestTokenBucketExactlyOneToken(t *testing.T) {
	// 4 per second: one token = 1000 units, 4 units per ms, so one token
	// takes exactly 250 ms.
	cfg := Config{Limit: 4, Window: time.Second}
	t0 := Clock(9, 30, 0, 0)
	l := mustNew(t, KindTokenBucket, cfg)
	if n := allowN(l, t0, "c", 5); n != 4 {
		t.Fatalf("%d of 5 allowed from a full bucket of 4", n)
	}
	d := l.Allow(t0+249, "c")
	if d.Allowed || d.Tokens != 996 || d.Explain() != "bucket 0.996 of 4 tokens → deny (0.996 < 1), next token in 1ms" {
		t.Errorf("at +249ms: %+v %q", d, d.Explain())
	}
	d = l.Allow(t0+250, "c")
	if !d.Allowed || d.Tokens != 1000 || d.Explain() != "bucket 1 of 4 tokens → allow (1 ≥ 1)" {
		t.Errorf("at +250ms: %+v %q", d, d.Explain())
	}
	if d.NextToken() != 250*time.Millisecond {
		t.Errorf("NextToken = %v, want 250ms", d.NextToken())
	}
	if d := l.Allow(t0+250, "c"); d.Allowed || d.Tokens != 0 {
		t.Errorf("again at +250ms: %+v", d)
	}
	// A level that is not a whole number of thousandths prints with ≈.
	l = mustNew(t, KindTokenBucket, Config{Limit: 3, Window: time.Second})
	allowN(l, t0, "c", 3)
	d = l.Allow(t0+333, "c") // 999 units of 1000
	if d.Allowed || d.Explain() != "bucket 0.999 of 3 tokens → deny (0.999 < 1), next token in 1ms" {
		t.Errorf("3/s at +333ms: %q", d.Explain())
	}
	l = mustNew(t, KindTokenBucket, Config{Limit: 3, Window: 7 * time.Millisecond})
	allowN(l, t0, "c", 3)
	d = l.Allow(t0+2, "c") // 6 units of 7
	if d.Allowed || d.Explain() != "bucket ≈0.857 of 3 tokens → deny (≈0.857 < 1), next token in 1ms" {
		t.Errorf("3 per 7ms at +2ms: %q", d.Explain())
	}
}

// A full bucket lets a burst of its capacity through at once.
func TestTokenBucketBurst(t *testing.T) {
	t0 := Clock(12, 0, 0, 0)
	for _, c := range []struct {
		cfg  Config
		want int
	}{
		{perMinute, 100},
		{Config{Limit: 100, Window: time.Minute, Burst: 150}, 150},
		{Config{Limit: 100, Window: time.Minute, Burst: 1}, 1},
		{Config{Limit: 1, Window: time.Millisecond}, 1},
	} {
		l := mustNew(t, KindTokenBucket, c.cfg)
		if got := allowN(l, t0, "c", 1000); got != c.want {
			t.Errorf("%+v: burst of %d allowed, want %d", c.cfg, got, c.want)
		}
		if c.cfg.Capacity() != int64(c.want) {
			t.Errorf("%+v: Capacity %d", c.cfg, c.cfg.Capacity())
		}
	}
	if err := (Config{Limit: 1, Window: time.Second, Burst: -1}).Validate(); err == nil {
		t.Error("Validate accepted a negative burst")
	}
	if err := (Config{Limit: 1, Window: time.Second, Burst: MaxLimit + 1}).Validate(); err == nil {
		t.Error("Validate accepted a burst over MaxLimit")
	}
}

// The lesson's boundary burst through a bucket of 100 per minute: there is
// no window edge, so the second 100, one second later, meet the 1⅔ tokens
// that second refilled: 100 + 1 allowed.
func TestTokenBucketNoBoundaryEffect(t *testing.T) {
	l := mustNew(t, KindTokenBucket, perMinute)
	a, b := Clock(12, 0, 59, 0), Clock(12, 1, 0, 0)
	first := allowN(l, a, "client-1", 100)
	// 1000 ms × 100 units = 100,000 units = 1⅔ tokens of 60,000.
	d := l.Allow(b, "client-1")
	if !d.Allowed || d.Tokens != 100_000 || d.Explain() != "bucket ≈1.667 of 100 tokens → allow (≈1.667 ≥ 1)" {
		t.Errorf("first at 12:01:00: %+v %q", d, d.Explain())
	}
	d = l.Allow(b, "client-1")
	// 40,000 units left: 20,000 more take 200 ms.
	if d.Allowed || d.Tokens != 40_000 || d.Explain() != "bucket ≈0.667 of 100 tokens → deny (≈0.667 < 1), next token in 200ms" {
		t.Errorf("second at 12:01:00: %+v %q", d, d.Explain())
	}
	second := 1 + allowN(l, b, "client-1", 98)
	if first != 100 || second != 1 {
		t.Errorf("allowed %d at 12:00:59 and %d at 12:01:00, want 100 and 1", first, second)
	}
	// And 200 ms later exactly one more token is there.
	if d := l.Allow(b+200, "client-1"); !d.Allowed || d.Tokens != 60_000 {
		t.Errorf("at 12:01:00.200: %+v", d)
	}
}

// The bucket is dropped exactly when it is full again, and not before.
func TestTokenBucketExpiry(t *testing.T) {
	cfg := Config{Limit: 3, Window: time.Second} // 3 units per ms, 1000 per token
	t0 := Clock(12, 0, 0, 0)
	l := mustNew(t, KindTokenBucket, cfg)
	l.Allow(t0, "c") // 2000 of 3000 units: full again after ⌈1000/3⌉ = 334 ms
	held := l.Memory()
	if held.Clients != 1 || held.Entries != 1 || held.Bytes != clientBytes[bucketState](len("c")) {
		t.Fatalf("Memory %+v", held)
	}
	if m := l.MemoryAt(t0 + 333); m != held {
		t.Errorf("MemoryAt(+333ms) = %+v, want %+v", m, held)
	}
	if m := l.MemoryAt(t0 + 334); m != (Memory{}) {
		t.Errorf("MemoryAt(+334ms) = %+v, want nothing", m)
	}
	l.Expire(t0 + 333)
	if l.Memory() != held {
		t.Errorf("Expire(+333ms) dropped a bucket that is not full: %+v", l.Memory())
	}
	l.Expire(t0 + 334)
	if l.Memory() != (Memory{}) {
		t.Errorf("Expire(+334ms): %+v", l.Memory())
	}
	if d := l.Allow(t0+334, "c"); !d.Allowed || d.Tokens != 3000 {
		t.Errorf("after expiry: %+v, want a full bucket", d)
	}
	// Expiry off: the bucket stays, decisions are the same.
	cfg.NoExpiry = true
	l = mustNew(t, KindTokenBucket, cfg)
	l.Allow(t0, "c")
	l.Expire(t0 + 10_000)
	if m := l.Memory(); m.Clients != 1 || l.MemoryAt(t0+10_000) != m {
		t.Errorf("no expiry: Memory %+v", m)
	}
	// The sweep of another client's request drops idle buckets.
	l = mustNew(t, KindTokenBucket, Config{Limit: 5, Window: time.Second})
	for i := range 1000 {
		l.Allow(t0, "idle-"+itoa(i))
	}
	l.Allow(t0+1000, "active")
	if m := l.Memory(); m.Clients != 1 {
		t.Errorf("after the sweep: %+v, want one client", m)
	}
}

// The largest config, and instants as far apart as int64 allows: every
// refill is capped before it is multiplied, so nothing overflows.
func TestTokenBucketLargestConfig(t *testing.T) {
	c := Config{Limit: MaxLimit, Window: MaxWindow, Burst: MaxLimit}
	w := c.windowMs()
	l := NewTokenBucket(c)
	if l.full != MaxLimit*w || l.full <= 0 {
		t.Fatalf("capacity in units = %d", l.full)
	}
	lo, hi := Instant(math.MinInt64+1), Instant(math.MaxInt64)
	d := l.Allow(lo, "c")
	if !d.Allowed || d.Tokens != l.full {
		t.Fatalf("first: %+v", d)
	}
	// From the far past to the far future: refilled to exactly full.
	if d := l.Peek(hi, "c"); d.Tokens != l.full {
		t.Errorf("after 2⁶⁴ ms: Tokens %d, want %d", d.Tokens, l.full)
	}
	// One ms after emptying: MaxLimit units, MaxLimit/W of a token.
	s := &bucketState{} // empty at 0
	if got := l.levelAt(s, 1); got != MaxLimit {
		t.Errorf("1 ms after empty: %d units, want %d", got, MaxLimit)
	}
	if got := l.levelAt(s, Instant(w)); got != l.full {
		t.Errorf("one window after empty: %d units, want full %d", got, l.full)
	}
	if got := l.levelAt(s, Instant(w-1)); got != l.full-MaxLimit {
		t.Errorf("one window less 1 ms after empty: %d, want %d", got, l.full-MaxLimit)
	}
	// Slowest refill at the largest capacity: 1 unit per ms.
	slow := NewTokenBucket(Config{Limit: 1, Window: MaxWindow, Burst: MaxLimit})
	slow.Allow(0, "c")
	b := slow.keyed.keys.find("c")
	*s = loadBucket(b, false)
	s.level = 0
	storeBucket(b, *s, false) // emptied at 0
	if got := slow.levelAt(s, hi); got != slow.full {
		t.Errorf("slow bucket after MaxInt64 ms: %d, want %d", got, slow.full)
	}
	if got := slow.levelAt(s, 12345); got != 12345 {
		t.Errorf("slow bucket after 12345 ms: %d", got)
	}
	d = slow.Peek(Instant(w-1), "c")
	if d.Allowed || d.Tokens != w-1 || d.NextToken() != time.Millisecond {
		t.Errorf("slow bucket one ms short of a token: %+v, NextToken %v", d, d.NextToken())
	}
	if d := slow.Peek(Instant(w), "c"); !d.Allowed || d.Tokens != w {
		t.Errorf("slow bucket at one token: %+v", d)
	}
	if d := slow.Peek(0, "c"); d.Allowed || d.NextToken() != MaxWindow {
		t.Errorf("slow bucket empty: %+v, NextToken %v, want %v", d, d.NextToken(), MaxWindow)
	}
}
