package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/scenarios"
	"windowlab/ui/render"
)

var sizes = [][2]int{{80, 24}, {140, 40}}

// TestGolden pins the frames a student sees at the lesson's moments.
func TestGolden(t *testing.T) {
	cases := []struct {
		name     string
		scenario func() *scenarios.Scenario
		at       algo.Instant
		want     []string // lines of the lesson that must be on screen, at every size
	}{
		{"boundary-burst-120059", boundaryBurst, algo.Clock(12, 0, 59, 0), []string{
			"request 100/200",
			"✓ window 12:00:00–12:01:00 holds 99", "→ allow (99 < 100)",
		}},
		{"boundary-burst-120100", boundaryBurst, algo.Clock(12, 1, 0, 0), []string{
			"request 200/200",
			"✓ window 12:01:00–12:02:00 holds 99",
			"⚠ 200", "to client-1 within 1s",
			"twice the limit",
		}},
		{"worked-example-120115", workedExample, algo.Clock(12, 1, 15, 0), []string{
			"✓ 30 + 84 × 0.75 = 93 → allow (93 < 100)",
			"0.75",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sz := range sizes {
				t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
					m := newModel(t, c.scenario(), sz[0], sz[1])
					m = update(t, m, goTo(c.at.String())...)
					out := screen(m)
					checkFrame(t, out, sz[0], sz[1])
					for _, w := range c.want {
						if !strings.Contains(out, w) {
							t.Errorf("frame lacks %q", w)
						}
					}
					golden.RequireEqual(t, out)
				})
			}
		})
	}
}

func TestGoldenTooSmall(t *testing.T) {
	m := newModel(t, boundaryBurst(), 60, 20)
	out := screen(m)
	if !strings.Contains(out, "windowlab needs at least 80×24, this one is 60×20") {
		t.Fatalf("too-small frame:\n%s", out)
	}
	checkFrame(t, out, 60, 20)
	golden.RequireEqual(t, out)
}

// checkFrame holds for every frame: exactly the terminal's height, no line
// wider than it.
func checkFrame(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := stringWidth(l); n > w {
			t.Errorf("line %d is %d wide, more than %d: %q", i+1, n, w, l)
		}
	}
}

// keyMoments are the built-ins' key moments: the instant each one is
// about, reached with t as a student would.
var keyMoments = map[string]string{
	"boundary-burst": "12:01:00", "check-yourself-1": "12:01:02", "worked-example": "12:01:15",
	"steady-stream": "12:01:30", "sliding-log-memory": "12:41:40", "forgotten-ttl": "12:09:40", "many-servers": "12:00:10.996", "shared-tally-race": "12:00:01.001",
	"random-traffic": "12:01:00", "presets-cloudflare-example": "12:01:15", "token-bucket": "12:01:00",
	"segmented-window": "12:01:50",
	"replica-lag":      "12:00:31.633", "synced-tallies": "12:00:11.983", "split-quota": "12:00:10.993",
}

// TestGoldenBuiltins pins every built-in at its key moment at 80×24,
// 140×40 and 200×50, and holds each frame to what every size must show
// whole: the title, each lane's verdict, the warnings, the way to the keys
// and out.
func TestGoldenBuiltins(t *testing.T) {
	for _, sc := range scenarios.Builtins() {
		at, ok := keyMoments[sc.Name]
		if !ok {
			t.Errorf("%s has no key moment", sc.Name)
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			for _, sz := range [][2]int{{80, 24}, {140, 40}, {200, 50}} {
				t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
					m := update(t, newModel(t, sc, sz[0], sz[1]), goTo(at)...)
					out := screen(m)
					checkFrame(t, out, sz[0], sz[1])
					lines := strings.Split(out, "\n")
					if !strings.HasSuffix(strings.TrimRight(lines[len(lines)-1], " "), "? keys • q quit") {
						t.Errorf("the last line does not end with the way to the keys and out: %q", lines[len(lines)-1])
					}
					if !strings.Contains(lines[0], sc.Title) {
						t.Errorf("the title is cut: %q", lines[0])
					}
					flat := collapse(out)
					if sz[0] < 120 { // stacked lanes: every verdict on its line, whole
						for k, d := range m.snap.Last.Decisions {
							if !strings.Contains(flat, collapse(render.Explain(d))) {
								t.Errorf("lane %d's verdict %q is not whole", k, render.Explain(d))
							}
						}
					}
					for k, st := range m.snap.Stats {
						if st.MaxInWindow > m.snap.Config.Limit && !strings.Contains(out, "⚠ "+human.Int(st.MaxInWindow)) {
							t.Errorf("lane %d's warning (%d admitted) is not on screen", k, st.MaxInWindow)
						}
					}
					golden.RequireEqual(t, out)
				})
			}
		})
	}
}

// The full help, at 80 columns as at 200, shows every key whole, in as
// many columns as fit.
func TestFullHelpFits(t *testing.T) {
	for _, w := range []int{80, 200} {
		m := update(t, newModel(t, boundaryBurst(), w, 40), press("?")...)
		out := screen(m)
		checkFrame(t, out, w, 40)
		for _, col := range m.keys.FullHelp() {
			for _, b := range col {
				if b.Enabled() && !strings.Contains(out, b.Help().Desc) {
					t.Errorf("%d columns: the full help lacks %q:\n%s", w, b.Help().Desc, out)
				}
			}
		}
	}
}
