package ui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/room"
	"windowlab/scenarios"
	"windowlab/ui/render"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// parse reads a scenario written in a test, as the program reads a file.
func parse(yaml string) *scenarios.Scenario {
	s, err := scenarios.Parse("test.yaml", []byte(yaml))
	if err != nil {
		panic(err) // the test's own scenario is wrong
	}
	return s
}

// fixture reads a scenario from testdata/fixtures (the fixtures ui/render's tests read too).
func fixture(path string) *scenarios.Scenario {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return parse(string(b))
}

// boundaryBurst is the lesson's fixed-window trap: 100 requests at 12:00:59
// and 100 at 12:01:00, limit 100 per minute.
func boundaryBurst() *scenarios.Scenario {
	return fixture("render/testdata/fixtures/boundary-burst.yaml")
}

// workedExample is the lesson's sliding-counter arithmetic: 84 requests in
// the 12:00 window, 30 at 12:01:14, one more at 12:01:15.
func workedExample() *scenarios.Scenario {
	return fixture("render/testdata/fixtures/worked-example.yaml")
}

// quiet is a scenario whose random traffic happens to make no request.
func quiet() *scenarios.Scenario {
	return parse(`name: quiet
title: Nobody calls
limit: 10
window: 1s
traffic:
  - {from: "12:00:00", to: "12:00:01", rate: 0.001/s, clients: 1, seed: 1}
`)
}

// inFrame is the move budget of most tests: every move finishes inside
// Update, whatever the machine's load, so frames do not depend on timing.
// The tests of background jobs keep the view's own budget.
const inFrame = time.Hour

func newModel(t testing.TB, sc *scenarios.Scenario, w, h int) Model {
	t.Helper()
	m, err := New(Options{Scenario: sc, Builtins: []*scenarios.Scenario{boundaryBurst(), workedExample()}})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	return update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
}

func update(t testing.TB, m Model, msgs ...tea.Msg) Model {
	t.Helper()
	for _, msg := range msgs {
		next, _ := m.Update(msg)
		m = next.(Model)
	}
	return m
}

func press(keys ...string) []tea.Msg {
	var out []tea.Msg
	for _, k := range keys {
		out = append(out, keyMsg(k))
	}
	return out
}

func keyMsg(k string) tea.KeyPressMsg {
	if msg, ok := keyNamed(k); ok {
		return msg
	}
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k} // a named key the helper passes by its name: home, pgdown…
}

func typeText(s string) []tea.Msg {
	var out []tea.Msg
	for _, r := range s {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

func screen(m Model) string { return ansi.Strip(m.View().Content) }

// goTo types t, the time and enter.
func goTo(at string) []tea.Msg {
	msgs := press("t")
	msgs = append(msgs, typeText(at)...)
	return append(msgs, keyMsg("enter"))
}

func stringWidth(s string) int { return ansi.StringWidth(s) }

// The dialogs by name, for the tests to say which one is open (modeOf).
const (
	modeMain    = "the main view"
	modeGoTo    = "the go-to-time prompt"
	modePicker  = "the scenario picker"
	modeQuiz    = "the quiz"
	modeClients = "the client picker"
	modeWhatIf  = "the what-if form"
	modeName    = "the name prompt"
	modePoll    = "ask the room"
)

// modeOf names the dialog open in m.
func modeOf(m Model) string {
	switch m.dialog.(type) {
	case nil:
		return modeMain
	case goToPrompt:
		return modeGoTo
	case scenarioPicker:
		return modePicker
	case quizDialog:
		return modeQuiz
	case clientPicker:
		return modeClients
	case whatIfForm:
		return modeWhatIf
	case namePrompt:
		return modeName
	case pollDialog:
		return modePoll
	}
	return fmt.Sprintf("%T", m.dialog)
}

// quizOf is the quiz open in m (a zero quiz when none is).
func quizOf(m Model) quizDialog {
	q, _ := m.openQuiz()
	return q
}

// testRoom is a classroom for one view: a student's when follows, else a
// teacher's; what the view tells the room goes to the funcs set.
type testRoom struct {
	follows bool
	publish func(room.Position)
	report  func(bool)
	ask     func(room.Poll)
	answer  func(int, string)
}

func (r testRoom) Follows() bool { return r.follows }

func (r testRoom) Publish(p room.Position) {
	if r.publish != nil {
		r.publish(p)
	}
}

func (r testRoom) Report(following bool) {
	if r.report != nil {
		r.report(following)
	}
}

func (r testRoom) Ask(p room.Poll) {
	if r.ask != nil {
		r.ask(p)
	}
}

func (r testRoom) Answer(id int, text string) {
	if r.answer != nil {
		r.answer(id, text)
	}
}

// fourLimiters is the boundary burst through all four limiters.
func fourLimiters() *scenarios.Scenario {
	s := boundaryBurst()
	for _, name := range []string{"token-bucket"} {
		a, err := algo.ParseAlgorithm(name)
		if err != nil {
			panic(err)
		}
		s.Algorithms = append(s.Algorithms, a)
	}
	return s
}

// plain is a rendered component as a golden file holds it.
func plain(lines []string) string {
	return strings.ReplaceAll(ansi.Strip(strings.Join(lines, "\n")), render.NoBreak, " ")
}
