package ui

import (
	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/sim"
	"windowlab/ui/render"
)

// The view always has a focus: a client, whose state the lanes show, and
// a request, whose decision they explain. By default both follow the last
// request decided. A caption that speaks of a request holds the focus on
// it from its moment for as long as it is on screen, whatever the clock
// decides meanwhile, so the lanes tell the caption's story; a step by the
// user lets go. A client chosen with c or the client picker overrides the
// client, never the request.

// heldCaption is the caption whose request the view focuses.
type heldCaption struct {
	on        bool
	caption   int
	rec       sim.Record // the caption's request, its decisions copied
	processed int64      // arrivals decided at the caption's moment
}

// release lets go of a held caption: the user moved the clock.
func (m *Model) release() {
	m.held = heldCaption{}
	m.landing = -1
}

// captionIndex is the caption on screen at the engine's position: the one
// held, else the last whose moment has come and whose end has not.
func (m Model) captionIndex() int {
	if m.held.on {
		return m.held.caption
	}
	now, cs := m.eng.Now(), m.sc.Captions
	best := -1
	for i := range cs {
		c := &cs[i]
		if c.At > now {
			break
		}
		if now >= m.sc.CaptionEnd(i) {
			continue
		}
		// A caption that speaks of a request waits for it: stepping through
		// its instant's requests, the caption before stays until then.
		if c.At == now && c.Speaks() && !m.reached(i) {
			continue
		}
		best = i
	}
	return best
}

// seenAt counts the requests decided at caption i's instant that its pick
// counts (its client's, decided as it says), read from the history.
func (m Model) seenAt(i int) int64 {
	c := &m.sc.Captions[i]
	h := m.eng.History()
	from, to := h.FirstAtOrAfter(c.At), h.Len()
	clients := m.eng.Clients()
	by := -1
	if c.Request.HasBy {
		for k, a := range m.sc.Algorithms {
			if a == c.Request.By {
				by = k
			}
		}
	}
	var n int64
	for r := range h.Runs(from, to) {
		if r.At != c.At {
			break
		}
		if c.Client != "" && (int(r.Client) >= len(clients) || clients[r.Client] != c.Client) {
			continue
		}
		if by >= 0 && (r.Allowed&(1<<by) != 0) != c.Request.Allowed {
			continue
		}
		n += r.N
	}
	return n
}

// settle updates the held caption after the engine moved: a caption whose
// end came, or whose moment the clock went back before, lets go; a move
// that lands on a caption's moment (by stepping onto it, or a landing
// asked for) holds it.
func (m *Model) settle() {
	e := m.eng
	if h := &m.held; h.on {
		cs := m.sc.Captions
		gone := e.Processed() < h.processed || e.Now() >= m.sc.CaptionEnd(h.caption)
		for j := h.caption + 1; j < len(cs) && !gone; j++ {
			gone = cs[j].At <= e.Now() && cs[j].At > cs[h.caption].At
		}
		if gone {
			m.held = heldCaption{}
		}
	}
	last, hasLast := e.Last()
	if m.landing >= 0 {
		i := m.landing
		m.landing = -1
		c := &m.sc.Captions[i]
		if hasLast && last.Arrival.At == c.At && e.Now() == c.At && c.Speaks() {
			m.hold(i, last)
		}
	}
	if m.held.on || !hasLast || e.Now() != last.Arrival.At {
		return
	}
	next, more := e.Next()
	more = more && next.At == last.Arrival.At
	for i := range m.sc.Captions {
		c := &m.sc.Captions[i]
		if c.At == last.Arrival.At && c.Speaks() && m.sc.AtCaption(i, last, m.seenAt(i), more) {
			m.hold(i, last)
			return
		}
	}
}

func (m *Model) hold(i int, last sim.Record) {
	last.Decisions = append([]algo.Decision(nil), last.Decisions...)
	m.held = heldCaption{on: true, caption: i, rec: last, processed: m.eng.Processed()}
}

// landCaption moves to caption i's moment and holds it: just after the
// request it speaks of, or at the end of its instant for one that speaks
// of none.
func (m *Model) landCaption(i int) tea.Cmd {
	m.release()
	c := &m.sc.Captions[i]
	if !c.Speaks() {
		return m.seek(c.At)
	}
	m.landing = i
	sc := m.sc
	return m.move(func(e *sim.Engine) { sc.SeekCaption(e, i) })
}

// focusNow is the focus at the engine's position, caption i on screen.
func (m Model) focusNow(i int) render.Focus {
	if m.chosen != "" {
		return render.Focus{Client: m.chosen, Why: render.FocusChosen}
	}
	if i >= 0 && m.sc.Captions[i].Client != "" {
		return render.Focus{Client: m.sc.Captions[i].Client, Why: render.FocusCaption}
	}
	if m.held.on {
		return render.Focus{Client: m.held.rec.Arrival.Client, Why: render.FocusCaption}
	}
	if r, ok := m.eng.Last(); ok {
		return render.Focus{Client: r.Arrival.Client, Why: render.FocusLast}
	}
	return render.Focus{Why: render.FocusLast}
}

// nextCaption is the first caption after the one on screen whose moment
// is still to come; -1 when there is none.
func (m Model) nextCaption() int {
	for i := m.captionIndex() + 1; i < len(m.sc.Captions); i++ {
		if !m.reached(i) {
			return i
		}
	}
	return -1
}

// prevCaption is the caption before the one on screen (that one itself
// when the clock has moved past its request), or with none on screen the
// last whose moment has passed; -1 when there is none.
func (m Model) prevCaption() int {
	if cur := m.captionIndex(); cur >= 0 {
		if !m.held.on && m.sc.Captions[cur].Speaks() {
			return cur // past its moment: back to it first, as a player's "previous" does
		}
		return cur - 1
	}
	prev := -1
	for i := range m.sc.Captions {
		if m.reached(i) {
			prev = i
		}
	}
	return prev
}

// reached reports whether the engine stands at or past caption i's moment.
func (m Model) reached(i int) bool {
	c, now := &m.sc.Captions[i], m.eng.Now()
	if now != c.At {
		return now > c.At
	}
	if c.Speaks() && c.Request.Nth > 0 {
		return m.seenAt(i) >= c.Request.Nth
	}
	next, more := m.eng.Next()
	return !more || next.At > c.At // the end of the instant
}
