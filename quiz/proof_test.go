package quiz

import (
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// Every figure a proof cites says what it is: the counts, the window, the
// weight and where it comes from, the estimate, the limit, for each kind
// of limiter and the presets' rules.
func TestExplainedNamesEveryFigure(t *testing.T) {
	at := algo.Clock(12, 1, 15, 0)
	minute := algo.Clock(12, 1, 0, 0)
	counter := algo.Decision{Kind: algo.KindSlidingCounter, At: at, Allowed: true, Limit: 100, Window: time.Minute,
		WindowStart: minute, Count: 30, Previous: 84, Elapsed: 15 * time.Second}
	httprate := algo.Decision{Kind: algo.KindSlidingCounter, At: at, Rules: algo.PresetHTTPRate.Rules, Limit: 50, Window: time.Minute,
		WindowStart: minute, Count: 18, Previous: 42, Elapsed: 15 * time.Second}
	upstash := httprate
	upstash.Rules, upstash.Allowed = algo.PresetUpstash.Rules, true
	for _, c := range []struct {
		d    algo.Decision
		want string
	}{
		{algo.Decision{Kind: algo.KindFixedWindow, At: minute, Allowed: true, Limit: 100, Window: time.Minute, WindowStart: minute, Count: 99},
			"the window 12:01:00–12:02:00 had allowed 99 requests before this one → allow (99 < limit 100)"},
		{algo.Decision{Kind: algo.KindFixedWindow, At: at, Limit: 1, Window: time.Minute, WindowStart: minute, Count: 1,
			Rules: algo.Rules{CountRejected: true, WindowStart: algo.WindowFirstRequest, Compare: algo.CompareAtMost}},
			"the client's own window 12:01:00–12:02:00, opened by its first request, had counted 1 request, denied ones included → deny (1 > limit 1)"},
		{algo.Decision{Kind: algo.KindSlidingLog, At: minute, Limit: 100, Window: time.Minute, Count: 100, Oldest: algo.Clock(12, 0, 59, 0)},
			"the log held 100 timestamps, one per request it allowed in the minute after 12:00:00, the oldest at 12:00:59 → deny (100 ≥ limit 100)"},
		{algo.Decision{Kind: algo.KindSlidingLog, At: minute, Allowed: true, Limit: 100, Window: time.Minute},
			"the log held no timestamps after 12:00:00 → allow (0 < limit 100)"},
		{counter, "estimate = 30 in the current window + 84 in the previous × weight 0.75 (1 − 15 s/60 s) = 93 → allow (93 < limit 100)"},
		{httprate, "estimate = 18 in the current window + 42 in the previous × weight 0.75 (1 − 15 s/60 s) = 49.5, rounded to 50 → deny (50 + 1 for this request > limit 50)"},
		{upstash, "estimate = 18 in the current window + 42 in the previous × weight 0.75 (1 − 15 s/60 s) = 49.5, rounded down to 49 → allow (49 < limit 50)"},
		{algo.Decision{Kind: algo.KindTokenBucket, At: minute, Limit: 100, Window: time.Minute, Capacity: 100, Tokens: 40_000},
			"the bucket held ≈0.667 of its 100 tokens (it refills 100 per minute) → deny (≈0.667 < 1, the token a request takes); the next whole token in 200ms"},
		{algo.Decision{Kind: algo.KindTokenBucket, At: minute, Allowed: true, Limit: 100, Window: time.Minute, Capacity: 100, Tokens: 100_000},
			"the bucket held ≈1.667 of its 100 tokens (it refills 100 per minute) → allow (≈1.667 ≥ 1, the token the request takes)"},
	} {
		if got := strings.ReplaceAll(explained(c.d), human.NoBreak, " "); got != c.want {
			t.Errorf("explained:\n got %q\nwant %q", got, c.want)
		}
	}
}
