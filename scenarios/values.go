package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// lastDate is the last dated instant, 9999-12-31T23:59:59.999Z: RFC 3339,
// in which reports write dates, has four digits for the year.
const lastDate algo.Instant = 253_402_300_799_999

// parseClock reads a time of day (algo.ParseClock), or a date and time
// in UTC or with an offset, 2026-11-30T23:59:59.250Z (RFC 3339, to the
// millisecond): the dated instants of a replayed log (algo.Dated). The
// returned message completes "<value> is not a clock time; ...".
func parseClock(s string) (algo.Instant, string) {
	if len(s) >= 10 && s[4] == '-' {
		t, err := time.Parse(time.RFC3339Nano, s)
		switch {
		case err != nil:
			return 0, `use a date and time such as "2026-11-30T23:59:59.250Z" (RFC 3339, with its zone) or a time of day such as "12:00:59"`
		case t.Nanosecond()%int(time.Millisecond) != 0:
			return 0, "the clock ticks in milliseconds; give at most three digits after the second"
		case algo.Instant(t.UnixMilli()) < algo.Dated:
			return 0, "a date is from 2000-01-01 on; before it, give a time of day such as \"12:00:59\""
		case algo.Instant(t.UnixMilli()) > lastDate:
			return 0, "a date is at most 9999-12-31T23:59:59.999Z once its offset is applied, the last RFC 3339 can write"
		}
		return algo.Instant(t.UnixMilli()), ""
	}
	t, err := algo.ParseClock(s)
	if err != nil {
		return 0, err.Error()
	}
	return t, ""
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// parseDuration reads Go duration syntax and insists on whole milliseconds
// from min to max, because the virtual clock ticks in milliseconds.
func parseDuration(s string, min, max time.Duration) (time.Duration, string) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Sprintf("%q is not a duration; use Go duration syntax such as 1m, 30s or 500ms", s)
	}
	switch {
	case d < min:
		return 0, fmt.Sprintf("%s is too short; use at least %s", s, human.Duration(min))
	case d > max:
		return 0, fmt.Sprintf("%s is too long; use at most %s", s, human.Duration(max)+maxNote(max))
	case d%time.Millisecond != 0:
		return 0, fmt.Sprintf("%s is not a whole number of milliseconds; the clock ticks in milliseconds", s)
	}
	return d, ""
}

// maxNote names the week-long window limit in words.
func maxNote(d time.Duration) string {
	if d == algo.MaxWindow {
		return " (one week)"
	}
	return ""
}

// rateUnits are the per-unit suffixes a rate string may use.
var rateUnits = map[string]float64{"ms": 1000, "s": 1, "m": 1.0 / 60, "h": 1.0 / 3600}

// parseRate reads "50/s", "3000/m", "2/h" or "0.5/ms" as requests per second.
func parseRate(s string) (float64, string) {
	num, unit, ok := strings.Cut(s, "/")
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	per, okUnit := rateUnits[strings.TrimSpace(unit)]
	if !ok || err != nil || !okUnit || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Sprintf("%q is not a rate; use requests per second as a number, or a string such as \"50/s\", \"3000/m\" or \"2/h\"", s)
	}
	return f * per, ""
}

// isSlug reports whether s is lower-case letters and digits in runs joined
// by single hyphens: a name that is safe on a command line and in a path.
func isSlug(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	prevHyphen := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			prevHyphen = false
		case c == '-' && !prevHyphen:
			prevHyphen = true
		default:
			return false
		}
	}
	return !prevHyphen
}

// slugify turns a file's base name into a slug, so a default name is
// always valid: "My Scenario.v2" becomes "my-scenario-v2".
func slugify(s string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			if b.Len() >= 64 {
				break
			}
		} else {
			hyphen = true
		}
	}
	if b.Len() == 0 {
		return "scenario"
	}
	return b.String()
}

// Closest returns the candidate nearest to s by edit distance, if it is
// near enough to be a plausible typo. The command line uses it for flags too.
func Closest(s string, candidates []string) (string, bool) {
	best, bestD := "", math.MaxInt
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(s) <= 3 {
		limit = 1
	}
	return best, bestD <= limit
}

// Nearest is those of candidates nearest to s, in their order: of several
// a typo could have meant, the ones it is fewest edits from.
func Nearest(s string, candidates []string) []string {
	var best []string
	bestD := math.MaxInt
	for _, c := range candidates {
		switch d := editDistance(s, c); {
		case d < bestD:
			best, bestD = []string{c}, d
		case d == bestD:
			best = append(best, c)
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (field and algorithm names are ASCII).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return math.MaxInt // a name that long is no typo of ours
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// quoteList prints names as `a`, `b` or `c`.
func quoteList(names []string, conj string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}
