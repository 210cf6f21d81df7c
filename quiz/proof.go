package quiz

import (
	"fmt"
	"math/big"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// The nouns a proof counts in.
var (
	requests   = human.Noun{One: "request", Many: "requests"}
	timestamps = human.Noun{One: "timestamp", Many: "timestamps"}
	tokens     = human.Noun{One: "token", Many: "tokens"}
)

// explained writes a decision out as the lanes do (algo.Decision.Explain),
// with every figure named: what was counted, the weight and where it comes
// from, the estimate, the limit. For the lesson's worked example:
// "estimate = 30 in the current window + 84 in the previous × weight 0.75
// (1 − 15 s/60 s) = 93 → allow (93 < limit 100)".
func explained(d algo.Decision) string {
	switch d.Kind {
	case algo.KindFixedWindow:
		window := fmt.Sprintf("the window %s–%s", d.WindowStart.Short(), d.WindowEnd().Short())
		if d.Rules.WindowStart == algo.WindowFirstRequest {
			window = fmt.Sprintf("the client's own window %s–%s, opened by its first request,", d.WindowStart.Short(), d.WindowEnd().Short())
		}
		return window + " " + counted(d) + verdict(d, human.Int(d.Count))
	case algo.KindSlidingLog:
		after := d.At.Add(-d.Window).Short()
		if d.Count == 0 {
			return fmt.Sprintf("the log held no timestamps after %s", after) + verdict(d, "0")
		}
		each := "one per request it allowed"
		if d.Rules.CountRejected {
			each = "one per request, denied ones included,"
		}
		return fmt.Sprintf("the log held %s, %s in the %s after %s, the oldest at %s",
			timestamps.Of(d.Count), each, spanWords(d.Window), after, d.Oldest.Short()) + verdict(d, human.Int(d.Count))
	case algo.KindSlidingCounter:
		wn, w := d.WeightRat()
		est := human.DecimalRat(d.EstimateBig())
		from := human.Glue(fmt.Sprintf("(1 − %s/%s)", span(d.Elapsed, d.Window), span(d.Window, d.Window)))
		s := fmt.Sprintf("estimate"+human.NoBreak+"="+human.NoBreak+"%s in the current window + %s in the previous × weight %s %s = %s",
			human.Int(d.Count), human.Int(d.Previous), human.DecimalRat(big.NewRat(wn, w)), from, est)
		if r, ok := d.Rounded(); ok {
			how := "rounded to"
			if d.Rules.Rounding == algo.RoundFloor {
				how = "rounded down to"
			}
			est = human.Int(r)
			s += fmt.Sprintf(", %s %s", how, est)
		}
		if d.Rules.CountRejected {
			s += " (the counts include denied requests)"
		}
		return s + verdict(d, est)
	case algo.KindTokenBucket:
		tn, tw := d.TokensRat()
		level := human.Decimal(tn, tw)
		s := fmt.Sprintf("the bucket held %s of its %s (it refills %s %s)", level, tokens.Of(d.Capacity), human.Int(d.Limit), perWindow(d.Window))
		if d.Allowed {
			return s + fmt.Sprintf(" → allow (%s ≥ 1, the token the request takes)", level)
		}
		return s + fmt.Sprintf(" → deny (%s < 1, the token a request takes); the next whole token in %s", level, human.Duration(d.NextToken()))
	case algo.KindSegmentedWindow:
		return fmt.Sprintf("its %d segments of %s, %s, ", d.Segments, human.Duration(d.Segment()), algo.Range(d.SegmentsFrom(), d.SegmentEnd())) +
			counted(d) + verdict(d, human.Int(d.Count))
	}
	return "it " + counted(d) + verdict(d, human.Int(d.Count))
}

// counted is the count a window limiter compared, with what it counts.
func counted(d algo.Decision) string {
	if d.Rules.CountRejected {
		return "had counted " + requests.Of(d.Count) + ", denied ones included"
	}
	return "had allowed " + requests.Of(d.Count) + " before this one"
}

// span writes part of a window in the window's unit, so that a sliding
// counter's weight reads 1 − 15 s/60 s: seconds, or milliseconds when
// either is not whole seconds. The proofs and the generated questions'
// hints both write the weight with it.
func span(d, window time.Duration) string {
	if d%time.Second == 0 && window%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%d ms", d/time.Millisecond)
}

// verdict is the decision and the test it passed or failed, naming the
// limit: " → allow (93 < limit 100)".
func verdict(d algo.Decision, value string) string {
	var op string
	switch d.Rules.Compare {
	case algo.ComparePlusOneAtMost:
		value += " + 1 for this request"
		op = pickOp(d.Allowed, "≤", ">")
	case algo.CompareAtMost:
		op = pickOp(d.Allowed, "≤", ">")
	default:
		op = pickOp(d.Allowed, "<", "≥")
	}
	return fmt.Sprintf(" → %s (%s %s limit %s)", d.Verb(), value, op, human.Int(d.Limit))
}

func pickOp(allowed bool, yes, no string) string {
	if allowed {
		return yes
	}
	return no
}
