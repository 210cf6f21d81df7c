package render

import (
	"fmt"
	"strings"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// A caption speaks of what the limiters decide at its moment ("both
// sliding limiters deny at 12:01:00"). On a store under a policy
// (--on-store-error allow or deny) some of those decisions may be the
// policy's, made while Redis did not answer, and the lanes mark them ◌:
// the caption then carries one line more, saying how many of the
// requests since its moment were the policy's, so the screen never says
// one thing in words and another in marks.

// StorelessNote is what a caption's note counts: the requests decided
// since its moment while it is on screen, and how many of them each lane
// decided without its store (the fewest and the most, lane by lane).
type StorelessNote struct {
	Since    algo.Instant
	Of       int64
	Min, Max int64
	Policy   string // the policy's name (allow, deny); "" when no limiter says
}

// onStore is a limiter on a store that may decide without it (sim's).
type onStore interface{ DecidedWithoutStore() (int64, bool) }

// policied reports whether s decides without its store when it does not
// answer (a policy other than stop).
func policied(s onStore) bool { _, p := s.DecidedWithoutStore(); return p }

// policyNamer is a limiter on a store that names its policy
// (redisstore's OnStoreError).
type policyNamer interface{ OnStoreError() string }

// NoteWithoutStore counts, in e's history, the arrivals from at to before
// end (the caption's moment and its end) decided so far, and how many of
// them each limiter decided without its store. Zero when none was.
func NoteWithoutStore(e *sim.Engine, at, end algo.Instant) StorelessNote {
	h := e.History()
	if h == nil || !h.HasWithoutStore() {
		return StorelessNote{}
	}
	from, to := h.FirstAtOrAfter(at), min(h.Len(), h.FirstAtOrAfter(end))
	if from >= to {
		return StorelessNote{}
	}
	ls := e.Limiters()
	counts := make([]int64, len(ls))
	h.WithoutStore(from, to, -1, counts)
	n := StorelessNote{Since: at, Of: to - from, Min: -1}
	for i, l := range ls {
		if s, ok := l.(onStore); !ok || !policied(s) {
			continue // decided in process (a fleet's lane): never the policy's
		}
		n.Max = max(n.Max, counts[i])
		if n.Min < 0 || counts[i] < n.Min {
			n.Min = counts[i]
		}
		if p, ok := l.(policyNamer); ok && n.Policy == "" {
			n.Policy = p.OnStoreError()
		}
	}
	if n.Max == 0 {
		return StorelessNote{}
	}
	return n
}

// noteText is the note's words: "◌ Redis did not answer: 120 of the 200
// requests since 12:01:00 were the policy's (allow), not the limiters'"
// ("all 200 requests" when every one was). The policy is
// --on-store-error's, named without the flag: a wrap would break it.
func (n StorelessNote) noteText() string {
	which := human.Int(n.Max) + " of the " + requestNoun.Of(n.Of)
	switch {
	case n.Min != n.Max:
		which = human.Int(n.Min) + "–" + human.Int(n.Max) + " of the " + requestNoun.Of(n.Of) + " (lane by lane)"
	case n.Max == n.Of && n.Of == 1:
		which = "the one request"
	case n.Max == n.Of:
		which = "all " + requestNoun.Of(n.Of)
	}
	verb := "were"
	if n.Max == 1 && n.Min == 1 {
		verb = "was"
	}
	whose := "the policy's"
	if n.Policy != "" {
		whose += " (" + n.Policy + ")"
	}
	return fmt.Sprintf("%s Redis did not answer: %s since %s %s %s, not the limiters'",
		StorelessGlyph, which, n.Since.Short(), verb, whose)
}

// requestNoun counts requests.
var requestNoun = human.Noun{One: "request", Many: "requests"}

// noteLines is the note under a caption, wrapped as the caption is, its
// mark in the colour of the policy's verdict; nil when there is none.
func (n StorelessNote) noteLines(c Common) []string {
	if n.Max == 0 {
		return nil
	}
	st := c.Styles
	mark := st.Mixed
	switch n.Policy {
	case "allow":
		mark = st.Allowed
	case "deny":
		mark = st.Denied
	}
	wrapped := strings.Split(c.Wrap(n.noteText(), max(c.Width-2, 10)), "\n")
	lines := make([]string, len(wrapped))
	for i, l := range wrapped {
		if i == 0 {
			l = mark.Render(StorelessGlyph) + st.Caption.Render(strings.TrimPrefix(l, StorelessGlyph))
		} else {
			l = st.Caption.Render(l)
		}
		lines[i] = st.Caption.Render("  ") + l
	}
	return lines
}
