package ui

import (
	"fmt"
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"windowlab/scenarios"
)

// atWorkedExample is the built-in worked example at 12:01:15, reached with
// t as a student would, at w×h.
func atWorkedExample(t *testing.T, w, h int, msgs ...tea.Msg) Model {
	t.Helper()
	sc, err := scenarios.Builtin("worked-example")
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(t, sc, w, h)
	m = update(t, m, msgs...)
	return update(t, m, goTo("12:01:15")...)
}

// d opens the code that decided on the lane the caption speaks of (the
// sliding counter at 12:01:15: 93 on its line), each further d shows the
// next lane round to it, and then d closes the panel; the lanes' totals
// stay whole throughout, at every size.
func TestCodeKey(t *testing.T) {
	totals := map[string]int{"✓ 115 allowed  ✗ 0 denied": 2, "✓ 100 allowed  ✗ 15 denied": 1}
	steps := []struct {
		want []string
	}{
		{[]string{"the code that decided · Sliding window counter",
			"estimate := previous*weight + current     // 84*0.75 + 30 = 93",
			"if estimate < limit {                     // 93 < 100",
			"    return allow                          // ← here"}},
		{[]string{"the code that decided · Fixed window",
			"count := counts[client, start]  // 30",
			"if count < limit {              // 30 < 100",
			"    return allow                // ← here"}},
		{[]string{"the code that decided · Sliding window log",
			"count := len(log)          // 100",
			"if count < limit {         // 100 < 100",
			"return deny                // ← here"}},
		{nil}, // closed
	}
	for _, sz := range append(sizes, [2]int{200, 50}) {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := atWorkedExample(t, sz[0], sz[1])
			for i, step := range steps {
				m = update(t, m, press("d")...)
				out := screen(m)
				checkFrame(t, out, sz[0], sz[1])
				if step.want == nil && strings.Contains(out, "the code that decided") {
					t.Errorf("d %d times: the panel is still open:\n%s", i+1, out)
				}
				for _, w := range step.want {
					if !strings.Contains(out, w) {
						t.Errorf("d %d times: frame lacks %q:\n%s", i+1, w, out)
					}
				}
				for total, n := range totals {
					if got := strings.Count(out, total); got != n {
						t.Errorf("d %d times: %q %d times, want %d (a lane's totals cut):\n%s", i+1, total, got, n, out)
					}
				}
			}
		})
	}
}

// Every lane of four limiters shows its code with the line that decided,
// even at 80×24 where the panel takes the lanes' details, never their
// totals.
func TestCodeEveryLaneAtTheSmallest(t *testing.T) {
	m := newModel(t, fourLimiters(), 80, 24)
	m = update(t, m, goTo("12:01:00")...)
	seen := map[string]bool{}
	for range 4 {
		m = update(t, m, press("d")...)
		out := screen(m)
		_, panel, _ := strings.Cut(out, "the code that decided · ")
		title, _, _ := strings.Cut(panel, "\n")
		title, _, _ = strings.Cut(title, "  ")
		seen[title] = true
		if !strings.Contains(panel, "← here") {
			t.Errorf("the %s's deciding line is missing:\n%s", title, out)
		}
		if n := strings.Count(out, " allowed  ✗ "); n != 4 {
			t.Errorf("%d lanes' totals on screen, want 4:\n%s", n, out)
		}
	}
	for _, title := range []string{"Fixed window", "Sliding window log", "Sliding window counter", "Token bucket"} {
		if !seen[title] {
			t.Errorf("d never showed the %s's code (showed %v)", title, seen)
		}
	}
}

// The panel's frames: the worked example's sliding counter at 80×24 and
// 140×40, without colour (NO_COLOR: the text alone carries the mark) and
// in colour on a dark and on a light background.
func TestGoldenCode(t *testing.T) {
	for _, sz := range sizes {
		for _, bg := range []string{"nocolor", "dark", "light"} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], bg), func(t *testing.T) {
				var msgs []tea.Msg
				switch bg {
				case "dark":
					msgs = append(msgs, tea.BackgroundColorMsg{Color: color.Black})
				case "light":
					msgs = append(msgs, tea.BackgroundColorMsg{Color: color.White})
				}
				m := update(t, atWorkedExample(t, sz[0], sz[1], msgs...), press("d")...)
				out := m.View().Content
				if bg == "nocolor" {
					out = screen(m)
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

// With the panel open, a click finds the timeline where the panel left
// it: on its rows it seeks, on the line above them it does nothing.
func TestCodeTimelineClick(t *testing.T) {
	for _, sz := range sizes {
		m := update(t, newModel(t, boundaryBurst(), sz[0], sz[1]), press("]", "d")...)
		lines := strings.Split(screen(m), "\n")
		top, row := -1, -1
		for i, l := range lines {
			axis := strings.HasPrefix(strings.TrimLeft(l, " "), "─")
			if (strings.HasPrefix(l, "timeline ") || axis || strings.HasPrefix(l, "fixed ")) && top < 0 {
				top = i // the timeline's first line: its heading, else its axis
			}
			if strings.HasPrefix(l, "fixed ") {
				row = i
			}
		}
		if top < 0 || row < 0 || !strings.Contains(screen(m), "the code that decided") {
			t.Fatalf("%v: no timeline or no panel:\n%s", sz, screen(m))
		}
		start, _ := m.Position()
		x := sz[0] - 20
		m = update(t, m, tea.MouseClickMsg{X: x, Y: top - 1, Button: tea.MouseLeft})
		if now, _ := m.Position(); now != start {
			t.Errorf("%v: a click above the timeline moved the clock to %v", sz, now)
		}
		m = update(t, m, tea.MouseClickMsg{X: x, Y: row, Button: tea.MouseLeft})
		if now, _ := m.Position(); now == start {
			t.Errorf("%v: a click on the timeline's row left the clock at %v", sz, now)
		}
	}
}

// With the panel beside them the lanes are narrower, and the log's strip
// is counted for the width they get: it stays on one line with its ends
// (it wrapped over three when counted for the whole width).
func TestCodePanelLeavesTheLogsStripWhole(t *testing.T) {
	m := newModel(t, emptyClock(t), 140, 40)
	for _, at := range []string{"12:00:59", "12:01:00"} {
		m = update(t, m, goTo(at)...)
		m = update(t, m, burstKeys("")...)
	}
	m = update(t, m, press("d")...)
	out := screen(m)
	found := false
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "▕") {
			found = true
			if !strings.Contains(l, "▏") {
				t.Fatalf("the log's strip is broken over lines:\n%s", out)
			}
		}
	}
	if !found || !strings.Contains(out, "the code that decided") {
		t.Fatalf("no strip or no panel:\n%s", out)
	}
}
