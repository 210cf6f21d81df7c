package scenarios

import (
	"cmp"
	"context"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// Failure is one expectation that a replay did not bear out.
type Failure struct {
	File         string
	Line, Column int    // of the expectation or question in the file
	Field        string // the check, such as expect[2].last.weight
	Algorithm    algo.Algorithm
	At           algo.Instant
	HasAt        bool
	Want, Got    string
	Msg          string // said instead of want and got, when set
}

// String formats f as "file:line:col: field: algorithm at time: want W, got G".
func (f Failure) String() string {
	if f.Msg != "" {
		return fmt.Sprintf("%s:%d:%d: %s: %s", f.File, f.Line, f.Column, f.Field, f.Msg)
	}
	when := "at the end"
	if f.HasAt {
		when = "at " + f.At.Short()
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s %s: want %s, got %s", f.File, f.Line, f.Column, f.Field, f.Algorithm, when, f.Want, f.Got)
}

// Verify replays the scenario once and checks every expectation, and every
// question whose answer is a number read off one limiter at an instant, in
// time order (those without at: last, at the end of the replay). It
// returns nil when they all hold; a scenario it cannot replay (over the
// memory budget) is one failure saying so.
func (s *Scenario) Verify() []Failure {
	fails, err := s.VerifyContext(context.Background())
	if err != nil {
		return []Failure{{File: s.File, Msg: err.Error()}}
	}
	return fails
}

// VerifyContext is Verify, stopping when ctx ends: it then returns the
// failures found so far and ctx's cause. A scenario over the memory budget
// is not replayed: its *TooBigError is returned.
func (s *Scenario) VerifyContext(ctx context.Context) ([]Failure, error) {
	claims := s.claims()
	if len(claims) == 0 {
		return nil, nil
	}
	e, err := s.Engine(sim.Options{Interrupt: sim.Until(ctx)})
	if err != nil { // a file over the memory budget: refused, not failed
		return nil, err
	}
	var fails []Failure
	var before []sim.Stats // the figures as a question's instant began
	beforeAt, hasBefore := algo.Instant(0), false
	for _, c := range claims {
		if c.question >= 0 && (!hasBefore || beforeAt != c.at) {
			e.Seek(c.at - 1)
			before, beforeAt, hasBefore = e.Stats(), c.at, true
		}
		switch {
		case c.caption >= 0:
			// checkCaption moves to the caption's moment itself.
		case c.hasAt:
			e.Seek(c.at)
		default:
			e.RunToEnd()
		}
		if e.Interrupted() {
			return fails, context.Cause(ctx)
		}
		if c.question >= 0 {
			fails = append(fails, s.checkAnswer(c.question, e, before)...)
			continue
		}
		if c.caption >= 0 {
			fails = append(fails, s.checkCaption(c.caption, e)...)
			if e.Interrupted() {
				return fails, context.Cause(ctx)
			}
			continue
		}
		x := &s.Expect[c.expect]
		chk := check{s: s, x: x, path: fmt.Sprintf("expect[%d]", c.expect)}
		chk.totals(e.Stats()[slices.Index(s.Algorithms, x.Algorithm)])
		if x.Last != nil {
			chk.last(e)
		}
		fails = append(fails, chk.fails...)
	}
	return fails, nil
}

// Verified says what Verify checks, for a line that all of it held:
// "2 expectations and 1 answer hold", "nothing to verify".
func (s *Scenario) Verified() string {
	var expects, answers, captions int64
	for _, c := range s.claims() {
		switch {
		case c.expect >= 0:
			expects++
		case c.question >= 0:
			answers++
		default:
			captions++
		}
	}
	var parts []string
	if expects > 0 {
		parts = append(parts, human.Noun{One: "expectation", Many: "expectations"}.Of(expects))
	}
	if answers > 0 {
		parts = append(parts, human.Noun{One: "answer", Many: "answers"}.Of(answers))
	}
	if captions > 0 {
		parts = append(parts, human.Noun{One: "caption", Many: "captions"}.Of(captions))
	}
	switch {
	case len(parts) == 0:
		return "nothing to verify (no expect block, no answer read off the replay, no caption that speaks of a request)"
	case expects+answers+captions == 1:
		return parts[0] + " holds"
	}
	last := len(parts) - 1
	if last == 0 {
		return parts[0] + " hold"
	}
	return strings.Join(parts[:last], ", ") + " and " + parts[last] + " hold"
}

// claim is one thing Verify checks: an expectation, a question's answer,
// or what a caption says the screen shows.
type claim struct {
	hasAt                     bool
	at                        algo.Instant
	expect, question, caption int // the index of one; the others are -1
}

// claims are the expectations and the checkable questions, in the order
// Verify replays to them: by instant, those for the end of the replay last,
// file order among equals (expectations first).
func (s *Scenario) claims() []claim {
	var cs []claim
	for i, x := range s.Expect {
		cs = append(cs, claim{hasAt: x.HasAt, at: x.At, expect: i, question: -1, caption: -1})
	}
	for i, q := range s.Questions {
		if _, number := human.ParseNumber(q.Answer); q.HasAt && q.HasAlgorithm && number && q.Figure != NoFigure {
			cs = append(cs, claim{hasAt: true, at: q.At, expect: -1, question: i, caption: -1})
		}
	}
	for i := range s.Captions {
		if s.Captions[i].Speaks() {
			cs = append(cs, claim{hasAt: true, at: s.Captions[i].At, expect: -1, question: -1, caption: i})
		}
	}
	slices.SortStableFunc(cs, func(a, b claim) int {
		if a.hasAt != b.hasAt {
			if a.hasAt {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.at, b.at)
	})
	return cs
}

// checkCaption moves e to caption i's moment and checks what it claims
// the screen shows there.
func (s *Scenario) checkCaption(i int, e *sim.Engine) []Failure {
	c := &s.Captions[i]
	if !s.SeekCaption(e, i) {
		if e.Interrupted() {
			return nil
		}
		who := ""
		if c.Client != "" {
			who = " from " + c.Client
		}
		return []Failure{{File: s.File, Line: c.Line, Column: c.Column, Field: fmt.Sprintf("captions[%d].request", i),
			Msg: fmt.Sprintf("at %s there is no %s%s to speak of", c.At.Short(), strings.TrimPrefix(c.Request.String(), "the "), who)}}
	}
	var fails []Failure
	for j := range c.Shows {
		x := &c.Shows[j]
		chk := check{s: s, x: x, path: fmt.Sprintf("captions[%d].shows[%d]", i, j)}
		chk.totals(e.Stats()[slices.Index(s.Algorithms, x.Algorithm)])
		if x.Last != nil {
			chk.last(e)
		}
		fails = append(fails, chk.fails...)
	}
	return fails
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
	c.decision(rec.Decisions[slices.Index(c.s.Algorithms, c.x.Algorithm)])
}

// Shown checks caption i's claim j against what a view shows: its
// limiter's figures and the decision it explains (nil for none). A view
// test holds the screen to the caption with it.
func (s *Scenario) Shown(i, j int, st sim.Stats, dec *algo.Decision) []Failure {
	x := &s.Captions[i].Shows[j]
	chk := check{s: s, x: x, path: fmt.Sprintf("captions[%d].shows[%d]", i, j)}
	chk.totals(st)
	switch {
	case x.Last == nil:
	case dec == nil:
		chk.fail("last", "a decision", "no request shown")
	default:
		chk.decision(*dec)
	}
	return chk.fails
}

// decision checks the evidence of one decision.
func (c *check) decision(dec algo.Decision) {
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
	tn, td := dec.TokensRat()
	c.rat("last.tokens", l.Tokens, tn, td)
}

// Figures are what a question's answer may be, read off its limiter's
// replay at its instant: the totals so far (allowed, denied, the most
// admitted in one window), the state held (live and peak entries), the
// requests at that very instant (allowed_at, denied_at), and the evidence
// of the last decision; or none, for an answer not read off the replay.
var Figures = []string{"allowed", "denied", "max_in_window", "live_entries", "peak_entries", "allowed_at", "denied_at",
	"last.count", "last.previous", "last.current", "last.weight", "last.estimate", NoFigure}

// NoFigure says a question's numeric answer is not a figure of the replay
// (a what-if, a sum of its own), so Verify leaves it alone.
const NoFigure = "none"

// figuresAt reads every figure of limiter li from e at its clock; before
// are the stats as the instant began.
func figuresAt(e *sim.Engine, li int, before []sim.Stats) map[string]*big.Rat {
	st, b := e.Stats()[li], before[li]
	n := func(v int64) *big.Rat { return big.NewRat(v, 1) }
	f := map[string]*big.Rat{
		"allowed": n(st.Allowed), "denied": n(st.Denied), "max_in_window": n(st.MaxInWindow),
		"live_entries": n(st.Memory.Entries), "peak_entries": n(st.PeakMemory.Entries),
		"allowed_at": n(st.Allowed - b.Allowed), "denied_at": n(st.Denied - b.Denied),
	}
	if rec, ok := e.Last(); ok {
		d := rec.Decisions[li]
		wn, wd := d.WeightRat()
		f["last.count"], f["last.previous"], f["last.current"] = n(d.Count), n(d.Previous), n(d.Current())
		f["last.weight"], f["last.estimate"] = big.NewRat(wn, wd), d.EstimateBig()
	}
	return f
}

// checkAnswer checks question i's numeric answer against the replay at its
// instant: against its figure when it names one, else against every figure.
func (s *Scenario) checkAnswer(i int, e *sim.Engine, before []sim.Stats) []Failure {
	q := &s.Questions[i]
	want, _ := human.ParseNumber(q.Answer)
	figs := figuresAt(e, slices.Index(s.Algorithms, q.Algorithm), before)
	fail := func(msg string) []Failure {
		return []Failure{{File: s.File, Line: q.Line, Column: q.Column, Field: fmt.Sprintf("questions[%d].answer", i),
			Algorithm: q.Algorithm, At: q.At, HasAt: true, Msg: msg}}
	}
	if q.Figure != "" {
		got := figs[q.Figure]
		if got == nil {
			return fail(fmt.Sprintf("%s, but no request had been decided by %s", q.Answer, q.At.Short()))
		}
		if got.Cmp(want) != 0 {
			return fail(fmt.Sprintf("%s, but the replay gives %s (%s of %s by %s)", q.Answer, human.Exact(got), q.Figure, q.Algorithm, q.At.Short()))
		}
		return nil
	}
	for _, name := range Figures {
		if v := figs[name]; v != nil && v.Cmp(want) == 0 {
			return nil
		}
	}
	return fail(fmt.Sprintf("%s, but the replay gives %s (allowed by %s), and none of %s's figures there is %s; "+
		"name the figure the answer is with figure:, or figure: none for an answer not read off the replay",
		q.Answer, human.Exact(figs["allowed"]), q.At.Short(), q.Algorithm, q.Answer))
}
