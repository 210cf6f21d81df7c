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
