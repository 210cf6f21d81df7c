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
	state := st.playing.Render("▶ " + speedText(m.speed))
	if !m.playing {
		state = st.paused.Render("❚❚ paused") + st.faint.Render(" · "+speedText(m.speed))
	}
	right := state + "  " + st.clock.Render(s.now.String())
	line1 := m.c.spread(left, right, m.c.width, true)

	var b strings.Builder
	b.WriteString(st.label.Render("limit ") + st.value.Render(human.Int(s.config.Limit)+" per "+human.Duration(s.config.Window)))
	b.WriteString(st.faint.Render(" · "))
	b.WriteString(st.label.Render("request ") + st.value.Render(human.Int(s.processed)+"/"+human.Int(s.total)))
	if s.client != "" {
		b.WriteString(st.faint.Render(" · "))
		b.WriteString(st.label.Render("client ") + st.value.Render(s.client))
		if s.following {
			b.WriteString(st.faint.Render(" (the last request's)"))
		} else {
			b.WriteString(st.faint.Render(" (chosen with c)"))
		}
	}
	next := st.faint.Render("no more requests")
	if s.hasNext {
		next = st.label.Render("next request ") + s.next.At.String()
	}
	line2 := m.c.spread(b.String(), next, m.c.width, false)
	return []string{line1, line2}
}

// captionLines is the most lines a caption may take: two, and in a lesson
// (whose captions carry the teaching) four.
func (m Model) captionLines() int {
	if len(m.lesson) > 0 || m.presenter {
		return 4
	}
	return 2
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
	lines := strings.Split(m.c.cells.Wrap("» "+text, m.c.width, " "), "\n")
	if most := m.captionLines(); len(lines) > most {
		lines = lines[:most]
		lines[most-1] = m.c.cells.Truncate(lines[most-1], m.c.width-1, "") + "…"
	}
	for i, l := range lines {
		lines[i] = st.caption.Render(l)
	}
	return lines
}
