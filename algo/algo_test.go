package algo

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"
)

// mustNew builds a limiter or stops the test.
func mustNew(t testing.TB, k Kind, c Config) Limiter {
	t.Helper()
	l, err := New(k, c)
	if err != nil {
		t.Fatalf("New(%v, %+v): %v", k, c, err)
	}
	return l
}

// perMinute is the lesson's 100 requests per minute.
var perMinute = Config{Limit: 100, Window: time.Minute}

// allowN sends n requests from client at t and returns how many were allowed.
func allowN(l Limiter, t Instant, client string, n int) int {
	allowed := 0
	for range n {
		if l.Allow(t, client).Allowed {
			allowed++
		}
	}
	return allowed
}

// checkEvidence compares the evidence fields that matter for want's kind
// (sameEvidence); the cases here leave Limit, Window and Rules to the
// limiter they build.
func checkEvidence(t *testing.T, what string, got, want Decision) {
	t.Helper()
	want.Limit, want.Window, want.Rules = got.Limit, got.Window, got.Rules
	if diff := sameEvidence(got, want); diff != "" {
		t.Errorf("%s: %s", what, diff)
	}
}

func TestClockAndInstant(t *testing.T) {
	if got := Clock(12, 0, 59, 0); got != 43_259_000 {
		t.Errorf("Clock(12,0,59,0) = %d, want 43259000", got)
	}
	cases := []struct {
		at         Instant
		str, short string
	}{
		{Clock(12, 0, 59, 0), "12:00:59.000", "12:00:59"},
		{Clock(12, 1, 15, 250), "12:01:15.250", "12:01:15.250"},
		{Clock(0, 0, 0, 0), "00:00:00.000", "00:00:00"},
		{Clock(24, 0, 0, 1), "00:00:00.001 the next day", "00:00:00.001 the next day"},
		{Clock(36, 0, 0, 0), "12:00:00.000 the next day", "12:00:00 the next day"},
		{Clock(48, 30, 0, 0), "00:30:00.000 2 days later", "00:30:00 2 days later"},
		{-1, "23:59:59.999 the day before", "23:59:59.999 the day before"},
		{-60_000, "23:59:00.000 the day before", "23:59:00 the day before"},
		{-day - 1, "23:59:59.999 2 days before", "23:59:59.999 2 days before"},
		// Dated: a log's instants, since the Unix epoch in UTC.
		{Instant(time.Date(2026, 11, 30, 23, 59, 59, 250e6, time.UTC).UnixMilli()), "2026-11-30 23:59:59.250", "2026-11-30 23:59:59.250"},
		{Dated, "2000-01-01 00:00:00.000", "2000-01-01 00:00:00"},
		{Dated - 1, "23:59:59.999 10956 days later", "23:59:59.999 10956 days later"},
	}
	for _, c := range cases {
		if got := c.at.String(); got != c.str {
			t.Errorf("Instant(%d).String() = %q, want %q", int64(c.at), got, c.str)
		}
		if got := c.at.Short(); got != c.short {
			t.Errorf("Instant(%d).Short() = %q, want %q", int64(c.at), got, c.short)
		}
	}
	// Every second of the day, at a millisecond that moves through all
	// three digits, as Sprintf pads them.
	for sec := range int64(day / 1000) {
		at := Instant(sec*1000 + sec*7%1000)
		want := fmt.Sprintf("%02d:%02d:%02d.%03d", sec/3600, sec/60%60, sec%60, sec*7%1000)
		if got := at.String(); got != want {
			t.Fatalf("Instant(%d).String() = %q, want %q", int64(at), got, want)
		}
	}
	if at := Instant(time.Date(2026, 12, 1, 0, 0, 30, 0, time.UTC).UnixMilli()); at.TimeOfDay(false) != "00:00:30" || at.Truncate(time.Hour).Short() != "2026-12-01 00:00:00" {
		t.Errorf("a dated instant's time of day %q, hour %q", at.TimeOfDay(false), at.Truncate(time.Hour).Short())
	}
	d := Instant(time.Date(2026, 11, 30, 6, 31, 0, 0, time.UTC).UnixMilli())
	for _, c := range []struct {
		t, u Instant
		want string
	}{
		{d, d + 60_000, "2026-11-30 06:31:00–06:32:00"},
		{d, d + 60_500, "2026-11-30 06:31:00–06:32:00.500"},
		{d + 17*3600_000, d + 18*3600_000, "2026-11-30 23:31:00–2026-12-01 00:31:00"},
		{Clock(12, 0, 59, 0), Clock(12, 1, 0, 0), "12:00:59–12:01:00"},
		{Clock(12, 0, 0, 0), Clock(12, 0, 0, 0), "12:00:00"}, // a burst at one instant
		{d, d, "2026-11-30 06:31:00"},
	} {
		if got := Range(c.t, c.u); got != c.want {
			t.Errorf("Range = %q, want %q", got, c.want)
		}
	}
	if got := Clock(12, 0, 0, 0).Add(1500 * time.Microsecond); got != Clock(12, 0, 0, 1) {
		t.Errorf("Add(1.5ms) = %v, want 12:00:00.001", got)
	}
	if got := Clock(12, 1, 0, 0).Sub(Clock(12, 0, 59, 0)); got != time.Second {
		t.Errorf("Sub = %v, want 1s", got)
	}
}

func TestKindNames(t *testing.T) {
	want := map[Kind]string{
		KindFixedWindow:    "fixed-window",
		KindSlidingLog:     "sliding-log",
		KindSlidingCounter: "sliding-counter",
		KindTokenBucket:    "token-bucket",
	}
	for k, s := range want {
		if k.String() != s {
			t.Errorf("%d.String() = %q, want %q", k, k.String(), s)
		}
		if got, ok := ParseKind(s); !ok || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", s, got, ok)
		}
	}
	if _, ok := ParseKind("leaky-bucket"); ok {
		t.Error("ParseKind accepted an unknown name")
	}
	if len(Lesson) != 3 || Lesson[0] != KindFixedWindow || Lesson[1] != KindSlidingLog || Lesson[2] != KindSlidingCounter {
		t.Errorf("Lesson = %v", Lesson)
	}
	units := map[Kind]string{KindFixedWindow: "1 counter", KindSlidingLog: "1 timestamp", KindSlidingCounter: "1 counter", KindTokenBucket: "1 bucket"}
	for k, one := range units {
		if got := k.Unit().Of(1); got != one {
			t.Errorf("%v.Unit().Of(1) = %q, want %q", k, got, one)
		}
	}
	if got := KindSlidingLog.Unit().Of(2); got != "2 timestamps" {
		t.Errorf("KindSlidingLog.Unit().Of(2) = %q", got)
	}
}

// A bad setting is an *OptionError naming it, so a caller can point at the
// field or the flag.
func TestConfigValidateNamesTheSetting(t *testing.T) {
	for option, c := range map[string]Config{
		"limit":  {Limit: 0, Window: time.Second},
		"window": {Limit: 1, Window: 1500 * time.Microsecond},
		"burst":  {Limit: 1, Window: time.Second, Burst: -1},
		"rules":  {Limit: 1, Window: time.Second, Rules: Rules{Rounding: 99}},
	} {
		var oe *OptionError
		if err := c.Validate(); !errors.As(err, &oe) || oe.Option != option || strings.HasPrefix(oe.Problem, option) {
			t.Errorf("%+v: %v, want an OptionError for %s", c, err, option)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		c  Config
		ok bool
	}{
		{Config{Limit: 1, Window: time.Millisecond}, true},
		{Config{Limit: MaxLimit, Window: MaxWindow}, true},
		{Config{Limit: 0, Window: time.Second}, false},
		{Config{Limit: -1, Window: time.Second}, false},
		{Config{Limit: MaxLimit + 1, Window: time.Second}, false},
		{Config{Limit: 1, Window: 0}, false},
		{Config{Limit: 1, Window: 999 * time.Microsecond}, false},
		{Config{Limit: 1, Window: 1500 * time.Microsecond}, false},
		{Config{Limit: 1, Window: MaxWindow + time.Millisecond}, false},
	}
	for _, c := range cases {
		err := c.c.Validate()
		if (err == nil) != c.ok {
			t.Errorf("Validate(%+v) = %v, want ok=%v", c.c, err, c.ok)
		}
		for _, k := range Lesson {
			l, err := New(k, c.c)
			if (err == nil) != c.ok || (l == nil) == c.ok {
				t.Errorf("New(%v, %+v) = %v, %v; want ok=%v", k, c.c, l, err, c.ok)
			}
			if c.ok && (l.Kind() != k || l.Config() != c.c) {
				t.Errorf("New(%v) gave Kind %v Config %+v", k, l.Kind(), l.Config())
			}
		}
	}
	// The token bucket, the lesson's next step, is built by New too.
	if l, err := New(KindTokenBucket, perMinute); err != nil || l.Kind() != KindTokenBucket || l.Config() != perMinute {
		t.Errorf("New(token-bucket) = %v, %v", l, err)
	}
	if _, err := New(Kind(99), perMinute); err == nil {
		t.Error("New(kind(99)) should fail")
	}
}

func TestFloorDiv(t *testing.T) {
	cases := []struct{ a, b, want int64 }{
		{0, 1000, 0}, {999, 1000, 0}, {1000, 1000, 1}, {1001, 1000, 1},
		{-1, 1000, -1}, {-999, 1000, -1}, {-1000, 1000, -1}, {-1001, 1000, -2},
		{-1, 1, -1}, {7, 1, 7}, {-7, 3, -3}, {-6, 3, -2},
	}
	for _, c := range cases {
		if got := floorDiv(c.a, c.b); got != c.want {
			t.Errorf("floorDiv(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// Window edges: 12:00:59 is in the 12:00 window, whose next edge is 12:01:00
// (the lesson's boundary); an edge's previous edge is a whole window back.
func TestInstantEdges(t *testing.T) {
	cases := []struct {
		t                Instant
		d                time.Duration
		start, next, prv Instant
	}{
		{Clock(12, 0, 59, 0), time.Minute, Clock(12, 0, 0, 0), Clock(12, 1, 0, 0), Clock(12, 0, 0, 0)},
		{Clock(12, 1, 0, 0), time.Minute, Clock(12, 1, 0, 0), Clock(12, 2, 0, 0), Clock(12, 0, 0, 0)},
		{Clock(12, 1, 15, 0), time.Minute, Clock(12, 1, 0, 0), Clock(12, 2, 0, 0), Clock(12, 1, 0, 0)},
		{Clock(12, 1, 15, 250), time.Second, Clock(12, 1, 15, 0), Clock(12, 1, 16, 0), Clock(12, 1, 15, 0)},
		{0, time.Minute, 0, 60_000, -60_000},
		{-1, time.Minute, -60_000, 0, -60_000},
		{-60_000, time.Minute, -60_000, 0, -120_000},
		{7, time.Millisecond, 7, 8, 6},
	}
	for _, c := range cases {
		if got := c.t.Truncate(c.d); got != c.start {
			t.Errorf("%d.Truncate(%v) = %d, want %d", c.t, c.d, got, c.start)
		}
		if got := c.t.NextEdge(c.d); got != c.next {
			t.Errorf("%d.NextEdge(%v) = %d, want %d", c.t, c.d, got, c.next)
		}
		if got := c.t.PrevEdge(c.d); got != c.prv {
			t.Errorf("%d.PrevEdge(%v) = %d, want %d", c.t, c.d, got, c.prv)
		}
	}
}

// The lesson's boundary burst: 100 at 12:00:59, then 100 at 12:01:00.
func TestBoundaryBurst(t *testing.T) {
	a, b := Clock(12, 0, 59, 0), Clock(12, 1, 0, 0)
	want := map[Kind]int{KindFixedWindow: 200, KindSlidingLog: 100, KindSlidingCounter: 100}
	for _, k := range Lesson {
		l := mustNew(t, k, perMinute)
		got := allowN(l, a, "client-1", 100) + allowN(l, b, "client-1", 100)
		if got != want[k] {
			t.Errorf("%v: %d allowed across the edge, want %d", k, got, want[k])
		}
	}
	// Check yourself, question 1: 12:00:58 and 12:01:02.
	l := mustNew(t, KindFixedWindow, perMinute)
	if got := allowN(l, Clock(12, 0, 58, 0), "c", 100) + allowN(l, Clock(12, 1, 2, 0), "c", 100); got != 200 {
		t.Errorf("fixed window, 12:00:58 + 12:01:02: %d allowed, want 200", got)
	}
}

// The same burst, request by request, with each decision's evidence.
func TestBoundaryBurstEvidence(t *testing.T) {
	a, b := Clock(12, 0, 59, 0), Clock(12, 1, 0, 0)
	m0, m1 := Clock(12, 0, 0, 0), Clock(12, 1, 0, 0)

	t.Run("fixed-window", func(t *testing.T) {
		l := mustNew(t, KindFixedWindow, perMinute)
		for i := range int64(100) {
			d := l.Allow(a, "c")
			checkEvidence(t, "12:00:59", d, Decision{Kind: KindFixedWindow, At: a, Allowed: true, Count: i, WindowStart: m0})
			if i == 99 {
				if got, want := d.Explain(), "window 12:00:00–12:01:00 holds 99 → allow (99 < 100)"; got != want {
					t.Errorf("Explain = %q, want %q", got, want)
				}
			}
		}
		if d := l.Allow(a, "c"); d.Allowed || d.Count != 100 {
			t.Errorf("101st at 12:00:59: %+v, want denied with Count 100", d)
		}
		for i := range int64(100) {
			d := l.Allow(b, "c")
			checkEvidence(t, "12:01:00", d, Decision{Kind: KindFixedWindow, At: b, Allowed: true, Count: i, WindowStart: m1})
			if d.WindowEnd() != Clock(12, 2, 0, 0) {
				t.Errorf("WindowEnd = %v", d.WindowEnd())
			}
		}
		d := l.Allow(b, "c")
		checkEvidence(t, "101st at 12:01:00", d, Decision{Kind: KindFixedWindow, At: b, Allowed: false, Count: 100, WindowStart: m1})
		if got, want := d.Explain(), "window 12:01:00–12:02:00 holds 100 → deny (100 ≥ 100)"; got != want {
			t.Errorf("Explain = %q, want %q", got, want)
		}
	})

	t.Run("sliding-log", func(t *testing.T) {
		l := mustNew(t, KindSlidingLog, perMinute)
		d := l.Allow(a, "c")
		checkEvidence(t, "first", d, Decision{Kind: KindSlidingLog, At: a, Allowed: true, Count: 0})
		if got, want := d.Explain(), "no timestamps after 11:59:59 → allow (0 < 100)"; got != want {
			t.Errorf("Explain = %q, want %q", got, want)
		}
		for i := int64(1); i < 100; i++ {
			checkEvidence(t, "12:00:59", l.Allow(a, "c"), Decision{Kind: KindSlidingLog, At: a, Allowed: true, Count: i, Oldest: a})
		}
		for range 100 {
			d = l.Allow(b, "c")
			checkEvidence(t, "12:01:00", d, Decision{Kind: KindSlidingLog, At: b, Allowed: false, Count: 100, Oldest: a})
		}
		if got, want := d.Explain(), "100 timestamps after 12:00:00, oldest 12:00:59 → deny (100 ≥ 100)"; got != want {
			t.Errorf("Explain = %q, want %q", got, want)
		}
		if d.Leaves() != Clock(12, 1, 59, 0) {
			t.Errorf("Leaves = %v, want 12:01:59", d.Leaves())
		}
		last := Clock(12, 1, 58, 999)
		checkEvidence(t, "12:01:58.999", l.Allow(last, "c"), Decision{Kind: KindSlidingLog, At: last, Allowed: false, Count: 100, Oldest: a})
		out := Clock(12, 1, 59, 0)
		d = l.Allow(out, "c")
		checkEvidence(t, "12:01:59", d, Decision{Kind: KindSlidingLog, At: out, Allowed: true, Count: 0})
		if got, want := d.Explain(), "no timestamps after 12:00:59 → allow (0 < 100)"; got != want {
			t.Errorf("Explain = %q, want %q", got, want)
		}
	})

	t.Run("sliding-counter", func(t *testing.T) {
		l := mustNew(t, KindSlidingCounter, perMinute)
		for i := range int64(100) {
			checkEvidence(t, "12:00:59", l.Allow(a, "c"), Decision{Kind: KindSlidingCounter, At: a, Allowed: true,
				Count: i, WindowStart: m0, Elapsed: 59 * time.Second})
		}
		d := l.Allow(b, "c")
		checkEvidence(t, "12:01:00", d, Decision{Kind: KindSlidingCounter, At: b, Allowed: false,
			Count: 0, Previous: 100, WindowStart: m1, Elapsed: 0})
		if n, w := d.WeightRat(); n != 60_000 || w != 60_000 {
			t.Errorf("WeightRat at the first instant = %d/%d, want 60000/60000", n, w)
		}
		if got, want := d.Explain(), "0 + 100 × 1 = 100 → deny (100 ≥ 100)"; got != want {
			t.Errorf("Explain = %q, want %q", got, want)
		}
	})
}

// The lesson's worked example: 84 in the 12:00 window, 30 in 12:01, ask at 12:01:15.
func TestWorkedExample(t *testing.T) {
	l := mustNew(t, KindSlidingCounter, perMinute)
	if n := allowN(l, Clock(12, 0, 30, 0), "c", 84); n != 84 {
		t.Fatalf("%d of 84 allowed at 12:00:30", n)
	}
	if n := allowN(l, Clock(12, 1, 14, 0), "c", 30); n != 30 {
		t.Fatalf("%d of 30 allowed at 12:01:14", n)
	}
	at := Clock(12, 1, 15, 0)
	want := Decision{Kind: KindSlidingCounter, At: at, Allowed: true, Count: 30, Previous: 84,
		WindowStart: Clock(12, 1, 0, 0), Elapsed: 15 * time.Second}
	peek := l.Peek(at, "c")
	d := l.Allow(at, "c")
	if peek != d {
		t.Errorf("Peek %+v differs from Allow %+v", peek, d)
	}
	checkEvidence(t, "12:01:15", d, want)
	if d.Current() != 30 {
		t.Errorf("Current = %d", d.Current())
	}
	if n, w := d.WeightRat(); n != 45_000 || w != 60_000 {
		t.Errorf("WeightRat = %d/%d, want 45000/60000", n, w)
	}
	if n, w := d.EstimateRat(); n != 93*60_000 || w != 60_000 {
		t.Errorf("EstimateRat = %d/%d, want %d/60000", n, w, 93*60_000)
	}
	if d.Weight() != 0.75 || d.Estimate() != 93 {
		t.Errorf("Weight, Estimate = %v, %v; want 0.75, 93", d.Weight(), d.Estimate())
	}
	if got, want := d.Explain(), "30 + 84 × 0.75 = 93 → allow (93 < 100)"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	if d.Verb() != "allow" {
		t.Errorf("Verb = %q", d.Verb())
	}
	// Six more fit (31..36 + 63 < 100 up to 36); the seventh makes 100.
	if n := allowN(l, at, "c", 6); n != 6 {
		t.Errorf("%d of the next 6 allowed, want 6", n)
	}
	d = l.Allow(at, "c")
	if d.Allowed || d.Count != 37 {
		t.Errorf("38th request: %+v, want denied with Count 37", d)
	}
	if got, want := d.Explain(), "37 + 84 × 0.75 = 100 → deny (100 ≥ 100)"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
}

// A timestamp exactly one window old has left the log; one ms younger has not.
func TestLogExactlyOneWindowOld(t *testing.T) {
	c := Config{Limit: 1, Window: time.Second}
	t0 := Clock(12, 0, 0, 250)

	l := mustNew(t, KindSlidingLog, c)
	checkEvidence(t, "t0", l.Allow(t0, "c"), Decision{Kind: KindSlidingLog, At: t0, Allowed: true})
	at := t0 + 1000
	checkEvidence(t, "t0+W", l.Allow(at, "c"), Decision{Kind: KindSlidingLog, At: at, Allowed: true, Count: 0})

	l = mustNew(t, KindSlidingLog, c)
	l.Allow(t0, "c")
	at = t0 + 999
	d := l.Allow(at, "c")
	checkEvidence(t, "t0+W-1ms", d, Decision{Kind: KindSlidingLog, At: at, Allowed: false, Count: 1, Oldest: t0})
	if got, want := d.Explain(), "1 timestamp after 12:00:00.249, oldest 12:00:00.250 → deny (1 ≥ 1)"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	if d.Leaves() != t0+1000 {
		t.Errorf("Leaves = %v, want %v", d.Leaves(), t0+1000)
	}
	// The denied request was not logged: at t0+W the log is empty again.
	checkEvidence(t, "t0+W after a denial", l.Allow(t0+1000, "c"), Decision{Kind: KindSlidingLog, At: t0 + 1000, Allowed: true})
}

// An estimate exactly equal to the limit is denied; float64 would allow it.
func TestCounterEstimateEqualToLimit(t *testing.T) {
	// Naive float arithmetic really does come out under the limit here, so
	// only an exact comparison gets this right.
	elapsed, window := 5.4, 9.0
	if naive := 9 + 15*(1-elapsed/window); !(naive < 15) {
		t.Fatalf("naive float estimate = %v; the test premise (it is < 15) does not hold", naive)
	}

	l := mustNew(t, KindSlidingCounter, Config{Limit: 15, Window: 9 * time.Second})
	base := Clock(12, 0, 0, 0) // a multiple of 9 s since midnight
	if base%9000 != 0 {
		t.Fatal("base is not window-aligned")
	}
	if n := allowN(l, base+1000, "c", 15); n != 15 {
		t.Fatalf("%d of 15 allowed in the previous window", n)
	}
	// 9 at 5.0 s: estimate before the 9th is 8 + 15×4/9 ≈ 14.67 < 15.
	if n := allowN(l, base+9000+5000, "c", 9); n != 9 {
		t.Fatalf("%d of 9 allowed in the current window", n)
	}
	at := base + 9000 + 5400
	d := l.Allow(at, "c")
	checkEvidence(t, "elapsed 5.4s", d, Decision{Kind: KindSlidingCounter, At: at, Allowed: false,
		Count: 9, Previous: 15, WindowStart: base + 9000, Elapsed: 5400 * time.Millisecond})
	if n, w := d.EstimateRat(); n != 15*w {
		t.Errorf("EstimateRat = %d/%d, want exactly 15", n, w)
	}
	if got, want := d.Explain(), "9 + 15 × 0.4 = 15 → deny (15 ≥ 15)"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	// One ms later the estimate is 9 + 15×3599/9000 < 15.
	d = l.Allow(at+1, "c")
	checkEvidence(t, "elapsed 5.401s", d, Decision{Kind: KindSlidingCounter, At: at + 1, Allowed: true,
		Count: 9, Previous: 15, WindowStart: base + 9000, Elapsed: 5401 * time.Millisecond})
	if got, want := d.Explain(), "9 + 15 × ≈0.4 = ≈14.998 → allow (≈14.998 < 15)"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
}

// The counter's exact comparison must not overflow at the largest config.
func TestCounterLargestConfig(t *testing.T) {
	c := Config{Limit: MaxLimit, Window: MaxWindow}
	l := NewSlidingCounter(c)
	w := c.windowMs()
	cases := []struct{ current, previous, elapsed int64 }{
		{MaxLimit - 1, MaxLimit, w - 1},
		{MaxLimit - 1, MaxLimit, 0},
		{MaxLimit - 1, 0, w - 1},
		{0, MaxLimit, 1},
		{0, MaxLimit, 0},
		{MaxLimit / 2, MaxLimit, w / 2},
		{MaxLimit/2 - 1, MaxLimit, w / 2},
		{MaxLimit / 3, MaxLimit, w / 3 * 2},
	}
	for _, tc := range cases {
		idx := int64(5)
		d := l.decide(Instant(idx*w+tc.elapsed), idx, tc.current, tc.previous)
		est := new(big.Rat).SetFrac64(tc.previous*(w-tc.elapsed), w)
		est.Add(est, big.NewRat(tc.current, 1))
		want := est.Cmp(big.NewRat(MaxLimit, 1)) < 0
		if d.Allowed != want {
			t.Errorf("current %d previous %d elapsed %d: Allowed %v, want %v (estimate %s)",
				tc.current, tc.previous, tc.elapsed, d.Allowed, want, est.FloatString(6))
		}
	}
}

// step is one request and the evidence it must get.
type step struct {
	at      Instant
	client  string
	want    Decision // Kind and At are filled in from the case (At from at unless set)
	explain string   // checked when not empty
}

func runSteps(t *testing.T, k Kind, c Config, steps []step) {
	t.Helper()
	l := mustNew(t, k, c)
	for i, s := range steps {
		want := s.want
		want.Kind = k
		if want.At == 0 {
			want.At = s.at
		}
		client := s.client
		if client == "" {
			client = "c"
		}
		d := l.Allow(s.at, client)
		checkEvidence(t, "step "+itoa(i)+" at "+s.at.String(), d, want)
		if s.explain != "" && d.Explain() != s.explain {
			t.Errorf("step %d: Explain = %q, want %q", i, d.Explain(), s.explain)
		}
		if d.Limit != c.Limit || d.Window != c.Window {
			t.Errorf("step %d: Limit, Window = %d, %v", i, d.Limit, d.Window)
		}
	}
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

func TestWindowEdges(t *testing.T) {
	sec := Config{Limit: 2, Window: time.Second}
	m := Clock(12, 0, 0, 0)
	cases := []struct {
		name  string
		kind  Kind
		cfg   Config
		steps []step
	}{
		{"fixed/last ms then first ms", KindFixedWindow, sec, []step{
			{at: m + 999, want: Decision{Allowed: true, Count: 0, WindowStart: m}},
			{at: m + 999, want: Decision{Allowed: true, Count: 1, WindowStart: m}},
			{at: m + 999, want: Decision{Allowed: false, Count: 2, WindowStart: m},
				explain: "window 12:00:00–12:00:01 holds 2 → deny (2 ≥ 2)"},
			{at: m + 1000, want: Decision{Allowed: true, Count: 0, WindowStart: m + 1000}},
		}},
		{"fixed/negative instants", KindFixedWindow, sec, []step{
			{at: -1001, want: Decision{Allowed: true, Count: 0, WindowStart: -2000}},
			{at: -1000, want: Decision{Allowed: true, Count: 0, WindowStart: -1000}},
			{at: -1, want: Decision{Allowed: true, Count: 1, WindowStart: -1000}},
			{at: -1, want: Decision{Allowed: false, Count: 2, WindowStart: -1000},
				explain: "window 23:59:59 the day before–00:00:00 holds 2 → deny (2 ≥ 2)"},
			{at: 0, want: Decision{Allowed: true, Count: 0, WindowStart: 0}},
		}},
		{"fixed/backwards is clamped", KindFixedWindow, sec, []step{
			{at: m + 1500, want: Decision{Allowed: true, Count: 0, WindowStart: m + 1000}},
			{at: m + 500, want: Decision{At: m + 1500, Allowed: true, Count: 1, WindowStart: m + 1000}},
			{at: m, want: Decision{At: m + 1500, Allowed: false, Count: 2, WindowStart: m + 1000}},
		}},
		{"fixed/clients are independent", KindFixedWindow, Config{Limit: 1, Window: time.Second}, []step{
			{at: m, client: "a", want: Decision{Allowed: true, WindowStart: m}},
			{at: m, client: "a", want: Decision{Allowed: false, Count: 1, WindowStart: m}},
			{at: m, client: "b", want: Decision{Allowed: true, WindowStart: m}},
			{at: m + 1, client: "b", want: Decision{Allowed: false, Count: 1, WindowStart: m}},
			{at: m + 2, client: "c", want: Decision{Allowed: true, WindowStart: m}},
		}},
		{"log/negative instants", KindSlidingLog, sec, []step{
			{at: -1500, want: Decision{Allowed: true}},
			{at: -600, want: Decision{Allowed: true, Count: 1, Oldest: -1500}},
			{at: -500, want: Decision{Allowed: true, Count: 1, Oldest: -600},
				explain: "1 timestamp after 23:59:58.500 the day before, oldest 23:59:59.400 the day before → allow (1 < 2)"},
			{at: 399, want: Decision{Allowed: false, Count: 2, Oldest: -600}},
			{at: 400, want: Decision{Allowed: true, Count: 1, Oldest: -500}},
		}},
		{"log/backwards is clamped", KindSlidingLog, Config{Limit: 1, Window: time.Second}, []step{
			{at: m, want: Decision{Allowed: true}},
			{at: m + 1000, want: Decision{Allowed: true}},
			// Taken as m+1000: only the timestamp at m+1000 is inside.
			{at: m + 10, want: Decision{At: m + 1000, Allowed: false, Count: 1, Oldest: m + 1000}},
		}},
		{"log/clients are independent", KindSlidingLog, Config{Limit: 1, Window: time.Second}, []step{
			{at: m, client: "a", want: Decision{Allowed: true}},
			{at: m + 1, client: "b", want: Decision{Allowed: true}},
			{at: m + 2, client: "a", want: Decision{Allowed: false, Count: 1, Oldest: m}},
			{at: m + 1000, client: "a", want: Decision{Allowed: true}},
			{at: m + 1000, client: "b", want: Decision{Allowed: false, Count: 1, Oldest: m + 1}},
		}},
		{"counter/first and last ms", KindSlidingCounter, Config{Limit: 2, Window: 4 * time.Millisecond}, []step{
			{at: 0, want: Decision{Allowed: true, WindowStart: 0, Elapsed: 0}},
			{at: 3, want: Decision{Allowed: true, Count: 1, WindowStart: 0, Elapsed: 3 * time.Millisecond}},
			// First instant of the next window: weight 1, estimate 0 + 2 = 2.
			{at: 4, want: Decision{Allowed: false, Previous: 2, WindowStart: 4, Elapsed: 0},
				explain: "0 + 2 × 1 = 2 → deny (2 ≥ 2)"},
			// 1 ms in: 2 × 3/4 = 1.5 < 2.
			{at: 5, want: Decision{Allowed: true, Previous: 2, WindowStart: 4, Elapsed: time.Millisecond},
				explain: "0 + 2 × 0.75 = 1.5 → allow (1.5 < 2)"},
			// Last ms of the window: 1 + 2 × 1/4 = 1.5 < 2.
			{at: 7, want: Decision{Allowed: true, Count: 1, Previous: 2, WindowStart: 4, Elapsed: 3 * time.Millisecond},
				explain: "1 + 2 × 0.25 = 1.5 → allow (1.5 < 2)"},
			// Next window: previous is now 2 (those at 5 and 7), the 2 before weigh nothing.
			{at: 10, want: Decision{Allowed: true, Previous: 2, WindowStart: 8, Elapsed: 2 * time.Millisecond}},
			// Two windows on: both counters weigh nothing.
			{at: 16, want: Decision{Allowed: true, Previous: 0, WindowStart: 16, Elapsed: 0}},
		}},
		{"counter/negative instants", KindSlidingCounter, sec, []step{
			{at: -1001, want: Decision{Allowed: true, WindowStart: -2000, Elapsed: 999 * time.Millisecond}},
			{at: -1001, want: Decision{Allowed: true, Count: 1, WindowStart: -2000, Elapsed: 999 * time.Millisecond}},
			// -1: window -1000, 999 ms in: 0 + 2 × 1/1000 < 2.
			{at: -1, want: Decision{Allowed: true, Previous: 2, WindowStart: -1000, Elapsed: 999 * time.Millisecond},
				explain: "0 + 2 × 0.001 = 0.002 → allow (0.002 < 2)"},
			{at: 0, want: Decision{Allowed: true, Previous: 1, WindowStart: 0, Elapsed: 0}},
			{at: 0, want: Decision{Allowed: false, Count: 1, Previous: 1, WindowStart: 0, Elapsed: 0}},
		}},
		{"counter/backwards is clamped", KindSlidingCounter, sec, []step{
			{at: m + 500, want: Decision{Allowed: true, WindowStart: m, Elapsed: 500 * time.Millisecond}},
			{at: m + 1250, want: Decision{Allowed: true, Previous: 1, WindowStart: m + 1000, Elapsed: 250 * time.Millisecond}},
			// Taken as m+1250: 1 + 1 × 0.75 < 2 (at m+900 it would be window m, Count 1, Previous 0).
			{at: m + 900, want: Decision{At: m + 1250, Allowed: true, Count: 1, Previous: 1,
				WindowStart: m + 1000, Elapsed: 250 * time.Millisecond}},
		}},
		{"counter/clients are independent", KindSlidingCounter, Config{Limit: 1, Window: time.Second}, []step{
			{at: m, client: "a", want: Decision{Allowed: true, WindowStart: m}},
			{at: m + 1, client: "b", want: Decision{Allowed: true, WindowStart: m, Elapsed: time.Millisecond}},
			{at: m + 2, client: "a", want: Decision{Allowed: false, Count: 1, WindowStart: m, Elapsed: 2 * time.Millisecond}},
			{at: m + 1500, client: "c", want: Decision{Allowed: true, WindowStart: m + 1000, Elapsed: 500 * time.Millisecond}},
			{at: m + 1500, client: "a", want: Decision{Allowed: true, Previous: 1, WindowStart: m + 1000, Elapsed: 500 * time.Millisecond}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runSteps(t, c.kind, c.cfg, c.steps) })
	}
}

// Peek clamps backwards instants the same way Allow does.
func TestPeekBackwardsIsClamped(t *testing.T) {
	for _, k := range Lesson {
		l := mustNew(t, k, Config{Limit: 3, Window: time.Second})
		l.Allow(5000, "a")
		l.Allow(5100, "a")
		if d := l.Peek(3000, "a"); d.At != 5100 || d.Count != 2 {
			t.Errorf("%v: Peek(3000) = %+v, want At 5100 Count 2", k, d)
		}
		if d := l.Peek(3000, "new"); d.At != 5100 || d.Count != 0 || !d.Allowed {
			t.Errorf("%v: Peek(3000, new) = %+v", k, d)
		}
	}
}

// At midnight the window reaches into the day before, said as a person
// would say it (it printed "after -00:00:30").
func TestExplainAtMidnight(t *testing.T) {
	l := NewSlidingLog(Config{Limit: 2, Window: time.Minute})
	if got, want := l.Peek(Clock(0, 0, 30, 0), "a").Explain(), "no timestamps after 23:59:30 the day before → allow (0 < 2)"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
}

// CalendarOffset puts window edges on a zone's calendar: a day's window
// starts at the zone's midnight, an hour's on its hour (on the half hour
// in UTC for a zone at +05:30), in zones east and west, at whole, half and
// quarter hours, in winter and summer, and no offset at all in UTC.
func TestCalendarOffset(t *testing.T) {
	winter := time.Date(2026, 1, 15, 3, 7, 11, 250_000_000, time.UTC)
	summer := time.Date(2026, 7, 15, 22, 51, 2, 0, time.UTC)
	for _, name := range []string{"UTC", "Asia/Kolkata", "America/New_York", "America/St_Johns", "Pacific/Chatham", "Australia/Lord_Howe", "Asia/Kathmandu"} {
		zone, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, when := range []time.Time{winter, summer} {
			at := Instant(when.UnixMilli())
			for _, w := range []time.Duration{time.Millisecond, time.Minute, 15 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour} {
				c := Config{Limit: 1, Window: w, Offset: CalendarOffset(zone, at, w)}
				if err := c.Validate(); err != nil {
					t.Fatalf("%s %v: %v", name, w, err)
				}
				start := c.WindowStart(at)
				local := start.Time().In(zone)
				sinceMidnight := time.Duration(local.Hour())*time.Hour + time.Duration(local.Minute())*time.Minute +
					time.Duration(local.Second())*time.Second + time.Duration(local.Nanosecond())
				if sinceMidnight%w != 0 || start > at || at >= start.Add(w) {
					t.Errorf("%s, %v window at %v: starts %v (%v local), not on the zone's calendar", name, w, when, start, local)
				}
				if name == "UTC" && c.Offset != 0 {
					t.Errorf("UTC: offset %v for %v", c.Offset, w)
				}
				if c.NextEdge(at) != start.Add(w) || c.PrevEdge(start) != start.Add(-w) || c.PrevEdge(at) != start && at != start {
					t.Errorf("%s %v: edges around %v: next %v, previous %v", name, w, at, c.NextEdge(at), c.PrevEdge(at))
				}
			}
		}
	}
	if err := (Config{Limit: 1, Window: time.Hour, Offset: time.Hour}).Validate(); err == nil {
		t.Error("an offset of a whole window is valid")
	}
}
