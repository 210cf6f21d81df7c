package challenge

import (
	"fmt"
	"strings"

	"windowlab/algo"
	"windowlab/human"
)

// Result is where a student stands on a goal: what the classroom would
// carry of each student (Best, Target, Reached) and what the view and the
// commands print.
type Result struct {
	Goal    Goal
	Config  algo.Config
	Reached bool
	// Best is the figure the goal counts (admitted, sent, or requests the
	// two limiters decided differently) and Target the least that reaches
	// it.
	Best, Target int64
	Decided      int64  // the requests read
	Progress     string // "best so far: 163 of 200 within 60 s (client you, …)"
	// Proof, once reached, is the moments and counts that prove it, a
	// line each.
	Proof []string
}

// Result checks the goal over the records read so far.
func (c *Checker) Result() Result {
	r := Result{Goal: c.goal, Config: c.cfg, Decided: c.decided}
	switch c.goal.goal {
	case boundaryBurst:
		c.boundaryBurst(&r)
	case counterMax:
		c.counterMax(&r)
	case logHolds:
		c.logHolds(&r)
	default:
		c.disagreement(&r)
	}
	if c.stopped {
		r.Progress += fmt.Sprintf(" (checked over the first %s requests only: then came a client past the %s a challenge follows)",
			human.Int(c.decided), human.Int(MaxClients))
	}
	return r
}

// where says whose the span is and when it was: "client you,
// 12:00:59.000–12:01:00.500".
func where(s Span) string {
	return fmt.Sprintf("client %s, %s", name(s.Client), algo.Range(s.First(), s.Last()))
}

// name is a client's name as a line may show it: quoted when it holds
// anything but plain text.
func name(s string) string {
	if human.Plain(s) && s != "" {
		return s
	}
	return human.Quote(s)
}

// parts lists a span's share of each aligned window, a line each.
func (c *Checker) parts(s Span) []string {
	var out []string
	for _, p := range s.Parts {
		when := "at " + p.First.String()
		if p.First != p.Last {
			when = "from " + p.First.String() + " to " + p.Last.String()
		}
		out = append(out, fmt.Sprintf("  %s %s, in the window %s", human.Int(p.Count), when,
			algo.Range(p.Window, p.Window.Add(c.cfg.Window))))
	}
	return out
}

func (c *Checker) boundaryBurst(r *Result) {
	b, l := c.best[fixedAt], c.cfg.Limit
	r.Best, r.Target, r.Reached = b.Count, l+1, b.Count > l
	w := within(c.cfg.Window)
	if b.Count == 0 {
		r.Progress = fmt.Sprintf("nothing through the fixed window yet: the goal is more than %d within %s", l, w)
		return
	}
	r.Progress = fmt.Sprintf("best so far: %s within %s, the goal more than %d (%s)", human.Int(b.Count), w, l, where(b))
	if !r.Reached {
		return
	}
	r.Proof = append([]string{fmt.Sprintf("%s through the fixed window %s (less than %s), client %s:",
		human.Int(b.Count), human.Span(int64(b.First()), int64(b.Last())), w, name(b.Client))}, c.parts(b)...)
	r.Proof = append(r.Proof, fmt.Sprintf("Its count starts again at 0 at each edge: the boundary burst, %s. The most it can let through within %s is 2 × %d = %s; you got %s.",
		human.Times(b.Count, l), w, l, human.Int(2*l), human.Int(b.Count)))
}

func (c *Checker) counterMax(r *Result) {
	b, most := c.best[counterAt], Most(c.cfg)
	r.Best, r.Target, r.Reached = b.Count, most, b.Count >= most
	w := within(c.cfg.Window)
	if b.Count == 0 {
		r.Progress = fmt.Sprintf("nothing through the sliding counter yet: the most possible is %s within %s", human.Int(most), w)
		return
	}
	r.Progress = fmt.Sprintf("best so far: %s of %s within %s (%s)", human.Int(b.Count), human.Int(most), w, where(b))
	if !r.Reached {
		return
	}
	r.Proof = append([]string{fmt.Sprintf("%s through the sliding counter %s, client %s: its most.",
		human.Int(b.Count), human.Span(int64(b.First()), int64(b.Last())), name(b.Client))}, c.parts(b)...)
	d := c.atBest
	r.Proof = append(r.Proof, fmt.Sprintf("At %s it estimated %s", d.At, d.Explain()))
	if len(b.Parts) == 2 {
		p := b.Parts[0]
		end := p.Window.Add(c.cfg.Window)
		r.Proof = append(r.Proof, fmt.Sprintf("It weighed the previous window's %s as if spread evenly over %s; %s came in its last %s: the even-spread assumption, broken on purpose.",
			human.Int(d.Previous), within(c.cfg.Window), human.Int(p.Count), human.Duration(end.Sub(p.First))))
	}
}

func (c *Checker) logHolds(r *Result) {
	s, b, l := c.sent, c.best[logAt], c.cfg.Limit
	r.Best, r.Target, r.Reached = s.Count, l+1, s.Count > l
	w := within(c.cfg.Window)
	if s.Count == 0 {
		r.Progress = fmt.Sprintf("nothing sent yet: send more than %d within %s", l, w)
		return
	}
	r.Progress = fmt.Sprintf("most sent within %s so far: %s (%s), the goal more than %d; the log let through at most %s",
		w, human.Int(s.Count), where(s), l, human.Int(b.Count))
	if !r.Reached {
		return
	}
	r.Proof = []string{
		fmt.Sprintf("you sent %s within %s (%s);", human.Int(s.Count), w, where(s)),
		fmt.Sprintf("the sliding log let through at most %s to one client within any %s (%s): %s.",
			human.Int(b.Count), w, where(b), human.Times(b.Count, l)),
	}
	var others []string
	for _, k := range []int{fixedAt, counterAt} {
		if o := c.best[k]; c.at[k] >= 0 && o.Count > l {
			others = append(others, fmt.Sprintf("the %s %s", strings.ToLower(lessonKinds[k].Title()), human.Int(o.Count)))
		}
	}
	how := "The log counts every request of the last " + w + " from each request, wherever the edges are."
	if len(others) > 0 {
		how = "On the same traffic " + strings.Join(others, " and ") + " got through; the log counts every request of the last " + w + ", wherever the edges are."
	}
	r.Proof = append(r.Proof, how)
}

func (c *Checker) disagreement(r *Result) {
	mine, other := c.stricter, c.looser
	verb, otherVerb := "denied", "allowed"
	if c.goal.goal == counterLooser {
		mine, other, verb, otherVerb = other, mine, otherVerb, verb
	}
	r.Best, r.Target, r.Reached = mine, 1, mine > 0
	switch {
	case c.decided == 0:
		r.Progress = "nothing decided yet"
	case mine == 0 && other == 0:
		r.Progress = fmt.Sprintf("so far the counter and the log agreed on all %s", human.Noun{One: "request", Many: "requests"}.Of(c.decided))
	case mine == 0:
		r.Progress = fmt.Sprintf("so far the counter %s none the log %s (it %s %s the log %s)", verb, otherVerb, otherVerb, human.Int(other), verb)
	default:
		r.Progress = fmt.Sprintf("the counter %s %s the log %s", verb, human.Noun{One: "request", Many: "requests"}.Of(mine), otherVerb)
	}
	if !r.Reached || c.found == nil {
		return
	}
	f := c.found
	why := "it weighs the previous window's " + human.Int(f.counter.Previous) + " as if spread evenly; the log counts each request of the last " + within(c.cfg.Window) + " itself."
	r.Proof = []string{
		fmt.Sprintf("request %s at %s, client %s:", human.Int(f.index+1), f.counter.At, name(f.client)),
		"  sliding counter: " + f.counter.Explain(),
		"  sliding log: " + f.lg.Explain(),
		"The counter " + verb + " it, the log " + otherVerb + " it: " + why,
	}
}
