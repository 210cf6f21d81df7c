package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"windowlab/algo"
	"windowlab/sim"
)

// lessonEngine returns a NewEngine over hand-built arrivals, with the
// lesson's three limiters at limit per window.
func lessonEngine(limit int64, window time.Duration, arrivals []sim.Arrival) func(sim.Options) (*sim.Engine, error) {
	return func(o sim.Options) (*sim.Engine, error) {
		var ls []algo.Limiter
		for _, k := range algo.Lesson {
			l, err := algo.New(k, algo.Config{Limit: limit, Window: window})
			if err != nil {
				return nil, err
			}
			ls = append(ls, l)
		}
		return sim.New(sim.NewSliceSource(arrivals), ls, o)
	}
}

func repeat(arrivals []sim.Arrival, n int, at algo.Instant, client string) []sim.Arrival {
	for range n {
		arrivals = append(arrivals, sim.Arrival{At: at, Client: client})
	}
	return arrivals
}

// boundaryBurst is the lesson's fixed-window trap: 100 requests at 12:00:59
// and 100 at 12:01:00, limit 100 per minute.
func boundaryBurst() Scenario {
	a := repeat(nil, 100, algo.Clock(12, 0, 59, 0), "client-1")
	a = repeat(a, 100, algo.Clock(12, 1, 0, 0), "client-1")
	return Scenario{
		Name: "boundary-burst", Title: "Boundary burst", Limit: 100, Window: time.Minute,
		Captions: []Caption{
			{At: algo.Clock(12, 0, 59, 0), Text: "100 requests at 12:00:59: every limiter lets them all in."},
			{At: algo.Clock(12, 1, 0, 0), Text: "A new minute: the fixed window resets and lets 100 more in. 200 in 2 seconds."},
		},
		NewEngine: lessonEngine(100, time.Minute, a),
	}
}

// workedExample is the lesson's sliding-counter arithmetic: 84 requests in
// the 12:00 window, 30 at 12:01:14, one more at 12:01:15.
func workedExample() Scenario {
	a := repeat(nil, 84, algo.Clock(12, 0, 30, 0), "client-1")
	a = repeat(a, 30, algo.Clock(12, 1, 14, 0), "client-1")
	a = repeat(a, 1, algo.Clock(12, 1, 15, 0), "client-1")
	return Scenario{
		Name: "worked-example", Title: "Worked example", Limit: 100, Window: time.Minute,
		Captions: []Caption{
			{At: algo.Clock(12, 1, 15, 0), Text: "15 s into the minute the previous window still overlaps by 0.75: 30 + 84 × 0.75 = 93."},
		},
		NewEngine: lessonEngine(100, time.Minute, a),
	}
}

func newModel(t testing.TB, sc Scenario, w, h int) Model {
	t.Helper()
	m, err := New(Options{Scenario: sc, Builtins: []Scenario{boundaryBurst(), workedExample()}})
	if err != nil {
		t.Fatal(err)
	}
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
	switch k {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
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
