package ui

import (
	"context"
	"image/color"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"windowlab/algo"
	"windowlab/scenarios"
	"windowlab/ui/render"
)

func TestStepForwardThenBackIsTheSameFrame(t *testing.T) {
	for _, sz := range sizes {
		m := newModel(t, boundaryBurst(), sz[0], sz[1])
		start := screen(m)
		if got := screen(update(t, m, press("right", "left")...)); got != start {
			t.Fatalf("%v: → then ← from the start changed the frame:\n%s\nwant:\n%s", sz, got, start)
		}
		m = update(t, m, goTo("12:00:59")...)
		m = update(t, m, press("right")...) // request 101, the first at 12:01:00
		mid := screen(m)
		if got := screen(update(t, m, press("right", "right", "right", "left", "left", "left")...)); got != mid {
			t.Fatalf("%v: →→→ ←←← changed the frame:\n%s\nwant:\n%s", sz, got, mid)
		}
	}
}

func TestGoToTimeEqualsStepping(t *testing.T) {
	for _, sz := range sizes {
		stepped := newModel(t, workedExample(), sz[0], sz[1])
		for range 115 {
			stepped = update(t, stepped, press("l")...)
		}
		sought := newModel(t, workedExample(), sz[0], sz[1])
		sought = update(t, sought, goTo("12:01:15")...)
		if now, n := sought.Position(); now != algo.Clock(12, 1, 15, 0) || n != 115 {
			t.Fatalf("after going to 12:01:15: clock %v, %d decided; want 12:01:15.000, 115", now, n)
		}
		if a, b := screen(stepped), screen(sought); a != b {
			t.Fatalf("%v: stepping and seeking to 12:01:15 differ:\n%s\nvs\n%s", sz, a, b)
		}
	}
}

func TestGoToTimeRejectsNonsense(t *testing.T) {
	m := newModel(t, boundaryBurst(), 80, 24)
	before, _ := m.Position()
	m = update(t, m, goTo("12:61:00")...)
	out := screen(m)
	if !strings.Contains(out, `not a time: "12:61:00"; use HH:MM:SS or HH:MM:SS.mmm with minutes 00–59`) {
		t.Fatalf("no inline error:\n%s", out)
	}
	if now, _ := m.Position(); now != before {
		t.Fatalf("a rejected time moved the clock to %v", now)
	}
	// Fixing the text clears the error; esc leaves the clock where it was.
	m = update(t, m, press("backspace")...)
	if strings.Contains(screen(m), "not a time of day") {
		t.Fatal("the error outlived an edit")
	}
	m = update(t, m, press("esc")...)
	if now, _ := m.Position(); now != before || modeOf(m) != modeMain {
		t.Fatalf("esc: clock %v, mode %v", now, modeOf(m))
	}
}

func TestParseClock(t *testing.T) {
	good := map[string]algo.Instant{
		"12:00:59":     algo.Clock(12, 0, 59, 0),
		"9:05:00":      algo.Clock(9, 5, 0, 0),
		"12:01:15.5":   algo.Clock(12, 1, 15, 500),
		"12:01:15.005": algo.Clock(12, 1, 15, 5),
		" 00:00:00 ":   0,
	}
	for in, want := range good {
		if got, err := parseClock(in, algo.Clock(8, 0, 0, 0)); err != nil || got != want {
			t.Errorf("parseClock(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "12:00", "24:00:00", "12:60:00", "12:00:60", "12:00:59.1234", "12:0:59", "a:bc:de", "12:00:59."} {
		if _, err := parseClock(in, 0); err == nil {
			t.Errorf("parseClock(%q) accepted", in)
		} else if !strings.Contains(err.Error(), "HH:MM:SS") {
			t.Errorf("parseClock(%q): %v does not say what is valid", in, err)
		}
	}
	// On a dated clock (a replayed log), a time of day is on the day the
	// clock stands in; a date and time is itself.
	now := algo.Instant(time.Date(2026, 11, 30, 6, 31, 14, 0, time.UTC).UnixMilli())
	for in, want := range map[string]time.Time{
		"06:30:00":                  time.Date(2026, 11, 30, 6, 30, 0, 0, time.UTC),
		"23:59:59.250":              time.Date(2026, 11, 30, 23, 59, 59, 250e6, time.UTC),
		"2026-12-01 00:00:00":       time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"2026-12-01T01:00:00+01:00": time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := parseClock(in, now); err != nil || got != algo.Instant(want.UnixMilli()) {
			t.Errorf("dated: parseClock(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseClock("2026-13-01 00:00", now); err == nil || !strings.Contains(err.Error(), "type 2026-11-30 06:30:00") {
		t.Errorf("a bad date: %v", err)
	}
}

func TestPauseStopsTicks(t *testing.T) {
	m := newModel(t, boundaryBurst(), 80, 24)
	next, cmd := m.Update(keyMsg("space"))
	m = next.(Model)
	if !m.Playing() || cmd == nil {
		t.Fatal("space did not start playing with a tick")
	}
	at := time.Unix(0, 0)
	gen := m.gen
	next, cmd = m.Update(tickMsg{at: at, gen: gen})
	m = next.(Model)
	if cmd == nil {
		t.Fatal("a tick while playing did not schedule the next")
	}
	next, cmd = m.Update(keyMsg("space"))
	m = next.(Model)
	if m.Playing() || cmd != nil {
		t.Fatal("space did not pause")
	}
	before, _ := m.Position()
	for _, g := range []int{gen, m.gen} {
		next, cmd = m.Update(tickMsg{at: at.Add(time.Second), gen: g})
		m = next.(Model)
		if cmd != nil {
			t.Fatalf("a tick (gen %d) while paused scheduled another", g)
		}
		if now, _ := m.Position(); now != before {
			t.Fatalf("a tick while paused moved the clock from %v to %v", before, now)
		}
	}
}

func TestPlayMovesTheClockBySpeedTimesElapsed(t *testing.T) {
	m := newModel(t, boundaryBurst(), 80, 24)
	start, _ := m.Position()
	if start != algo.Clock(12, 0, 58, 0) {
		t.Fatalf("starts at %v, want a second before the first request's second", start)
	}
	m = update(t, m, press("+", "space")...) // 2×
	at := time.Unix(100, 0)
	m = update(t, m, tickMsg{at: at, gen: m.gen}) // first frame: one frame's worth
	m = update(t, m, tickMsg{at: at.Add(250 * time.Millisecond), gen: m.gen})
	now, _ := m.Position()
	want := start + algo.Instant(2*frame/time.Millisecond) + 500
	if now < want-1 || now > want+1 {
		t.Fatalf("at 2× after a frame and 250ms the clock is %v, want about %v", now, want)
	}
	if !strings.Contains(screen(m), "▶ 2×") {
		t.Fatalf("header does not show playing at 2×:\n%s", screen(m))
	}
}

func TestPlayStopsAtTheEnd(t *testing.T) {
	m := newModel(t, boundaryBurst(), 80, 24)
	m = update(t, m, press("G", "space")...)
	at := time.Unix(100, 0)
	var cmd tea.Cmd
	for i := 0; i < 10_000 && m.Playing(); i++ {
		var next tea.Model
		next, cmd = m.Update(tickMsg{at: at.Add(time.Duration(i) * frame), gen: m.gen})
		m = next.(Model)
	}
	if m.Playing() || cmd != nil {
		t.Fatal("still playing past the end")
	}
	if now, n := m.Position(); now != algo.Clock(12, 2, 0, 0) || n != 200 {
		t.Fatalf("stopped at %v with %d decided; want 12:02:00.000 (the last request plus a window), 200", now, n)
	}
	// Play again starts over.
	m = update(t, m, press("space")...)
	if now, n := m.Position(); now != algo.Clock(12, 0, 58, 0) || n != 0 || !m.Playing() {
		t.Fatalf("space at the end: %v, %d decided, playing %v", now, n, m.Playing())
	}
}

func TestSpeedIsClamped(t *testing.T) {
	m := newModel(t, boundaryBurst(), 80, 24)
	for range 20 {
		m = update(t, m, press("+")...)
	}
	if m.speed != scenarios.MaxSpeed {
		t.Fatalf("speed %v, want %v", m.speed, scenarios.MaxSpeed)
	}
	for range 30 {
		m = update(t, m, press("-")...)
	}
	if m.speed != scenarios.MinSpeed {
		t.Fatalf("speed %v, want %v", m.speed, scenarios.MinSpeed)
	}
}

func TestWindowEdges(t *testing.T) {
	m := newModel(t, boundaryBurst(), 80, 24)
	m = update(t, m, press("]")...)
	if now, n := m.Position(); now != algo.Clock(12, 1, 0, 0) || n != 200 {
		t.Fatalf("] from 12:00:58: %v, %d decided", now, n)
	}
	m = update(t, m, press("[")...)
	if now, n := m.Position(); now != algo.Clock(12, 0, 0, 0) || n != 0 {
		t.Fatalf("[ from 12:01:00: %v, %d decided", now, n)
	}
}

func TestClientCycles(t *testing.T) {
	sc := parse(`name: two
title: Two clients
limit: 4
window: 1m
traffic:
  - {at: "12:00:01", count: 3, client: alice}
  - {at: "12:00:02", count: 5, client: bob}
`)
	m := newModel(t, sc, 80, 24)
	m = update(t, m, press("G")...)
	if s := screen(m); !strings.Contains(s, "client bob (the last request's)") || !strings.Contains(s, "4/4 full") {
		t.Fatalf("focus should follow bob, whose window is full:\n%s", s)
	}
	m = update(t, m, press("c")...)
	if s := screen(m); !strings.Contains(s, "client alice (chosen)") || !strings.Contains(s, "3/4") || !strings.Contains(s, "(bob)") {
		t.Fatalf("c should focus alice, with bob's last decision named:\n%s", s)
	}
	m = update(t, m, press("c", "c")...)
	if s := screen(m); !strings.Contains(s, "client bob (the last request's)") {
		t.Fatalf("c past the last client should follow the last request again:\n%s", s)
	}
}

func TestMouse(t *testing.T) {
	m := newModel(t, boundaryBurst(), 80, 24)
	// The timeline's rows sit just above the help bar.
	rowY := 24 - 1 - 2
	// At 80 columns a cell is 5 s; the cursor's holds 12:00:58.
	x := render.TimelineLabelWidth + m.timeline.Cells(80)*2/3 + 1 // a cell right of the cursor: 12:01:00–12:01:05
	m = update(t, m, tea.MouseClickMsg{X: x, Y: rowY, Button: tea.MouseLeft})
	if now, n := m.Position(); now != algo.Clock(12, 1, 4, 999) || n != 200 {
		t.Fatalf("click a cell right of 12:00:58: %v, %d decided", now, n)
	}
	m = update(t, m, tea.MouseClickMsg{X: x, Y: 2, Button: tea.MouseLeft}) // not the timeline
	if now, _ := m.Position(); now != algo.Clock(12, 1, 4, 999) {
		t.Fatalf("a click outside the timeline moved the clock to %v", now)
	}
	z := m.timeline.Level(80)
	m = update(t, m, tea.MouseWheelMsg{X: x, Y: rowY, Button: tea.MouseWheelUp})
	if m.timeline.Level(80) != z-1 || !strings.Contains(screen(m), "2s/cell") {
		t.Fatalf("wheel up should zoom in to 2 s cells:\n%s", screen(m))
	}
}

func TestOpenBuiltin(t *testing.T) {
	m := newModel(t, boundaryBurst(), 80, 24)
	m = update(t, m, press("o")...)
	if s := screen(m); !strings.Contains(s, "Open a scenario") || !strings.Contains(s, "worked-example") || strings.Contains(s, "open a file…") {
		t.Fatalf("picker:\n%s", s)
	}
	m = update(t, m, keyMsg("down"))
	next, cmd := m.Update(keyMsg("enter"))
	m = next.(Model)
	if cmd == nil {
		t.Fatal("enter on a scenario did not load it")
	}
	m = update(t, m, cmd())
	if s := screen(m); !strings.Contains(s, "Worked example") || modeOf(m) != modeMain {
		t.Fatalf("after loading:\n%s", s)
	}
	if now, n := m.Position(); n != 0 || now != algo.Clock(12, 0, 29, 0) {
		t.Fatalf("a loaded scenario starts at %v with %d decided", now, n)
	}
}

func TestOpenFileShowsLoadErrors(t *testing.T) {
	m, err := New(Options{
		Scenario: boundaryBurst(),
		Load: func(_ context.Context, path string) (*scenarios.Scenario, error) {
			return nil, &loadError{path}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = update(t, m, press("o", "enter")...) // the only entry: open a file…
	m = update(t, m, typeText("class.yaml")...)
	next, cmd := m.Update(keyMsg("enter"))
	m = next.(Model)
	if cmd == nil {
		t.Fatal("enter on a path did not load it")
	}
	m = update(t, m, cmd())
	if s := screen(m); !strings.Contains(s, "class.yaml:3: limit: must be at least 1") {
		t.Fatalf("load error not shown:\n%s", s)
	}
	m = update(t, m, press("esc", "esc")...)
	if modeOf(m) != modeMain || !strings.Contains(screen(m), "Boundary burst") {
		t.Fatal("esc esc should return to the scenario")
	}
}

type loadError struct{ path string }

func (e *loadError) Error() string { return e.path + ":3: limit: must be at least 1" }

func TestTooSmallAndEmptySizes(t *testing.T) {
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {79, 24}, {80, 23}, {5, 100}, {30, 3}} {
		m := newModel(t, boundaryBurst(), sz[0], sz[1])
		s := screen(m)
		if sz[0] >= 79 && !strings.Contains(s, "windowlab needs at least 80×24") {
			t.Errorf("%v: %q", sz, s)
		}
		if sz[0] > 0 && sz[1] > 0 {
			checkFrame(t, s, sz[0], sz[1])
		}
	}
	// Before any size arrives.
	m, err := New(Options{Scenario: boundaryBurst()})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	if s := screen(m); !strings.Contains(s, "this one is 0×0") {
		t.Errorf("no size yet: %q", s)
	}
}

func TestRandomKeysAndSizesNeverPanic(t *testing.T) {
	keys := []string{"space", "right", "left", "l", "h", "]", "[", "+", "-", "=", "z", "Z", "g", "G", "t", "o",
		"c", "?", "enter", "esc", "up", "down", "backspace", "1", "2", ":", ".", "0", "5", "x", "/"}
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 20 {
		m := newModel(t, boundaryBurst(), 80, 24)
		at := time.Unix(0, 0)
		for step := range 300 {
			var msg tea.Msg
			switch r := rng.IntN(20); {
			case r == 0:
				msg = tea.WindowSizeMsg{Width: rng.IntN(220), Height: rng.IntN(70)}
			case r == 1:
				at = at.Add(time.Duration(rng.IntN(200)) * time.Millisecond)
				msg = tickMsg{at: at, gen: m.gen}
			case r == 2:
				msg = tea.MouseClickMsg{X: rng.IntN(220), Y: rng.IntN(70), Button: tea.MouseLeft}
			case r == 3:
				msg = tea.MouseWheelMsg{X: rng.IntN(220), Y: rng.IntN(70), Button: tea.MouseWheelDown}
			default:
				k := keys[rng.IntN(len(keys))]
				if k == "q" {
					continue
				}
				msg = keyMsg(k)
			}
			loading := modeOf(m) == modePicker && msg == tea.Msg(keyMsg("enter"))
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("run %d step %d: %v panicked: %v", run, step, msg, p)
					}
				}()
				next, cmd := m.Update(msg)
				m = next.(Model)
				if cmd != nil && loading {
					if res, ok := runCmd(cmd).(scenarioMsg); ok {
						next, _ = m.Update(res)
						m = next.(Model)
					}
				}
				_ = m.View()
			}()
		}
	}
}

// runCmd runs a command unless it is a timer (ticks are sent by hand).
func runCmd(cmd tea.Cmd) tea.Msg {
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		return msg
	case <-time.After(100 * time.Millisecond):
		return nil
	}
}

func TestResizeKeepsThePosition(t *testing.T) {
	m := newModel(t, workedExample(), 80, 24)
	m = update(t, m, goTo("12:01:14")...)
	before := screen(m)
	now, n := m.Position()
	for _, sz := range [][2]int{{200, 50}, {60, 20}, {0, 0}, {121, 30}, {80, 24}} {
		m = update(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		if a, b := m.Position(); a != now || b != n {
			t.Fatalf("resizing to %v moved the clock to %v, %d decided", sz, a, b)
		}
	}
	if screen(m) != before {
		t.Fatal("the frame at 80×24 changed after resizing away and back")
	}
}

func TestPromptRunsNoTimers(t *testing.T) {
	m := newModel(t, boundaryBurst(), 80, 24)
	next, cmd := m.Update(keyMsg("t"))
	if cmd != nil {
		t.Fatal("opening the prompt started a timer (a blinking cursor)")
	}
	m = next.(Model)
	for _, msg := range typeText("12:00") {
		if _, cmd := m.Update(msg); cmd != nil {
			t.Fatalf("typing %v started a command", msg)
		}
	}
}

func TestBackgroundColourPicksStyles(t *testing.T) {
	m := newModel(t, boundaryBurst(), 80, 24)
	if !m.c.Styles.IsDark {
		t.Fatal("dark is the default until the terminal answers")
	}
	m = update(t, m, tea.BackgroundColorMsg{Color: color.White})
	if m.c.Styles.IsDark {
		t.Fatal("a white background should pick light styles")
	}
	// Styles change colours only: the text is the same.
	if a, b := screen(m), screen(update(t, m, tea.BackgroundColorMsg{Color: color.Black})); a != b {
		t.Fatal("light and dark frames differ in text")
	}
}

func TestEmptyScenario(t *testing.T) {
	sc := quiet()
	for _, sz := range sizes {
		m := newModel(t, sc, sz[0], sz[1])
		m = update(t, m, press("space", "right", "left", "]", "[", "c", "G", "g", "z", "Z")...)
		m = update(t, m, tickMsg{at: time.Unix(1, 0), gen: m.gen})
		out := screen(m)
		checkFrame(t, out, sz[0], sz[1])
		if !strings.Contains(out, "no request yet") {
			t.Fatalf("%v:\n%s", sz, out)
		}
		// Every key (?) fits too; at 80×24 its 14 rows leave the lanes
		// their verdicts only.
		checkFrame(t, screen(update(t, m, press("?")...)), sz[0], sz[1])
	}
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "no scenario") {
		t.Fatalf("options without a scenario: %v", err)
	}
}

// Loading a file that never arrives (a FIFO nobody writes) can be given up
// with esc: its read is cancelled and its late answer ignored.
func TestOpenFileLoadingIsCancellable(t *testing.T) {
	started := make(chan context.Context, 1)
	m, err := New(Options{
		Scenario: boundaryBurst(),
		Load: func(ctx context.Context, path string) (*scenarios.Scenario, error) {
			started <- ctx
			<-ctx.Done() // what scenarios.LoadContext does on a FIFO with no writer
			return nil, ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = update(t, m, press("o", "enter")...)
	m = update(t, m, typeText("fifo.yaml")...)
	next, cmd := m.Update(keyMsg("enter"))
	m = next.(Model)
	answer := make(chan tea.Msg, 1)
	go func() { answer <- cmd() }()
	ctx := <-started
	if s := screen(m); !strings.Contains(s, "loading… (esc stops)") || !strings.Contains(s, "esc back to the list") {
		t.Fatalf("while loading:\n%s", s)
	}
	m = update(t, m, keyMsg("esc"))
	if ctx.Err() == nil {
		t.Fatal("esc did not cancel the load")
	}
	if s := screen(m); !strings.Contains(s, "stopped loading") || modeOf(m) != modePicker {
		t.Fatalf("after esc:\n%s", s)
	}
	m = update(t, m, <-answer) // the cancelled load's answer comes late
	if s := screen(m); strings.Contains(s, "context canceled") || modeOf(m) != modePicker {
		t.Fatalf("the late answer of a cancelled load was shown:\n%s", s)
	}
	m = update(t, m, press("esc", "esc")...)
	if modeOf(m) != modeMain || !strings.Contains(screen(m), "Boundary burst") {
		t.Fatal("esc esc should return to the scenario")
	}
}

// Widths are counted as the renderer counts them: code point by code point
// until the terminal reports grapheme clustering (mode 2027). A family
// emoji in a title takes 8 cells or 2, and the clock stays in the header
// either way; a long client name is cut, not pushed off the screen.
func TestWideTextKeepsTheClock(t *testing.T) {
	sc := parse("title: \"Family 👨‍👩‍👧‍👦 burst and a very long title that goes on and on\"\nlimit: 100\nwindow: 1m\n" +
		"traffic: [{at: \"12:00:59\", count: 3, client: a-client-name-that-is-sixty-four-characters-long-for-no-reasons}]\n")
	for _, grapheme := range []bool{false, true} {
		m := newModel(t, sc, 80, 44) // tall enough for the recent requests
		width := ansi.StringWidthWc
		if grapheme {
			m = update(t, m, tea.ModeReportMsg{Mode: ansi.ModeUnicodeCore, Value: ansi.ModeSet})
			width = ansi.StringWidth
		}
		m = update(t, m, press("G")...)
		s := screen(m)
		lines := strings.Split(s, "\n")
		// A title longer than the line keeps it, and the clock moves down
		// one, beside the focus.
		if !strings.HasSuffix(lines[0], "12:00:59.000") && !strings.HasSuffix(lines[1], "12:00:59.000") {
			t.Errorf("grapheme %v: the clock is cut: %q / %q", grapheme, lines[0], lines[1])
		}
		for i, l := range lines {
			if w := width(l); w > 80 {
				t.Errorf("grapheme %v: line %d is %d cells: %q", grapheme, i+1, w, l)
			}
		}
		if !strings.Contains(s, "a-client-name-that-…") {
			t.Errorf("grapheme %v: the long client name is not cut in the recent requests:\n%s", grapheme, s)
		}
	}
}

// At the largest limit and window a file may give, every lane draws: the
// token bucket's gauge multiplies tokens × window ms (6·10¹⁷) by its width,
// which overflowed 64 bits and panicked the view.
func TestLargestLimitAndWindowDraw(t *testing.T) {
	sc := parse("limit: 1000000000\nwindow: 168h\nalgorithms: [fixed-window, sliding-log, sliding-counter, token-bucket]\n" +
		"traffic:\n  - {from: \"12:00:00\", to: \"12:00:10\", every: 1ms}\n")
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		m := update(t, newModel(t, sc, size[0], size[1]), goTo("12:00:05")...)
		out := screen(m)
		for _, want := range []string{"5,000 allowed", "1,000,000,000"} { // t lands before 12:00:05's request
			if !strings.Contains(out, want) {
				t.Errorf("%v: the screen does not show %q:\n%s", size, want, out)
			}
		}
	}
}
