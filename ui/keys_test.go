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
			// A line may name several keys ("+ −", "→/l ←/h"): each is one the binding takes.
			keys := strings.Fields(shown)
			if strings.HasPrefix(shown, "↑/↓") { // "↑/↓ or 1–3"
				keys = keys[:1]
			}
			for _, one := range keys {
				want := one
				switch {
				case strings.HasPrefix(one, "↑/↓"):
					want = "up"
				case one == "←/→":
					want = "left"
				case one == "→/l":
					want = "right"
				case one == "←/h":
					want = "left"
				case one == "n/p":
					want = "n"
				}
				if !slices.Contains(b.Keys(), want) {
					t.Errorf("%s: help %q %q, but the binding takes %v", where, shown, b.Help().Desc, b.Keys())
				}
			}
			if b.Help().Desc == "" {
				t.Errorf("%s: help %q says nothing", where, shown)
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
	if s := screen(m); strings.Contains(s, "fewer keys") || strings.Contains(s, "zoom in / out") {
		t.Fatalf("esc left the list of keys open:\n%s", s)
	}
	m = update(t, m, press("?", "t", "esc")...)
	if modeOf(m) != modeMain {
		t.Fatalf("after ? t esc: %s", modeOf(m))
	}
	if s := screen(m); strings.Contains(s, "fewer keys") || strings.Contains(s, "zoom in / out") {
		t.Fatalf("the list of keys came back after the go-to prompt closed:\n%s", s)
	}

	l := newLesson(t, 100, 30, false)
	s := screen(update(t, l, press("?")...))
	if strings.Count(s, "previous step") != 1 || strings.Contains(s, "n/p") {
		t.Errorf("the lesson's list of keys names the step keys more than once:\n%s", s)
	}
	for _, want := range []string{"n p       next / previous step"} {
		if !strings.Contains(s, want) {
			t.Errorf("the lesson's list of keys lacks %q:\n%s", want, s)
		}
	}
}
