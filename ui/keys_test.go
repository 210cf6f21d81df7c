package ui

import (
	"slices"
	"strings"
	"testing"

	"windowlab/ui/render"

	"charm.land/bubbles/v2/key"
)

// Every help line is rendered from bindings, and every key it names is one
// its binding answers to: the help cannot drift from what the keys do.
func TestHelpNamesKeysTheBindingsTake(t *testing.T) {
	check := func(where string, bs []key.Binding) {
		t.Helper()
		if len(bs) == 0 {
			t.Errorf("%s: no help", where)
		}
		for _, b := range bs {
			if !b.Enabled() {
				continue
			}
			shown := b.Help().Key
			want := shown
			switch {
			case strings.HasPrefix(shown, "↑/↓"):
				want = "up"
			case shown == "←/→":
				want = "left"
			case shown == "→/l":
				want = "right"
			case shown == "←/h":
				want = "left"
			case shown == "n/p":
				want = "n"
			case len(shown) == 3 && shown[1] == ' ': // a pair: "( )"
				want = shown[:1]
			}
			if b.Help().Desc == "" || !slices.Contains(b.Keys(), want) {
				t.Errorf("%s: help %q %q, but the binding takes %v", where, shown, b.Help().Desc, b.Keys())
			}
		}
	}
	main := newKeyMap()
	main.setLesson(true)
	main.setQuestions(true)
	check("main", main.ShortHelp())
	for _, col := range main.FullHelp() {
		check("main, all keys", col)
	}
	check("go to time", newPromptKeys().ShortHelp())

	p := newPicker(nil, true, render.NewStyles(true, false), 0)
	check("open", p.help())
	p.typing = true
	check("open a file", p.help())

	for _, fromView := range []bool{false, true} {
		q := newQuizDialog(render.NewStyles(true, false)).start(quizQuestions(), "t", fromView)
		check("quiz, typed", q.help())
		q.phase = quizRevealed
		check("quiz, revealed", q.help())
		q.index, q.phase = 1, quizAsking
		check("quiz, choice", q.help())
		if h := q.help()[0].Help().Key; h != "↑/↓ or 1–3" {
			t.Errorf("the choice help says %q, want the number of choices", h)
		}
		q.phase = quizDone
		check("quiz, score", q.help())
	}
}

// esc closes the list of every key, as ? does; a dialog opened over it
// (t) closes it too, so it does not come back when the dialog closes; a
// lesson's list names each step key once.
func TestEscClosesTheKeysAndADialogDoesNotBringThemBack(t *testing.T) {
	m := newModel(t, boundaryBurst(), 100, 30)
	m = update(t, m, press("?")...)
	if !strings.Contains(screen(m), "fewer keys") {
		t.Fatalf("? shows no list of keys:\n%s", screen(m))
	}
	m = update(t, m, press("esc")...)
	if s := screen(m); strings.Contains(s, "fewer keys") || strings.Contains(s, "zoom out") {
		t.Fatalf("esc left the list of keys open:\n%s", s)
	}
	m = update(t, m, press("?", "t", "esc")...)
	if modeOf(m) != modeMain {
		t.Fatalf("after ? t esc: %s", modeOf(m))
	}
	if s := screen(m); strings.Contains(s, "fewer keys") || strings.Contains(s, "zoom out") {
		t.Fatalf("the list of keys came back after the go-to prompt closed:\n%s", s)
	}

	l := newLesson(t, 100, 30, false)
	s := screen(update(t, l, press("?")...))
	if strings.Count(s, "previous step") != 1 || strings.Contains(s, "n/p") {
		t.Errorf("the lesson's list of keys names the step keys more than once:\n%s", s)
	}
	for _, want := range []string{"n         next step", "p         previous step"} {
		if !strings.Contains(s, want) {
			t.Errorf("the lesson's list of keys lacks %q:\n%s", want, s)
		}
	}
}
