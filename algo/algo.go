// Package algo holds the window-counting rate limiters of the lesson: the
// fixed window, the sliding window log and the sliding window counter, with
// the rule variants real libraries use at their edges (Rules, Presets); and
// the lesson's next step, the token bucket.
//
// Every limiter is a value you ask a question at an instant, in the shape of
// golang.org/x/time/rate's AllowN(t, n): the time is always passed in and
// nothing here reads the wall clock. Decisions use exact integer arithmetic;
// the float methods on Decision exist only for display.
package algo

import (
	"fmt"
	"time"

	"windowlab/human"
)

// Instant is a point on the virtual clock, in milliseconds since midnight.
// 12:00:59 is Clock(12, 0, 59, 0) = 43_259_000. Instants before midnight
// and past 24:00 are allowed (a replay may run over midnight); they print
// with the day: 00:00:00.000 the next day.
type Instant int64

// Clock returns the instant h:m:s.ms.
func Clock(h, m, s, ms int) Instant {
	return Instant(((int64(h)*60+int64(m))*60+int64(s))*1000 + int64(ms))
}

// Add returns t moved by d, truncated to whole milliseconds.
func (t Instant) Add(d time.Duration) Instant { return t + Instant(d/time.Millisecond) }

// Sub returns the span t − u.
func (t Instant) Sub(u Instant) time.Duration { return time.Duration(t-u) * time.Millisecond }

// Truncate rounds t down to a multiple of d, also before midnight: with d
// the window, the start of the calendar window holding t. d must be at
// least 1ms; a fraction of a millisecond is dropped.
func (t Instant) Truncate(d time.Duration) Instant {
	unit := int64(d / time.Millisecond)
	return Instant(floorDiv(int64(t), unit) * unit)
}

// NextEdge is the first multiple of d after t: the next window edge.
func (t Instant) NextEdge(d time.Duration) Instant { return t.Truncate(d).Add(d) }

// PrevEdge is the last multiple of d before t: the window edge behind t,
// or the one before it when t is itself an edge.
func (t Instant) PrevEdge(d time.Duration) Instant { return (t - 1).Truncate(d) }

// floorDiv is ⌊a / b⌋ for b > 0, also for negative a.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// day is the length of a day on the virtual clock, in ms.
const day = 24 * 60 * 60 * 1000

// String prints the instant as a time of day, HH:MM:SS.mmm, and outside the
// scenario's day the day as a person would say it: 23:59:30.000 the day
// before, 00:00:00.000 the next day, 08:00:00.000 3 days later.
func (t Instant) String() string { return t.clock(true) }

// Short prints the instant as HH:MM:SS, adding .mmm only when it is not a
// whole second: the form a scenario file uses (and the day, as String
// does, outside the scenario's day).
func (t Instant) Short() string { return t.clock(t%1000 != 0) }

// Dated is the first instant that is a date: from it on an instant is
// milliseconds since the Unix epoch, UTC (2000-01-01T00:00:00Z and
// after), as a replayed access log's are, and prints as one. A scenario's
// virtual clock, milliseconds from its own midnight, never comes near it
// (it is some 11,000 virtual days away). Windows align to multiples of
// the window from the epoch either way, as Redis-backed limiters' do.
const Dated Instant = 946_684_800_000

// IsDated reports whether t is a date (see Dated).
func (t Instant) IsDated() bool { return t >= Dated }

// Time is a dated instant as a time.Time in UTC.
func (t Instant) Time() time.Time { return time.UnixMilli(int64(t)).UTC() }

func (t Instant) clock(millis bool) string {
	if t.IsDated() {
		layout := "2006-01-02 15:04:05"
		if millis {
			layout += ".000"
		}
		return t.Time().Format(layout)
	}
	d := floorDiv(int64(t), day)
	v := int64(t) - d*day
	s := v / 1000
	// HH:MM:SS[.mmm] by hand: a trace or a JSON export writes a few a request.
	b := make([]byte, 0, 12)
	b = append(b, byte('0'+s/36000), byte('0'+s/3600%10), ':', byte('0'+s/600%6), byte('0'+s/60%10), ':',
		byte('0'+s%60/10), byte('0'+s%10))
	if millis {
		b = append(b, '.', byte('0'+v%1000/100), byte('0'+v%100/10), byte('0'+v%10))
	}
	text := string(b)
	switch {
	case d == 0:
		return text
	case d == -1:
		return text + " the day before"
	case d == 1:
		return text + " the next day"
	case d < 0:
		return fmt.Sprintf("%s %d days before", text, -d)
	}
	return fmt.Sprintf("%s %d days later", text, d)
}

// Range prints the interval from t to u as t.Short()–u.Short(), but of
// two dated instants on one day the second without its date:
// 2026-11-30 06:31:00–06:32:00; and of one instant, only it.
func Range(t, u Instant) string {
	if t == u {
		return t.Short() // one instant: a burst at it
	}
	if t.IsDated() && u.IsDated() && floorDiv(int64(t), day) == floorDiv(int64(u), day) {
		return t.Short() + "–" + u.TimeOfDay(u%1000 != 0)
	}
	return t.Short() + "–" + u.Short()
}

// TimeOfDay is the instant's time of day alone, HH:MM:SS.mmm (or HH:MM:SS
// without millis): for a clock face or an axis, where the day is shown
// apart.
func (t Instant) TimeOfDay(millis bool) string {
	return Instant(int64(t) - floorDiv(int64(t), day)*day).clock(millis)
}

// Kind names an algorithm.
type Kind uint8

const (
	KindFixedWindow Kind = iota
	KindSlidingLog
	KindSlidingCounter
	KindTokenBucket
	KindSegmentedWindow
)

// String returns the algorithm's name as the CLI and JSON reports spell it.
func (k Kind) String() string {
	switch k {
	case KindFixedWindow:
		return "fixed-window"
	case KindSlidingLog:
		return "sliding-log"
	case KindSlidingCounter:
		return "sliding-counter"
	case KindTokenBucket:
		return "token-bucket"
	case KindSegmentedWindow:
		return "segmented-window"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Title returns the algorithm's name in the lesson's words.
func (k Kind) Title() string {
	switch k {
	case KindFixedWindow:
		return "Fixed window"
	case KindSlidingLog:
		return "Sliding window log"
	case KindSlidingCounter:
		return "Sliding window counter"
	case KindTokenBucket:
		return "Token bucket"
	case KindSegmentedWindow:
		return "Segmented window"
	}
	return k.String()
}

// Unit names what the algorithm keeps in memory, in its own terms: the
// sliding log's timestamps, the token bucket's buckets, the others' counters.
func (k Kind) Unit() human.Noun {
	switch k {
	case KindSlidingLog:
		return human.Noun{One: "timestamp", Many: "timestamps"}
	case KindTokenBucket:
		return human.Noun{One: "bucket", Many: "buckets"}
	}
	return human.Noun{One: "counter", Many: "counters"}
}

// ParseKind is the inverse of Kind.String.
func ParseKind(s string) (Kind, bool) {
	for _, k := range All {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}

// Lesson lists the three algorithms of the lesson, in its order.
var Lesson = []Kind{KindFixedWindow, KindSlidingLog, KindSlidingCounter}

// All lists every algorithm New builds: the lesson's three, then the token
// bucket, the lesson's next step, and the segmented window, between the
// fixed window and the log.
var All = []Kind{KindFixedWindow, KindSlidingLog, KindSlidingCounter, KindTokenBucket, KindSegmentedWindow}

// Config is what every window limiter is built from.
type Config struct {
	Limit  int64         // requests per window, at least 1
	Window time.Duration // window length, a whole number of milliseconds, at least 1ms
	// NoExpiry keeps state that can no longer affect a decision, the lesson's
	// "forgetting to expire old windows": decisions are identical, memory only grows.
	NoExpiry bool
	// Burst is the token bucket's capacity in tokens; 0 means Limit. The
	// bucket refills at Limit tokens per Window whatever its capacity.
	// Window limiters ignore it.
	Burst int64
	// Delay is nginx limit_req's delay=N (token-bucket/nginx): admitted
	// requests past N in excess are delayed; 0, nginx's default, delays
	// every one in excess. Every other limiter ignores it.
	Delay int64
	// Rules are the window limiters' edge rules; the zero value is the
	// lesson's. The token bucket ignores them.
	Rules Rules
	// Offset moves every window edge later: windows start at Offset plus
	// multiples of Window since the Unix epoch. 0, the default, aligns
	// them as Redis-backed limiters do (a day's window from midnight UTC);
	// a zone's calendar is (−its UTC offset) mod Window. From 0 to less
	// than Window, whole milliseconds. The sliding log and the token
	// bucket have no edges and ignore it.
	Offset time.Duration
	// Segments is the segmented window's S, the segments its window is
	// split into (0: DefaultSegments); they must split it into whole
	// milliseconds. Other limiters ignore it.
	Segments int64
}

// WindowStart is the edge at or before t: where the calendar window
// holding t starts.
func (c Config) WindowStart(t Instant) Instant {
	w, o := c.windowMs(), c.offsetMs()
	return Instant(floorDiv(int64(t)-o, w)*w + o)
}

// NextEdge is the first window edge after t.
func (c Config) NextEdge(t Instant) Instant { return c.WindowStart(t) + Instant(c.windowMs()) }

// PrevEdge is the last window edge before t.
func (c Config) PrevEdge(t Instant) Instant { return c.WindowStart(t - 1) }

// CalendarOffset is the Offset that aligns windows of length window to
// the calendar of zone at instant at: its midnight, its hours (a zone at
// UTC+05:30 starts an hour's window at half past, UTC). A zone changes its
// offset (daylight saving time); this is the offset it has at at.
func CalendarOffset(zone *time.Location, at Instant, window time.Duration) time.Duration {
	_, secs := at.Time().In(zone).Zone()
	w := int64(window / time.Millisecond)
	o := (-int64(secs) * 1000) % w // the zone's midnight, in UTC, modulo the window
	if o < 0 {
		o += w
	}
	return time.Duration(o) * time.Millisecond
}

// offsetMs is Offset in milliseconds.
func (c Config) offsetMs() int64 { return int64(c.Offset / time.Millisecond) }

// Largest values a Config may hold. With the lesson's rules they keep every
// exact product inside int64; counts that grow past the limit (Rules) are
// compared in 128 bits.
const (
	MaxLimit  = 1_000_000_000
	MaxWindow = 7 * 24 * time.Hour
)

// OptionError is a setting out of range or malformed. Option names it as
// a scenario file and the command line spell it ("limit", "window",
// "sources"), Problem says what is wrong and what would be valid; whoever
// shows it adds the file and line, or the dashes of a flag.
type OptionError struct {
	Option  string
	Problem string
}

func (e *OptionError) Error() string { return e.Option + ": " + e.Problem }

// Problem is the error for option, as an *OptionError.
func Problem(option, format string, args ...any) error {
	return &OptionError{Option: option, Problem: fmt.Sprintf(format, args...)}
}

// Validate reports what is wrong with c, as an *OptionError naming the
// setting and what would be valid.
func (c Config) Validate() error {
	if c.Limit < 1 || c.Limit > MaxLimit {
		return Problem("limit", "%d is out of range: it must be a whole number from 1 to %d", c.Limit, MaxLimit)
	}
	if c.Window < time.Millisecond || c.Window > MaxWindow {
		return Problem("window", "%s is out of range: it must be from 1ms to %s", human.Duration(c.Window), human.Duration(MaxWindow))
	}
	if c.Window%time.Millisecond != 0 {
		return Problem("window", "%s is not a whole number of milliseconds", human.Duration(c.Window))
	}
	if c.Offset < 0 || c.Offset >= c.Window || c.Offset%time.Millisecond != 0 {
		return Problem("offset", "%s is out of range: window edges move by whole milliseconds from 0 to less than the window (%s)", human.Duration(c.Offset), human.Duration(c.Window))
	}
	if err := c.validateNginx(); err != nil {
		return err
	}
	if c.Burst < 0 || c.Burst > MaxLimit {
		return Problem("burst", "%d is out of range: it must be a whole number from 1 to %d, or 0 for the limit", c.Burst, MaxLimit)
	}
	if c.Segments < 0 || c.Segments > MaxSegments {
		return Problem("segments", "%d is out of range: the segments per window are a whole number from 1 to %d", c.Segments, MaxSegments)
	}
	if err := c.validateExact(); err != nil { // exact.go's presets
		return err
	}
	return c.Rules.validate()
}

// Capacity is the token bucket's capacity in tokens: Burst, or Limit when
// Burst is 0.
func (c Config) Capacity() int64 {
	if c.Rules.Bucket == BucketNginx || c.Rules.Bucket == BucketNginxNodelay {
		return c.Burst + 1 // nginx's burst is the excess it admits besides the request itself
	}
	if c.Burst > 0 {
		return c.Burst
	}
	return c.Limit
}

// windowMs returns the window length in milliseconds.
func (c Config) windowMs() int64 { return int64(c.Window / time.Millisecond) }

// Memory is a limiter's live state: what it would have to keep in a store.
type Memory struct {
	Clients int64 // clients with any state
	Entries int64 // counters or timestamps held
	Bytes   int64 // bytes a map keyed by name holds for them (clientBytes); windowlab's own store holds at most this
}

// plus is m and o held together (two servers' tallies, a server and its view).
func (m Memory) plus(o Memory) Memory {
	return Memory{Clients: m.Clients + o.Clients, Entries: m.Entries + o.Entries, Bytes: m.Bytes + o.Bytes}
}

// Limiter is one window-counting algorithm keyed by client.
//
// Instants passed to Allow must not go backwards; an earlier instant is
// treated as the latest one seen, so state stays consistent.
type Limiter interface {
	Kind() Kind
	Config() Config
	// Allow decides one request from client at t and records it if accepted.
	Allow(t Instant, client string) Decision
	// Peek returns the decision a request from client at t would get,
	// without recording anything.
	Peek(t Instant, client string) Decision
	// Expire drops state that can no longer affect a decision at t or later
	// (unless expiry is off). Allow expires lazily; Expire lets a clock that
	// moves without requests show memory falling. t counts as seen: a later
	// call with an earlier instant is treated as t.
	Expire(t Instant)
	// Memory is the live state as held now, swept lazily once per window.
	Memory() Memory
	// MemoryAt is the state that would remain at t once everything that can
	// no longer affect a decision is dropped, without dropping it: what a
	// store with TTLs holds at t (with expiry off, the same as Memory).
	MemoryAt(t Instant) Memory
	// Clone returns an independent copy holding the same state.
	Clone() Limiter
}

// New returns a fresh limiter of kind k.
func New(k Kind, c Config) (Limiter, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := checkClockKind(k, c.Rules); err != nil {
		return nil, err
	}
	switch k {
	case KindFixedWindow:
		return NewFixedWindow(c), nil
	case KindSlidingLog:
		return NewSlidingLog(c), nil
	case KindSlidingCounter:
		return NewSlidingCounter(c), nil
	case KindTokenBucket:
		if c.Rules.Bucket == BucketNginx || c.Rules.Bucket == BucketNginxNodelay {
			return NewNginxLimitReq(c), nil
		}
		return NewTokenBucket(c), nil
	case KindSegmentedWindow:
		if err := c.CheckSegments(); err != nil {
			return nil, err
		}
		return NewSegmentedWindow(c), nil
	}
	return nil, fmt.Errorf("unknown algorithm %v", k)
}
