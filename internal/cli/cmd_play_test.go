package cli

import (
	"slices"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
)

// windowlab play: its flags, what it refuses, and the empty clock it opens.
func TestPlayCommand(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"a limit of 0", []string{"play", "--limit", "0"}, "--limit 0: give a whole number of requests"},
		{"a window of a microsecond", []string{"play", "--window", "1us"}, "--window 1µs: give whole milliseconds"},
		{"a start that is no time", []string{"play", "--start", "noon"}, `--start "noon"`},
		{"an argument", []string{"play", "boundary-burst"}, "unknown command"},
		{"not a terminal", []string{"play"}, "the interactive view needs a terminal"},
	} {
		_, errOut, code := windowlab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, want 2 saying %q:\n%s", c.name, code, c.want, errOut)
		}
	}

	s, err := playScenario(playOptions{limit: 100, window: time.Minute, start: "12:00:00"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.Limit != 100 || s.Config.Window != time.Minute || s.Start != algo.Clock(12, 0, 0, 0) || len(s.Traffic) != 0 {
		t.Errorf("the empty clock: %+v at %s with %d entries", s.Config, s.Start, len(s.Traffic))
	}
	kinds := []algo.Kind{}
	for _, a := range s.Algorithms {
		kinds = append(kinds, a.Kind)
	}
	if !slices.Equal(kinds, []algo.Kind{algo.KindFixedWindow, algo.KindSlidingLog, algo.KindSlidingCounter, algo.KindTokenBucket}) {
		t.Errorf("play compares %v", kinds)
	}
	e, err := s.Engine(viewOptions)
	if err != nil || e.Len() != 0 || e.Now() != algo.Clock(12, 0, 0, 0) {
		t.Fatalf("its engine: %v, %d arrivals, clock %s", err, e.Len(), e.Now())
	}

	if values, _, _ := complete(t, "play", "--window", ""); !slices.Contains(values, "1m") {
		t.Errorf("play --window <tab>: %q", values)
	}
	out, _, code := windowlab(t, "play", "--help")
	if code != 0 || !strings.Contains(out, "r one request now") {
		t.Errorf("play --help: exit %d\n%s", code, out)
	}
}
