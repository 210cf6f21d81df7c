package ui

import (
	"fmt"
	"strconv"
	"strings"

	"windowlab/algo"
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

// speedText prints a playback speed: 1×, 0.5×, 1000×.
func speedText(s float64) string {
	return strconv.FormatFloat(s, 'g', 3, 64) + "×"
}
