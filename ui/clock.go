package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/sim/report"
)

// clockHint is quoted in every error about a typed time.
const clockHint = "type HH:MM:SS or HH:MM:SS.mmm, for example 12:00:59"

// parseClock reads a time of day typed by the user: HH:MM:SS with an
// optional .mmm (one to three digits, a decimal fraction of a second).
func parseClock(s string) (algo.Instant, error) {
	s = strings.TrimSpace(s)
	bad := func(why string) (algo.Instant, error) {
		if s == "" {
			return 0, fmt.Errorf("no time typed; %s", clockHint)
		}
		return 0, fmt.Errorf("%q is not a time of day%s; %s", s, why, clockHint)
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return bad("")
	}
	sec, frac, hasFrac := strings.Cut(parts[2], ".")
	h, okH := digits(parts[0], 1, 2)
	m, okM := digits(parts[1], 2, 2)
	sv, okS := digits(sec, 2, 2)
	if !okH || !okM || !okS {
		return bad("")
	}
	ms := 0
	if hasFrac {
		f, ok := digits(frac, 1, 3)
		if !ok {
			return bad(" (one to three digits after the point)")
		}
		for range 3 - len(frac) {
			f *= 10
		}
		ms = f
	}
	switch {
	case h > 23:
		return bad(" (hours go from 00 to 23)")
	case m > 59:
		return bad(" (minutes go from 00 to 59)")
	case sv > 59:
		return bad(" (seconds go from 00 to 59)")
	}
	return algo.Clock(h, m, sv, ms), nil
}

func digits(s string, lo, hi int) (int, bool) {
	if len(s) < lo || len(s) > hi {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// span prints a duration on the virtual clock: 59s, 1m, 250ms.
func span(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	return report.Duration(d)
}

// compact prints a count in at most five cells: 999, 12.3k, 1.2M.
func compact(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	case n < 10_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%dM", n/1_000_000)
}

// speedText prints a playback speed: 1×, 0.5×, 1000×.
func speedText(s float64) string {
	return strconv.FormatFloat(s, 'g', 3, 64) + "×"
}

func floorTo(t algo.Instant, unit int64) algo.Instant {
	q := int64(t) / unit
	if int64(t)%unit != 0 && t < 0 {
		q--
	}
	return algo.Instant(q * unit)
}

// thousands prints n with thousands separated: 1,000,000.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
