package algo

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"windowlab/human"
)

// tokens counts a token bucket's capacity.
var tokens = human.Noun{One: "token", Many: "tokens"}

// Decision is one limiter's answer to one request, with its evidence: enough
// to write out the lesson's arithmetic without recomputing anything.
type Decision struct {
	Kind    Kind
	At      Instant
	Allowed bool
	// Rules are the edge rules the window limiter decided by (for the token
	// bucket the zero value, or Bucket alone for redis-cell's and Spring's,
	// whose units Tokens are in). Placed here, they fill Allowed's padding.
	Rules  Rules
	Limit  int64
	Window time.Duration

	// WindowStart is the start of the calendar window holding At (fixed
	// window and sliding counter), or of the client's own window under
	// Rules.WindowStart = WindowFirstRequest (fixed window).
	WindowStart Instant
	// Count is what the limit was checked against, before this request:
	// the fixed window's count in its window, the log's timestamps in
	// (At−Window, At], the sliding counter's current-window count. These
	// count accepted requests, or every request under Rules.CountRejected.
	Count int64
	// Oldest is the sliding log's oldest timestamp still in the window
	// (meaningful when Count > 0); it leaves the window at Oldest+Window.
	Oldest Instant
	// Previous is the sliding counter's count for the window before WindowStart.
	Previous int64
	// Elapsed is At − WindowStart, for the sliding counter's overlap weight.
	Elapsed time.Duration

	// Tokens is the token bucket's level before this request, scaled by the
	// window length in ms: one token is Window/1ms units (see TokensRat).
	Tokens int64
	// Capacity is the token bucket's capacity in tokens.
	Capacity int64
	// Delay is how long an admitted request is held before it is served:
	// nginx limit_req's third outcome (NginxLimitReq); 0 for every other
	// limiter, and for a request served at once.
	Delay time.Duration

	// Segments is the segmented window's S. Its WindowStart is the start
	// of the segment holding At, its Count the last S segments' count, and
	// Previous the count of the oldest of them, which leaves the window at
	// SegmentEnd.
	Segments int64
}

// Segment is the segmented window's segment length, Window/Segments.
func (d Decision) Segment() time.Duration {
	if d.Segments <= 0 {
		return d.Window
	}
	return d.Window / time.Duration(d.Segments)
}

// SegmentEnd is when the segmented window's current segment ends: its
// oldest segment then leaves the window.
func (d Decision) SegmentEnd() Instant { return d.WindowStart.Add(d.Segment()) }

// SegmentsFrom is where the segmented window's S segments start: S − 1
// segments before the current one.
func (d Decision) SegmentsFrom() Instant {
	return d.WindowStart.Add(-time.Duration(max(d.Segments-1, 0)) * d.Segment())
}

// Current is the sliding counter's count for the current window.
func (d Decision) Current() int64 { return d.Count }

// WindowEnd is when the window holding At ends (fixed window: the next reset).
func (d Decision) WindowEnd() Instant { return d.WindowStart.Add(d.Window) }

// Leaves is when the sliding log's oldest timestamp leaves the window.
func (d Decision) Leaves() Instant { return d.Oldest.Add(d.Window) }

// WeightRat is the overlap weight (W − elapsed) / W as an exact fraction.
func (d Decision) WeightRat() (num, den int64) {
	w := int64(d.Window / time.Millisecond)
	return w - int64(d.Elapsed/time.Millisecond), w
}

// EstimateRat is current + previous × weight as an exact fraction over W;
// with the lesson's rules the sliding counter allows iff num < Limit·den.
// It is exact while the counts are at most MaxInt64/W (always, unless
// Rules.CountRejected lets them grow past 15 billion); EstimateBig always is.
func (d Decision) EstimateRat() (num, den int64) {
	wn, w := d.WeightRat()
	return d.Count*w + d.Previous*wn, w
}

// EstimateBig is the sliding counter's exact estimate.
func (d Decision) EstimateBig() *big.Rat {
	wn, w := d.WeightRat()
	est := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(d.Previous), big.NewInt(wn)), big.NewInt(w))
	return est.Add(est, new(big.Rat).SetInt64(d.Count))
}

// Rounded is the sliding counter's estimate after its Rules' rounding, and
// whether rounding applies (false under RoundExact, and for other kinds).
func (d Decision) Rounded() (int64, bool) {
	if d.Kind != KindSlidingCounter || d.Rules.Rounding == RoundExact {
		return 0, false
	}
	wn, w := d.WeightRat()
	return satAdd(d.Count, d.Rules.roundWeighted(d.Previous, wn, w)), true
}

// TokensRat is the token bucket's level before this request, in tokens, as
// an exact fraction.
func (d Decision) TokensRat() (num, den int64) {
	if d.isNginx() {
		return d.Tokens, 1000 // nginx counts in thousandths of a request
	}
	unit, _ := d.tokenUnit()
	return d.Tokens, unit
}

// NextToken is how long after At the token bucket's level, as this request
// leaves it, next reaches a whole number of tokens: for a denied request,
// when a request would next be allowed. Zero for other kinds.
func (d Decision) NextToken() time.Duration {
	if d.Kind != KindTokenBucket || d.Window < time.Millisecond || d.Limit <= 0 {
		return 0
	}
	w, perMs := d.tokenUnit()
	if w <= 0 {
		return 0
	}
	if d.isNginx() {
		return d.nginxNext()
	}
	after := d.Tokens
	if d.Allowed {
		after -= w
	}
	need := w - after%w // units to the next whole token, 1..W
	if d.Rules.Bucket == BucketSpring {
		return d.nextSpringToken(need)
	}
	return time.Duration((need+perMs-1)/perMs) * time.Millisecond
}

// Weight is the overlap weight, for display only.
func (d Decision) Weight() float64 { n, w := d.WeightRat(); return float64(n) / float64(w) }

// Estimate is the sliding counter's estimate, for display only.
func (d Decision) Estimate() float64 { n, w := d.EstimateRat(); return float64(n) / float64(w) }

// Verb is "allow" or "deny".
func (d Decision) Verb() string {
	if d.Allowed {
		return "allow"
	}
	return "deny"
}

// Explain writes the decision out in the lesson's terms, for example
// "30 + 84 × 0.75 = 93 → allow (93 < 100)".
func (d Decision) Explain() string {
	var b strings.Builder
	switch d.Kind {
	case KindFixedWindow:
		fmt.Fprintf(&b, "window %s holds %s", Range(d.WindowStart, d.WindowEnd()), human.Int(d.Count))
		d.comparison(&b, human.Decimal(d.Count, 1))
	case KindSlidingLog:
		if d.Count == 0 {
			fmt.Fprintf(&b, "no timestamps after %s", d.At.Add(-d.Window).Short())
		} else {
			fmt.Fprintf(&b, "%s after %s, oldest %s", KindSlidingLog.Unit().Of(d.Count),
				d.At.Add(-d.Window).Short(), d.Oldest.Short())
		}
		d.comparison(&b, human.Decimal(d.Count, 1))
	case KindSlidingCounter:
		wn, w := d.WeightRat()
		est := human.DecimalRat(d.EstimateBig())
		fmt.Fprintf(&b, "%s + %s × %s = %s", human.Int(d.Count), human.Int(d.Previous), human.Decimal(wn, w), est)
		if r, ok := d.Rounded(); ok {
			how := "rounded"
			if d.Rules.Rounding == RoundFloor {
				how = "floored"
			}
			est = human.Int(r)
			fmt.Fprintf(&b, ", %s %s", how, est)
		}
		d.comparison(&b, est)
	case KindSegmentedWindow:
		fmt.Fprintf(&b, "%s %s hold %s", segmentNoun.Of(d.Segments),
			Range(d.SegmentsFrom(), d.SegmentEnd()), human.Int(d.Count))
		d.comparison(&b, human.Decimal(d.Count, 1))
	case KindTokenBucket:
		if d.isNginx() {
			d.nginxExplain(&b)
			break
		}
		tn, tw := d.TokensRat()
		level := human.Decimal(tn, tw)
		fmt.Fprintf(&b, "bucket %s of %s", level, tokens.Of(d.Capacity))
		if d.Allowed {
			fmt.Fprintf(&b, " → allow (%s ≥ 1)", level)
		} else {
			fmt.Fprintf(&b, " → deny (%s < 1), next token in %s", level, human.Duration(d.NextToken()))
		}
	default:
		b.WriteString(human.Int(d.Count))
		d.comparison(&b, human.Decimal(d.Count, 1))
	}
	return b.String()
}

// comparison writes the verdict with the test it passed or failed.
func (d Decision) comparison(b *strings.Builder, value string) {
	var op string
	switch d.Rules.Compare {
	case ComparePlusOneAtMost:
		value += " + 1"
		op = pick(d.Allowed, "≤", ">")
	case CompareAtMost:
		op = pick(d.Allowed, "≤", ">")
	default:
		op = pick(d.Allowed, "<", "≥")
	}
	fmt.Fprintf(b, " → %s (%s %s %s)", d.Verb(), value, op, human.Int(d.Limit))
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
