package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/sim/report"
)

// parseClock reads a time of day typed by the user (algo.ParseClock).
func parseClock(s string) (algo.Instant, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("no time typed; type HH:MM:SS or HH:MM:SS.mmm, for example 12:00:59")
	}
	t, err := algo.ParseClock(s)
	if err != nil {
		return 0, fmt.Errorf("not a time: %q; %v", s, err)
	}
	return t, nil
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
