package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"windowlab/algo"
	"windowlab/quiz"
	"windowlab/scenarios"
	"windowlab/ui/render"
)

// presenterSubjects is, step by step and caption by caption, the limiter
// each of the lesson's captions speaks of, read off its text by hand: the
// lane the presenter must draw large, under the block letters.
var presenterSubjects = [][]algo.Kind{
	{algo.KindFixedWindow, algo.KindFixedWindow, algo.KindFixedWindow, algo.KindFixedWindow},
	{algo.KindFixedWindow, algo.KindFixedWindow, algo.KindFixedWindow, algo.KindFixedWindow},
	{algo.KindSlidingLog, algo.KindSlidingLog, algo.KindSlidingLog, algo.KindSlidingLog},
	{algo.KindSlidingCounter, algo.KindSlidingCounter, algo.KindSlidingCounter, algo.KindSlidingCounter, algo.KindSlidingCounter},
	{algo.KindFixedWindow, algo.KindFixedWindow, algo.KindFixedWindow, algo.KindSlidingLog},
	{algo.KindFixedWindow, algo.KindFixedWindow, algo.KindFixedWindow, algo.KindSlidingCounter, algo.KindFixedWindow},
}

// presenterScreen is one screen of the lesson in presenter mode, read as
// it stood (the model's engine moves on with the next tab).
type presenterScreen struct {
	step, caption int
	out           string
	focus         render.Subject
	held          string // what the focused lane holds: "40,000 timestamps"
}

// presenterScreens opens the lesson in presenter mode at w×h on each step
// and tabs through it, one screen per caption.
func presenterScreens(t *testing.T, w, h int) []presenterScreen {
	t.Helper()
	var out []presenterScreen
	steps := scenarios.Lesson()
	for s := range steps {
		m, err := New(Options{Lesson: steps, LessonStep: s, LessonQuestions: quiz.Lesson(), Presenter: true}) // as windowlab lesson opens it
		if err != nil {
			t.Fatal(err)
		}
		m.budget = inFrame
		m = update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
		seen := map[int]bool{}
		for range 3 * len(steps[s].Captions) {
			if i, _ := m.Step(); i != s {
				break
			}
			if c := m.captionIndex(); c >= 0 && !seen[c] {
				seen[c] = true
				f := m.presenterFocus()
				stat := m.snap.Stats[f.Lane]
				out = append(out, presenterScreen{s, c, screen(m), f, stat.Kind.Unit().Of(stat.Memory.Entries)})
			}
			m = update(t, m, press("tab")...)
		}
		if len(seen) != len(steps[s].Captions) {
			t.Fatalf("step %d: tab showed %d of %d captions", s+1, len(seen), len(steps[s].Captions))
		}
	}
	return out
}

// isBlockRow reports whether a line is a row of block letters.
func isBlockRow(l string) bool {
	return strings.Contains(l, "█") && strings.Trim(l, "█ ") == ""
}

// laneUnderBlocks is the first line of text under the block letters: the
// title of the lane they stand for.
func laneUnderBlocks(out string) (string, bool) {
	lines := strings.Split(out, "\n")
	in := false
	for _, l := range lines {
		switch {
		case isBlockRow(l):
			in = true
		case in && strings.TrimSpace(l) != "":
			return l, true
		}
	}
	return "", false
}

// The block verdict and the lane in full are the lane the caption speaks
// of, at every lesson caption, at every size the presenter lays out.
func TestPresenterShowsTheCaptionsLane(t *testing.T) {
	for _, sz := range [][2]int{{100, 30}, {140, 40}, {200, 50}} {
		for _, p := range presenterScreens(t, sz[0], sz[1]) {
			name := fmt.Sprintf("%dx%d step %d caption %d", sz[0], sz[1], p.step+1, p.caption)
			want := presenterSubjects[p.step][p.caption]
			out := p.out
			under, ok := laneUnderBlocks(out)
			title := algo.Algorithm{Kind: want}.Title()
			if !ok || !strings.HasPrefix(under, title) {
				t.Errorf("%s: under the block letters %q, want the %s lane:\n%s", name, under, title, out)
			}
		}
	}
}

// A caption about what a limiter holds shows that figure in block letters,
// and the lane that holds it in full.
func TestPresenterShowsMemoryLarge(t *testing.T) {
	for _, sz := range [][2]int{{100, 30}, {140, 40}, {200, 50}} {
		for _, p := range presenterScreens(t, sz[0], sz[1]) {
			if !p.focus.Memory {
				continue
			}
			figure, out := p.held, p.out
			if !strings.Contains(out, "holds "+figure) || !hasBlockText(out, strings.ToUpper(figure)) {
				t.Errorf("%dx%d step %d caption %d: %q not large on screen:\n%s", sz[0], sz[1], p.step+1, p.caption, figure, out)
			}
		}
	}
}

// hasBlockText reports whether out shows text in block letters, at any scale.
func hasBlockText(out, text string) bool {
	for sx := 1; sx <= 3; sx++ {
		if strings.Contains(out, render.BlockRows(text, sx, 1)[0]+"\n") {
			return true
		}
	}
	return false
}

// From 100×30 to 200×50 the presenter fills the screen: no band of more
// than three empty lines, at any lesson caption.
func TestPresenterFillsTheScreen(t *testing.T) {
	for _, sz := range [][2]int{{100, 30}, {140, 40}, {200, 50}} {
		for _, p := range presenterScreens(t, sz[0], sz[1]) {
			out := p.out
			if n := longestBlankBand(out); n > 3 {
				t.Errorf("%dx%d step %d caption %d: %d empty lines in a row:\n%s", sz[0], sz[1], p.step+1, p.caption, n, out)
			}
		}
	}
}

func longestBlankBand(out string) int {
	longest, run := 0, 0
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) == "" {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// TestGoldenPresenter pins the presenter's screen at every lesson caption.
func TestGoldenPresenter(t *testing.T) {
	for _, sz := range [][2]int{{100, 30}, {200, 50}} {
		for _, p := range presenterScreens(t, sz[0], sz[1]) {
			t.Run(fmt.Sprintf("step%d-caption%d/%dx%d", p.step+1, p.caption, sz[0], sz[1]), func(t *testing.T) {
				out := p.out
				checkFrame(t, out, sz[0], sz[1])
				golden.RequireEqual(t, out)
			})
		}
	}
}

// On a presenter's screen d puts the code that decided in the block
// letters' place, over the lane it speaks of, the deciding line whole at
// every size a projector has; d again moves it to the next lane.
func TestPresenterShowsTheCode(t *testing.T) {
	sc, err := scenarios.Builtin("worked-example")
	if err != nil {
		t.Fatal(err)
	}
	for _, sz := range [][2]int{{100, 30}, {140, 40}, {200, 50}} {
		m, err := New(Options{Scenario: sc, Presenter: true})
		if err != nil {
			t.Fatal(err)
		}
		m.budget = inFrame
		m = update(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		m = update(t, m, goTo("12:01:15")...)
		m = update(t, m, press("d")...)
		out := screen(m)
		for _, want := range []string{"the code that decided · Sliding window counter", "84*0.75 + 30 = 93", "return allow", "← here"} {
			if !strings.Contains(out, want) {
				t.Errorf("%dx%d: the presenter's code lacks %q:\n%s", sz[0], sz[1], want, out)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "█") { // the block letters start at the margin, a lane's bars under its label
				t.Errorf("%dx%d: block letters beside the code:\n%s", sz[0], sz[1], out)
				break
			}
		}
		checkFrame(t, out, sz[0], sz[1])
	}
}
