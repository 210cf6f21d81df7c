package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"windowlab/algo"
	"windowlab/quiz"
	"windowlab/scenarios"
	"windowlab/ui/render"
)

// lessonSteps are two hand-built steps: the boundary burst with pausing
// captions, then the worked example.
func lessonSteps() []*scenarios.Scenario {
	burst := boundaryBurst()
	burst.Title = "The fixed window: 200 requests in 2 seconds"
	burst.Captions = []scenarios.Caption{
		{At: algo.Clock(12, 0, 58, 0), Text: "Limit 100 a minute, one counter per calendar minute. Press space."},
		{At: algo.Clock(12, 0, 59, 0), Text: "100 at 12:00:59: the counter reaches 100 and all are allowed.", Pause: true},
		{At: algo.Clock(12, 1, 0, 0), Text: "A new minute, a new counter: 100 more allowed, 200 in 2 seconds.", Pause: true},
	}
	return []*scenarios.Scenario{burst, workedExample()}
}

func newLesson(t testing.TB, w, h int, presenter bool) Model {
	t.Helper()
	m, err := New(Options{Lesson: lessonSteps(), Presenter: presenter})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	return update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
}

// playFor sends ticks a frame apart until the clock stops or n frames pass.
func playFor(t testing.TB, m Model, n int) Model {
	t.Helper()
	at := time.Unix(1000, 0)
	for i := 0; i < n && m.Playing(); i++ {
		m = update(t, m, tickMsg{at: at.Add(time.Duration(i) * frame), gen: m.gen})
	}
	return m
}

func TestLessonStepsWithNAndP(t *testing.T) {
	m := newLesson(t, 80, 24, false)
	if s := screen(m); !strings.Contains(s, "step 1 of 2 · The fixed window") {
		t.Fatalf("header:\n%s", s)
	}
	m = update(t, m, press("space")...)
	m = update(t, m, press("n")...)
	if i, n := m.Step(); i != 1 || n != 2 || m.Playing() {
		t.Fatalf("n: step %d of %d, playing %v; want step 2, paused", i+1, n, m.Playing())
	}
	if now, done := m.Position(); done != 0 || now != algo.Clock(12, 0, 29, 0) {
		t.Fatalf("step 2 starts at %v with %d decided", now, done)
	}
	if s := screen(m); !strings.Contains(s, "step 2 of 2 · Worked example") {
		t.Fatalf("header:\n%s", s)
	}
	m = update(t, m, press("n")...)
	if i, _ := m.Step(); i != 1 || !strings.Contains(screen(m), "this is the last step") {
		t.Fatalf("n past the end: step %d\n%s", i+1, screen(m))
	}
	m = update(t, m, press("p", "p")...)
	if i, _ := m.Step(); i != 0 || !strings.Contains(screen(m), "this is the first step") {
		t.Fatalf("p p: step %d\n%s", i+1, screen(m))
	}
	// Outside a lesson n and p do nothing.
	plain := newModel(t, boundaryBurst(), 80, 24)
	if a, b := screen(plain), screen(update(t, plain, press("n", "p")...)); a != b {
		t.Fatal("n and p changed a scenario outside a lesson")
	}
}

func TestPlayingStopsAtAPausingCaption(t *testing.T) {
	m := newLesson(t, 80, 24, false)
	m = update(t, m, press("space")...)
	m = playFor(t, m, 1000)
	if now, n := m.Position(); m.Playing() || now != algo.Clock(12, 0, 59, 0) || n != 100 {
		t.Fatalf("stopped at %v with %d decided, playing %v; want paused at the caption at 12:00:59 with 100", now, n, m.Playing())
	}
	s := screen(m)
	if !strings.Contains(s, "paused at the caption: space goes on") || !strings.Contains(s, "100 at 12:00:59") {
		t.Fatalf("frame at the pause:\n%s", s)
	}
	// Space goes on, to the next pausing caption.
	m = update(t, m, press("space")...)
	if !m.Playing() {
		t.Fatal("space at a pause did not play")
	}
	m = playFor(t, m, 1000)
	if now, n := m.Position(); m.Playing() || now != algo.Clock(12, 1, 0, 0) || n != 200 {
		t.Fatalf("stopped at %v with %d decided; want the caption at 12:01:00 with 200", now, n)
	}
	// Past the last pause it plays to the end.
	m = update(t, m, press("space")...)
	m = playFor(t, m, 100_000)
	if now, _ := m.Position(); m.Playing() || now != algo.Clock(12, 2, 0, 0) {
		t.Fatalf("stopped at %v; want the end, 12:02:00", now)
	}
}

func TestScenarioSpeed(t *testing.T) {
	sc := boundaryBurst()
	sc.Speed = 60
	m := newModel(t, sc, 80, 24)
	if m.speed != 60 || !strings.Contains(screen(m), "60×") {
		t.Fatalf("speed %v", m.speed)
	}
}

// Presenter mode fills the screen from 100×30 to 200×50: the verdict of
// the lane the caption is about in block letters, rows tall, that lane in
// full and the others in full where they fit, else one line each; smaller
// screens get the ordinary lanes, bolder.
func TestPresenterDrawsTheVerdictLarge(t *testing.T) {
	for _, size := range [][2]int{{100, 30}, {140, 40}, {200, 50}} {
		m, err := New(Options{Lesson: scenarios.Lesson(), LessonStep: 3, Presenter: true})
		if err != nil {
			t.Fatal(err)
		}
		m.budget = inFrame
		m = update(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m = update(t, m, goTo("12:01:15")...)
		s := screen(m)
		checkFrame(t, s, size[0], size[1])
		drawn := false
		for sx := 1; sx <= 3 && !drawn; sx++ {
			drawn = true
			for _, r := range render.BlockRows("93 → ALLOW", sx, 1) {
				drawn = drawn && strings.Contains(s, r)
			}
		}
		if !drawn {
			t.Errorf("%v: the verdict is not in block letters:\n%s", size, s)
		}
		for _, w := range []string{"Sliding window counter", "30 + 84 × 0.75 = 93 → allow (93 < 100)",
			"Fixed window", "✓ window 12:01:00–12:02:00 holds 30", "Sliding window log", "✗ 100 timestamps"} {
			if !strings.Contains(s, w) {
				t.Errorf("%v: the screen lacks %q:\n%s", size, w, s)
			}
		}
		blank := 0
		for _, l := range strings.Split(s, "\n") {
			if strings.TrimSpace(l) == "" {
				blank++
			}
		}
		if blank > size[1]/3 {
			t.Errorf("%v: %d blank rows of %d", size, blank, size[1])
		}
	}
	m := newLesson(t, 80, 24, true)
	if m.c.Styles.Faint.GetFaint() || !m.c.Styles.Label.GetBold() {
		t.Error("presenter styles should be bold and never faint")
	}
	if s := screen(update(t, m, goTo("12:00:59")...)); strings.Contains(s, "█████████") && !strings.Contains(s, "now") {
		t.Errorf("80×24 should get the ordinary lanes:\n%s", s)
	}
}

// quizQuestions are the lesson's two questions over the hand-built scenarios.
func quizQuestions() []quiz.Item {
	cy := boundaryBurst()
	cy.Title = "Check yourself"
	return []quiz.Item{
		{
			Question: scenarios.Question{
				Ask:    "A fixed window allows 100 requests per minute. A client sends 100 requests at 12:00:59 and 100 more at 12:01:00. How many get through?",
				Answer: "200", Explain: "The two bursts fall in different windows, each within its own limit.",
				At: algo.Clock(12, 1, 0, 0), HasAt: true, Algorithm: algo.Algorithm{Kind: algo.KindFixedWindow}, HasAlgorithm: true,
			},
			Kind: quiz.FromLesson, From: "the lesson", Scenario: cy,
		},
		{
			Question: scenarios.Question{
				Ask: "The sliding counter multiplies the previous window by 0.75. What does 0.75 represent?",
				Choices: []string{
					"The share of the current window that has already passed",
					"The share of the previous window that still falls inside the last 60 seconds",
					"The fraction of the limit the client has used",
				},
				Answer:  "The share of the previous window that still falls inside the last 60 seconds",
				Explain: "At 12:01:15 the last 60 seconds reach back to 12:00:15: 45 of the previous window's 60 seconds.",
				At:      algo.Clock(12, 1, 15, 0), HasAt: true, Algorithm: algo.Algorithm{Kind: algo.KindSlidingCounter}, HasAlgorithm: true,
			},
			Kind: quiz.FromLesson, From: "the lesson", Scenario: workedExample(),
		},
	}
}

func newQuizModel(t testing.TB, w, h int) Model {
	t.Helper()
	m, err := New(Options{Quiz: quizQuestions(), QuizTitle: "seed 1"})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	return update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
}

// answer presses enter and runs the reveal's command, then plays the replay
// to the proving moment.
func answer(t testing.TB, m Model) Model {
	t.Helper()
	next, cmd := m.Update(keyMsg("enter"))
	m = next.(Model)
	if cmd != nil {
		if msg, ok := runCmd(cmd).(revealMsg); ok {
			m = update(t, m, msg)
		}
	}
	return playFor(t, m, 10_000)
}

func TestQuizTypedAnswer(t *testing.T) {
	m := newQuizModel(t, 80, 24)
	if s := screen(m); !strings.Contains(s, "Question 1") || !strings.Contains(s, "your answer ›") {
		t.Fatalf("first question:\n%s", s)
	}
	// Enter on nothing asks for an answer.
	m = update(t, m, press("enter")...)
	if !strings.Contains(screen(m), "type an answer first") || quizOf(m).phase != quizAsking {
		t.Fatalf("empty answer:\n%s", screen(m))
	}
	m = update(t, m, typeText(" 200 ")...)
	m = answer(t, m)
	if sc := m.QuizScore(); sc.Right != 1 || sc.Reached() != 1 || sc.Total != 2 {
		t.Fatalf("score %s", sc)
	}
	if now, n := m.Position(); now != algo.Clock(12, 1, 0, 0) || n != 200 || m.Playing() {
		t.Fatalf("the proof stopped at %v with %d decided (playing %v); want 12:01:00, 200", now, n, m.Playing())
	}
	s := screen(m)
	for _, want := range []string{"✓ Right: 200", "By 12:01:00 the fixed window allowed 200 requests and denied 0", "allowed 99 requests before this one → allow (99 < limit 100)", "holds 99 → allow (99 < 100)", "◀ the question"} {
		if !strings.Contains(s, want) {
			t.Errorf("reveal lacks %q:\n%s", want, s)
		}
	}
	// The choice question: digits pick, enter checks.
	m = update(t, m, press("enter")...)
	if s := screen(m); !strings.Contains(s, "Question 2") || !strings.Contains(s, "▸ 1") {
		t.Fatalf("second question:\n%s", s)
	}
	// Two wrong choices of three: the second try, then the reveal.
	m = update(t, m, press("3", "enter", "1")...)
	m = answer(t, m)
	if sc := m.QuizScore(); sc.Right != 1 || sc.Wrong != 1 || sc.Reached() != 2 {
		t.Fatalf("a wrong choice scored: %s", sc)
	}
	if s := screen(m); !strings.Contains(s, "✗ Not quite") || !strings.Contains(s, "84 in the previous × weight 0.75") {
		t.Fatalf("wrong-answer reveal:\n%s", s)
	}
	m = update(t, m, press("enter")...)
	if s := screen(m); !strings.Contains(s, "Your score: 1 right, 1 wrong, 0 skipped of 2") {
		t.Fatalf("score screen:\n%s", s)
	}
}

func TestQuizFromTheScenarioView(t *testing.T) {
	sc := boundaryBurst()
	sc.Questions = []scenarios.Question{quizQuestions()[0].Question}
	m := newModel(t, sc, 80, 24)
	m = update(t, m, goTo("12:00:59")...)
	before := screen(m)
	if !strings.Contains(before, "k check yourself") {
		t.Fatalf("help does not offer k:\n%s", before)
	}
	m = update(t, m, press("k")...)
	m = update(t, m, typeText("100")...)
	m = update(t, m, press("enter")...)
	m = update(t, m, typeText("150")...)
	m = answer(t, m)
	if s := screen(m); !strings.Contains(s, "✗ Not quite: you answered 100, then 150; the answer is 200") {
		t.Fatalf("reveal:\n%s", s)
	}
	m = update(t, m, press("esc")...)
	if modeOf(m) != modeMain || screen(m) != before {
		t.Fatalf("esc should return to the scenario as it was:\n%s", screen(m))
	}
	// A scenario without questions says so.
	plain := newModel(t, workedExample(), 80, 24)
	if s := screen(update(t, plain, press("k")...)); !strings.Contains(s, "this scenario has no questions") {
		t.Fatalf("k without questions:\n%s", s)
	}
}

// TestGoldenTeaching pins a quiz question, its reveal and a lesson step.
func TestGoldenTeaching(t *testing.T) {
	frames := map[string]func(t *testing.T, w, h int) Model{
		"quiz-question": func(t *testing.T, w, h int) Model {
			m := newQuizModel(t, w, h)
			return update(t, m, typeText("200")...)
		},
		"quiz-reveal": func(t *testing.T, w, h int) Model {
			m := newQuizModel(t, w, h)
			return answer(t, update(t, m, typeText("200")...))
		},
		"quiz-choice": func(t *testing.T, w, h int) Model {
			m := newQuizModel(t, w, h)
			m = answer(t, update(t, m, typeText("200")...))
			return update(t, m, press("enter", "down")...)
		},
		"quiz-second-try": func(t *testing.T, w, h int) Model {
			m := newQuizModel(t, w, h)
			return update(t, m, append(typeText("150"), keyMsg("enter"))...)
		},
		"quiz-score": func(t *testing.T, w, h int) Model {
			m := newQuizModel(t, w, h)
			m = keyThenReveal(t, update(t, m, typeText("2")...), "esc")
			m = update(t, m, press("enter", "3", "enter", "1")...)
			return update(t, answer(t, m), press("enter")...)
		},
		"lesson-step": func(t *testing.T, w, h int) Model {
			m := newLesson(t, w, h, false)
			return playFor(t, update(t, m, press("space")...), 1000)
		},
		"lesson-presenter": func(t *testing.T, w, h int) Model {
			m := newLesson(t, w, h, true)
			return playFor(t, update(t, m, press("space")...), 1000)
		},
	}
	for name, build := range frames {
		t.Run(name, func(t *testing.T) {
			for _, sz := range sizes {
				t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
					out := screen(build(t, sz[0], sz[1]))
					checkFrame(t, out, sz[0], sz[1])
					golden.RequireEqual(t, out)
				})
			}
		})
	}
}

// Questions about the scenario on screen are proved on its own engine, not
// on a new one replayed from the start for each.
func TestQuizReusesTheEngineOfTheSameScenario(t *testing.T) {
	sc := boundaryBurst()
	q := quizQuestions()[0].Question
	sc.Questions = []scenarios.Question{q, q}
	m, err := New(Options{Quiz: quiz.Of(sc), QuizTitle: "two"})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	eng := m.eng
	for i := range 2 {
		m = update(t, m, typeText("200")...)
		next, cmd := m.Update(keyMsg("enter"))
		m = next.(Model)
		if _, rebuilt := runCmd(cmd).(revealMsg); rebuilt || m.eng != eng {
			t.Fatalf("question %d built a new engine", i+1)
		}
		m = playFor(t, m, 10_000)
		if now, n := m.Position(); now != algo.Clock(12, 1, 0, 0) || n != 200 {
			t.Fatalf("question %d proved at %v with %d decided", i+1, now, n)
		}
		m = update(t, m, press("enter")...)
	}
	if sc := m.QuizScore(); sc.Right != 2 || sc.Reached() != 2 {
		t.Errorf("score %s", sc)
	}
}

// The lesson can open on any step (windowlab lesson --step N), and tab
// alone runs it: through every caption, then on to the next step.
func TestLessonStartsAtAStepAndTabRunsIt(t *testing.T) {
	m, err := New(Options{Lesson: scenarios.Lesson(), LessonStep: 3})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	if i, n := m.Step(); i != 3 || n != 6 || !strings.Contains(screen(m), "step 4 of 6 · The sliding counter") {
		t.Fatalf("opened on step %d of %d:\n%s", i+1, n, screen(m))
	}
	steps := scenarios.Lesson()
	for s := 3; s < len(steps); s++ {
		seen := map[int]bool{}
		for n := 0; n <= len(steps[s].Captions); n++ {
			if i, _ := m.Step(); i != s {
				break
			}
			seen[m.captionIndex()] = true
			m = update(t, m, press("tab")...)
		}
		for c := range steps[s].Captions {
			if !seen[c] {
				t.Errorf("tab through step %d never showed captions[%d]", s+1, c)
			}
		}
		if i, _ := m.Step(); s < len(steps)-1 && i != s+1 {
			t.Fatalf("tab past step %d's last caption is on step %d", s+1, i+1)
		}
	}
	if _, err := New(Options{Lesson: scenarios.Lesson(), LessonStep: 6}); err == nil {
		t.Error("a step past the last opened")
	}
}

// k's choices are shuffled by the view's seed: over seeds the answer is
// at every position alike, so the choice the cursor starts on is not
// always the answer (it was: one enter scored "Right").
func TestViewQuizShufflesItsChoices(t *testing.T) {
	sc, err := scenarios.Builtin("worked-example")
	if err != nil {
		t.Fatal(err)
	}
	const seeds = 200
	at := map[int]int{}
	preselectedRight := 0
	for seed := range uint64(seeds) {
		m, err := New(Options{Scenario: sc, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		m.budget = inFrame
		m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
		m = update(t, m, press("k")...)
		q := quizOf(m)
		cur := q.current()
		if cur.Typed() {
			t.Fatalf("worked-example's first question should be a choice: %q", cur.Ask)
		}
		right := slices.Index(cur.Choices, cur.Answer)
		at[right]++
		if q.choice == right {
			preselectedRight++
		}
	}
	for pos := range 4 {
		if at[pos] < seeds/8 {
			t.Errorf("the answer is choice %d for %d of %d seeds: %v", pos+1, at[pos], seeds, at)
		}
	}
	if preselectedRight > seeds/2 {
		t.Errorf("the cursor starts on the answer for %d of %d seeds", preselectedRight, seeds)
	}
}

// At the lesson's last step, k asks the lesson's own two check-yourself
// questions, and each answer is proved by a replay of its scenario.
func TestLessonEndsWithItsCheckYourself(t *testing.T) {
	steps := scenarios.Lesson()
	m, err := New(Options{Lesson: steps, LessonStep: len(steps) - 1, LessonQuestions: quiz.Lesson(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	if s := screen(m); !strings.Contains(s, "k check yourself") {
		t.Errorf("the last step's help does not offer k:\n%s", s)
	}
	m = update(t, m, press("k")...)
	if modeOf(m) != modeQuiz {
		t.Fatalf("k at the lesson's end: %s, status %q", modeOf(m), m.status)
	}
	q := quizOf(m)
	var asks, want []string
	for _, it := range q.questions {
		asks = append(asks, it.Ask)
	}
	for _, it := range quiz.Lesson() {
		want = append(want, it.Ask)
	}
	if !slices.Equal(asks, want) {
		t.Fatalf("k asks %q, want the lesson's %q", asks, want)
	}
	m = update(t, m, typeText("200")...)
	m = answer(t, m)
	if s := words(screen(m)); !strings.Contains(s, "✓ Right: 200") || !strings.Contains(s, "the fixed window allowed 200") {
		t.Fatalf("the first answer is not proved by its replay:\n%s", screen(m))
	}
	// The other steps ask nothing.
	first, err := New(Options{Lesson: scenarios.Lesson(), LessonQuestions: quiz.Lesson(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	first = update(t, first, tea.WindowSizeMsg{Width: 100, Height: 30})
	if s := screen(update(t, first, press("k")...)); !strings.Contains(s, "this scenario has no questions") {
		t.Errorf("k at the lesson's first step:\n%s", s)
	}
}

// A lesson without check-yourself questions of its own (many-bouncers)
// asks at its last step only that step's questions, not the window
// lesson's.
func TestManyBouncersEndsWithItsOwnQuestions(t *testing.T) {
	steps, err := scenarios.LessonNamed("many-bouncers")
	if err != nil {
		t.Fatal(err)
	}
	last := steps[len(steps)-1]
	m, err := New(Options{Lesson: steps, LessonStep: len(steps) - 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = update(t, m, press("k")...)
	if modeOf(m) != modeQuiz {
		t.Fatalf("k at many-bouncers' end: %s, status %q", modeOf(m), m.status)
	}
	var asks []string
	for _, it := range quizOf(m).questions {
		asks = append(asks, it.Ask)
	}
	if len(asks) != len(last.Questions) || asks[0] != last.Questions[0].Ask {
		t.Fatalf("k asks %q, want the step's own %q", asks, last.Questions[0].Ask)
	}
	m = update(t, m, typeText("33")...)
	m = answer(t, m)
	if s := words(screen(m)); !strings.Contains(s, "✓ Right: 33") {
		t.Fatalf("the answer is not proved by its replay:\n%s", screen(m))
	}
}
