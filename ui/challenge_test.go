package ui

import (
	"fmt"
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"windowlab/algo"
	"windowlab/challenge"
	"windowlab/scenarios"
)

// lessonClock is an empty clock at 12:00:00 with the lesson's numbers and
// its three limiters: where windowlab challenge N opens.
func lessonClock(t testing.TB, kinds ...algo.Kind) *scenarios.Scenario {
	t.Helper()
	if len(kinds) == 0 {
		kinds = algo.Lesson
	}
	var algorithms []algo.Algorithm
	for _, k := range kinds {
		algorithms = append(algorithms, algo.Algorithm{Kind: k})
	}
	s, err := scenarios.Empty("challenge", "Challenge", challenge.Lesson, algorithms, algo.Clock(12, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// burstAt moves the clock to at and sends a burst of the default size
// (the limit) from there, with the keys a student uses.
func burstAt(at string) []tea.Msg {
	return append(goTo(at), keyMsg("b"), keyMsg("enter"))
}

// tryCounterMax opens the list with x and tries challenge 2.
var tryCounterMax = []tea.Msg{keyMsg("x"), keyMsg("2"), keyMsg("enter")}

func wantOnScreen(t *testing.T, m Model, want ...string) {
	t.Helper()
	out := screen(m)
	flat := strings.Join(strings.Fields(out), " ")
	for _, w := range want {
		if !strings.Contains(flat, w) {
			t.Errorf("the screen lacks %q:\n%s", w, out)
		}
	}
}

// x opens the list, 2 and enter try the sliding counter's most; the panel
// follows every change the keys make to the records: nothing yet, 100 of
// 200 after the first burst, reached after the second (with the proof's
// moments and the counter's arithmetic), 100 of 200 again once u takes the
// second burst away, and nothing at all after the first.
func TestChallengePanelFollowsTheTraffic(t *testing.T) {
	m := newModel(t, lessonClock(t), 140, 40)
	m = update(t, m, keyMsg("x"))
	if got := modeOf(m); got != "ui.challengeList" {
		t.Fatalf("x opened %s", got)
	}
	wantOnScreen(t, m, "Challenges", "1 Beat the fixed window at its edge", "5 The counter allows what the log denies")
	m = update(t, m, keyMsg("2"), keyMsg("enter"))
	if got := modeOf(m); got != modeMain {
		t.Fatalf("enter left %s open", got)
	}
	wantOnScreen(t, m, "challenge 2 · The most through the sliding counter", "not yet",
		"nothing through the sliding counter yet: the most possible is 200 within 60 s")
	m = update(t, m, burstAt("12:00:59.999")...)
	wantOnScreen(t, m, "best so far: 100 of 200 within 60 s")
	m = update(t, m, burstAt("12:01:59.998")...)
	if r, ok := m.Challenge(); !ok || !r.Reached || r.Best != 200 || r.Target != 200 || r.Goal.Name != "counter-max" {
		t.Errorf("Challenge() = %+v, %v", r, ok)
	}
	wantOnScreen(t, m, "✓ reached", "✓ 200 through the sliding counter within 59.999s",
		"100 at 12:00:59.999, in the window 12:00:00–12:01:00", "100 at 12:01:59.998",
		"99 + 100 × ≈0.00003 = ≈99.003 → allow", "100 came in its last 1ms: the even-spread assumption, broken on purpose.")
	m = update(t, m, keyMsg("u"))
	wantOnScreen(t, m, "not yet", "best so far: 100 of 200 within 60 s")
	m = update(t, m, keyMsg("u"))
	wantOnScreen(t, m, "nothing through the sliding counter yet")
	// ⌫ in the list stops trying: the panel goes.
	m = update(t, m, keyMsg("x"), keyMsg("backspace"))
	if out := screen(m); strings.Contains(out, "challenge 2") || m.trying.on {
		t.Errorf("the panel stayed after ⌫:\n%s", out)
	}
}

// The hint waits for six changes of the records, or for the view's wait
// to end (its message, for this challenge only).
func TestChallengeHint(t *testing.T) {
	m := update(t, newModel(t, lessonClock(t), 140, 40), tryCounterMax...)
	hint := "hint: " + challenge.Goals[1].Hint(challenge.Lesson)
	for i := range 6 {
		if strings.Contains(strings.Join(strings.Fields(screen(m)), " "), "hint:") {
			t.Fatalf("the hint shows after %d changes", i)
		}
		m = update(t, m, keyMsg("r"))
	}
	wantOnScreen(t, m, hint)

	m = update(t, newModel(t, lessonClock(t), 140, 40), tryCounterMax...)
	m = update(t, m, challengeHintMsg{gen: m.trying.gen - 1})
	if strings.Contains(screen(m), "hint:") {
		t.Fatal("another challenge's wait showed this one's hint")
	}
	m = update(t, m, challengeHintMsg{gen: m.trying.gen})
	wantOnScreen(t, m, hint)
}

// A scenario without the limiter a challenge reads says so in the panel,
// and the view goes on.
func TestChallengeWithoutItsLimiter(t *testing.T) {
	m := update(t, newModel(t, lessonClock(t, algo.KindFixedWindow), 140, 40), tryCounterMax...)
	wantOnScreen(t, m, "cannot be checked here", "needs the lesson's sliding window counter")
	m = update(t, m, burstAt("12:00:59.999")...)
	wantOnScreen(t, m, "needs the lesson's sliding window counter")
}

// The list and the panel, reached and with its hint, at 80×24 and 140×40
// on a dark and a light background with their colours, and as a screen
// without colour reads them (NO_COLOR).
func TestGoldenChallenge(t *testing.T) {
	states := []struct {
		name string
		msgs []tea.Msg
	}{
		{"list", append(append(append(burstAt("12:00:59.999"), burstAt("12:01:59.998")...), tryCounterMax...), keyMsg("x"), keyMsg("down"))},
		{"reached", append(append(tryCounterMax, burstAt("12:00:59.999")...), burstAt("12:01:59.998")...)},
		{"hint", append(append(tryCounterMax, burstAt("12:00:30")...), keyMsg("r"), keyMsg("r"), keyMsg("r"), keyMsg("r"), keyMsg("r"))},
	}
	for _, st := range states {
		for _, sz := range sizes {
			for _, bg := range []string{"dark", "light", "no-color"} {
				t.Run(fmt.Sprintf("%s/%dx%d/%s", st.name, sz[0], sz[1], bg), func(t *testing.T) {
					m := newModel(t, lessonClock(t), sz[0], sz[1])
					if bg == "light" {
						m = update(t, m, tea.BackgroundColorMsg{Color: color.White})
					} else {
						m = update(t, m, tea.BackgroundColorMsg{Color: color.Black})
					}
					m = update(t, m, st.msgs...)
					out := screen(m)
					checkFrame(t, out, sz[0], sz[1])
					if want := map[string]string{"list": "▸ 3", "reached": "✓ reached", "hint": "hint:"}[st.name]; !strings.Contains(out, want) {
						t.Errorf("the frame lacks %q:\n%s", want, out)
					}
					if bg != "no-color" {
						out = m.View().Content
					}
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}
