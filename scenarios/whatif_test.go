package scenarios

import (
	"slices"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// figures replays s to the end and returns every limiter's totals.
func figures(t *testing.T, s *Scenario) []sim.Stats {
	t.Helper()
	e, err := s.Engine(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToEnd()
	return e.Stats()
}

// A what-if replays the same traffic under the new rules, and its file
// parses back to the same replay: every built-in, with a doubled limit,
// another window, expiry flipped and a preset added.
func TestWhatIfWritesAFileThatReplaysTheSame(t *testing.T) {
	upstash, _ := algo.ParseAlgorithm("sliding-counter/upstash")
	for _, s := range Builtins() {
		cfg := algo.Config{Limit: 2 * s.Config.Limit, Window: s.Config.Window + time.Second, NoExpiry: !s.Config.NoExpiry}
		algos := append(slices.Clone(s.Algorithms), upstash)
		if slices.Contains(s.Algorithms, upstash) {
			algos = s.Algorithms[:1]
		}
		w, err := s.WhatIf(cfg, algos)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if len(w.Captions)+len(w.Questions)+len(w.Expect) != 0 || !strings.Contains(w.Title, "what if: ") {
			t.Errorf("%s: the what-if keeps the original's teaching, or its title %q does not say what changed", s.Name, w.Title)
		}
		data := w.YAML("a what-if of " + s.Name)
		back, err := Parse("what-if.yaml", data)
		if err != nil {
			t.Fatalf("%s: the what-if's file does not parse: %v\n%s", s.Name, err, data)
		}
		if back.Config != cfg || !slices.Equal(back.Algorithms, algos) || back.Start != s.Start || back.Len() != s.Len() || back.Title != w.Title {
			t.Errorf("%s: read back %+v, %v, start %v, %d requests", s.Name, back.Config, back.Algorithms, back.Start, back.Len())
		}
		if a, b := figures(t, w), figures(t, back); !slices.EqualFunc(a, b, func(x, y sim.Stats) bool { return x.Allowed == y.Allowed && x.MaxInWindow == y.MaxInWindow }) {
			t.Errorf("%s: the file replays differently: %v, %v", s.Name, a, b)
		}
	}
}

// Impossible rules are refused with what would be valid.
func TestWhatIfRefusesImpossibleRules(t *testing.T) {
	s, _ := Builtin("boundary-burst")
	cases := []struct {
		cfg   algo.Config
		algos []algo.Algorithm
		want  string
	}{
		{algo.Config{Limit: 0, Window: time.Minute}, s.Algorithms, "limit 0: give a whole number of requests from 1 to"},
		{algo.Config{Limit: 5, Window: 0}, s.Algorithms, "window 0s: give whole milliseconds from 1ms"},
		{algo.Config{Limit: 5, Window: time.Minute}, nil, "no limiter: keep at least one"},
		{algo.Config{Limit: 5, Window: time.Minute}, append(slices.Clone(s.Algorithms), s.Algorithms[0]), "fixed-window twice"},
	}
	for _, c := range cases {
		if _, err := s.WhatIf(c.cfg, c.algos); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %v: %v, want %q", c.cfg, c.algos, err, c.want)
		}
	}
}
