package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"windowlab/algo"
	"windowlab/sim"
)

// Speaks reports whether the caption speaks of one request (it names a
// client or a request, or makes claims about the screen), so that the
// view shows that request as the one decided while the caption is on.
func (c *Caption) Speaks() bool {
	return c.Client != "" || c.Request.Set || len(c.Shows) > 0
}

// String is the pick in words: "the last request", "the 3rd request",
// "the first request sliding-log denies".
func (p RequestPick) String() string {
	which := "the last"
	switch {
	case p.Nth == 1:
		which = "the first"
	case p.Nth > 1:
		which = "the " + ordinal(p.Nth)
	}
	if !p.HasBy {
		return which + " request"
	}
	verb := "denies"
	if p.Allowed {
		verb = "allows"
	}
	return which + " request " + p.By.String() + " " + verb
}

// ordinal is 1st, 2nd, 3rd, 4th, 11th, 21st…
func ordinal(n int64) string {
	suffix := "th"
	switch n % 10 {
	case 1:
		suffix = "st"
	case 2:
		suffix = "nd"
	case 3:
		suffix = "rd"
	}
	if n%100 >= 11 && n%100 <= 13 {
		suffix = "th"
	}
	return strconv.FormatInt(n, 10) + suffix
}

// requestForms says what a caption's request: may be, for messages.
const requestForms = "a number (3: the 3rd request at its instant), first, last, or " +
	"\"first denied by <algorithm>\" (or allowed, and last or a number for first)"

// parseRequestPick reads a caption's request: "3", "first", "last",
// "first denied by sliding-log", "2 allowed by fixed-window". It returns
// what is wrong in words when s is none of them.
func parseRequestPick(s string, algos []algo.Algorithm) (RequestPick, string) {
	p := RequestPick{Set: true}
	words := strings.Fields(s)
	if len(words) == 0 {
		return p, "is empty; give " + requestForms
	}
	switch w := words[0]; w {
	case "first":
		p.Nth = 1
	case "last":
		p.Nth = 0
	default:
		n, err := strconv.ParseInt(w, 10, 64)
		if err != nil || n < 1 {
			return p, fmt.Sprintf("%q is not a request; give %s", truncate(s), requestForms)
		}
		p.Nth = n
	}
	rest := words[1:]
	if len(rest) == 0 {
		return p, ""
	}
	if len(rest) != 3 || (rest[0] != "allowed" && rest[0] != "denied") || rest[1] != "by" {
		return p, fmt.Sprintf("%q is not a request; give %s", truncate(s), requestForms)
	}
	a, err := algo.ParseAlgorithm(rest[2])
	if err != nil || !slices.Contains(algos, a) {
		names := make([]string, len(algos))
		for i, a := range algos {
			names[i] = a.String()
		}
		return p, fmt.Sprintf("%q is not replayed by this scenario; its algorithms are %s", truncate(rest[2]), quoteList(names, "and"))
	}
	p.HasBy, p.By, p.Allowed = true, a, rest[0] == "allowed"
	return p, ""
}

// picks reports whether record r is one the caption's request counts: its
// client's, and decided as its pick says.
func (s *Scenario) picks(c *Caption, r sim.Record) bool {
	if c.Client != "" && r.Arrival.Client != c.Client {
		return false
	}
	if c.Request.HasBy {
		i := slices.Index(s.Algorithms, c.Request.By)
		return i >= 0 && r.Decisions[i].Allowed == c.Request.Allowed
	}
	return true
}

// CaptionEnd is when caption i goes away: its until, else the next
// caption's instant, else a window after its own (by then every limiter
// has forgotten the moment it speaks of).
func (s *Scenario) CaptionEnd(i int) algo.Instant {
	c := &s.Captions[i]
	if c.Until != 0 {
		return c.Until
	}
	for _, n := range s.Captions[i+1:] {
		if n.At > c.At {
			return n.At
		}
	}
	return c.At.Add(s.Config.Window)
}

// SeekCaption moves e to caption i's moment: just after the request it
// speaks of, or for a caption that names none, the end of its instant.
// It reports false when its instant has no request it names (e then stands at
// the end of the instant) or when e was interrupted on the way. Run again
// from anywhere, it gets to the same place.
func (s *Scenario) SeekCaption(e *sim.Engine, i int) bool {
	c := &s.Captions[i]
	if !c.Speaks() || (c.Client == "" && !c.Request.HasBy && c.Request.Nth == 0) {
		e.Seek(c.At)
		if e.Interrupted() {
			return false
		}
		if !c.Request.Set && c.Client == "" {
			return true // claims about the figures at the end of the instant, as expect has
		}
		r, ok := e.Last()
		return ok && r.Arrival.At == c.At
	}
	e.SeekBefore(c.At)
	if e.Interrupted() {
		return false
	}
	var seen, after int64 // matching requests, and the position after the latest
	for k := 1; ; k++ {
		next, ok := e.Next()
		if !ok || next.At != c.At {
			break
		}
		if k%4096 == 0 && e.StopRequested() {
			return false
		}
		r, _ := e.Step()
		if !s.picks(c, r) {
			continue
		}
		seen, after = seen+1, e.Processed()
		if c.Request.Nth > 0 && seen == c.Request.Nth {
			return true
		}
	}
	if c.Request.Nth == 0 && seen > 0 {
		e.SeekIndex(after)
		return !e.Interrupted()
	}
	return false
}

// AtCaption reports whether e stands at caption i's moment, reached by any
// route: its clock at the caption's instant and the last request decided
// the one it speaks of. seen counts, among the requests decided at that
// instant, those the caption's pick counts (the view reads it from its
// history); more says whether requests at that instant are still to come.
func (s *Scenario) AtCaption(i int, last sim.Record, seen int64, more bool) bool {
	c := &s.Captions[i]
	if last.Arrival.At != c.At || !s.picks(c, last) {
		return false
	}
	if c.Request.Nth > 0 {
		return seen == c.Request.Nth
	}
	return !more // the last: this one, if no other request of the instant comes after it
}
