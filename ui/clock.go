package ui

import (
	"fmt"
	"strings"
	"time"

	"windowlab/algo"
)

// parseClock reads a time typed by the user: a time of day
// (algo.ParseClock), which on a dated clock (a replayed log) is that time
// on the day now stands in, in UTC; or a date and time, 2026-11-30
// 06:30:00 or RFC 3339.
func parseClock(s string, now algo.Instant) (algo.Instant, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		if now.IsDated() {
			return 0, fmt.Errorf("no time typed; type HH:MM:SS for a time of this day, or a date and time such as 2026-11-30 06:30:00")
		}
		return 0, fmt.Errorf("no time typed; type HH:MM:SS or HH:MM:SS.mmm, for example 12:00:59")
	}
	if len(s) >= 10 && s[4] == '-' {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999", "2006-01-02T15:04:05.999", "2006-01-02 15:04", "2006-01-02"} {
			if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil && algo.Instant(t.UnixMilli()).IsDated() {
				return algo.Instant(t.UnixMilli()), nil
			}
		}
		return 0, fmt.Errorf("not a date and time: %q; type 2026-11-30 06:30:00 (UTC), or RFC 3339 with its zone", s)
	}
	t, err := algo.ParseClock(s)
	if err != nil {
		return 0, fmt.Errorf("not a time: %q; %v", s, err)
	}
	if now.IsDated() {
		return now.Truncate(24*time.Hour) + t, nil
	}
	return t, nil
}
