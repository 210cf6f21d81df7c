package scenarios

import (
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/goccy/go-yaml/ast"

	"windowlab/algo"
	"windowlab/human"
)

var captionFields = []string{"at", "text", "until", "pause", "client", "request", "shows", "given"}

func (d *decoder) caption(path string, n ast.Node, s *Scenario) (Caption, bool) {
	var c Caption
	o := d.object(path, n, captionFields)
	if o == nil {
		return c, false
	}
	c.Line, c.Column = nodePos(n)
	nerr := len(d.errs)
	if o.has("at") {
		c.At, _ = d.clock(o, "at")
	} else {
		d.missing(o, "at", "give the clock time the caption appears, such as at: \"12:01:00\"")
	}
	if o.has("text") {
		d.captionText(path, o, s, &c)
	} else {
		d.missing(o, "text", "give the caption's text")
	}
	if o.has("pause") {
		c.Pause, _ = d.boolean(o, "pause")
	}
	if o.has("until") {
		if until, ok := d.clock(o, "until"); ok {
			c.Until = until
			if len(d.errs) == nerr && until <= c.At {
				_, at := o.value("until")
				d.at(at, join(path, "until"), "%s is not after at (%s); until is when the caption goes away", until.Short(), c.At.Short())
			}
		}
	}
	if o.has("client") {
		if name, ok := d.name(o, "client"); ok {
			c.Client = name
			if known := s.trafficClients(); !slices.Contains(known, name) && !s.randomClient(name) && !s.recordedClient(name) {
				_, at := o.value("client")
				hint := ""
				if near, ok := Closest(name, known); ok {
					hint = fmt.Sprintf("did you mean `%s`? ", near)
				}
				d.at(at, join(path, "client"), "no traffic entry sends as %q; %sits clients are %s", truncate(name), hint, quoteList(known, "and"))
			}
		}
	}
	if o.has("request") {
		v, at := o.value("request")
		var text string
		switch v := v.(type) {
		case *ast.StringNode:
			text = v.Value
		case *ast.IntegerNode:
			text = v.GetToken().Value
		default:
			d.at(at, join(path, "request"), "expected %s, got %s", requestForms, describe(v))
		}
		if text != "" || len(d.errs) == nerr {
			if p, msg := parseRequestPick(text, s.Algorithms); msg != "" {
				d.at(at, join(path, "request"), "%s", msg)
			} else {
				c.Request = p
			}
		}
	}
	if items, ok := d.list(o, "shows"); ok {
		for i, item := range items {
			if x, ok := d.expectation(fmt.Sprintf("%s.shows[%d]", path, i), item, s, showFields); ok {
				x.At, x.HasAt = c.At, true
				c.Shows = append(c.Shows, x)
			}
		}
	}
	if len(d.errs) == nerr {
		d.captionFigures(path, o, &c)
	}
	return c, len(d.errs) == nerr
}

var questionFields = []string{"ask", "answer", "choices", "explain", "hint", "at", "algorithm", "figure"}

func (d *decoder) question(path string, n ast.Node, s *Scenario) (Question, bool) {
	var q Question
	o := d.object(path, n, questionFields)
	if o == nil {
		return q, false
	}
	q.Line, q.Column = nodePos(n)
	nerr := len(d.errs)
	if o.has("ask") {
		q.Ask, _ = d.text(o, "ask")
	} else {
		d.missing(o, "ask", "give the question")
	}
	if o.has("answer") {
		q.Answer, _ = d.text(o, "answer")
	} else {
		d.missing(o, "answer", "give the answer")
	}
	q.Explain, _ = d.text(o, "explain")
	q.Hint, _ = d.text(o, "hint")
	if o.has("at") {
		q.At, q.HasAt = d.clock(o, "at")
	}
	if o.has("algorithm") {
		q.Algorithm, q.HasAlgorithm = d.replayed(o, "algorithm", s)
	}
	if o.has("figure") {
		d.figure(path, o, &q)
	}
	if items, ok := d.list(o, "choices"); ok {
		if len(items) < 2 {
			_, at := o.value("choices")
			d.at(at, join(path, "choices"), "a multiple-choice question needs at least two choices; leave choices out for a free answer")
		}
		for i, item := range items {
			field := fmt.Sprintf("%s.choices[%d]", path, i)
			var c string
			switch v := item.(type) {
			case *ast.StringNode:
				c = v.Value
			case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
				c = v.GetToken().Value
			default:
				d.at(item, field, "expected text, got %s", describe(item))
				continue
			}
			if !d.printable(item, field, c) {
				continue
			}
			if slices.Contains(q.Choices, c) {
				d.at(item, field, "%q is listed twice; list each choice once", truncate(c))
			}
			q.Choices = append(q.Choices, c)
		}
		if len(d.errs) == nerr && !slices.Contains(q.Choices, q.Answer) {
			_, at := o.value("answer")
			d.at(at, join(path, "answer"), "%q is not one of the choices; copy the right choice word for word", truncate(q.Answer))
		}
	}
	return q, len(d.errs) == nerr
}

// figure reads which of the replay's figures a question's answer is.
func (d *decoder) figure(path string, o *object, q *Question) {
	f, ok := d.text(o, "figure")
	if !ok {
		return
	}
	_, at := o.value("figure")
	field := join(path, "figure")
	switch {
	case !slices.Contains(Figures, f):
		hint := ""
		if c, near := Closest(f, Figures); near {
			hint = fmt.Sprintf("did you mean `%s`? ", c)
		}
		d.at(at, field, "unknown figure %q; %svalid ones are %s", truncate(f), hint, quoteList(Figures, "and"))
	case !o.has("at") || !o.has("algorithm"):
		d.at(at, field, "a figure is read at an instant off one limiter: give the question `at` and `algorithm` too")
	default:
		if _, isNumber := human.ParseNumber(q.Answer); !isNumber {
			d.at(at, field, "the answer %q is not a number, so it cannot be a figure; leave figure out", truncate(q.Answer))
		}
	}
	q.Figure = f
}

var expectFields = []string{"algorithm", "at", "allowed", "denied", "max_in_window", "peak_entries", "live_entries", "last"}

// showFields are a caption's claims: an expectation at the caption's moment.
var showFields = slices.Delete(slices.Clone(expectFields), 1, 2)

var lastFields = []string{"allowed", "count", "previous", "current", "weight", "estimate", "oldest", "window_start", "tokens"}

func (d *decoder) expectation(path string, n ast.Node, s *Scenario, fields []string) (Expectation, bool) {
	var e Expectation
	o := d.object(path, n, fields)
	if o == nil {
		return e, false
	}
	e.Line, e.Column = nodePos(n)
	nerr := len(d.errs)
	kindOK := false
	switch {
	case o.has("algorithm"):
		e.Algorithm, kindOK = d.replayed(o, "algorithm", s)
	case len(s.Algorithms) == 1:
		e.Algorithm, kindOK = s.Algorithms[0], true
	default:
		names := make([]string, len(s.Algorithms))
		for i, a := range s.Algorithms {
			names[i] = a.String()
		}
		d.missing(o, "algorithm", "name the limiter to check: "+quoteList(names, "or"))
	}
	if o.has("at") {
		e.At, e.HasAt = d.clock(o, "at")
	}
	count := func(k string) *int64 {
		if !o.has(k) {
			return nil
		}
		v, ok := d.integer(o, k, 0, math.MaxInt64, "use a whole number, 0 or more")
		if !ok {
			return nil
		}
		return &v
	}
	e.Allowed = count("allowed")
	e.Denied = count("denied")
	e.MaxInWindow = count("max_in_window")
	e.PeakEntries = count("peak_entries")
	e.LiveEntries = count("live_entries")
	if o.has("last") {
		v, _ := o.value("last")
		e.Last = d.lastCheck(join(path, "last"), v, e.Algorithm.Kind, kindOK)
	}
	checks := 0
	checked := expectFields[2:]
	for _, k := range checked {
		if o.has(k) {
			checks++
		}
	}
	if checks == 0 {
		d.at(n, path, "checks nothing; give at least one of %s", quoteList(checked, "or"))
	}
	return e, len(d.errs) == nerr
}

// lastCheck reads the claims about the last decision, rejecting figures
// the expectation's algorithm does not have.
func (d *decoder) lastCheck(path string, n ast.Node, kind algo.Kind, kindOK bool) *LastCheck {
	o := d.object(path, n, lastFields)
	if o == nil {
		return nil
	}
	only := map[string][]algo.Kind{
		"previous":     {algo.KindSlidingCounter},
		"current":      {algo.KindSlidingCounter},
		"weight":       {algo.KindSlidingCounter},
		"estimate":     {algo.KindSlidingCounter},
		"oldest":       {algo.KindSlidingLog},
		"window_start": {algo.KindFixedWindow, algo.KindSlidingCounter},
		"tokens":       {algo.KindTokenBucket},
	}
	for k, kinds := range only {
		if kindOK && o.has(k) && !slices.Contains(kinds, kind) {
			names := make([]string, len(kinds))
			for i, k := range kinds {
				names[i] = k.String()
			}
			d.at(o.vals[k].Key, join(path, k), "only %s decisions have %s; this expectation is for %s", quoteList(names, "and"), k, kind)
			delete(o.vals, k)
		}
	}
	c := &LastCheck{}
	count := func(k string) *int64 {
		if !o.has(k) {
			return nil
		}
		v, ok := d.integer(o, k, 0, math.MaxInt64, "use a whole number, 0 or more")
		if !ok {
			return nil
		}
		return &v
	}
	clock := func(k string) *algo.Instant {
		if !o.has(k) {
			return nil
		}
		v, ok := d.clock(o, k)
		if !ok {
			return nil
		}
		return &v
	}
	rat := func(k string) *big.Rat {
		if !o.has(k) {
			return nil
		}
		v, _ := d.decimal(o, k)
		return v
	}
	if o.has("allowed") {
		if b, ok := d.boolean(o, "allowed"); ok {
			c.Allowed = &b
		}
	}
	c.Count = count("count")
	c.Previous = count("previous")
	c.Current = count("current")
	c.Weight = rat("weight")
	c.Estimate = rat("estimate")
	c.Oldest = clock("oldest")
	c.WindowStart = clock("window_start")
	c.Tokens = rat("tokens")
	if len(o.vals) == 0 {
		d.at(n, path, "checks nothing; give at least one of %s", quoteList(lastFields, "or"))
	}
	return c
}
