package algo

import (
	"errors"
	"strings"
)

// clockForm is the valid form of a clock time, quoted in every clock error.
const clockForm = "use HH:MM:SS or HH:MM:SS.mmm"

// ParseClock reads a time of day, HH:MM:SS or HH:MM:SS.mmm (one to three
// fraction digits, read as a decimal fraction of a second). Its error says
// what would be valid, to follow "<value> is not a clock time; ".
func ParseClock(s string) (Instant, error) {
	bad := func(hint string) (Instant, error) { return 0, errors.New(clockForm + hint) }
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return bad(`, for example "12:00:59"`)
	}
	sec, frac, hasFrac := strings.Cut(parts[2], ".")
	h, okH := digits(parts[0], 1, 2)
	m, okM := digits(parts[1], 2, 2)
	sv, okS := digits(sec, 2, 2)
	if !okH || !okM || !okS {
		return bad(` with two digits for minutes and seconds, for example "12:00:59"`)
	}
	ms := 0
	if hasFrac {
		f, ok := digits(frac, 1, 3)
		if !ok {
			return bad(" with one to three digits of milliseconds after the point")
		}
		for range 3 - len(frac) {
			f *= 10
		}
		ms = f
	}
	switch {
	case h > 23:
		return bad(" with hours 00–23")
	case m > 59:
		return bad(" with minutes 00–59")
	case sv > 59:
		return bad(" with seconds 00–59")
	}
	return Clock(h, m, sv, ms), nil
}

// digits parses s as a decimal number of lo to hi ASCII digits.
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
