package algo

import (
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Decision is one limiter's answer to one request, with its evidence: enough
// to write out the lesson's arithmetic without recomputing anything.
type Decision struct {
	Kind    Kind
	At      Instant
	Allowed bool
	Limit   int64
	Window  time.Duration

	// WindowStart is the start of the calendar window holding At
	// (fixed window and sliding counter).
	WindowStart Instant
	// Count is what the limit was checked against, before this request:
	// the fixed window's count in its window, the log's timestamps in
	// (At−Window, At], the sliding counter's current-window count.
	Count int64
	// Oldest is the sliding log's oldest timestamp still in the window
	// (meaningful when Count > 0); it leaves the window at Oldest+Window.
	Oldest Instant
	// Previous is the sliding counter's count for the window before WindowStart.
	Previous int64
	// Elapsed is At − WindowStart, for the sliding counter's overlap weight.
	Elapsed time.Duration
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
// the sliding counter allows iff num < Limit·den.
func (d Decision) EstimateRat() (num, den int64) {
	wn, w := d.WeightRat()
	return d.Count*w + d.Previous*wn, w
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
		fmt.Fprintf(&b, "window %s–%s holds %d", d.WindowStart.Short(), d.WindowEnd().Short(), d.Count)
		d.comparison(&b, Decimal(d.Count, 1))
	case KindSlidingLog:
		if d.Count == 0 {
			fmt.Fprintf(&b, "no timestamps after %s", d.At.Add(-d.Window).Short())
		} else {
			fmt.Fprintf(&b, "%d %s after %s, oldest %s", d.Count, plural(d.Count, "timestamp", "timestamps"),
				d.At.Add(-d.Window).Short(), d.Oldest.Short())
		}
		d.comparison(&b, Decimal(d.Count, 1))
	case KindSlidingCounter:
		wn, w := d.WeightRat()
		en, ew := d.EstimateRat()
		fmt.Fprintf(&b, "%d + %d × %s = %s", d.Count, d.Previous, Decimal(wn, w), Decimal(en, ew))
		d.comparison(&b, Decimal(en, ew))
	default:
		fmt.Fprintf(&b, "%d", d.Count)
		d.comparison(&b, Decimal(d.Count, 1))
	}
	return b.String()
}

func (d Decision) comparison(b *strings.Builder, value string) {
	op := "<"
	if !d.Allowed {
		op = "≥"
	}
	fmt.Fprintf(b, " → %s (%s %s %d)", d.Verb(), value, op, d.Limit)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Decimal prints num/den exactly when it has at most six decimals, and
// otherwise rounded, prefixed with ≈, to as many decimals as it takes to
// differ from the nearest whole number (so ≈99.9999 never prints as 100).
func Decimal(num, den int64) string {
	r := new(big.Rat).SetFrac64(num, den)
	for places := 0; places <= 6; places++ {
		s := r.FloatString(places)
		back, _ := new(big.Rat).SetString(s)
		if back.Cmp(r) == 0 {
			return s
		}
	}
	for places := 3; ; places++ {
		s := r.FloatString(places)
		trimmed := strings.TrimRight(strings.TrimRight(s, "0"), ".")
		if !strings.Contains(trimmed, ".") && places < 12 {
			continue // rounded to a whole number it is not: show more
		}
		return "≈" + trimmed
	}
}
