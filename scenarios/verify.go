package scenarios

import (
	"cmp"
	"context"
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// Failure is one expectation that a replay did not bear out.
type Failure struct {
	File         string
	Line, Column int    // of the expectation in the file
	Field        string // the check, such as expect[2].last.weight
	Algorithm    algo.Algorithm
	At           algo.Instant
	HasAt        bool
	Want, Got    string
}

// String formats f as "file:line:col: field: algorithm at time: want W, got G".
func (f Failure) String() string {
	when := "at the end"
	if f.HasAt {
		when = "at " + f.At.Short()
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s %s: want %s, got %s", f.File, f.Line, f.Column, f.Field, f.Algorithm, when, f.Want, f.Got)
}

// Verify replays the scenario once and checks every expectation, in time
// order (those without at: last, at the end of the replay). It returns
// nil when they all hold.
func (s *Scenario) Verify() []Failure {
	fails, _ := s.VerifyContext(context.Background())
	return fails
}

// VerifyContext is Verify, stopping when ctx ends: it then returns the
// failures found so far and ctx's cause.
func (s *Scenario) VerifyContext(ctx context.Context) ([]Failure, error) {
	if len(s.Expect) == 0 {
		return nil, nil
	}
	e, err := s.Engine(sim.Options{Interrupt: sim.Until(ctx)})
	if err != nil { // only a hand-built Scenario can get here: Parse validates
		x := &s.Expect[0]
		return []Failure{{File: s.File, Line: x.Line, Column: x.Column, Field: "algorithms",
			Want: "a scenario an engine can replay", Got: err.Error()}}, nil
	}
	var fails []Failure
	for _, i := range s.expectOrder() {
		x := &s.Expect[i]
		if x.HasAt {
			e.Seek(x.At)
		} else {
			e.RunToEnd()
		}
		if e.Interrupted() {
			return fails, context.Cause(ctx)
		}
		c := check{s: s, x: x, path: fmt.Sprintf("expect[%d]", i)}
		c.totals(e.Stats()[slices.Index(s.Algorithms, x.Algorithm)])
		if x.Last != nil {
			c.last(e)
		}
		fails = append(fails, c.fails...)
	}
	return fails, nil
}

// expectOrder is the order Verify checks the expectations in: by instant,
// those for the end of the replay last, file order among equals.
func (s *Scenario) expectOrder() []int {
	order := make([]int, len(s.Expect))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := &s.Expect[a], &s.Expect[b]
		if x.HasAt != y.HasAt {
			if x.HasAt {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.At, y.At)
	})
	return order
}

// check compares one expectation with the replay, collecting failures.
type check struct {
	s     *Scenario
	x     *Expectation
	path  string
	fails []Failure
}

func (c *check) fail(field, want, got string) {
	x := c.x
	c.fails = append(c.fails, Failure{File: c.s.File, Line: x.Line, Column: x.Column, Field: c.path + "." + field,
		Algorithm: x.Algorithm, At: x.At, HasAt: x.HasAt, Want: want, Got: got})
}

func (c *check) int(field string, want *int64, got int64) {
	if want != nil && *want != got {
		c.fail(field, strconv.FormatInt(*want, 10), strconv.FormatInt(got, 10))
	}
}

func (c *check) rat(field string, want *big.Rat, num, den int64) {
	if want == nil {
		return
	}
	if got := big.NewRat(num, den); want.Cmp(got) != 0 {
		c.fail(field, human.Exact(want), human.Exact(got))
	}
}

func (c *check) instant(field string, want *algo.Instant, got algo.Instant) {
	if want != nil && *want != got {
		c.fail(field, want.Short(), got.Short())
	}
}

// totals checks the limiter's running figures.
func (c *check) totals(st sim.Stats) {
	c.int("allowed", c.x.Allowed, st.Allowed)
	c.int("denied", c.x.Denied, st.Denied)
	c.int("max_in_window", c.x.MaxInWindow, st.MaxInWindow)
	c.int("peak_entries", c.x.PeakEntries, st.PeakMemory.Entries)
	c.int("live_entries", c.x.LiveEntries, st.Memory.Entries)
}

// last checks the evidence of the last decision the engine took.
func (c *check) last(e *sim.Engine) {
	rec, ok := e.Last()
	if !ok {
		c.fail("last", "a decision", "no request decided yet")
		return
	}
	dec := rec.Decisions[slices.Index(c.s.Algorithms, c.x.Algorithm)]
	l := c.x.Last
	if l.Allowed != nil && *l.Allowed != dec.Allowed {
		c.fail("last.allowed", strconv.FormatBool(*l.Allowed), strconv.FormatBool(dec.Allowed))
	}
	c.int("last.count", l.Count, dec.Count)
	c.int("last.previous", l.Previous, dec.Previous)
	c.int("last.current", l.Current, dec.Current())
	wn, wd := dec.WeightRat()
	c.rat("last.weight", l.Weight, wn, wd)
	en, ed := dec.EstimateRat()
	c.rat("last.estimate", l.Estimate, en, ed)
	c.instant("last.oldest", l.Oldest, dec.Oldest)
	c.instant("last.window_start", l.WindowStart, dec.WindowStart)
}
