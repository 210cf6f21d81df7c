package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/scenarios"
)

// virtualWall is a wall clock for playback's frames: a tick's command, when
// run, moves it on by the tick's interval and fires at that time. Nothing
// sleeps; the model sees only the times its ticks carry.
type virtualWall struct{ now time.Time }

func (w *virtualWall) tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		w.now = w.now.Add(d)
		return fn(w.now)
	}
}

// readingTime is how long a caption must stay on screen to be read: its
// words at 200 a minute, and never under 4 s.
func readingTime(text string) time.Duration {
	return max(4*time.Second, time.Duration(len(strings.Fields(text)))*time.Minute/200)
}

// playRun is what a play-through saw.
type playRun struct {
	shown    map[int]time.Duration // each caption's longest stretch on screen, in wall time
	problems []string
}

// playThrough plays m from where it stands with space alone, as a reader
// would: space at the start, and at a caption that pauses the clock once it
// has been read, until the clock has reached the end. It runs the model's
// own commands, the ticks it schedules, on a virtual wall clock, and checks
// on every frame that the clock crossed no caption's moment and that a
// skip over a quiet stretch crossed no window edge.
func playThrough(t *testing.T, m Model) playRun {
	t.Helper()
	wall := &virtualWall{now: time.Unix(1_000_000, 0)}
	m.ticker, m.wall = wall.tick, func() time.Time { return wall.now }
	run := playRun{shown: map[int]time.Duration{}}
	cur, since := m.captionIndex(), wall.now
	observe := func(m Model) {
		i := m.captionIndex()
		if i >= 0 && m.snap.Caption != m.sc.Captions[i].Text {
			run.problems = append(run.problems, fmt.Sprintf("at %s the caption on screen is not caption %d's text", m.eng.Now().Short(), i))
		}
		if i == cur {
			return
		}
		if cur >= 0 {
			run.shown[cur] = max(run.shown[cur], wall.now.Sub(since))
		}
		cur, since = i, wall.now
	}
	// The reader reads what is on screen before pressing space.
	read := func(m Model) {
		if i := m.captionIndex(); i >= 0 {
			wall.now = wall.now.Add(readingTime(m.sc.Captions[i].Text))
		}
	}
	read(m)
	observe(m)
	next, cmd := m.Update(keyMsg("space"))
	m = next.(Model)
	observe(m)
	for frames := 0; ; frames++ {
		if frames > 500_000 {
			t.Fatalf("%s: still playing after 500,000 frames, at %s", m.sc.Name, m.eng.Now().Short())
		}
		if cmd == nil {
			if m.playing || m.eng.Now() >= m.end {
				break
			}
			read(m) // paused at a caption
			next, cmd = m.Update(keyMsg("space"))
			m = next.(Model)
			observe(m)
			continue
		}
		msg := cmd()
		cmd = nil
		switch msg := msg.(type) {
		case tea.BatchMsg:
			t.Fatalf("%s: a batch of commands while playing with no job: %v", m.sc.Name, msg)
		case tickMsg:
			before, speed, peek := m.eng.Now(), m.speed, m.snap.Peek
			next, cmd = m.Update(msg)
			m = next.(Model)
			observe(m)
			run.problems = append(run.problems, checkMove(m, before, speed, peek)...)
		default:
			t.Fatalf("%s: playing made a %T", m.sc.Name, msg)
		}
	}
	observe(m) // the last caption's stretch ends here
	run.shown[cur] = max(run.shown[cur], wall.now.Sub(since))
	return run
}

// checkMove says what is wrong with a frame's move of the clock from
// before: a caption's moment crossed, not landed on; and, for a skip over
// a quiet stretch, a window edge crossed, or the moment a log's oldest
// timestamp (as the lanes showed it, peek) leaves the window.
func checkMove(m Model, before algo.Instant, speed float64, peek []algo.Decision) []string {
	var out []string
	after := m.eng.Now()
	for i, c := range m.sc.Captions {
		if c.Text != "" && before < c.At && c.At < after {
			out = append(out, fmt.Sprintf("a frame went from %s to %s over caption %d's moment %s", before.Short(), after.Short(), i, c.At.Short()))
		}
	}
	normal := algo.Instant(speed*float64(frame)/float64(time.Millisecond)) + 1
	if after-before > normal {
		if edge := m.eng.Config().NextEdge(before); edge <= after {
			out = append(out, fmt.Sprintf("a skip went from %s to %s over the window edge %s", before.Short(), after.Short(), edge.Short()))
		}
		for _, d := range peek {
			if d.Kind == algo.KindSlidingLog && d.Count > 0 && before < d.Leaves() && d.Leaves() <= after {
				out = append(out, fmt.Sprintf("a skip went from %s to %s over %s, when the log's oldest leaves", before.Short(), after.Short(), d.Leaves().Short()))
			}
		}
	}
	return out
}

// checkHolds fails for every caption that was on screen for less than its
// reading time, or never.
func checkHolds(t *testing.T, name string, sc *scenarios.Scenario, run playRun) {
	t.Helper()
	for _, p := range run.problems {
		t.Errorf("%s: %s", name, p)
	}
	for i, c := range sc.Captions {
		if c.Text == "" {
			continue
		}
		want := readingTime(c.Text)
		if got, ok := run.shown[i]; !ok || got < want {
			t.Errorf("%s: caption %d at %s (%q…) was on screen %v while playing; want at least %v",
				name, i, c.At.Short(), truncateWords(c.Text, 6), got.Round(time.Millisecond), want)
		}
	}
}

func truncateWords(s string, n int) string {
	w := strings.Fields(s)
	return strings.Join(w[:min(n, len(w))], " ")
}

// Pressing space from the start of every built-in scenario and every step
// of the lesson, and nothing else, shows every caption long enough to read
// it, through the program's own tick loop; the clock never jumps over a
// caption's moment, and a skip over a quiet stretch never over a window edge.
func TestPlayingHoldsEveryCaption(t *testing.T) {
	if testing.Short() {
		t.Skip("plays every scenario through")
	}
	for _, sc := range scenarios.Builtins() {
		t.Run(sc.Name, func(t *testing.T) {
			m := newModel(t, sc, 100, 30)
			checkHolds(t, sc.Name, sc, playThrough(t, m))
		})
	}
	for _, l := range scenarios.Lessons() {
		lesson, err := scenarios.LessonNamed(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		prefix := "lesson"
		if l.Name != scenarios.DefaultLesson {
			prefix = l.Name
		}
		for i, sc := range lesson {
			t.Run(fmt.Sprintf("%s-step-%d", prefix, i+1), func(t *testing.T) {
				m, err := New(Options{Lesson: lesson, LessonStep: i})
				if err != nil {
					t.Fatal(err)
				}
				m.budget = inFrame
				m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
				checkHolds(t, sc.Name, sc, playThrough(t, m))
			})
		}
	}
}

// A caption brought on screen by tab while the clock stands still may be
// a moment old when space is pressed: playing holds it for the rest of its
// reading time, counted from when it came on; one read already is not held
// again.
func TestSpaceHoldsTheCaptionOnScreenForTheRestOfItsReading(t *testing.T) {
	sc, err := scenarios.Builtin("boundary-burst")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		before time.Duration // the wall time between tab and space
	}{{"pressed at once", 0}, {"pressed after a second", time.Second}, {"pressed once read", time.Minute}} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t, sc, 100, 30)
			wall := &virtualWall{now: time.Unix(1_000_000, 0)}
			m.ticker, m.wall = wall.tick, func() time.Time { return wall.now }
			m = update(t, m, keyMsg("tab"))
			i := m.captionIndex()
			if i < 0 {
				t.Fatal("tab brought no caption on screen")
			}
			at, landed := m.eng.Now(), wall.now
			want := readingTime(m.sc.Captions[i].Text)
			wall.now = wall.now.Add(tc.before)
			next, cmd := m.Update(keyMsg("space"))
			m = next.(Model)
			for cmd != nil && m.eng.Now() == at {
				msg := cmd()
				next, cmd = m.Update(msg)
				m = next.(Model)
			}
			stood := wall.now.Sub(landed)
			if tc.before < want && stood < want {
				t.Errorf("the clock left caption %d's moment %v after tab; want at least its reading time %v", i, stood, want)
			}
			if tc.before >= want && stood > tc.before+time.Second {
				t.Errorf("a caption read for %v was held again: the clock left it %v after tab", tc.before, stood)
			}
		})
	}
}
