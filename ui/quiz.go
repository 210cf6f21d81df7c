package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/quiz"
	"windowlab/scenarios"
	"windowlab/sim"
)

type quizPhase int

const (
	quizAsking quizPhase = iota
	quizRevealed
	quizDone
)

// savedView is where the scenario view was when k opened its questions.
type savedView struct {
	sc        *scenarios.Scenario
	eng       *sim.Engine
	processed int64
	now       algo.Instant
}

// revealMsg carries the engine of the scenario that proves question index.
type revealMsg struct {
	index  int
	sc     *scenarios.Scenario
	engine *sim.Engine
	err    error
}

// quizView asks questions one at a time and keeps the score.
type quizView struct {
	title     string
	questions []quiz.Item
	index     int
	phase     quizPhase
	input     textinput.Model
	choice    int
	err       string
	given     []string
	right     []bool
	fromView  bool // opened with k: leaving returns to the scenario
	saved     savedView
	keys      quizKeys
}

func newQuizView(st *styles) quizView {
	in := textinput.New()
	in.Prompt = "your answer › "
	in.CharLimit = 40
	in.SetStyles(st.input) // a still cursor from the start; colours follow the root's styles
	return quizView{input: in, keys: newQuizKeys()}
}

// start begins a quiz on questions.
func (q quizView) start(questions []quiz.Item, title string, fromView bool) quizView {
	q.title, q.questions, q.fromView = title, questions, fromView
	q.given = make([]string, len(questions))
	q.right = make([]bool, len(questions))
	q.index = 0
	return q.ask()
}

// ask shows the current question, with an empty answer.
func (q quizView) ask() quizView {
	q.phase, q.choice, q.err = quizAsking, 0, ""
	q.input.Reset()
	q.input.Focus()
	return q
}

func (q quizView) current() quiz.Item {
	if q.index < len(q.questions) {
		return q.questions[q.index]
	}
	return quiz.Item{}
}

func (q quizView) typed() bool { return q.current().Typed() }

// proofInstant is where the replay stops while an answer is revealed.
func (q quizView) proofInstant() (algo.Instant, bool) {
	if q.phase != quizRevealed {
		return 0, false
	}
	c := q.current()
	return c.At, c.HasAt
}

// score is how many were answered right, and how many answered so far.
func (q quizView) score() (right, answered int) {
	answered = q.index
	if q.phase != quizAsking {
		answered++
	}
	answered = min(answered, len(q.questions))
	for _, r := range q.right[:answered] {
		if r {
			right++
		}
	}
	return right, answered
}

func (q quizView) update(msg tea.Msg) (quizView, tea.Cmd) {
	if q.phase != quizAsking || !q.typed() {
		return q, nil
	}
	var cmd tea.Cmd
	before := q.input.Value()
	q.input, cmd = q.input.Update(msg)
	if q.input.Value() != before {
		q.err = ""
	}
	return q, cmd
}

// QuizScore reports the quiz's score: right answers, questions answered and
// questions in all (all zero when there is no quiz).
func (m Model) QuizScore() (right, answered, total int) {
	right, answered = m.quiz.score()
	return right, answered, len(m.quiz.questions)
}

func (m Model) updateQuiz(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch m.quiz.phase {
	case quizAsking:
		return m.updateAsking(msg)
	case quizRevealed:
		return m.updateRevealed(msg)
	}
	// The score.
	if key.Matches(msg, m.quiz.keys.Quit, m.quiz.keys.Check, m.quiz.keys.Leave) {
		if m.quiz.fromView {
			return m.leaveQuiz()
		}
		return m, tea.Quit
	}
	return m, nil
}

// updateAsking takes an answer: typed into the prompt, or a choice.
func (m Model) updateAsking(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	q, k := m.quiz, m.quiz.keys
	switch {
	case key.Matches(msg, k.Leave):
		return m.leaveQuiz()
	case key.Matches(msg, k.Check):
		return m.submit()
	}
	if q.typed() {
		var cmd tea.Cmd
		m.quiz, cmd = q.update(msg)
		return m, cmd
	}
	n := len(q.current().Choices)
	switch {
	case key.Matches(msg, k.Up):
		q.choice = (q.choice + n - 1) % n
	case key.Matches(msg, k.Down):
		q.choice = (q.choice + 1) % n
	case key.Matches(msg, k.Pick):
		if i := int(msg.String()[0] - '1'); i < n {
			q.choice = i
		}
	case key.Matches(msg, k.Quit):
		return m.leaveQuiz()
	}
	m.quiz = q
	return m, nil
}

// updateRevealed moves on from a revealed answer, or lets the student step
// through the replay that proves it with the main view's keys.
func (m Model) updateRevealed(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	m.status = ""
	q, k := m.quiz, m.keys
	switch {
	case key.Matches(msg, q.keys.Next):
		m.stop()
		q.index++
		if q.index >= len(q.questions) {
			q.phase = quizDone
			m.quiz = q
			return m, nil
		}
		m.quiz = q.ask()
		return m, nil
	case key.Matches(msg, q.keys.Leave):
		return m.leaveQuiz()
	case key.Matches(msg, k.Quit):
		if q.fromView {
			return m.leaveQuiz()
		}
		return m, tea.Quit
	case key.Matches(msg, q.keys.Replay):
		if m.playing {
			m.stop()
			return m, nil
		}
		return m, m.prove()
	case key.Matches(msg, k.Next, k.Prev, k.NextEdge, k.PrevEdge, k.ZoomIn, k.ZoomOut, k.Faster, k.Slower, k.Start, k.End):
		return m.updateMain(msg)
	}
	return m, nil
}

// submit checks the answer and starts the replay that proves it.
func (m Model) submit() (tea.Model, tea.Cmd) {
	q := m.quiz
	cur := q.current()
	given := strings.TrimSpace(q.input.Value())
	if !q.typed() {
		given = cur.Choices[q.choice]
	}
	if given == "" {
		q.err = "type an answer first (a number such as 200 or 0.75)"
		m.quiz = q
		return m, nil
	}
	q.given[q.index] = given
	q.right[q.index] = cur.Check(given)
	q.phase = quizRevealed
	q.input.Blur()
	m.quiz = q
	if cur.Scenario == m.sc {
		// The scenario on screen proves it: replay its own engine, whose
		// checkpoints make going back cheap, rather than a new one from the
		// start for every question about the same file.
		m.setScenario(m.sc, m.eng)
		return m, m.prove()
	}
	sc, index, ctl := cur.Scenario, q.index, m.ctl
	return m, func() tea.Msg {
		e, err := buildEngine(sc, ctl)
		return revealMsg{index: index, sc: sc, engine: e, err: err}
	}
}

// onReveal shows the scenario that proves the answer and replays it.
func (m Model) onReveal(msg revealMsg) (tea.Model, tea.Cmd) {
	if m.mode != modeQuiz || m.quiz.phase != quizRevealed || msg.index != m.quiz.index {
		return m, nil // the student has moved on
	}
	if msg.err != nil {
		m.status = msg.err.Error()
		return m, nil
	}
	m.setScenario(msg.sc, msg.engine)
	return m, m.prove()
}

// proofSeconds is about how long the replay to the proving moment takes.
const proofSeconds = 3

// prove replays the scenario from its start to the question's instant, at
// a speed that gets there in a few seconds; a question with no instant
// shows the end of the replay.
func (m *Model) prove() tea.Cmd {
	cur := m.quiz.current()
	if !cur.HasAt {
		return m.seekIndex(m.eng.Len())
	}
	m.rewind()
	span := float64(cur.At-m.eng.Now()) / 1000
	if span <= 0 {
		return m.seek(cur.At)
	}
	m.speed = 1
	for m.speed*proofSeconds < span && m.speed < maxSpeed {
		m.speed = min(m.speed*2, maxSpeed)
	}
	return m.play()
}

// leaveQuiz returns to the scenario the quiz was opened from, or for the
// quiz command, shows the score.
func (m Model) leaveQuiz() (tea.Model, tea.Cmd) {
	m.stop()
	if !m.quiz.fromView {
		m.quiz.phase = quizDone
		return m, nil
	}
	s := m.quiz.saved
	m.setScenario(s.sc, s.eng)
	m.mode = modeMain
	return m, m.move(func(e *sim.Engine) {
		e.SeekIndex(s.processed)
		e.Seek(s.now)
	})
}

// quizLane is the lane of the limiter the revealed question is about.
func (m Model) quizLane() (int, bool) {
	if m.mode != modeQuiz || m.quiz.phase != quizRevealed {
		return 0, false
	}
	cur := m.quiz.current()
	if !cur.HasAlgorithm {
		return 0, false
	}
	for i, a := range m.snap.algorithms {
		if a == cur.Algorithm {
			return i, true
		}
	}
	return 0, false
}

// headerView is the quiz's own header while a question is asked.
func (q quizView) headerView(c common) []string {
	st := c.styles
	left := st.appName.Render("windowlab · ") + st.title.Render("check yourself")
	if q.title != "" {
		left += st.faint.Render(" · " + q.title)
	}
	right, answered := q.score()
	pos := fmt.Sprintf("question %d of %d", min(q.index+1, len(q.questions)), len(q.questions))
	if q.phase == quizDone {
		pos = "done"
	}
	score := st.label.Render(pos+" · score ") + st.value.Render(fmt.Sprintf("%d/%d", right, answered))
	return []string{c.spread(left, score, c.width, true), ""}
}

// textWidth is the measure questions are set at: the screen, up to a
// comfortable line length.
func textWidth(c common) int { return min(c.width, 100) }

// view is the question being asked, or the score.
func (q quizView) view(c common, h int) []string {
	st := c.styles
	w := textWidth(c)
	if q.phase == quizDone {
		return q.scoreView(c, h)
	}
	cur := q.current()
	var out []string
	from := ""
	if cur.From != "" {
		from = st.faint.Render(" · " + cur.From)
	}
	out = append(out, st.title.Render(fmt.Sprintf("Question %d", q.index+1))+from, "")
	for _, l := range strings.Split(c.cells.Wrap(cur.Ask, w, " "), "\n") {
		out = append(out, st.value.Render(l))
	}
	out = append(out, "")
	if q.typed() {
		in := q.input
		in.SetStyles(st.input)
		out = append(out, in.View())
	} else {
		for i, choice := range cur.Choices {
			mark, style := "  ", st.label.UnsetBold()
			if i == q.choice {
				mark, style = "▸ ", st.selected
			}
			prefix := fmt.Sprintf("%s%d  ", mark, i+1)
			lines := strings.Split(c.cells.Wrap(choice, w-c.cells.StringWidth(prefix), " "), "\n")
			for j, l := range lines {
				p := prefix
				if j > 0 {
					p = strings.Repeat(" ", c.cells.StringWidth(prefix))
				}
				out = append(out, style.Render(p+l))
			}
		}
	}
	if q.err != "" {
		out = append(out, "", st.err.Render(q.err))
	}
	return fitHeight(out, h)
}

func (q quizView) scoreView(c common, h int) []string {
	st := c.styles
	right, answered := q.score()
	out := []string{st.title.Render(fmt.Sprintf("You answered %d of %d right", right, len(q.questions))), ""}
	if answered < len(q.questions) {
		out[0] += st.faint.Render(fmt.Sprintf(" (%d not answered)", len(q.questions)-answered))
	}
	for i, question := range q.questions {
		if i >= answered {
			break
		}
		mark := st.g.markOK
		detail := question.Answer
		if !q.right[i] {
			mark = st.g.markNo
			detail = "you said " + q.given[i] + "; the answer is " + question.Answer
		}
		line := fmt.Sprintf("%s %2d. %s", mark, i+1, c.cells.Truncate(question.Ask, max(c.width/2, 20), "…"))
		out = append(out, c.cells.Truncate(line+st.faint.Render(" — "+detail), c.width, "…"))
	}
	return fitHeight(out, h)
}

// revealView takes the caption's place while an answer is revealed: the
// verdict, the explanation, and the decision that proves it.
func (m Model) revealView() []string {
	st, q, w := m.c.styles, m.quiz, m.c.width
	cur := q.current()
	var text []string
	add := func(s string, style func(...string) string, most int) {
		lines := strings.Split(m.c.cells.Wrap(s, w, " "), "\n")
		if len(lines) > most {
			lines = lines[:most]
			lines[most-1] = m.c.cells.Truncate(lines[most-1], w-1, "") + "…"
		}
		for _, l := range lines {
			text = append(text, style(l))
		}
	}
	if q.right[q.index] {
		add(fmt.Sprintf("✓ Right: %s", cur.Answer), st.allowed.Bold(true).Render, 2)
	} else {
		add(fmt.Sprintf("✗ Not quite: you answered %s; the answer is %s", q.given[q.index], cur.Answer), st.denied.Render, 3)
	}
	if cur.Explain != "" {
		add(cur.Explain, st.caption.Render, 3)
	}
	add(m.proofText(), st.value.Render, 3)
	return text
}

// proofText is what the engine shows at the question's instant: the
// limiter's totals and the arithmetic of its last decision (quiz.ProofAt),
// read from the snapshot the lanes show.
func (m Model) proofText() string {
	cur, s := m.quiz.current(), m.snap
	if cur.HasAt && s.now < cur.At {
		return fmt.Sprintf("▶ replaying to %s, the moment that proves it…", cur.At.Short())
	}
	if _, ok := m.quizLane(); !ok {
		if cur.HasAt {
			return fmt.Sprintf("At %s: see the lanes below.", cur.At.Short())
		}
		return "The whole replay is below."
	}
	return human.KeepVerdict(strings.Join(cur.ProofAt(s.stats, s.last, s.hasLast), " "))
}

// help is the bindings the help line offers in the quiz's phase, worded
// for it.
func (q quizView) help() []key.Binding {
	k := q.keys
	leave, exit := k.Leave, k.Exit
	if q.fromView {
		leave.SetHelp("esc", "back to the scenario")
		exit.SetEnabled(false)
	}
	switch q.phase {
	case quizAsking:
		if q.typed() {
			return []key.Binding{k.Check, leave, exit}
		}
		k.Up.SetHelp(fmt.Sprintf("↑/↓ or 1–%d", len(q.current().Choices)), "choose")
		return []key.Binding{k.Up, k.Check, leave, exit}
	case quizRevealed:
		if q.index == len(q.questions)-1 {
			k.Next.SetHelp("enter", "see your score")
		}
		return []key.Binding{k.Next, k.Replay, k.Step, leave, exit}
	}
	if q.fromView {
		k.Check.SetHelp("enter", "back to the scenario")
		return []key.Binding{k.Check}
	}
	return []key.Binding{k.Quit}
}

// hint is what to do that no key says: type the answer.
func (q quizView) hint() string {
	if q.phase == quizAsking && q.typed() {
		return "type your answer"
	}
	return ""
}
