package scenarios

import (
	"math/big"
	"slices"
	"strings"
	"testing"

	"windowlab/sim"
)

func simOptions() sim.Options { return sim.Options{} }

// Verify must fail when the numbers are wrong, report where, and compare
// weights exactly: 0.75 and 3/4 match, 0.7500001 does not.
func TestVerifyReportsFailures(t *testing.T) {
	s := mustParse(t, "w.yaml", `limit: 100
window: 1m
traffic:
  - {at: "12:00:30", count: 84}
  - {at: "12:01:14", count: 30}
  - {at: "12:01:15", count: 1}
expect:
  - {algorithm: sliding-counter, at: "12:01:15", last: {weight: 0.75, estimate: 93, previous: 84}}
  - {algorithm: sliding-counter, at: "12:01:15", last: {weight: "3/4", estimate: "279/3"}}
  - {algorithm: sliding-counter, at: "12:01:15", last: {weight: 0.7500001, allowed: false}}
  - {algorithm: fixed-window, allowed: 114, denied: 0}
  - {algorithm: sliding-log, at: "12:00:00", last: {count: 0}}
  - {algorithm: sliding-log, at: "12:01:14", last: {oldest: "12:00:31"}}
`)
	var got []string
	for _, f := range s.Verify() {
		got = append(got, f.String())
	}
	want := []string{
		"w.yaml:10:5: expect[2].last.allowed: sliding-counter at 12:01:15: want false, got true",
		"w.yaml:10:5: expect[2].last.weight: sliding-counter at 12:01:15: want 0.7500001, got 0.75",
		"w.yaml:11:5: expect[3].allowed: fixed-window at the end: want 114, got 115",
		"w.yaml:12:5: expect[4].last: sliding-log at 12:00:00: want a decision, got no request decided yet",
		"w.yaml:13:5: expect[5].last.oldest: sliding-log at 12:01:14: want 12:00:31, got 12:00:30",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestExpectedFractionsAreExact(t *testing.T) {
	s := mustParse(t, "x.yaml", "limit: 1\nwindow: 1m\ntraffic: [{at: \"12:00:00\"}]\nexpect:\n  - {algorithm: sliding-counter, last: {weight: \"2/3\", estimate: 1.5}}\n")
	l := s.Expect[0].Last
	if l.Weight.Cmp(big.NewRat(2, 3)) != 0 || l.Estimate.Cmp(big.NewRat(3, 2)) != 0 {
		t.Errorf("weight %v, estimate %v; want exactly 2/3 and 3/2", l.Weight, l.Estimate)
	}
}

// A question's numeric answer is checked against the replay: against the
// figure it names, or else against every figure at its instant.
func TestQuestionsAreChecked(t *testing.T) {
	burst := "limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:59\", count: 100}\n  - {at: \"12:01:00\", count: 100}\nquestions:\n"
	cases := []struct {
		question string
		want     string // the failure, or "" when the answer holds
	}{
		{`{ask: "How many?", answer: "150", at: "12:01:00", algorithm: fixed-window}`,
			"q.yaml:7:5: questions[0].answer: 150, but the replay gives 200 (allowed by 12:01:00), and none of fixed-window's figures there is 150"},
		{`{ask: "How many?", answer: "200", at: "12:01:00", algorithm: fixed-window}`, ""},
		{`{ask: "How many?", answer: "150", at: "12:01:00", algorithm: fixed-window, figure: allowed}`,
			"q.yaml:7:5: questions[0].answer: 150, but the replay gives 200 (allowed of fixed-window by 12:01:00)"},
		{`{ask: "How many at 12:01:00?", answer: "100", at: "12:01:00", algorithm: fixed-window, figure: allowed_at}`, ""},
		{`{ask: "And the log?", answer: "0", at: "12:01:00", algorithm: sliding-log, figure: allowed_at}`, ""},
		{`{ask: "Estimate?", answer: "100", at: "12:01:00", algorithm: sliding-counter, figure: last.estimate}`, ""},
		{`{ask: "Weight?", answer: "3/4", at: "12:01:00", algorithm: sliding-counter, figure: last.weight}`,
			"q.yaml:7:5: questions[0].answer: 3/4, but the replay gives 1 (last.weight of sliding-counter by 12:01:00)"},
		{`{ask: "What if?", answer: "150", at: "12:01:00", algorithm: fixed-window, figure: none}`, ""},
		{`{ask: "Which?", answer: "fixed-window", at: "12:01:00", algorithm: fixed-window}`, ""},
		{`{ask: "How many, in all?", answer: "150"}`, ""},
	}
	for _, c := range cases {
		s := mustParse(t, "q.yaml", burst+"  - "+c.question+"\n")
		fails := s.Verify()
		switch {
		case c.want == "" && len(fails) > 0:
			t.Errorf("%s: %v", c.question, fails)
		case c.want != "" && (len(fails) != 1 || !strings.HasPrefix(fails[0].String(), c.want)):
			t.Errorf("%s:\ngot  %v\nwant %s", c.question, fails, c.want)
		}
	}
}
