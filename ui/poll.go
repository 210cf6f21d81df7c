package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"windowlab/human"
	"windowlab/quiz"
	"windowlab/room"
	"windowlab/ui/render"
)

// A live quiz in a classroom. The teacher puts one question at a time to
// the room (A): every student's view shows it and takes an answer, which
// goes to the room alone; the teacher's view shows the answers arriving,
// grouped as the quiz's own matching groups them (quiz.Item.Group), and
// how many are still thinking; then reveals, and every student sees right
// or wrong and the replay that proves it, the teacher the score. The room
// (windowlab serve) carries the question and the answers; the view knows
// no network.

type pollPhase int

const (
	pollPicking pollPhase = iota
	pollOpen
	pollRevealed
)

// asked is a question the room was asked, and how it answered.
type asked struct {
	item  quiz.Item
	tally room.Tally
}

// pollDialog is the teacher's: the questions to ask, the one open and its
// answers, and each question's score.
type pollDialog struct {
	questions []quiz.Item // the ones on offer
	cursor    int
	phase     pollPhase
	open      room.Poll
	tally     room.Tally
	asked     []asked
	lastID    int
	keys      pollKeys
}

type pollKeys struct {
	Up, Down, Ask, Reveal, Next, Back key.Binding
}

func newPollKeys() pollKeys {
	return pollKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "choose")),
		Down:   key.NewBinding(key.WithKeys("down", "j", "tab")),
		Ask:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "ask the room")),
		Reveal: key.NewBinding(key.WithKeys("enter", "r"), key.WithHelp("enter", "reveal the answer")),
		Next:   key.NewBinding(key.WithKeys("enter", "n"), key.WithHelp("enter", "another question")),
		Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the view")),
	}
}

// roomKeys are a teacher's: ask the room, pause it.
type roomKeys struct {
	Ask, Pause key.Binding
}

func newRoomKeys() roomKeys {
	return roomKeys{
		Ask:   key.NewBinding(key.WithKeys("A", "shift+a"), key.WithHelp("A", "ask the room")),
		Pause: key.NewBinding(key.WithKeys("P", "shift+p"), key.WithHelp("P", "pause the room")),
	}
}

// offered is what the teacher may ask: the scenario's own questions, then
// the programme's (the lesson's two, generated ones), each once.
func (m Model) offered() []quiz.Item {
	var out []quiz.Item
	for _, it := range append(quiz.Shuffled(m.seed, quiz.Of(m.sc)), m.pollQuestions...) {
		if !slices.ContainsFunc(out, func(o quiz.Item) bool { return o.Ask == it.Ask }) {
			out = append(out, it)
		}
	}
	return out
}

// openPoll shows the teacher the questions to ask.
func (m Model) openPoll() (tea.Model, tea.Cmd) {
	qs := m.offered()
	if len(qs) == 0 {
		m.status = "there are no questions to ask: give windowlab serve a scenario with a questions: block"
		return m, nil
	}
	m.stop()
	p := m.poll
	p.questions = qs
	p.cursor = min(p.cursor, len(qs)-1)
	p.phase = pollPicking
	m.dialog = p
	return m, nil
}

// update is the teacher's keys while asking the room. What the room is
// told goes in the action; closing keeps the questions asked and their
// scores for the next time.
func (p pollDialog) update(m Model, msg tea.Msg) (Dialog, action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return p, nil, nil
	}
	return p.updateKey(m, k)
}

func (p pollDialog) updateKey(m Model, msg tea.KeyPressMsg) (Dialog, action, tea.Cmd) {
	k := p.keys
	var tell *room.Poll // what to tell the room
	closing := false
	switch p.phase {
	case pollPicking:
		switch {
		case key.Matches(msg, k.Up):
			p.cursor = (p.cursor - 1 + len(p.questions)) % len(p.questions)
		case key.Matches(msg, k.Down):
			p.cursor = (p.cursor + 1) % len(p.questions)
		case key.Matches(msg, k.Ask):
			p.lastID++
			p.open = room.Poll{ID: p.lastID, Number: len(p.asked) + 1, Item: p.questions[p.cursor]}
			p.tally = room.Tally{ID: p.open.ID, Students: len(m.roster)}
			p.phase = pollOpen
			tell = &p.open
		case key.Matches(msg, k.Back, m.keys.Quit):
			closing = true
		}
	case pollOpen:
		switch {
		case key.Matches(msg, k.Reveal):
			p.open.Revealed = true
			p.phase = pollRevealed
			p.asked = append(p.asked, asked{item: p.open.Item, tally: p.tally})
			tell = &p.open
		case key.Matches(msg, k.Back):
			// Withdrawn before the answer: it counts for nothing.
			p.phase = pollPicking
			tell = &room.Poll{}
		}
	case pollRevealed:
		switch {
		case key.Matches(msg, k.Next):
			p.phase = pollPicking
			p.cursor = (p.cursor + 1) % len(p.questions)
			tell = &room.Poll{}
		case key.Matches(msg, k.Back, m.keys.Quit):
			closing = true
			tell = &room.Poll{}
		}
	}
	act := func(m *Model) tea.Cmd {
		if tell != nil {
			m.ask(*tell)
		}
		if closing {
			m.poll = p
		}
		return nil
	}
	if closing {
		return nil, act, nil
	}
	return p, act, nil
}

// view is the teacher's own screen while asking: the question, the
// answers arriving, the scores.
func (p pollDialog) view(m Model) dialogView {
	return dialogView{header: p.header(m.c, len(m.roster)), body: func(h int) []string { return p.lines(m.c, h) }}
}

// ask tells the room of the question: open, revealed, or closed.
func (m Model) ask(p room.Poll) {
	if m.room != nil {
		m.room.Ask(p)
	}
}

// onTally takes the room's answers to the open question.
func (m Model) onTally(t room.Tally) (tea.Model, tea.Cmd) {
	if p, ok := m.dialog.(pollDialog); ok && t.ID == p.open.ID && p.phase == pollOpen {
		p.tally = t
		m.dialog = p
	}
	return m, nil
}

// pollHeader is the teacher's header while asking.
func (p pollDialog) header(c render.Common, students int) []string {
	st := c.Styles
	left := st.AppName.Render("windowlab · ") + st.Title.Render("ask the room")
	right := st.Label.Render(human.Noun{One: "student", Many: "students"}.Of(int64(students)))
	if n := len(p.asked); n > 0 {
		right = st.Label.Render(fmt.Sprintf("%s asked · ", human.Noun{One: "question", Many: "questions"}.Of(int64(n)))) + right
	}
	return []string{c.Spread(left, right, c.Width, true), ""}
}

// pollBody is the teacher's screen while asking, in h lines.
func (p pollDialog) lines(c render.Common, h int) []string {
	st := c.Styles
	w := textWidth(c)
	wrap := func(s string, width int, style func(...string) string) []string {
		var out []string
		for _, l := range strings.Split(c.Wrap(s, width), "\n") {
			out = append(out, style(l))
		}
		return out
	}
	var out []string
	switch p.phase {
	case pollPicking:
		out = append(out, st.Title.Render("Which question?")+st.Faint.Render(" · every student's view shows it and takes an answer"), "")
		for i, it := range p.questions {
			mark, style := "  ", st.Label.UnsetBold()
			if i == p.cursor {
				mark, style = "▸ ", st.Selected.Style
			}
			prefix := fmt.Sprintf("%s%d  ", mark, i+1)
			from := st.Faint.Render(" · " + it.From)
			room := c.Width - c.Cells.StringWidth(prefix) - c.Cells.StringWidth(from)
			out = append(out, style.Render(prefix+c.Cells.Truncate(strings.Join(strings.Fields(it.Ask), " "), max(room, 10), "…"))+from)
		}
		// The chosen question whole, as the room will read it.
		out = append(out, "")
		out = append(out, wrap(p.questions[p.cursor].Ask, w, st.Value.Render)...)
		if score := p.score(c); len(score) > 0 {
			out = append(out, "")
			out = append(out, score...)
		}
	case pollOpen, pollRevealed:
		cur := p.open.Item
		out = append(out, st.Title.Render(fmt.Sprintf("Question %d", p.open.Number))+st.Faint.Render(" · "+cur.From))
		out = append(out, wrap(cur.Ask, w, st.Value.Render)...)
		for i, choice := range cur.Choices {
			out = append(out, wrap(fmt.Sprintf("  %d  %s", i+1, choice), w, st.Label.UnsetBold().Render)...)
		}
		out = append(out, "")
		t := p.tally
		if p.phase == pollRevealed {
			out = append(out, wrap(p.revealedLine(c), w, st.Allowed.Bold(true).Render)...)
		}
		thinking := max(t.Students-t.Answered, 0)
		rest := fmt.Sprintf(" · %d still thinking", thinking)
		if p.phase == pollRevealed {
			rest = fmt.Sprintf(" · %d gave no answer", thinking)
		}
		out = append(out, st.Label.Render(fmt.Sprintf("%d of %d answered", t.Answered, t.Students))+st.Faint.Render(rest))
		out = append(out, p.tallyBars(c, t, p.phase == pollRevealed, h-len(out)-4)...)
		if p.phase == pollOpen && len(t.Thinking) > 0 {
			names := strings.Join(t.Thinking, ", ")
			if len(t.Thinking) < thinking {
				names += fmt.Sprintf(" and %d more", thinking-len(t.Thinking))
			}
			out = append(out, "", c.Cells.Truncate(st.Faint.Render("still thinking: "+names), c.Width, "…"))
		}
		if p.phase == pollRevealed && cur.Explain != "" {
			out = append(out, "")
			out = append(out, wrap(cur.Explain, w, st.Caption.Render)...)
		}
	}
	return fitHeight(out, h)
}

// revealedLine is the answer and the room's score on it.
func (p pollDialog) revealedLine(c render.Common) string {
	t, cur := p.tally, p.open.Item
	right := 0
	for _, b := range t.Bars {
		if b.Right {
			right += b.Count
		}
	}
	return fmt.Sprintf("✓ The answer: %s · %d of %d right (%s)", cur.Answer, right, t.Students, percentOf(right, t.Students))
}

func percentOf(n, of int) string {
	if of == 0 {
		return "no one in the room"
	}
	return fmt.Sprintf("%d%%", (200*n+of)/(2*of)) // rounded half up, exactly
}

// tallyBars draws the answers as a histogram in at most h lines, the most
// given first; the right one is marked only once revealed, since the
// teacher's screen may be projected.
func (p pollDialog) tallyBars(c render.Common, t room.Tally, revealed bool, h int) []string {
	st := c.Styles
	if len(t.Bars) == 0 || h < 1 {
		if t.Answered == 0 {
			return []string{st.Faint.Render("no answer yet")}
		}
		return nil
	}
	most := t.Bars[0].Count
	labelW := 4
	for _, b := range t.Bars {
		labelW = max(labelW, min(c.Cells.StringWidth(b.Answer), 24))
	}
	countW := len(fmt.Sprint(most))
	barW := max(min(c.Width-labelW-countW-8, 50), 4)
	var out []string
	for i, b := range t.Bars {
		if len(out) == h-1 && i < len(t.Bars)-1 {
			rest := 0
			for _, r := range t.Bars[i:] {
				rest += r.Count
			}
			out = append(out, st.Faint.Render(fmt.Sprintf("… %d other answers from %d students", len(t.Bars)-i, rest)))
			break
		}
		label := c.Cells.Truncate(b.Answer, 24, "…")
		label += strings.Repeat(" ", labelW-c.Cells.StringWidth(label))
		n := max((b.Count*barW+most-1)/most, 1)
		bar := strings.Repeat("█", n)
		mark, style := "  ", st.Selected
		if revealed && b.Right {
			mark, style = "✓ ", st.Allowed
		} else if revealed {
			style = st.Denied
		}
		out = append(out, mark+label+" "+style.Render(bar)+" "+st.Value.Render(fmt.Sprint(b.Count)))
	}
	return out
}

// pollScore is the score of every question asked so far.
func (p pollDialog) score(c render.Common) []string {
	st := c.Styles
	if len(p.asked) == 0 {
		return nil
	}
	out := []string{st.Title.Render("The room's score")}
	for i, a := range p.asked {
		right := 0
		for _, b := range a.tally.Bars {
			if b.Right {
				right += b.Count
			}
		}
		line := fmt.Sprintf("%d. %d of %d right (%s), %d answered — the answer %s: ", i+1, right, a.tally.Students,
			percentOf(right, a.tally.Students), a.tally.Answered, a.item.Answer)
		ask := strings.Join(strings.Fields(a.item.Ask), " ")
		out = append(out, c.Cells.Truncate(line+st.Faint.Render(ask), c.Width, "…"))
	}
	return out
}

// pollHelp is the teacher's keys while asking.
func (p pollDialog) help() []key.Binding {
	k := p.keys
	switch p.phase {
	case pollOpen:
		back := k.Back
		back.SetHelp("esc", "withdraw the question")
		return []key.Binding{k.Reveal, back}
	case pollRevealed:
		return []key.Binding{k.Next, k.Back}
	}
	return []key.Binding{k.Up, k.Ask, k.Back}
}

// A student's side.

// onPoll opens, reveals or closes the room's question in a student's view.
func (m Model) onPoll(p room.Poll) (tea.Model, tea.Cmd) {
	if !m.inRoom {
		return m, nil
	}
	if m.job != nil || m.naming() {
		m.pending = &p // once the move is done, or the student has a name
		return m, nil
	}
	m.pending = nil
	q, live := m.openQuiz()
	live = live && q.live != 0
	switch {
	case p.ID == 0:
		if !live {
			return m, nil
		}
		return m.leaveLive()
	case live && q.live == p.ID && !p.Revealed:
		return m, nil // asked again: the student's answer stands
	}
	if !live || q.live != p.ID {
		if live {
			next, _ := m.leaveQuiz() // a question the teacher left unrevealed
			m = next.(Model)
		}
		m.stop()
		was := m.dialog // a dialog's draft (a what-if, a time typed) waits for the student's return
		if _, quizzing := was.(quizDialog); quizzing {
			was = nil
		}
		q = newQuizDialog(m.c.Styles).start([]quiz.Item{p.Item}, "the teacher asks the room", true)
		q.live, q.number = p.ID, p.Number
		q.saved = savedView{sc: m.sc, eng: m.eng, processed: m.eng.Processed(), now: m.eng.Now(), dialog: was}
		m.dialog = q
	}
	if !p.Revealed {
		return m, nil
	}
	q.outcome[0] = quiz.Skipped
	if g := q.given[0]; len(g) > 0 {
		q.outcome[0] = quiz.Wrong
		if q.current().Check(g[len(g)-1]) {
			q.outcome[0] = quiz.Right
		}
		q.given[0] = g[len(g)-1:]
	}
	return m.reveal(q)
}

// sendAnswer is a student's answer to the room's question: it goes to the
// room, and the student may change it until the teacher reveals.
func (m Model) sendAnswer(given string) (tea.Model, tea.Cmd) {
	q, _ := m.openQuiz()
	given = human.Line(given, quiz.MaxAnswer)
	q.given[0] = append(q.given[0], given)
	q.sent = given
	if q.typed() {
		q.input.Reset()
	}
	q.err = ""
	m.dialog = q
	if m.room != nil {
		m.room.Answer(q.live, given)
	}
	return m, nil
}

// leaveLive takes a student back from the room's question to the view,
// and to the teacher's moment when following.
func (m Model) leaveLive() (tea.Model, tea.Cmd) {
	next, cmd := m.leaveQuiz()
	nm := next.(Model)
	if nm.following && nm.hasTeacher {
		return nm, tea.Batch(cmd, nm.goToPosition(nm.teacher))
	}
	return nm, cmd
}
