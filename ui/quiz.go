package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/quiz"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/ui/render"
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
	dialog    Dialog // the dialog open when the room's question came (its draft kept)
}

// revealMsg carries the engine of the scenario that proves question index.
type revealMsg struct {
	index  int
	sc     *scenarios.Scenario
	engine *sim.Engine
	err    error
}

// quizDialog is the check-yourself quiz (k, windowlab quiz) and, in a
// student's view, the room's live question: it asks questions one at a
// time and keeps the score. A question
// takes a second try after a wrong first answer (quiz.Item.Tries), with a
// hint; esc skips it.
type quizDialog struct {
	title     string
	questions []quiz.Item
	index     int
	phase     quizPhase
	input     textinput.Model
	choice    int
	err       string
	given     [][]string     // per question, the answers tried, in order
	outcome   []quiz.Outcome // per question; NotReached until it is decided
	scroll    int            // the score's first line shown, when it is taller than the screen
	fromView  bool           // opened with k: leaving returns to the scenario
	saved     savedView
	live      int    // the room's question's Poll.ID: a live quiz (poll.go); 0 otherwise
	number    int    // a live quiz's Poll.Number: the number the room knows it by
	sent      string // a live quiz's: the answer sent to the room
	keys      quizKeys
}

func newQuizDialog(st *render.Styles) quizDialog {
	in := textinput.New()
	in.Prompt = "your answer › "
	in.CharLimit = 40
	in.SetStyles(st.Input) // a still cursor from the start; colours follow the root's styles
	return quizDialog{input: in, keys: newQuizKeys()}
}

// start begins a quiz on questions.
func (q quizDialog) start(questions []quiz.Item, title string, fromView bool) quizDialog {
	q.title, q.questions, q.fromView = title, questions, fromView
	q.live, q.sent = 0, ""
	q.given = make([][]string, len(questions))
	q.outcome = make([]quiz.Outcome, len(questions))
	q.index, q.scroll = 0, 0
	return q.ask()
}

// ask shows the current question, with an empty answer and, for a second
// try, the cursor on a choice not tried yet.
func (q quizDialog) ask() quizDialog {
	q.phase, q.err = quizAsking, ""
	q.choice = q.nextChoice(-1, 1)
	q.input.Reset()
	q.input.Focus()
	return q
}

// tried reports whether choice i of the current question was a wrong try.
func (q quizDialog) tried(i int) bool {
	cur := q.current()
	return q.index < len(q.given) && i < len(cur.Choices) && slices.Contains(q.given[q.index], cur.Choices[i])
}

// nextChoice is the first choice from i+dir on, going by dir and round,
// that was not tried; i itself when there is none.
func (q quizDialog) nextChoice(i, dir int) int {
	n := len(q.current().Choices)
	for k := 1; k <= n; k++ {
		if j := ((i+k*dir)%n + n) % n; !q.tried(j) {
			return j
		}
	}
	return max(i, 0)
}

// secondTry reports whether the current question is being asked again,
// after a wrong first answer.
func (q quizDialog) secondTry() bool {
	return q.phase == quizAsking && q.index < len(q.given) && len(q.given[q.index]) > 0
}

func (q quizDialog) current() quiz.Item {
	if q.index < len(q.questions) {
		return q.questions[q.index]
	}
	return quiz.Item{}
}

// questionNumber is the current question's number: the room's, for the
// room's question, so a student reads one number on every line.
func (q quizDialog) questionNumber() int {
	if q.live != 0 {
		return q.number
	}
	return q.index + 1
}

func (q quizDialog) typed() bool { return q.current().Typed() }

// proofInstant is where the replay stops while an answer is revealed.
func (q quizDialog) proofInstant() (algo.Instant, bool) {
	if q.phase != quizRevealed {
		return 0, false
	}
	c := q.current()
	return c.At, c.HasAt
}

// score counts the questions decided so far: right, wrong and skipped.
func (q quizDialog) score() quiz.Score { return quiz.Tally(q.outcome) }

// update gives keys to the root's quiz logic (an answer moves the main
// view's clock to prove it) and anything else to the answer's input.
func (q quizDialog) update(_ Model, msg tea.Msg) (Dialog, action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		return q, whole(func(m Model) (tea.Model, tea.Cmd) { return m.updateQuiz(k) }), nil
	}
	q, cmd := q.edit(msg)
	return q, nil, cmd
}

// view is the question or the score in the lanes' place; a revealed
// answer shows the lanes again, under the verdict.
func (q quizDialog) view(m Model) dialogView {
	line := m.help.ShortHelpView(q.help())
	if hint := q.hint(); hint != "" {
		line = m.c.Styles.Faint.Render(hint) + m.c.Styles.Help.ShortSeparator.Render(m.help.ShortSeparator) + line
	}
	v := dialogView{bottom: []string{line}}
	if q.phase == quizRevealed {
		v.caption = m.revealView(q)
		return v
	}
	v.header = q.headerView(m.c)
	v.body = func(h int) []string { return q.lines(m.c, h) }
	return v
}

// edit gives msg to the answer's input while a typed answer is asked.
func (q quizDialog) edit(msg tea.Msg) (quizDialog, tea.Cmd) {
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

// QuizScore is the quiz's score as it stands if the quiz ends now: a
// question on screen and not answered yet (the program quit on it) counts
// as skipped, a wrong first answer included. It is all zero when there is
// no quiz.
func (m Model) QuizScore() quiz.Score {
	q, open := m.openQuiz()
	outcomes := slices.Clone(q.outcome)
	if open && q.phase == quizAsking && q.index < len(outcomes) {
		outcomes[q.index] = quiz.Skipped
	}
	return quiz.Tally(outcomes)
}

func (m Model) updateQuiz(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	q, _ := m.openQuiz()
	switch q.phase {
	case quizAsking:
		return m.updateAsking(msg)
	case quizRevealed:
		return m.updateRevealed(msg)
	}
	// The score.
	k := q.keys
	switch {
	case key.Matches(msg, k.Quit, k.Check, k.Leave):
		if q.fromView {
			return m.leaveQuiz()
		}
		return m, tea.Quit
	case key.Matches(msg, k.Up, k.Down):
		dir := 1
		if key.Matches(msg, k.Up) {
			dir = -1
		}
		h := m.c.Height - len(q.headerView(m.c)) - len(m.bottomView(q.view(m)))
		most := max(len(q.scoreLines(m.c))-h, 0)
		q.scroll = min(max(q.scroll+dir, 0), most)
		m.dialog = q
	}
	return m, nil
}

// updateAsking takes an answer: typed into the prompt, or a choice; esc
// skips the question.
func (m Model) updateAsking(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	q, _ := m.openQuiz()
	k := q.keys
	switch {
	case key.Matches(msg, k.Skip) && q.live != 0:
		return m.leaveLive() // back to the view; an answer sent stays sent
	case key.Matches(msg, k.Skip):
		q.outcome[q.index] = quiz.Skipped
		return m.reveal(q)
	case key.Matches(msg, k.Check):
		return m.submit()
	}
	if q.typed() {
		var cmd tea.Cmd
		q, cmd = q.edit(msg)
		m.dialog = q
		return m, cmd
	}
	n := len(q.current().Choices)
	switch {
	case key.Matches(msg, k.Up):
		q.choice, q.err = q.nextChoice(q.choice, -1), ""
	case key.Matches(msg, k.Down):
		q.choice, q.err = q.nextChoice(q.choice, 1), ""
	case key.Matches(msg, k.Pick):
		if i := int(msg.String()[0] - '1'); i < n {
			if q.tried(i) {
				q.err = fmt.Sprintf("you tried %d already; pick another", i+1)
			} else {
				q.choice, q.err = i, ""
			}
		}
	case key.Matches(msg, k.Quit):
		// Leaving on a question skips it: it was shown, not answered.
		q.outcome[q.index] = quiz.Skipped
		m.dialog = q
		return m.leaveQuiz()
	}
	m.dialog = q
	return m, nil
}

// updateRevealed moves on from a revealed answer, or lets the student step
// through the replay that proves it with the main view's keys.
func (m Model) updateRevealed(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	m.status = ""
	q, _ := m.openQuiz()
	k := m.keys
	switch {
	case q.live != 0 && key.Matches(msg, q.keys.Next, q.keys.Leave, k.Quit):
		return m.leaveLive()
	case key.Matches(msg, q.keys.Next):
		m.stop()
		q.index++
		if q.index >= len(q.questions) {
			q.phase = quizDone
			m.dialog = q
			return m, nil
		}
		m.dialog = q.ask()
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

// submit checks the answer: right, or wrong at its last try, it is
// revealed with the replay that proves it; wrong at the first of two, the
// question is asked again with a hint.
func (m Model) submit() (tea.Model, tea.Cmd) {
	q, _ := m.openQuiz()
	cur := q.current()
	given := strings.TrimSpace(q.input.Value())
	if !q.typed() {
		given = cur.Choices[q.choice]
	}
	switch {
	case given == "":
		q.err = "type an answer first (a number such as 200 or 0.75), or esc to skip"
		m.dialog = q
		return m, nil
	case !q.typed() && q.tried(q.choice) && q.live == 0:
		q.err = "you tried that one already; pick another"
		m.dialog = q
		return m, nil
	case q.live != 0:
		return m.sendAnswer(given)
	}
	q.given[q.index] = append(q.given[q.index], given)
	switch tries := len(q.given[q.index]); {
	case cur.Check(given) && tries == 1:
		q.outcome[q.index] = quiz.Right
	case cur.Check(given):
		q.outcome[q.index] = quiz.RightSecondTry
	case tries < cur.Tries():
		m.dialog = q.ask()
		return m, nil
	default:
		q.outcome[q.index] = quiz.Wrong
	}
	return m.reveal(q)
}

// reveal shows q's current question decided, and starts the replay that
// proves its answer.
func (m Model) reveal(q quizDialog) (tea.Model, tea.Cmd) {
	cur := q.current()
	q.phase, q.err = quizRevealed, ""
	q.input.Blur()
	m.dialog = q
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
	if q, ok := m.openQuiz(); !ok || q.phase != quizRevealed || msg.index != q.index {
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
	q, _ := m.openQuiz()
	cur := q.current()
	if !cur.HasAt {
		return m.seekIndex(m.eng.Len())
	}
	m.rewind()
	span := float64(cur.At-m.eng.Now()) / 1000
	if span <= 0 {
		return m.seek(cur.At)
	}
	m.speed = 1
	for m.speed*proofSeconds < span && m.speed < scenarios.MaxSpeed {
		m.speed = min(m.speed*2, scenarios.MaxSpeed)
	}
	return m.play()
}

// leaveQuiz returns to the scenario the quiz was opened from, or for the
// quiz command, shows the score.
func (m Model) leaveQuiz() (tea.Model, tea.Cmd) {
	m.stop()
	q, _ := m.openQuiz()
	if !q.fromView {
		q.phase, q.scroll = quizDone, 0
		m.dialog = q
		return m, nil
	}
	s := q.saved
	m.setScenario(s.sc, s.eng)
	m.dialog = s.dialog
	return m, m.move(func(e *sim.Engine) {
		e.SeekIndex(s.processed)
		e.Seek(s.now)
	})
}

// quizLane is the lane of the limiter the revealed question is about.
func (m Model) quizLane() (int, bool) {
	q, ok := m.openQuiz()
	if !ok || q.phase != quizRevealed {
		return 0, false
	}
	cur := q.current()
	if !cur.HasAlgorithm {
		return 0, false
	}
	for i, a := range m.snap.Algorithms {
		if a == cur.Algorithm {
			return i, true
		}
	}
	return 0, false
}

// headerView is the quiz's own header while a question is asked.
func (q quizDialog) headerView(c render.Common) []string {
	st := c.Styles
	left := st.AppName.Render("windowlab · ") + st.Title.Render("check yourself")
	title := ""
	if q.title != "" {
		title = st.Faint.Render(" · " + q.title)
	}
	sc := q.score()
	pos := fmt.Sprintf("question %d of %d", min(q.index+1, len(q.questions)), len(q.questions))
	if q.phase == quizDone {
		pos = "done"
	}
	tally := fmt.Sprintf("%d right, %d wrong", sc.Right, sc.Wrong)
	if sc.Skipped > 0 {
		tally += fmt.Sprintf(", %d skipped", sc.Skipped)
	}
	score := st.Label.Render(pos+" · ") + st.Value.Render(tally)
	if q.live != 0 {
		score = st.Label.Render(fmt.Sprintf("the room's question %d", q.number))
	}
	if c.Cells.StringWidth(left+title)+2+c.Cells.StringWidth(score) <= c.Width {
		return []string{c.Spread(left+title, score, c.Width, true), ""}
	}
	// Too long beside the score: the title gets lines of its own, whole.
	lines := []string{c.Spread(left, score, c.Width, true)}
	lines = append(lines, strings.Split(c.Wrap(st.Faint.Render(q.title), c.Width), "\n")...)
	return append(lines, "")
}

// textWidth is the measure questions are set at: the screen, up to a
// comfortable line length.
func textWidth(c render.Common) int { return min(c.Width, 100) }

// lines are the question being asked, or the score, in h lines.
func (q quizDialog) lines(c render.Common, h int) []string {
	st := c.Styles
	w := textWidth(c)
	if q.phase == quizDone {
		return q.scoreView(c, h)
	}
	cur := q.current()
	var out []string
	from := ""
	if cur.From != "" {
		from = st.Faint.Render(" · " + cur.From)
	}
	out = append(out, st.Title.Render(fmt.Sprintf("Question %d", q.questionNumber()))+from, "")
	for _, l := range strings.Split(c.Wrap(cur.Ask, w), "\n") {
		out = append(out, st.Value.Render(l))
	}
	out = append(out, "")
	if q.typed() {
		in := q.input
		in.SetStyles(st.Input)
		out = append(out, in.View())
	} else {
		for i, choice := range cur.Choices {
			mark, style := "  ", st.Label.UnsetBold()
			switch {
			case q.tried(i):
				mark, style = "✗ ", st.Faint.Style
			case i == q.choice:
				mark, style = "▸ ", st.Selected.Style
			}
			prefix := fmt.Sprintf("%s%d  ", mark, i+1)
			lines := strings.Split(c.Wrap(choice, w-c.Cells.StringWidth(prefix)), "\n")
			for j, l := range lines {
				p := prefix
				if j > 0 {
					p = strings.Repeat(" ", c.Cells.StringWidth(prefix))
				}
				out = append(out, style.Render(p+l))
			}
		}
	}
	if q.live != 0 && q.sent != "" {
		out = append(out, "")
		for _, l := range strings.Split(c.Wrap("Sent: "+q.sent+". You may change it until the teacher reveals the answer.", w), "\n") {
			out = append(out, st.Selected.Render(l))
		}
	}
	if q.secondTry() && q.live == 0 {
		// The first answer was wrong: say so, and give the first step.
		tried := q.given[q.index][0]
		if !q.typed() {
			tried = fmt.Sprintf("choice %d", slices.Index(cur.Choices, tried)+1)
		}
		out = append(out, "")
		for _, l := range strings.Split(c.Wrap(fmt.Sprintf("✗ Not %s. One more try.", tried), w), "\n") {
			out = append(out, st.Denied.Render(l))
		}
		if hint := cur.FirstStep(); hint != "" {
			for _, l := range strings.Split(c.Wrap("Hint: "+hint, w), "\n") {
				out = append(out, st.Caption.Render(l))
			}
		}
	}
	if q.err != "" {
		out = append(out, "", st.Err.Render(q.err))
	}
	return fitHeight(out, h)
}

func (q quizDialog) scoreView(c render.Common, h int) []string {
	lines := q.scoreLines(c)
	if len(lines) <= h || h < 3 {
		return fitHeight(lines, h)
	}
	// Taller than the screen: a window on it, scrolled with ↑/↓, that says
	// how much is above and below it rather than cutting it off.
	top := min(q.scroll, len(lines)-h)
	out := slices.Clone(lines[top : top+h])
	if top > 0 {
		out[0] = c.Styles.Faint.Render(fmt.Sprintf("↑ %d more lines above", top+1))
	}
	if below := len(lines) - (top + h); below > 0 {
		out[h-1] = c.Styles.Faint.Render(fmt.Sprintf("↓ %d more lines below (↑/↓ to scroll)", below+1))
	}
	return out
}

// scoreLines is the whole score: the tally, then each question reached,
// its mark and the right answer, wrapped to the screen and never cut.
func (q quizDialog) scoreLines(c render.Common) []string {
	st := c.Styles
	var out []string
	for _, l := range strings.Split(c.Wrap("Your score: "+q.score().String(), c.Width), "\n") {
		out = append(out, st.Title.Render(l))
	}
	out = append(out, "")
	for i, question := range q.questions {
		o := q.outcome[i]
		if o == quiz.NotReached {
			continue
		}
		given := q.given[i]
		var mark, detail string
		switch o {
		case quiz.Right:
			mark, detail = st.Glyphs.MarkOK, question.Answer
		case quiz.RightSecondTry:
			mark, detail = st.Glyphs.MarkOK, fmt.Sprintf("%s, at the second try (you said %s first)", question.Answer, given[0])
		case quiz.Wrong:
			mark, detail = st.Glyphs.MarkNo, fmt.Sprintf("you said %s; the answer is %s", strings.Join(given, ", then "), question.Answer)
		case quiz.Skipped:
			mark, detail = st.Faint.Render("–"), "skipped; the answer is "+question.Answer
			if len(given) > 0 {
				detail = fmt.Sprintf("skipped after %s; the answer is %s", given[0], question.Answer)
			}
		}
		// The question wraps under its number, never cut; the answer
		// follows its last line when it fits, and wraps below it,
		// indented, when it does not.
		prefix := fmt.Sprintf("%s %2d. ", mark, i+1)
		indent := strings.Repeat(" ", c.Cells.StringWidth(prefix))
		room := max(c.Width-c.Cells.StringWidth(prefix), 1)
		asked := strings.Split(c.Wrap(strings.Join(strings.Fields(question.Ask), " "), room), "\n")
		tail := " — " + detail
		last := len(asked) - 1
		fits := c.Cells.StringWidth(asked[last])+c.Cells.StringWidth(tail) <= room
		for j, l := range asked {
			p := indent
			if j == 0 {
				p = prefix
			}
			if j == last && fits {
				l += st.Faint.Render(tail)
			}
			out = append(out, p+l)
		}
		if fits {
			continue
		}
		for _, l := range strings.Split(c.Wrap(detail, room), "\n") {
			out = append(out, indent+st.Faint.Render(l))
		}
	}
	return out
}

// revealView takes the caption's place while an answer is revealed: the
// verdict, the explanation, and the decision that proves it.
func (m Model) revealView(q quizDialog) []string {
	st, w := m.c.Styles, m.c.Width
	cur := q.current()
	var text []string
	add := func(s string, style func(...string) string, most int) {
		lines := strings.Split(m.c.Wrap(s, w), "\n")
		if most > 0 && len(lines) > most {
			lines = lines[:most]
			lines[most-1] = m.c.Cells.Truncate(lines[most-1], w-1, "") + "…"
		}
		for _, l := range lines {
			text = append(text, style(l))
		}
	}
	// The verdict and the right answer are never cut; the explanation
	// and the proof give way.
	given := q.given[q.index]
	switch q.outcome[q.index] {
	case quiz.Right:
		add(fmt.Sprintf("✓ Right: %s", cur.Answer), st.Allowed.Bold(true).Render, 0)
	case quiz.RightSecondTry:
		add(fmt.Sprintf("✓ Right at the second try: %s", cur.Answer), st.Allowed.Bold(true).Render, 0)
	case quiz.Skipped:
		if q.live != 0 {
			add(fmt.Sprintf("– You sent no answer: the answer is %s", cur.Answer), st.Label.Render, 0)
		} else {
			add(fmt.Sprintf("– Skipped: the answer is %s", cur.Answer), st.Label.Render, 0)
		}
	default:
		add(fmt.Sprintf("✗ Not quite: you answered %s; the answer is %s", strings.Join(given, ", then "), cur.Answer), st.Denied.Render, 0)
	}
	if cur.Explain != "" {
		add(cur.Explain, st.Caption.Render, 3)
	}
	add(m.proofText(cur), st.Value.Render, 4) // its figures explained take room

	return text
}

// proofText is what the engine shows at the question's instant: the
// limiter's totals and the arithmetic of its last decision (quiz.ProofAt),
// read from the snapshot the lanes show.
func (m Model) proofText(cur quiz.Item) string {
	s := m.snap
	if cur.HasAt && s.Now < cur.At {
		return fmt.Sprintf("▶ replaying to %s, the moment that proves it…", cur.At.Short())
	}
	if _, ok := m.quizLane(); !ok {
		if cur.HasAt {
			return fmt.Sprintf("At %s: see the lanes below.", cur.At.Short())
		}
		return "The whole replay is below."
	}
	return human.KeepVerdict(strings.Join(cur.ProofAt(s.Stats, s.Last, s.HasLast), " "))
}

// help is the bindings the help line offers in the quiz's phase, worded
// for it.
func (q quizDialog) help() []key.Binding {
	k := q.keys
	leave, exit := k.Leave, k.Exit
	if q.fromView {
		leave.SetHelp("esc", "back to the scenario")
		exit.SetEnabled(false)
	}
	if q.live != 0 {
		k.Check.SetHelp("enter", "send your answer")
		k.Skip.SetHelp("esc", "back to the view")
		k.Next.SetHelp("enter", "back to the class")
	}
	switch q.phase {
	case quizAsking:
		if q.typed() {
			return []key.Binding{k.Check, k.Skip, exit}
		}
		k.Up.SetHelp(fmt.Sprintf("↑/↓ or 1–%d", len(q.current().Choices)), "choose")
		return []key.Binding{k.Up, k.Check, k.Skip, exit}
	case quizRevealed:
		if q.live != 0 {
			return []key.Binding{k.Next, k.Replay, k.Clock}
		}
		if q.index == len(q.questions)-1 {
			k.Next.SetHelp("enter", "see your score")
		}
		return []key.Binding{k.Next, k.Replay, k.Clock, leave, exit}
	}
	if q.fromView {
		k.Check.SetHelp("enter", "back to the scenario")
		return []key.Binding{k.Check}
	}
	return []key.Binding{k.Quit}
}

// hint is what to do that no key says: type the answer.
func (q quizDialog) hint() string {
	switch {
	case q.phase == quizAsking && q.live != 0:
		return "the teacher asks the room"
	case q.phase == quizAsking && q.typed() && q.secondTry():
		return "one more try"
	case q.phase == quizAsking && q.typed():
		return "type your answer"
	}
	return ""
}
