package scenarios

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// A caption's text states the figures it speaks of as references, which
// are resolved from the engine at the caption's moment, formatted as the
// lanes format them, so what a caption prints is what its lane shows:
//
//	{limit} {window} {at}                 the scenario's limit and window, the caption's instant
//	{limit × 1,000,000}                   the limit at a scale the text imagines, in words ("10 billion")
//	{<algorithm>.<figure>}                a limiter's totals, or the last decision its lane shows
//	{<algorithm>.now.<figure>}            what that lane's "now" shows: a request from the focused client now
//
// for example {sliding-counter.estimate}, {fixed-window.window},
// {sliding-log.holds}, {sliding-counter.now.previous-window}.

// Ref is one reference in a caption's text.
type Ref struct {
	Name      string         // as written between the braces
	Algorithm algo.Algorithm // for a limiter's figure
	HasAlgo   bool
	Now       bool     // the lane's "now" (a request now) rather than its last decision
	Figure    string   // one of totalFigures, decisionFigures or sceneFigures
	Value     string   // resolved, as the lane prints it
	Scale     *big.Int // {limit × N}: the limit times N, in words
}

// sceneFigures are the scenario's own, not a limiter's.
var sceneFigures = []string{"limit", "window", "at"}

// totalFigures are a limiter's running totals, as its lane's header prints them.
// most, span, most-range and times are its "most" line: the most admitted
// to one client in a window's length, in how long, when, against the limit.
var totalFigures = []string{"allowed", "denied", "most", "span", "seconds", "most-range", "times", "holds", "entries"}

// decisionFigures are read off a decision: the last one the lane shows, or
// with now, what a request now would get.
var decisionFigures = []string{"verdict", "explain", "count", "previous", "current", "weight", "estimate",
	"window", "previous-window", "oldest", "elapsed", "overlap", "tokens"}

// InLane reports whether the lane prints the figure itself (the scenario's
// figures are printed elsewhere: the header, the clock; seconds is the
// lesson's way of counting the lane's span, which the lane gives as a span).
func (r Ref) InLane() bool { return r.HasAlgo && r.Figure != "seconds" }

// parseRefs finds the references in text: the text between each { and its
// }. It returns what is wrong in words for the first it cannot read.
func parseRefs(text string, algos []algo.Algorithm) ([]Ref, string) {
	var refs []Ref
	rest := text
	for {
		open := strings.IndexByte(rest, '{')
		closing := strings.IndexByte(rest, '}')
		if open < 0 {
			if closing >= 0 {
				return refs, "has a } with no { before it; a reference is written {sliding-counter.estimate}"
			}
			return refs, ""
		}
		if closing < open {
			return refs, "has a } with no { before it; a reference is written {sliding-counter.estimate}"
		}
		name := rest[open+1 : closing]
		r, msg := parseRef(name, algos)
		if msg != "" {
			return refs, msg
		}
		refs = append(refs, r)
		rest = rest[closing+1:]
	}
}

// refForms says what a reference may be, for messages.
const refForms = "{limit}, {window}, {at}, {limit × <count>}, {<algorithm>.<figure>} or {<algorithm>.now.<figure>}"

func parseRef(name string, algos []algo.Algorithm) (Ref, string) {
	r := Ref{Name: name}
	if slices.Contains(sceneFigures, name) {
		r.Figure = name
		return r, ""
	}
	if n, ok := strings.CutPrefix(name, "limit × "); ok {
		// The limit at a scale the text imagines: {limit × 1,000,000}, in words.
		v, ok := human.ParseNumber(n)
		if !ok || !v.IsInt() || v.Sign() <= 0 {
			return r, fmt.Sprintf("{%s}: %q is not a whole number to scale the limit by", truncate(name), truncate(n))
		}
		r.Figure, r.Scale = "limit", v.Num()
		return r, ""
	}
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return r, fmt.Sprintf("{%s} is not a reference; give %s", truncate(name), refForms)
	}
	who, fig := name[:dot], name[dot+1:]
	if w, ok := strings.CutSuffix(who, ".now"); ok {
		who, r.Now = w, true
	}
	a, err := algo.ParseAlgorithm(who)
	if err != nil || !slices.Contains(algos, a) {
		names := make([]string, len(algos))
		for i, a := range algos {
			names[i] = a.String()
		}
		return r, fmt.Sprintf("{%s}: %q is not replayed by this scenario; its algorithms are %s", truncate(name), truncate(who), quoteList(names, "and"))
	}
	r.Algorithm, r.HasAlgo, r.Figure = a, true, fig
	switch {
	case slices.Contains(decisionFigures, fig):
	case slices.Contains(totalFigures, fig) && !r.Now:
	default:
		figs := decisionFigures
		if !r.Now {
			figs = append(slices.Clip(totalFigures), decisionFigures...)
		}
		return r, fmt.Sprintf("{%s}: %q is not a figure; give one of %s", truncate(name), truncate(fig), quoteList(figs, "or"))
	}
	return r, ""
}

// Lane is what one limiter's lane shows at a moment: its totals, the last
// decision it explains (nil before any) and what a request now would get.
type Lane struct {
	Stats sim.Stats
	Last  *algo.Decision
	Now   algo.Decision
}

// Value formats the figure r names from what the lanes show, as they print
// it; ok is false when there is no such figure there (no decision yet).
// cfg and at give the scenario's figures.
func (r Ref) Resolve(cfg algo.Config, at algo.Instant, lanes []Lane, algos []algo.Algorithm) (string, bool) {
	switch r.Figure {
	case "limit":
		if r.Scale != nil {
			return human.Words(new(big.Int).Mul(big.NewInt(cfg.Limit), r.Scale)), true
		}
		if !r.HasAlgo {
			return human.Int(cfg.Limit), true
		}
	case "window":
		if !r.HasAlgo {
			return human.Duration(cfg.Window), true
		}
	case "at":
		return at.Short(), true
	}
	k := slices.Index(algos, r.Algorithm)
	if k < 0 || k >= len(lanes) {
		return "", false
	}
	l := lanes[k]
	switch r.Figure {
	case "allowed":
		return human.Int(l.Stats.Allowed), true
	case "denied":
		return human.Int(l.Stats.Denied), true
	case "most":
		return human.Int(l.Stats.MaxInWindow), true
	case "span":
		return human.Span(int64(l.Stats.MaxInWindowFirst), int64(l.Stats.MaxInWindowLast)), true
	case "seconds":
		return human.Seconds(int64(l.Stats.MaxInWindowFirst), int64(l.Stats.MaxInWindowLast)), true
	case "most-range":
		return algo.Range(l.Stats.MaxInWindowFirst, l.Stats.MaxInWindowLast), true
	case "times":
		return human.Times(l.Stats.MaxInWindow, cfg.Limit), true
	case "holds":
		return l.Stats.Kind.Unit().Of(l.Stats.Memory.Entries), true
	case "entries":
		return human.Int(l.Stats.Memory.Entries), true
	}
	d := &l.Now
	if !r.Now {
		if l.Last == nil {
			return "", false
		}
		d = l.Last
	}
	return decisionFigure(r.Figure, *d), true
}

// decisionFigure formats one figure of d as the lanes print it.
func decisionFigure(fig string, d algo.Decision) string {
	switch fig {
	case "verdict":
		return d.Verb()
	case "explain":
		return d.Explain()
	case "count", "current":
		return human.Int(d.Count)
	case "previous":
		return human.Int(d.Previous)
	case "weight":
		wn, w := d.WeightRat()
		return human.Decimal(wn, w)
	case "estimate":
		return human.DecimalRat(d.EstimateBig())
	case "window":
		return algo.Range(d.WindowStart, d.WindowEnd())
	case "previous-window":
		return algo.Range(d.WindowStart.Add(-d.Window), d.WindowStart)
	case "oldest":
		return d.Oldest.Short()
	case "elapsed":
		return human.Duration(d.Elapsed)
	case "overlap": // the weight's sum, as the counter's lane writes it after the weight
		return "1 − " + human.Duration(d.Elapsed) + "/" + human.Duration(d.Window)
	case "tokens":
		tn, w := d.TokensRat()
		return human.Decimal(tn, w)
	}
	return ""
}

// LanesAt reads what every lane shows with e at a caption's moment, for
// the focused client: the caption's, else the last request's.
func LanesAt(e *sim.Engine, client string) []Lane {
	last, ok := e.Last()
	if client == "" && ok {
		client = last.Arrival.Client
	}
	stats := e.Stats()
	out := make([]Lane, len(stats))
	for i, l := range e.Limiters() {
		out[i] = Lane{Stats: stats[i], Now: l.Peek(e.Now(), client)}
		if ok {
			d := last.Decisions[i]
			out[i].Last = &d
		}
	}
	return out
}

// fill writes the caption's text from its source with every reference
// resolved from lanes; it returns the first it cannot resolve.
func (s *Scenario) fill(i int, lanes []Lane) (string, bool) {
	c := &s.Captions[i]
	var b strings.Builder
	rest, k := c.Source, 0
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			break
		}
		closing := strings.IndexByte(rest, '}')
		r := &c.Refs[k]
		v, ok := r.Resolve(s.Config, c.At, lanes, s.Algorithms)
		if !ok {
			return r.Name, false
		}
		r.Value = v
		b.WriteString(rest[:open])
		b.WriteString(v)
		rest, k = rest[closing+1:], k+1
	}
	c.Text = b.String()
	return "", true
}

// resolveCaptions replays the scenario to each caption that refers to
// figures and writes its text with them. It reports what it could not
// resolve as errors at the captions.
func (s *Scenario) resolveCaptions() ErrorList {
	var errs ErrorList
	var e *sim.Engine
	for i := range s.Captions {
		c := &s.Captions[i]
		if len(c.Refs) == 0 {
			continue
		}
		at := func(msg string) {
			errs = append(errs, &Error{File: s.File, Line: c.TextLine, Column: c.TextColumn, Field: fmt.Sprintf("captions[%d].text", i), Msg: msg})
		}
		if e == nil {
			var err error
			if e, err = s.Engine(sim.Options{ForwardOnly: true}); err != nil {
				at("its figures come from a replay, which cannot run: " + err.Error())
				return errs
			}
		}
		if !s.SeekCaption(e, i) {
			at(fmt.Sprintf("at %s there is no %s to take its figures from", c.At.Short(), strings.TrimPrefix(c.Request.String(), "the ")))
			continue
		}
		if name, ok := s.fill(i, LanesAt(e, c.Client)); !ok {
			at(fmt.Sprintf("{%s}: no request has been decided by %s, so there is no decision to read it from", truncate(name), c.At.Short()))
		}
	}
	return errs
}

// Figure is the value of caption i's reference j, resolved from lanes as
// a view shows them: a view test holds the caption to its screen with it.
func (s *Scenario) Figure(i, j int, lanes []Lane) (string, bool) {
	c := &s.Captions[i]
	return c.Refs[j].Resolve(s.Config, c.At, lanes, s.Algorithms)
}
