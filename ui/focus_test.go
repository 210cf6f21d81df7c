package ui

import (
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/ui/render"
)

// twoAtOnce is Cloudflare's example with a caption for each request at
// 12:01:15, bursty and steady clients, and a closing caption.
func twoAtOnce() string {
	return `name: two-at-once
title: Two at once
limit: 50
window: 1m
algorithms: [sliding-counter, sliding-counter/httprate]
start: "12:00:29"
traffic:
  - {at: "12:00:30", count: 42, client: bursty}
  - {at: "12:01:14", count: 18, client: bursty}
  - {at: "12:01:15", count: 2, client: bursty}
  - {at: "12:01:15", count: 1, client: steady}
  - {from: "12:01:16", to: "12:01:20", every: 1s, client: steady}
captions:
  - {at: "12:00:30", text: "{sliding-counter.allowed} in the previous minute."}
  - {at: "12:01:15", request: 1, text: "The post's request: {sliding-counter.estimate}, allowed."}
  - {at: "12:01:15", client: bursty, request: 2, text: "Her second: {sliding-counter.estimate}, denied."}
  - {at: "12:01:17", until: "12:01:18", text: "A short one."}
`
}

// lastLine is the first lane's "last" line, the decision it explains.
func lastLine(t *testing.T, m Model) string {
	t.Helper()
	for _, l := range strings.Split(screen(m), "\n") {
		if strings.HasPrefix(l, "last ") {
			return l
		}
	}
	t.Fatalf("no last line:\n%s", screen(m))
	return ""
}

// Reaching a caption by t, tab or playing shows its request as the one
// decided, and its client; a step lets go.
func TestCaptionRoutesShowItsRequest(t *testing.T) {
	sc := parse(twoAtOnce())
	routes := map[string]func(m Model) Model{
		"t": func(m Model) Model { return update(t, m, goTo("12:01:15")...) },
		"tab": func(m Model) Model {
			m = update(t, m, press("tab")...) // 12:00:30
			return update(t, m, press("tab")...)
		},
		"play": func(m Model) Model {
			m = update(t, m, press("space")...)
			for i := 0; i < 4000 && m.snap.Now < algo.Clock(12, 1, 15, 0); i++ {
				m = update(t, m, tickMsg{at: time.Unix(1000, 0).Add(time.Duration(i) * frame), gen: m.gen})
			}
			return m
		},
	}
	for name, route := range routes {
		m := route(newModel(t, sc, 100, 30))
		if now, n := m.Position(); now != algo.Clock(12, 1, 15, 0) || n != 61 {
			t.Errorf("%s: at %v with %d decided, want 12:01:15 with 61", name, now, n)
		}
		if l := lastLine(t, m); !strings.Contains(l, "18 + 42 × 0.75 = 49.5 → allow") {
			t.Errorf("%s: the lane explains %q, want the post's request", name, l)
		}
		if s := screen(m); !strings.Contains(s, "» The post's request") || !strings.Contains(s, "the caption's request 61/") {
			t.Errorf("%s: caption or focus missing:\n%s", name, s)
		}
		// Playing on holds the first caption's moment while it is read,
		// then lands on the second, holds it too, and goes on with its
		// request still in focus.
		if name == "play" {
			frames := func(from time.Time, n int) {
				for i := 0; i < n; i++ {
					m = update(t, m, tickMsg{at: from.Add(time.Duration(i) * frame), gen: m.gen})
				}
			}
			start := m.lastTick
			first, second := captionHold(sc.Captions[1].Text), captionHold(sc.Captions[2].Text)
			frames(start.Add(frame), 60) // 2 s
			if _, n := m.Position(); n != 61 || !strings.Contains(lastLine(t, m), "49.5 → allow") {
				t.Errorf("play on, 2 s: %d decided, lane %q; want the first caption's moment held", n, lastLine(t, m))
			}
			frames(start.Add(first), 1)
			if _, n := m.Position(); n != 62 || !strings.Contains(screen(m), "» Her second") {
				t.Errorf("play on, past the hold: %d decided; want the second caption's request, 62:\n%s", n, screen(m))
			}
			frames(start.Add(first+second), 30)
			if _, n := m.Position(); n <= 62 || !strings.Contains(lastLine(t, m), "50.5 → deny") {
				t.Errorf("play on: %d decided, lane %q; want more decided, the caption's request still explained", n, lastLine(t, m))
			}
		}
	}
	// The next caption speaks of bursty's second, and names its client.
	m := update(t, newModel(t, sc, 100, 30), goTo("12:01:15")...)
	m = update(t, m, press("tab")...)
	if l := lastLine(t, m); !strings.Contains(l, "19 + 42 × 0.75 = 50.5 → deny") {
		t.Errorf("second caption: the lane explains %q", l)
	}
	if s := screen(m); !strings.Contains(s, "client bursty") || !strings.Contains(s, "» Her second") {
		t.Errorf("second caption:\n%s", s)
	}
	// A step lets go of the request; the caption, on screen, keeps its client.
	m = update(t, m, press("right")...)
	if s := screen(m); !strings.Contains(s, "request 63/") || !strings.Contains(s, "client bursty (the caption's)") || !strings.Contains(lastLine(t, m), "(steady)") {
		t.Errorf("after →:\n%s", s)
	}
	// Shift+tab goes back a caption.
	m = update(t, m, press("shift+tab")...)
	if _, n := m.Position(); n != 62 {
		t.Errorf("shift+tab: %d decided, want the second caption's 62", n)
	}
}

// t lands before the instant's first request when no caption speaks of
// one there, so → steps through them.
func TestGoToLandsBeforeTheInstant(t *testing.T) {
	m := update(t, newModel(t, fourLimiters(), 80, 24), goTo("12:00:59.000")...)
	if now, n := m.Position(); now != algo.Clock(12, 0, 59, 0) || n != 100 {
		// boundaryBurst's caption at 12:00:59 names the last request
		t.Fatalf("to a caption's instant: at %v with %d decided, want its request, the 100th", now, n)
	}
	sc := parse(twoAtOnce())
	m = update(t, newModel(t, sc, 80, 24), goTo("12:01:14")...)
	if now, n := m.Position(); now != algo.Clock(12, 1, 14, 0) || n != 42 {
		t.Fatalf("t 12:01:14: at %v with %d decided, want 42, before the instant's 18", now, n)
	}
	m = update(t, m, press("right")...)
	if _, n := m.Position(); n != 43 {
		t.Fatalf("→ after t: %d decided, want the instant's first, 43", n)
	}
}

// A caption shows from its moment until the next, its until, or a window on.
func TestCaptionsGoAway(t *testing.T) {
	m := newModel(t, parse(twoAtOnce()), 100, 30)
	cases := []struct {
		at, want string
	}{
		{"12:00:31", "42 in the previous minute"},
		{"12:01:17", "A short one"},
		{"12:01:18.500", ""},
		{"12:01:19", ""},
	}
	for _, c := range cases {
		m = update(t, m, goTo(c.at)...)
		got := ""
		for _, l := range strings.Split(screen(m), "\n") {
			if strings.HasPrefix(l, "» ") {
				got = l
			}
		}
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("at %s the caption is %q, want %q", c.at, got, c.want)
		}
	}
}

// A stretch of more than a few seconds with nothing happening is crossed
// quickly, saying so.
func TestIdleStretchesAreSkipped(t *testing.T) {
	m := update(t, newModel(t, workedExample(), 100, 30), goTo("12:00:30")...)
	m = update(t, m, press("space")...)
	m = playFor(t, m, 3)
	now, _ := m.Position()
	if now < algo.Clock(12, 0, 58, 0) || now > algo.Clock(12, 1, 0, 0) {
		t.Fatalf("three frames after 12:00:30 the clock is at %v; want a second before the window edge", now)
	}
	if s := screen(m); !strings.Contains(s, "nothing happens until 12:01:00: skipping to 12:00:59") {
		t.Fatalf("no note on the skip:\n%s", s)
	}
}

// The timeline shades each limiter's window for the focused client: the
// counter's overlap with the previous window covers 0.75 of a window at
// 12:01:15, the log's window ends at the clock, the fixed window's is the
// calendar minute.
func TestTimelineDrawsTheWindows(t *testing.T) {
	m := update(t, newModel(t, workedExample(), 140, 40), goTo("12:01:15")...)
	p := render.Timeline{C: m.c, Snap: &m.snap}
	count := func(k int, want render.Tint) (n int) {
		spans := p.WindowSpans(k)
		for i := range p.Cells() {
			if render.TintAt(spans, p.Start(i), p.Start(i)+p.CellMs()) == want {
				n++
			}
		}
		return n
	}
	perWindow := int(time.Minute / m.snap.Timeline.Cell)
	if got := count(2, render.TintOverlap); abs(4*got-3*perWindow) > 2 { // to the nearest cell
		t.Errorf("the counter's overlap covers %d cells of a %d-cell window, want three quarters", got, perWindow)
	}
	if got := count(2, render.TintCurrent); got != perWindow {
		t.Errorf("the counter's current window covers %d cells, want %d", got, perWindow)
	}
	if got := count(1, render.TintCurrent); got != perWindow {
		t.Errorf("the log's window covers %d cells, want %d", got, perWindow)
	}
	spans := p.WindowSpans(1)
	if s := spans[0]; s.To != m.snap.Now+1 || s.From != m.snap.Now-59_999 {
		t.Errorf("the log's window is [%v, %v), want (now − 1m, now]", s.From, s.To)
	}
	if s := p.WindowSpans(0)[0]; s.From != algo.Clock(12, 1, 0, 0) || s.To != algo.Clock(12, 2, 0, 0) {
		t.Errorf("the fixed window is [%v, %v), want the 12:01 minute", s.From, s.To)
	}
}

// f shows the focused client's requests alone on the timeline, with its
// figures counted in view; f again, every client's.
func TestTimelineFollowsTheFocus(t *testing.T) {
	sc := parse(twoAtOnce())
	m := update(t, newModel(t, sc, 140, 40), goTo("12:01:15")...)
	m = update(t, m, press("tab")...) // bursty's second request
	all := m.snap.Timeline
	m = update(t, m, press("f")...)
	one := m.snap.Timeline
	if one.Client != "bursty" || !strings.Contains(screen(m), "timeline · bursty (f)") || !strings.Contains(screen(m), "in view") {
		t.Fatalf("f: the timeline is %q's:\n%s", one.Client, screen(m))
	}
	var sumAll, sumOne int64
	for i := range all.Total {
		sumAll += all.Total[i]
		sumOne += one.Total[i]
	}
	if sumOne != 62 || sumAll != 62 {
		// all 62 decided requests are in view; bursty sent every one of them
		t.Errorf("in view: %d of bursty's, %d of all", sumOne, sumAll)
	}
	m = update(t, m, press("right")...) // steady's request: bursty stays the caption's client
	m = update(t, m, press("c")...)     // choose a client: the first met, bursty
	m = update(t, m, press("c")...)     // then steady
	var steady int64
	for _, n := range m.snap.Timeline.Total {
		steady += n
	}
	if m.snap.Timeline.Client != "steady" || steady != 1 {
		t.Errorf("the timeline follows the chosen client: %q with %d requests, want steady's 1", m.snap.Timeline.Client, steady)
	}
	m = update(t, m, press("f")...)
	if m.snap.Timeline.Client != "" || !strings.Contains(screen(m), "all clients") {
		t.Errorf("f again should show every client:\n%s", screen(m))
	}
}

func abs(n int) int { return max(n, -n) }

// While playing the gauges move on springs: a frame after the 12:02:00
// edge the fixed window's gauge is on its way down to its new count of 0,
// a few frames later there; the log's stays full, its timestamps still in
// its window. Paused, they show the exact levels.
func TestGaugesMoveSmoothly(t *testing.T) {
	sc := parse(`limit: 100
window: 1m
algorithms: [fixed-window, sliding-log]
start: "12:01:58"
traffic:
  - {at: "12:01:59", count: 100}
  - {from: "12:02:00", to: "12:02:10", every: 5s}
`)
	m := update(t, newModel(t, sc, 100, 30), goTo("12:01:59.900")...)
	m = update(t, m, press("space")...)
	at := time.Unix(5000, 0)
	var fixed, log []float64
	for i := 0; i < 20; i++ {
		at = at.Add(frame)
		m = update(t, m, tickMsg{at: at, gen: m.gen})
		if m.snap.Now >= algo.Clock(12, 2, 0, 0) {
			fixed, log = append(fixed, m.snap.Shown[0]), append(log, m.snap.Shown[1])
		}
	}
	if len(fixed) < 5 {
		t.Fatalf("only %d frames past the edge", len(fixed))
	}
	if fixed[0] <= 0.05 || fixed[0] >= 0.99 {
		t.Errorf("a frame after the edge the fixed gauge is at %.2f; want it on its way down from 1 to 0.01", fixed[0])
	}
	if f := fixed[len(fixed)-1]; f > 0.05 {
		t.Errorf("%d frames after the edge the fixed gauge is still at %.2f", len(fixed), f)
	}
	for i := 1; i < len(fixed); i++ {
		if fixed[i] > fixed[i-1]+1e-9 {
			t.Errorf("the fixed gauge rose on its way down: %v", fixed)
		}
	}
	for _, l := range log {
		if l < 0.99 {
			t.Errorf("the log's gauge left full at the edge: %v", log)
			break
		}
	}
	m = update(t, m, press("space")...)
	if m.snap.Shown != nil {
		t.Error("paused, the gauges should draw exact levels")
	}
}

// Stepping onto the request a caption speaks of holds it as landing there
// does; the step after lets go.
func TestSteppingOntoACaptionsRequest(t *testing.T) {
	m := update(t, newModel(t, parse(twoAtOnce()), 100, 30), goTo("12:01:14")...)
	for range 18 {
		m = update(t, m, press("right")...)
	}
	if s := screen(m); strings.Contains(s, "the caption's request") {
		t.Fatalf("at 12:01:14's last request no caption speaks:\n%s", s)
	}
	m = update(t, m, press("right")...) // #61, the first at 12:01:15
	if s := screen(m); !strings.Contains(s, "the caption's request 61/") || !strings.Contains(s, "» The post's request") {
		t.Fatalf("→ onto the caption's request:\n%s", s)
	}
	m = update(t, m, press("right")...) // #62, the next caption's
	if s := screen(m); !strings.Contains(s, "the caption's request 62/") || !strings.Contains(s, "» Her second") {
		t.Fatalf("→ onto the second caption's request:\n%s", s)
	}
	m = update(t, m, press("right")...) // #63, steady's: no caption speaks of it
	if s := screen(m); strings.Contains(s, "the caption's request") || !strings.Contains(s, "request 63/") {
		t.Fatalf("→ past the caption's request should let go:\n%s", s)
	}
}
