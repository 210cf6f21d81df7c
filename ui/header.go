package ui

import (
	"fmt"
	"strings"

	"windowlab/human"
)

// headerView is two lines: the scenario and the clock, then the limit, the
// position in the replay and the focused client.
func (m Model) headerView() []string {
	st, s := m.c.styles, m.snap
	left := st.appName.Render("windowlab · ") + st.title.Render(m.title())
	switch {
	case m.mode == modeQuiz:
		left = st.appName.Render(fmt.Sprintf("question %d of %d · ", m.quiz.index+1, len(m.quiz.questions))) + st.title.Render(m.title())
	case len(m.lesson) > 0:
		// The step first: when the line is short, the title's tail gives way.
		left = st.appName.Render(fmt.Sprintf("step %d of %d · ", m.step+1, len(m.lesson))) + st.title.Render(m.title())
	}
	playing := m.playing || (m.inRoom && m.following && m.teacher.Playing) // a follower plays as its teacher does
	state := st.playing.Render("▶ " + speedText(m.speed))
	if !playing {
		state = st.paused.Render("❚❚ paused") + st.faint.Render(" · "+speedText(m.speed))
	}
	right := state + "  " + st.clock.Render(s.now.String())
	// The title is whole at every width: the app's name goes first, then
	// the words of the state, then the state moves down a line.
	w := m.c.cells.StringWidth
	line1 := m.c.spread(left, right, m.c.width, true)
	if w(left)+2+w(right) > m.c.width {
		bare := st.title.Render(m.title())
		switch {
		case m.mode == modeQuiz:
			bare = st.appName.Render(fmt.Sprintf("question %d of %d · ", m.quiz.index+1, len(m.quiz.questions))) + bare
		case len(m.lesson) > 0:
			bare = st.appName.Render(fmt.Sprintf("%d/%d · ", m.step+1, len(m.lesson))) + bare
		}
		short := st.playing.Render("▶ "+speedText(m.speed)) + "  " + st.clock.Render(s.now.String())
		if !playing {
			short = st.paused.Render("❚❚ "+speedText(m.speed)) + "  " + st.clock.Render(s.now.String())
		}
		if len(m.lesson) > 0 && m.mode != modeQuiz {
			if long := st.appName.Render(fmt.Sprintf("step %d of %d · ", m.step+1, len(m.lesson))) + st.title.Render(m.title()); w(long)+2+w(short) <= m.c.width {
				bare = long
			}
		}
		line1 = m.c.spread(bare, short, m.c.width, true)
		if w(bare)+2+w(short) > m.c.width {
			line1 = m.c.cells.Truncate(bare, m.c.width, "…")
			return []string{line1, m.c.spread(m.focusLine(true), short, m.c.width, true)}
		}
	}

	// The focus matters more than the next request's time, and its words
	// (whose, and why) more than the limit's.
	full, next := m.focusLine(false), m.nextText()
	var line2 string
	switch w := m.c.cells.StringWidth; {
	case w(full)+2+w(next) <= m.c.width:
		line2 = m.c.spread(full, next, m.c.width, false)
	case w(full) <= m.c.width:
		line2 = full
	default:
		line2 = m.c.spread(m.focusLine(true), next, m.c.width, false)
	}
	return []string{line1, line2}
}

// focusLine names the limit and the focus: the request the lanes explain
// (and how many are decided, when that is another) and the client whose
// state they show, saying why each is the one. Compact drops the words.
func (m Model) focusLine(compact bool) string {
	st, s := m.c.styles, m.snap
	sep := st.faint.Render(" · ")
	var b strings.Builder
	limit := human.Int(s.config.Limit) + " per " + human.Duration(s.config.Window)
	if compact {
		limit = human.Int(s.config.Limit) + "/" + human.Duration(s.config.Window)
	}
	b.WriteString(st.label.Render("limit ") + st.value.Render(limit) + sep)
	switch {
	case !s.hasLast:
		b.WriteString(st.label.Render("request ") + st.value.Render("0/"+human.Int(s.total)))
	case s.held:
		label := "the caption's request "
		if compact {
			label = "request "
		}
		b.WriteString(st.label.Render(label) + st.value.Render(human.Int(s.last.Index+1)+"/"+human.Int(s.total)))
		if s.processed != s.last.Index+1 {
			b.WriteString(st.faint.Render(", " + human.Int(s.processed) + " decided"))
		}
	default:
		b.WriteString(st.label.Render("request ") + st.value.Render(human.Int(s.processed)+"/"+human.Int(s.total)))
	}
	if s.client != "" {
		b.WriteString(sep + st.label.Render("client ") + st.value.Render(human.Visible(s.client)))
		switch {
		case compact:
		case s.why == focusChosen:
			b.WriteString(st.faint.Render(" (chosen)"))
		case s.why == focusCaption && !s.held:
			b.WriteString(st.faint.Render(" (the caption's)"))
		case s.why == focusLast:
			b.WriteString(st.faint.Render(" (the last request's)"))
		}
	}
	return b.String()
}

// nextText is the next request's instant, for the header's right.
func (m Model) nextText() string {
	st := m.c.styles
	if m.snap.hasNext {
		return st.label.Render("next ") + m.snap.next.At.String()
	}
	return st.faint.Render("no more requests")
}

// captionView is the scenario's caption for the current instant, or while
// a quiz answer is revealed, the verdict and its proof.
func (m Model) captionView() []string {
	if m.mode == modeQuiz {
		if m.quiz.phase != quizRevealed {
			return nil
		}
		return m.revealView()
	}
	if len(m.sc.Captions) == 0 && (m.snap.processed > 0 || m.playing) {
		return nil
	}
	st := m.c.styles
	text := m.snap.caption
	if text == "" {
		if m.snap.processed == 0 && !m.playing {
			return []string{st.faint.Render("press space to play, or → to step to the first request")}
		}
		return []string{""}
	}
	// Whole, however many lines it takes: the lanes give way to it. Lines
	// after the first hang under the text, not under the mark.
	wrapped := strings.Split(m.c.cells.Wrap(text, max(m.c.width-2, 10), " "), "\n")
	lines := make([]string, len(wrapped))
	for i, l := range wrapped {
		lead := "  "
		if i == 0 {
			lead = "» "
		}
		lines[i] = st.caption.Render(lead + l)
	}
	return lines
}
