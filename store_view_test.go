package main

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"windowlab/internal/redistest"
	"windowlab/redisstore"
	"windowlab/scenarios"
	"windowlab/ui"
)

func viewText(t *testing.T, m ui.Model, msgs ...tea.Msg) (ui.Model, string) {
	t.Helper()
	for _, msg := range msgs {
		next, _ := m.Update(msg)
		m = next.(ui.Model)
	}
	return m, ansi.Strip(m.View().Content)
}

// The view on a real Redis (tui --store): each lane's memory shows, beside
// the model, what its keys hold there, measured at the clock: at 12:01:00
// of the boundary burst one counter (88 B) for the fixed window, a sorted
// set of 100 timestamps for the log; stepping back (a checkpoint's copy of
// the keys) and forward again decides the same on Redis.
func TestViewOnRedisShowsMemoryUsage(t *testing.T) {
	srv := redistest.Start(t)
	st, err := redisstore.Open(context.Background(), srv.URL, redisstore.Options{Pipelined: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc, err := scenarios.Builtin("boundary-burst")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ui.New(ui.Options{Scenario: sc, Store: viewStore{st}})
	if err != nil {
		t.Fatal(err)
	}
	tab := tea.KeyPressMsg{Code: tea.KeyTab}
	m, text := viewText(t, m, tea.WindowSizeMsg{Width: 160, Height: 45}, tab, tab)
	for _, want := range []string{"12:01:00.000", "(Redis ≈164 B; MEMORY USAGE 88 B in 1 key)", "MEMORY USAGE 984 B in 1 key"} {
		if !strings.Contains(text, want) {
			t.Errorf("the view at the second caption lacks %q:\n%s", want, text)
		}
	}
	left, right := tea.KeyPressMsg{Code: tea.KeyLeft}, tea.KeyPressMsg{Code: tea.KeyRight}
	m, _ = viewText(t, m, left, left, left, right, right, right)
	if err := st.Err(); err != nil {
		t.Fatalf("stepping back and forth on Redis: %v", err)
	}
	_, text = viewText(t, m)
	if !strings.Contains(text, "MEMORY USAGE 88 B in 1 key") || strings.Contains(text, "Redis:") {
		t.Errorf("after stepping back and forth:\n%s", text)
	}
}

// The guided lesson on Redis (lesson --store): every step's engine decides
// there, and its lanes show what their keys hold.
func TestLessonOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	st, err := redisstore.Open(context.Background(), srv.URL, redisstore.Options{Pipelined: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, err := ui.New(ui.Options{Lesson: scenarios.Lesson(), Store: viewStore{st}})
	if err != nil {
		t.Fatal(err)
	}
	tab := tea.KeyPressMsg{Code: tea.KeyTab}
	next := tea.KeyPressMsg{Code: 'n', Text: "n"}
	m, _ = viewText(t, m, tea.WindowSizeMsg{Width: 160, Height: 45})
	for step := range 3 {
		var text string
		m, text = viewText(t, m, tab, tab)
		if !strings.Contains(text, "MEMORY USAGE") {
			t.Errorf("step %d on Redis shows no MEMORY USAGE:\n%s", step+1, text)
		}
		m, _ = viewText(t, m, next)
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if lanes := st.Lanes(); lanes < 6 {
		t.Errorf("three steps put %d limiters on Redis", lanes)
	}
}
