package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"windowlab/algo"
	"windowlab/scenarios"
	"windowlab/ui/render"
)

// lanes is the lanes panel over the snapshot.
func (m Model) lanes() render.Lanes {
	question, ok := m.quizLane()
	if !ok {
		question = -1
	}
	l := render.Lanes{C: m.c, Snap: &m.snap, Question: question, Presenter: m.presenter}
	if m.code.on && !(m.presenter && render.PresenterFits(m.c)) {
		// The code panel beside them takes its columns: the lanes, and the
		// log's strip of cells counted for them, are laid out narrower.
		if w, ok := (render.Code{C: m.c, Snap: &m.snap, Lane: m.codeLane()}).Beside(); ok {
			l.C.Width = m.c.Width - w - 1
		}
	}
	return l
}

// View renders the whole screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "windowlab — " + m.title()
	return v
}

func (m Model) title() string {
	if m.sc.Title != "" {
		return m.sc.Title
	}
	if m.sc.Name != "" {
		return m.sc.Name
	}
	return "scenario"
}

func (m Model) render() string {
	c := m.c
	if c.TooSmall() {
		msg := fmt.Sprintf("windowlab needs at least %d×%d, this one is %d×%d", render.MinWidth, render.MinHeight, c.Width, c.Height)
		if c.Width <= 0 || c.Height <= 0 {
			return msg
		}
		if wrapped := c.Wrap(msg, c.Width); lipgloss.Height(wrapped) <= c.Height && c.Width >= 20 {
			msg = wrapped
		} else {
			msg = c.Cells.Truncate(msg, c.Width, "…")
		}
		lines := strings.Split(lipgloss.Place(c.Width, c.Height, lipgloss.Center, lipgloss.Center, msg), "\n")
		return strings.Join(fitHeight(lines, c.Height), "\n")
	}
	dv := m.screen()
	header, caption, bottom := m.headerView(dv), m.captionView(dv), m.bottomView(dv)
	var tl, body []string
	bodyH := c.Height - len(header) - len(caption) - len(bottom)
	switch {
	case dv.body != nil: // a dialog in the lanes' place
		if dv.timeline {
			tl = m.timelineLines(bodyH - m.lanes().MinHeight())
			bodyH -= len(tl)
		}
		body = dv.body(bodyH)
	case m.presenter && render.PresenterFits(c):
		tl = m.timelineLines(bodyH - render.PresenterMin)
		bodyH -= len(tl)
		body = m.presenterBody(bodyH)
	case m.code.on: // the code that decided, beside or under the lanes (code.go)
		body, tl = m.codeBody(bodyH)
		bodyH -= len(tl)
	default:
		// The challenge's panel, when one is tried, comes first; the caption
		// and each lane's verdict are whole; the timeline gives way first,
		// then the lanes' details.
		panel := m.challengePanel(bodyH)
		bodyH -= len(panel)
		lanes := m.lanes()
		units := lanes.LayOut(lanes.List())
		tl = m.timelineLines(bodyH - lanes.MinHeightOf(units))
		bodyH -= len(tl)
		body = lanes.Draw(units, bodyH)
		if spare := bodyH - len(body); spare >= 4 && !m.presenter {
			body = append(body, "")
			if m.roster != nil {
				body = append(body, m.rosterLines(spare-1, time.Now())...)
			} else {
				body = append(body, render.Recent{C: m.c, Snap: &m.snap}.Render(spare-1)...)
			}
		}
		body, bodyH = append(panel, body...), bodyH+len(panel)
	}
	lines := make([]string, 0, c.Height)
	lines = append(lines, header...)
	lines = append(lines, caption...)
	lines = append(lines, fitHeight(body, bodyH)...)
	lines = append(lines, tl...)
	lines = append(lines, bottom...)
	lines = fitHeight(lines, c.Height)
	for i, l := range lines {
		l = strings.ReplaceAll(l, render.NoBreak, " ")
		lines[i] = l
		if c.Cells.StringWidth(l) > c.Width {
			lines[i] = c.Cells.Truncate(l, c.Width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// fitHeight pads or cuts lines to exactly h.
func fitHeight(lines []string, h int) []string {
	if h <= 0 {
		return nil
	}
	if len(lines) > h {
		return lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines
}

// bottomView is the help bar, or the go-to-time prompt while it is open,
// with a status line above when there is something to say.
func (m Model) bottomView(dv dialogView) []string {
	var out []string
	if m.job != nil {
		return append(out, m.c.Styles.Warn.Render(m.jobLine()))
	}
	if line := m.followLine(); line != "" && m.dialog == nil {
		out = append(out, line)
	}
	if line := m.teachLine(); line != "" && m.dialog == nil {
		out = append(out, line)
	}
	switch {
	case m.status != "":
		out = append(out, m.c.Styles.Warn.Render(m.status))
	case m.note != "" && m.snap.Now < m.noteUntil && m.dialog == nil:
		out = append(out, m.c.Styles.Faint.Render(m.note))
	case m.dialog == nil && m.playHint() != "": // an empty clock's keys (traffic.go)
		out = append(out, m.c.Styles.Faint.Render(m.playHint()))
	}
	if line := m.streamLine(); line != "" && m.dialog == nil { // the stream made at the clock (traffic.go)
		out = append(out, m.c.Styles.Faint.Render(line))
	}
	switch {
	case m.dialog == nil:
	case dv.noHelp:
		return out
	case dv.bottom != nil:
		return append(out, dv.bottom...)
	default:
		return append(out, m.help.ShortHelpView(m.dialog.help()))
	}
	if m.help.ShowAll {
		return append(out, m.fullHelp()...)
	}
	return append(out, m.shortHelp())
}

// shortHelp is the help bar: as many keys as fit, then always "? keys • q quit".
func (m Model) shortHelp() string {
	h := m.help
	sep := h.Styles.ShortSeparator.Render(h.ShortSeparator)
	item := func(b key.Binding) string {
		return h.Styles.ShortKey.Render(b.Help().Key) + " " + h.Styles.ShortDesc.Render(b.Help().Desc)
	}
	// The help styles are colours alone: an item is as wide as its words.
	sepW := m.c.Cells.StringWidth(h.ShortSeparator)
	var tail []string
	room := m.c.Width
	for i, b := range m.keys.tailHelp() {
		tail = append(tail, item(b))
		room -= m.c.Cells.StringWidth(b.Help().Key) + 1 + m.c.Cells.StringWidth(b.Help().Desc)
		if i > 0 {
			room -= sepW
		}
	}
	line := strings.Join(tail, sep)
	var head []string
	used := 0
	for _, b := range m.keys.ShortHelp() {
		if !b.Enabled() {
			continue
		}
		w := m.c.Cells.StringWidth(b.Help().Key) + 1 + m.c.Cells.StringWidth(b.Help().Desc) + sepW
		if used+w > room {
			break
		}
		head = append(head, item(b))
		used += w
	}
	if len(head) == 0 {
		return line
	}
	return strings.Join(head, sep) + sep + line
}

// fullHelp lays every key out in as many columns as the width holds,
// each column as wide as its longest entry, none cut.
func (m Model) fullHelp() []string {
	st := m.help.Styles
	type entry struct{ k, d string }
	var entries []entry
	kw := 0
	for _, col := range m.keys.FullHelp() {
		for _, b := range col {
			if !b.Enabled() {
				continue
			}
			entries = append(entries, entry{b.Help().Key, b.Help().Desc})
			kw = max(kw, m.c.Cells.StringWidth(b.Help().Key))
		}
	}
	cell := func(e entry) string {
		return st.FullKey.Render(e.k+strings.Repeat(" ", kw-m.c.Cells.StringWidth(e.k))) + " " + st.FullDesc.Render(e.d)
	}
	widest := 0
	for _, e := range entries {
		widest = max(widest, m.c.Cells.StringWidth(cell(e)))
	}
	gap := 3
	cols := max(1, (m.c.Width+gap)/(widest+gap))
	rows := (len(entries) + cols - 1) / cols
	out := make([]string, rows)
	for i, e := range entries {
		r, c := i%rows, i/rows
		text := cell(e)
		if c < cols-1 && i+rows < len(entries) {
			text += strings.Repeat(" ", widest-m.c.Cells.StringWidth(text)+gap)
		}
		out[r] += text
	}
	return out
}

// timelineLines is the timeline in at most h lines (timelinePanel.fit).
func (m Model) timelineLines(h int) []string {
	if m.chartOn {
		return m.chartLines(h)
	}
	return render.Timeline{C: m.c, Snap: &m.snap}.Fit(h)
}

// timelineInstantAt maps a click to the instant it points at.
func (m Model) timelineInstantAt(x, y int) (algo.Instant, bool) {
	if m.c.TooSmall() {
		return 0, false
	}
	dv := m.screen()
	bottom := len(m.bottomView(dv))
	header, caption := len(m.headerView(dv)), len(m.captionView(dv))
	height := len(m.timelineLines(m.c.Height - header - caption - bottom - m.lanes().MinHeight()))
	if m.code.on && dv.body == nil && !(m.presenter && render.PresenterFits(m.c)) {
		_, tl := m.codeBody(m.c.Height - header - caption - bottom)
		height = len(tl)
	}
	top := m.c.Height - bottom - height
	if y < top || y >= top+height {
		return 0, false
	}
	return m.timeline.InstantAt(x, m.c.Width, m.eng.Now())
}

// headerView is the header's two lines for the model as it stands, or the
// dialog's own.
func (m Model) headerView(dv dialogView) []string {
	if dv.header != nil {
		return dv.header
	}
	h := render.HeaderInfo{
		Title: m.title(), Lesson: m.step, Lessons: len(m.lesson), Speed: m.speed,
		Playing: m.playing || (m.inRoom && m.following && m.teacher.Playing), // a follower plays as its teacher does
	}
	if q, ok := m.openQuiz(); ok {
		h.Quiz, h.Question, h.Questions = true, q.index, len(q.questions)
		if q.live != 0 {
			h.Room = q.number
		}
	}
	return render.Header(m.c, &m.snap, h)
}

// captionView is the scenario's caption for the current instant, or what
// the dialog shows in its place (a quiz answer's verdict and proof).
func (m Model) captionView(dv dialogView) []string {
	if !dv.keepCaption {
		return dv.caption
	}
	return render.Caption(m.c, &m.snap, len(m.sc.Captions) > 0, m.playing)
}

// presenterSubject is what a presenter's screen is about: the revealed
// question's lane, else the lane the caption on screen speaks of (see
// captionFocus), else the first.
func (m Model) presenterFocus() render.Subject {
	if i, ok := m.quizLane(); ok {
		return render.Subject{Lane: i, Verdict: true}
	}
	if i := m.captionIndex(); i >= 0 {
		return captionFocus(&m.sc.Captions[i], m.sc.Algorithms)
	}
	return render.Subject{Verdict: true}
}

// captionFocus is the lane a caption speaks of: the limiter its request is
// picked by, else the first its claims (shows) are about, else the first
// its text names; and whether it speaks of that lane's memory (a claim on
// the entries it holds) or its decisions (any other claim on the lane, or a
// request it names), or both.
func captionFocus(c *scenarios.Caption, algos []algo.Algorithm) render.Subject {
	f := render.Subject{Lane: -1}
	if c.Request.HasBy {
		f.Lane = slices.Index(algos, c.Request.By)
	}
	for _, x := range c.Shows {
		if f.Lane < 0 {
			f.Lane = slices.Index(algos, x.Algorithm)
		}
	}
	if f.Lane < 0 {
		f.Lane = namedLane(c.Text, algos)
	}
	for _, x := range c.Shows {
		if f.Lane < 0 || f.Lane >= len(algos) || x.Algorithm != algos[f.Lane] {
			continue
		}
		f.Memory = f.Memory || x.LiveEntries != nil || x.PeakEntries != nil
		f.Verdict = f.Verdict || x.Last != nil || x.Allowed != nil || x.Denied != nil || x.MaxInWindow != nil
	}
	f.Verdict = f.Verdict || c.Request.Set || c.Client != "" || !f.Memory
	f.Lane = max(f.Lane, 0)
	return f
}

// laneNames are the words a caption names a limiter by.
var laneNames = map[algo.Kind][]string{
	algo.KindFixedWindow:     {"fixed window"},
	algo.KindSlidingLog:      {"sliding log", "the log"},
	algo.KindSlidingCounter:  {"sliding counter"}, // not "the counter": the fixed window's is one too
	algo.KindTokenBucket:     {"token bucket"},
	algo.KindSegmentedWindow: {"segmented window"},
}

// namedLane is the lane of the limiter text names first, or -1.
func namedLane(text string, algos []algo.Algorithm) int {
	text = strings.ToLower(text)
	lane, at := -1, len(text)
	for k, a := range algos {
		for _, name := range laneNames[a.Kind] {
			if i := strings.Index(text, name); i >= 0 && i < at {
				lane, at = k, i
			}
		}
	}
	return lane
}

// screen is how the open dialog shares the screen; with none, the main
// view's parts.
func (m Model) screen() dialogView {
	if m.dialog == nil {
		return dialogView{keepCaption: true}
	}
	return m.dialog.view(m)
}
