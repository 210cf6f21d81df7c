package scenarios

import (
	"cmp"
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
	if len(s.Expect) == 0 {
		return nil
	}
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

	var fails []Failure
	e, err := s.Engine(sim.Options{})
	if err != nil { // only a hand-built Scenario can get here: Parse validates
		x := &s.Expect[0]
		return append(fails, Failure{File: s.File, Line: x.Line, Column: x.Column, Field: "algorithms",
			Want: "a scenario an engine can replay", Got: err.Error()})
	}
	for _, i := range order {
		x := &s.Expect[i]
		if x.HasAt {
			e.Seek(x.At)
		} else {
			e.RunToEnd()
		}
		li := slices.Index(s.Algorithms, x.Algorithm)
		st := e.Stats()[li]
		path := fmt.Sprintf("expect[%d]", i)
		fail := func(field, want, got string) {
			fails = append(fails, Failure{File: s.File, Line: x.Line, Column: x.Column, Field: path + "." + field,
				Algorithm: x.Algorithm, At: x.At, HasAt: x.HasAt, Want: want, Got: got})
		}
		checkInt := func(field string, want *int64, got int64) {
			if want != nil && *want != got {
				fail(field, strconv.FormatInt(*want, 10), strconv.FormatInt(got, 10))
			}
		}
		checkInt("allowed", x.Allowed, st.Allowed)
		checkInt("denied", x.Denied, st.Denied)
		checkInt("max_in_window", x.MaxInWindow, st.MaxInWindow)
		checkInt("peak_entries", x.PeakEntries, st.PeakMemory.Entries)
		checkInt("live_entries", x.LiveEntries, st.Memory.Entries)
		if x.Last == nil {
			continue
		}
		rec, ok := e.Last()
		if !ok {
			fail("last", "a decision", "no request decided yet")
			continue
		}
		dec := rec.Decisions[li]
		c := x.Last
		if c.Allowed != nil && *c.Allowed != dec.Allowed {
			fail("last.allowed", strconv.FormatBool(*c.Allowed), strconv.FormatBool(dec.Allowed))
		}
		checkInt("last.count", c.Count, dec.Count)
		checkInt("last.previous", c.Previous, dec.Previous)
		checkInt("last.current", c.Current, dec.Current())
		checkRat := func(field string, want *big.Rat, num, den int64) {
			if want == nil {
				return
			}
			if got := big.NewRat(num, den); want.Cmp(got) != 0 {
				fail(field, human.Exact(want), human.Exact(got))
			}
		}
		wn, wd := dec.WeightRat()
		checkRat("last.weight", c.Weight, wn, wd)
		en, ed := dec.EstimateRat()
		checkRat("last.estimate", c.Estimate, en, ed)
		checkInstant := func(field string, want *algo.Instant, got algo.Instant) {
			if want != nil && *want != got {
				fail(field, want.Short(), got.Short())
			}
		}
		checkInstant("last.oldest", c.Oldest, dec.Oldest)
		checkInstant("last.window_start", c.WindowStart, dec.WindowStart)
	}
	return fails
}
