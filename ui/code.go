package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"windowlab/ui/render"
)

// codeView is the panel of the code that decided (d): off, or on one
// lane. Opened, it shows the lane the caption on screen speaks of (the
// presenter's subject), following the captions as tab moves through
// them; each further d shows the next lane, round to the one it opened
// on, where d closes it.
type codeView struct {
	on     bool
	chosen bool // lane was chosen with d, not the caption's
	lane   int
	first  int // the lane it opened on
}

// toggleCode is d.
func (m *Model) toggleCode() {
	n := max(len(m.snap.Algorithms), 1)
	if !m.code.on {
		m.code = codeView{on: true, first: m.codeLane()}
		return
	}
	next := (m.codeLane() + 1) % n
	if next == m.code.first {
		m.code = codeView{}
		return
	}
	m.code.chosen, m.code.lane = true, next
}

// codeLane is the lane the panel shows.
func (m Model) codeLane() int {
	if m.code.chosen {
		return m.code.lane
	}
	return m.presenterFocus().Lane
}

// codeBody lays the lanes, the panel and the timeline out in h lines, the
// lanes laid out at the width they get: the panel beside them on a wide
// terminal, under them otherwise. The lanes keep their titles, totals and
// verdicts whole (the timeline gives way first, then their details), the
// panel its title and the line that decided.
func (m Model) codeBody(h int) (body, timeline []string) {
	p := render.Code{C: m.c, Snap: &m.snap, Lane: m.codeLane()}
	lanes := m.lanes()
	if w, ok := p.Beside(); ok {
		lanes.C.Width = m.c.Width - w - 1
		units := lanes.LayOut(lanes.List())
		timeline = m.timelineLines(h - max(lanes.MinHeightOf(units), p.Height(w, true)))
		rows := h - len(timeline)
		left, right := lanes.Draw(units, rows), p.Lines(w, rows, true)
		// Level with the lane it shows, when the lanes stand one above
		// the other and the panel still fits.
		top := max(min(m.laneRow(left, p.Lane), rows-len(right)), 0)
		for i := range max(len(left), top+len(right)) {
			var l, r string
			if i < len(left) {
				l = left[i]
			}
			if i >= top && i-top < len(right) {
				r = right[i-top]
			}
			if r == "" {
				body = append(body, m.c.Cells.Truncate(l, lanes.C.Width, "…"))
				continue
			}
			body = append(body, m.c.Fit(l, lanes.C.Width)+" "+r)
		}
		return m.withRecent(body, rows), timeline
	}
	units := lanes.LayOut(lanes.List())
	least := lanes.MinHeightOf(units)
	panelH := p.Height(m.c.Width, false)
	timeline = m.timelineLines(h - least - panelH - 1)
	rows := h - len(timeline)
	under := min(panelH+1, max(rows-least, 0)) // a blank line above the panel when it fits whole
	body = lanes.Draw(units, rows-under)
	if under > panelH {
		body = append(body, "")
	}
	return append(body, p.Lines(m.c.Width, min(under, panelH), false)...), timeline
}

// laneRow is the line of lines where lane's title begins it, or 0.
func (m Model) laneRow(lines []string, lane int) int {
	if lane < 0 || lane >= len(m.snap.Algorithms) {
		return 0
	}
	title := m.snap.Algorithms[lane].Title()
	for i, l := range lines {
		rest, ok := strings.CutPrefix(ansi.Strip(l), title)
		if ok && (rest == "" || strings.HasPrefix(rest, "  ")) {
			return i
		}
	}
	return 0
}

// withRecent adds the recent requests (or a classroom's roster) under
// body when rows leave room, as the main view does under its lanes.
func (m Model) withRecent(body []string, rows int) []string {
	spare := rows - len(body)
	if spare < 4 || m.presenter {
		return body
	}
	body = append(body, "")
	if m.roster != nil {
		return append(body, m.rosterLines(spare-1, time.Now())...)
	}
	return append(body, render.Recent{C: m.c, Snap: &m.snap}.Render(spare-1)...)
}

// presenterBody is a presenter's screen in h lines: the block letters, or,
// with the code panel open (d), the code that decided in their place,
// over the lane it speaks of.
func (m Model) presenterBody(h int) []string {
	f := m.presenterFocus()
	if !m.code.on {
		return m.lanes().PresenterBody(f, h)
	}
	f.Lane = m.codeLane()
	p := render.Code{C: m.c, Snap: &m.snap, Lane: f.Lane}
	w := p.Width()
	return m.lanes().PresenterBodyWith(f, h, p.Lines(w, min(p.Height(w, true), h/2), true))
}
