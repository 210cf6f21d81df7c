package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/quiz"
	"windowlab/scenarios"
)

// keyThenReveal presses k and, when that reveals an answer, runs the
// reveal's command and plays the replay to the proving moment.
func keyThenReveal(t testing.TB, m Model, k string) Model {
	t.Helper()
	next, cmd := m.Update(keyMsg(k))
	m = next.(Model)
	if cmd != nil {
		if msg, ok := runCmd(cmd).(revealMsg); ok {
			m = update(t, m, msg)
		}
	}
	return playFor(t, m, 10_000)
}

// words is a screen's text with its line breaks and padding gone, to find
// a sentence wherever it wraps.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// A wrong first answer gets one more try, with the hint, before the answer
// is revealed; a right second answer counts as right.
func TestQuizSecondTryWithHint(t *testing.T) {
	m := newQuizModel(t, 80, 24)
	m = update(t, m, typeText("150")...)
	m = update(t, m, press("enter")...)
	s := screen(m)
	if quizOf(m).phase != quizAsking || quizOf(m).input.Value() != "" {
		t.Fatalf("a wrong first answer should ask again with an empty prompt; phase %d, prompt %q", quizOf(m).phase, quizOf(m).input.Value())
	}
	for _, want := range []string{"✗ Not 150. One more try.", "Hint: The two bursts fall in different windows.", "one more try"} {
		if !strings.Contains(s, want) {
			t.Errorf("second try lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "200") {
		t.Errorf("the second try shows the answer:\n%s", s)
	}
	m = update(t, m, typeText("about 200 requests")...)
	m = answer(t, m)
	if s := screen(m); !strings.Contains(s, "✓ Right at the second try: 200") {
		t.Fatalf("reveal after a right second try:\n%s", s)
	}
	if sc := m.QuizScore(); sc.Right != 1 || sc.SecondTry != 1 || sc.Wrong != 0 {
		t.Fatalf("score %s, want 1 right at the second try", sc)
	}

	// Wrong twice: the reveal says both answers.
	m = newQuizModel(t, 80, 24)
	m = update(t, m, typeText("150")...)
	m = update(t, m, press("enter")...)
	m = update(t, m, typeText("100")...)
	m = answer(t, m)
	if s := screen(m); !strings.Contains(s, "✗ Not quite: you answered 150, then 100; the answer is 200") {
		t.Fatalf("reveal after two wrong answers:\n%s", s)
	}
	if sc := m.QuizScore(); sc.Wrong != 1 || sc.Right != 0 {
		t.Fatalf("score %s, want 1 wrong", sc)
	}
}

// A choice of three: the wrong choice is set aside for the second try, and
// the cursor cannot land on it again.
func TestQuizChoiceSecondTry(t *testing.T) {
	m := newQuizModel(t, 80, 24)
	m = answer(t, update(t, m, typeText("200")...))
	m = update(t, m, press("enter")...) // question 2
	wrong := quizOf(m).current().Choices[0]
	m = update(t, m, press("1", "enter")...)
	if quizOf(m).phase != quizAsking || !quizOf(m).tried(0) || quizOf(m).choice == 0 {
		t.Fatalf("a wrong choice of three should be tried again; phase %d, choice %d", quizOf(m).phase, quizOf(m).choice)
	}
	s := screen(m)
	if !strings.Contains(s, "✗ 1  "+wrong[:20]) || !strings.Contains(s, "✗ Not choice 1. One more try.") || !strings.Contains(s, "Hint: At 12:01:15 the last 60 seconds reach back to 12:00:15.") {
		t.Fatalf("second try of a choice:\n%s", s)
	}
	m = update(t, m, press("1")...)
	if quizOf(m).choice == 0 || !strings.Contains(screen(m), "you tried 1 already") {
		t.Fatalf("picking the tried choice again:\n%s", screen(m))
	}
	for range 4 {
		if m = update(t, m, press("up")...); quizOf(m).choice == 0 {
			t.Fatal("↑ landed on the tried choice")
		}
	}
	m = update(t, m, press("2")...)
	m = answer(t, m)
	if sc := m.QuizScore(); sc.Right != 2 || sc.SecondTry != 1 {
		t.Fatalf("score %s, want 2 right, 1 at the second try", sc)
	}

	// A choice of two has no second try: it would be the answer.
	two := quizQuestions()[1]
	two.Choices = two.Choices[:2]
	two.Answer = two.Choices[1]
	m, err := New(Options{Quiz: []quiz.Item{two}, QuizTitle: "two"})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = answer(t, m) // the first choice, the wrong one
	if quizOf(m).phase != quizRevealed || m.QuizScore().Wrong != 1 {
		t.Fatalf("a wrong choice of two should be revealed at once; phase %d, score %s", quizOf(m).phase, m.QuizScore())
	}
}

// esc skips a question: it is counted as skipped, not wrong, and its
// answer is revealed and proved like any other.
func TestQuizEscSkips(t *testing.T) {
	m := newQuizModel(t, 80, 24)
	m = update(t, m, typeText("15")...)
	m = keyThenReveal(t, m, "esc")
	s := screen(m)
	if quizOf(m).phase != quizRevealed || !strings.Contains(s, "– Skipped: the answer is 200") || strings.Contains(s, "you said") {
		t.Fatalf("esc on a question:\n%s", s)
	}
	if !strings.Contains(words(s), "By 12:01:00 the fixed window allowed 200 requests") {
		t.Errorf("a skipped question is proved too:\n%s", s)
	}
	if sc := m.QuizScore(); sc.Skipped != 1 || sc.Wrong != 0 || sc.Right != 0 {
		t.Fatalf("score %s, want 1 skipped", sc)
	}
	// The second question: a wrong first choice, then esc.
	m = update(t, m, press("enter", "3", "enter")...)
	m = keyThenReveal(t, m, "esc")
	m = update(t, m, press("enter")...)
	s = screen(m)
	if quizOf(m).phase != quizDone {
		t.Fatalf("no score after the last question:\n%s", s)
	}
	for _, want := range []string{
		"Your score: 0 right, 0 wrong, 2 skipped of 2",
		"skipped; the answer is 200",
		"skipped after The fraction of the limit the client has used; the answer is The share of the previous window that still falls inside the last 60 seconds",
	} {
		if !strings.Contains(words(s), want) {
			t.Errorf("score lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "you said ;") || strings.Contains(s, "✗") {
		t.Errorf("a skipped question is marked wrong:\n%s", s)
	}
}

// Quitting on a question (ctrl+c, or q on a choice) counts it as skipped,
// and the questions after it as not reached.
func TestQuizScoreWhenTheQuizEnds(t *testing.T) {
	m := newQuizModel(t, 80, 24)
	m = answer(t, update(t, m, typeText("200")...))
	m = update(t, m, press("enter")...)
	if sc := m.QuizScore(); sc.String() != "1 right, 0 wrong, 1 skipped of 2" {
		t.Errorf("quitting on question 2: %s", sc)
	}
	m = update(t, m, press("q")...)
	if quizOf(m).phase != quizDone || !strings.Contains(screen(m), "Your score: 1 right, 0 wrong, 1 skipped of 2") {
		t.Fatalf("q on a choice question:\n%s", screen(m))
	}
	qs := quizQuestions()
	m, err := New(Options{Quiz: []quiz.Item{qs[0], qs[0], qs[0]}, QuizTitle: "three"})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = keyThenReveal(t, m, "esc") // skip the first
	m = update(t, m, press("esc")...)
	if s := screen(m); !strings.Contains(s, "Your score: 0 right, 0 wrong, 1 skipped of 3 (2 not reached)") {
		t.Fatalf("leaving after one question:\n%s", s)
	}
}

// longQuiz is n questions with long choices, the last one right.
func longQuiz(n int) []quiz.Item {
	base := quizQuestions()[1]
	items := make([]quiz.Item, n)
	for i := range items {
		items[i] = base
		items[i].Question = scenarios.Question{
			Ask:     fmt.Sprintf("Question number %d about the overlap, asked at some length so that it does not fit?", i+1),
			Choices: base.Choices, Answer: base.Answer, Explain: base.Explain,
			At: algo.Clock(12, 1, 15, 0), HasAt: true, Algorithm: base.Algorithm, HasAlgorithm: true,
		}
	}
	return items
}

// The score wraps the right answer at 80 columns and never cuts it, and
// when it is taller than the screen it scrolls rather than dropping the
// questions at the bottom.
func TestQuizScoreNeverCutsAnAnswer(t *testing.T) {
	m, err := New(Options{Quiz: longQuiz(12), QuizTitle: "long"})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	for i := range 12 {
		m = update(t, m, press("3", "enter", "1")...) // wrong, then wrong again
		m = answer(t, m)
		if i == 11 {
			break
		}
		m = update(t, m, press("enter")...)
	}
	m = update(t, m, press("enter")...)
	s := screen(m)
	checkFrame(t, s, 80, 24)
	right := "the answer is The share of the previous window that still falls inside the last 60 seconds"
	if !strings.Contains(words(s), "Your score: 0 right, 12 wrong, 0 skipped of 12") || !strings.Contains(words(s), right) {
		t.Fatalf("score:\n%s", s)
	}
	if !strings.Contains(s, "more lines below (↑/↓ to scroll)") {
		t.Fatalf("a score taller than the screen should say there is more:\n%s", s)
	}
	// Scrolling down, every question's whole answer is shown once.
	seen := map[string]bool{}
	for range 200 {
		for _, block := range strings.Split(s, "✗")[1:] {
			if n, _, ok := strings.Cut(strings.TrimSpace(block), "."); ok && strings.Contains(words(block), right) {
				seen[n] = true
			}
		}
		m = update(t, m, press("down")...)
		s = screen(m)
	}
	if len(seen) != 12 {
		t.Errorf("scrolling showed the whole answer of %d questions, want 12: %v", len(seen), seen)
	}
	if strings.Contains(s, "more lines below") || !strings.Contains(s, "more lines above") || !strings.Contains(s, "12. Question number 12") {
		t.Errorf("at the bottom of the score:\n%s", s)
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "seconds") && strings.HasSuffix(strings.TrimSpace(l), "…") {
			t.Errorf("an answer is cut: %q", l)
		}
	}
}

// The score shows each question whole, wrapped under its number (it cut
// them: "4. A sliding window coun… — 25.8"), at 80 and at 100 columns.
func TestQuizScoreNeverCutsAQuestion(t *testing.T) {
	for _, w := range []int{80, 100} {
		m, err := New(Options{Quiz: longQuiz(2), QuizTitle: "long"})
		if err != nil {
			t.Fatal(err)
		}
		m.budget = inFrame
		m = update(t, m, tea.WindowSizeMsg{Width: w, Height: 40})
		m = update(t, m, press("esc", "enter", "esc", "enter")...)
		s := screen(m)
		checkFrame(t, s, w, 40)
		if !strings.Contains(s, "Your score") || strings.Contains(s, "…") {
			t.Fatalf("%d columns: the score cuts something:\n%s", w, s)
		}
		for _, it := range longQuiz(2) {
			if !strings.Contains(words(s), it.Ask) {
				t.Errorf("%d columns: the score does not show %q whole:\n%s", w, it.Ask, s)
			}
		}
	}
}

// The quiz's header keeps the scenario's title whole: on a narrow screen it
// takes a line of its own rather than losing its tail to the score.
func TestQuizHeaderKeepsTheTitle(t *testing.T) {
	sc, err := scenarios.Builtin("boundary-burst") // its title is long and it has questions
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{80, 100, 140} {
		m := newModel(t, sc, w, 24)
		m = update(t, m, press("k")...)
		s := screen(m)
		checkFrame(t, s, w, 24)
		head := strings.Join(strings.Split(s, "\n")[:3], " ")
		if !strings.Contains(head, "check yourself") || !strings.Contains(words(head), sc.Title) || strings.Contains(head, "…") {
			t.Errorf("%d columns: the header does not hold %q whole:\n%s", w, sc.Title, s)
		}
	}
}
