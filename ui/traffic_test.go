package ui

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"windowlab/algo"
	"windowlab/scenarios"
	"windowlab/sim"
)

// emptyClock is windowlab play's scenario: nothing but the lesson's rules.
func emptyClock(t testing.TB) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Empty("play", "Make the traffic yourself", algo.Config{Limit: 100, Window: time.Minute},
		[]algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingLog}, {Kind: algo.KindSlidingCounter}, {Kind: algo.KindTokenBucket}},
		algo.Clock(12, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// burstKeys are b, what is typed, enter.
func burstKeys(typed string) []tea.Msg {
	return append(append(press("b"), typeText(typed)...), keyMsg("enter"))
}

// boundaryByHand is the boundary burst found with the keys alone.
func boundaryByHand() []tea.Msg {
	var msgs []tea.Msg
	msgs = append(msgs, goTo("12:00:59")...)
	msgs = append(msgs, burstKeys("")...)
	msgs = append(msgs, goTo("12:01:00")...)
	return append(msgs, burstKeys("")...)
}

// state is what a test compares of an engine's position.
type state struct {
	n     int64
	now   algo.Instant
	last  sim.Record
	stats []sim.Stats
}

func stateOf(e *sim.Engine) state {
	r, _ := e.Last()
	r.Decisions = append([]algo.Decision(nil), r.Decisions...)
	return state{e.Processed(), e.Now(), r, e.Stats()}
}

// records are every record of a fresh engine over sc, without the
// source's client numbers (a hint to the engine, not a decision).
func records(t *testing.T, sc *scenarios.Scenario) []sim.Record {
	t.Helper()
	e, err := sc.Engine(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []sim.Record
	for {
		r, ok := e.Step()
		if !ok {
			return out
		}
		r.Arrival.Number = 0
		r.Decisions = append([]algo.Decision(nil), r.Decisions...)
		out = append(out, r)
	}
}

// The lesson's boundary burst, found on an empty clock with t and b alone:
// each burst decided at the clock, the fixed window admitting 200.
func TestTrafficKeysFindTheBoundaryBurst(t *testing.T) {
	m := newModel(t, emptyClock(t), 80, 24)
	if !strings.Contains(screen(m), "make traffic: r request · b burst · s stream") {
		t.Fatalf("an empty clock names no key that makes traffic:\n%s", screen(m))
	}
	m = update(t, m, boundaryByHand()...)
	st := m.eng.Stats()
	if st[0].Allowed != 200 || st[0].MaxInWindow != 200 || st[1].Allowed != 100 || st[2].Allowed != 100 || st[3].Allowed != 101 {
		t.Errorf("allowed %d %d %d %d, most %d", st[0].Allowed, st[1].Allowed, st[2].Allowed, st[3].Allowed, st[0].MaxInWindow)
	}
	out := screen(m)
	for _, want := range []string{"⚠ 200 to client-1 within 1s (12:00:59–12:01:00) — twice the limit", "100 requests at 12:01:00 for client-1"} {
		if !strings.Contains(out, want) {
			t.Errorf("the frame lacks %q:\n%s", want, out)
		}
	}
	if m.eng.Processed() != 200 || m.eng.Now() != algo.Clock(12, 1, 0, 0) {
		t.Errorf("at %s with %d decided", m.eng.Now(), m.eng.Processed())
	}
}

// r, b with a name, a stream played for a while at two rates, steps back
// and forward, an undo: the engine that took it all live, the scenario w
// writes, read back, and every step back and forward agree record by
// record.
func TestTrafficMadeIsTheFileWritten(t *testing.T) {
	dir := t.TempDir()
	m, err := New(Options{Scenario: emptyClock(t), SaveDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = update(t, m, press("r", "r")...)
	m = update(t, m, goTo("12:00:10")...)
	m = update(t, m, burstKeys("20 bob")...)
	m = update(t, m, press("left", "left", "left")...)
	m = update(t, m, burstKeys("3")...) // behind bob's last two: merged at the clock's instant
	m = update(t, m, press("right", "right")...)
	m = update(t, m, append(append(press("s"), typeText("5 cy")...), keyMsg("enter"))...)
	m = play(t, m, 3*time.Second)
	m = update(t, m, press(">")...)
	if !strings.Contains(screen(m), "▶ stream 6/s for cy") {
		t.Fatalf("> did not show the stream's new rate:\n%s", screen(m))
	}
	m = play(t, m, 2*time.Second)
	m = update(t, m, press("space")...) // pause
	m = update(t, m, burstKeys("7")...)
	m = update(t, m, press("u")...) // the 7 go again
	if !strings.Contains(m.status, "took away 7 requests for client-1") && !strings.Contains(m.status, "took away 7 requests for cy") {
		t.Errorf("undo says %q", m.status)
	}

	_, cmd := m.Update(keyMsg("w"))
	if cmd == nil {
		t.Fatalf("w wrote nothing: %q", m.status)
	}
	m = update(t, m, cmd())
	path := filepath.Join(dir, "play-traffic.yaml")
	if !strings.Contains(m.status, "wrote "+path) {
		t.Fatalf("w says %q", m.status)
	}
	file, err := scenarios.Load(path)
	if err != nil {
		data, _ := os.ReadFile(path)
		t.Fatalf("%v\n%s", err, data)
	}
	want := records(t, file)
	if int64(len(want)) != m.eng.Len() || len(want) < 30 {
		t.Fatalf("the file makes %d requests, the view %d", len(want), m.eng.Len())
	}
	// Stepping back over all of it, then forward, lands on the file's
	// records one by one (back to the two r at the start's own instant,
	// which the start decides).
	for i := len(want) - 1; i >= 2; i-- {
		m = update(t, m, press("left")...)
		if m.eng.Processed() != int64(i) {
			t.Fatalf("← landed at %d, want %d", m.eng.Processed(), i)
		}
	}
	for i := 2; i < len(want); i++ {
		m = update(t, m, press("right")...)
		r, _ := m.eng.Last()
		r.Arrival.Number = 0
		if !reflect.DeepEqual(r.Decisions, want[i].Decisions) || r.Arrival != want[i].Arrival {
			t.Fatalf("→ to %d: %+v, the file's %+v", i, r, want[i])
		}
	}
	// A second w never writes over the first.
	_, cmd = m.Update(keyMsg("w"))
	m = update(t, m, cmd())
	if !strings.Contains(m.status, "play-traffic-2.yaml") {
		t.Errorf("a second w says %q", m.status)
	}
}

// allRecords are every record of e from its start, its clients'
// numbers left out (a hint of the source's, not a decision). It moves e.
func allRecords(e *sim.Engine) []sim.Record {
	e.SeekIndex(0)
	var out []sim.Record
	for e.Processed() < e.Len() {
		r, ok := e.Step()
		if !ok {
			break
		}
		r.Arrival.Number = 0
		r.Decisions = append([]algo.Decision(nil), r.Decisions...)
		out = append(out, r)
	}
	return out
}

// play runs the clock for d of wall time, a frame at a time.
func play(t *testing.T, m Model, d time.Duration) Model {
	t.Helper()
	if !m.playing {
		m = update(t, m, press("space")...)
	}
	at := time.Unix(1000, 0)
	for range d / frame {
		at = at.Add(frame)
		m = update(t, m, tickMsg{at: at, gen: m.gen})
	}
	return m
}

// u puts back exactly what was there before the last addition: by the
// engine's own undo, and after the rules changed (a knob) by a replay.
func TestUndoRestoresTheRecords(t *testing.T) {
	m := newModel(t, emptyClock(t), 80, 24)
	m = update(t, m, goTo("12:00:59")...)
	m = update(t, m, burstKeys("")...)
	m = update(t, m, goTo("12:01:00")...)
	before := stateOf(m.eng)
	m = update(t, m, burstKeys("30 bob")...)
	if m.eng.Processed() != before.n+30 {
		t.Fatalf("b 30 bob decided %d", m.eng.Processed()-before.n)
	}
	m = update(t, m, press("u")...)
	if got := stateOf(m.eng); !reflect.DeepEqual(got, before) {
		t.Fatalf("after u:\n%+v\nbefore b:\n%+v", got, before)
	}
	// After a knob the additions are in the replayed scenario's source.
	m = update(t, m, burstKeys("")...)
	m = update(t, m, press("}", "{")...)
	if m.eng.Config().Window != time.Minute {
		t.Fatalf("} and { leave a window of %s", m.eng.Config().Window)
	}
	m = update(t, m, press("u")...)
	if got := stateOf(m.eng); !reflect.DeepEqual(got.stats, before.stats) || got.n != before.n || got.now != before.now {
		t.Fatalf("u after } and {:\n%+v\nbefore:\n%+v", got, before)
	}
	m = update(t, m, press("u", "u")...)
	if m.eng.Len() != 0 || !strings.Contains(m.status, "nothing to take away") {
		t.Errorf("after every undo: %d requests, %q", m.eng.Len(), m.status)
	}
}

// u after a stream ran on past a request made while it ran takes that
// request away, not the stream's last (the engine's own undo takes the
// last runs injected, which are the stream's): the records are the
// file's of what is left.
func TestUndoAfterAStreamRanOn(t *testing.T) {
	m := newModel(t, emptyClock(t), 100, 30)
	m = update(t, m, append(append(press("s"), typeText("20")...), keyMsg("enter"))...)
	m = play(t, m, time.Second)
	m = update(t, m, press("r")...)
	m = play(t, m, time.Second)
	m = update(t, m, press("space", "u")...)
	sc, err := m.played()
	if err != nil {
		t.Fatal(err)
	}
	want := records(t, sc)
	got := allRecords(m.eng)
	if !reflect.DeepEqual(got, want) || len(want) < 30 {
		t.Fatalf("after u: %d records unlike the file's %d of what is left (%q)", len(got), len(want), m.status)
	}
}

// The knobs decide the same traffic again under the nudged rules at once,
// as the what-if form does on enter.
func TestKnobsDecideTheSameTrafficAgain(t *testing.T) {
	m := newModel(t, emptyClock(t), 80, 24)
	m = update(t, m, boundaryByHand()...)
	m = update(t, m, press(")")...)
	if c := m.eng.Config(); c.Limit != 110 || m.eng.Processed() != 200 {
		t.Fatalf(") gives limit %d at %d", c.Limit, m.eng.Processed())
	}
	st := m.eng.Stats()
	if st[0].Allowed != 200 || st[1].Allowed != 110 {
		t.Errorf("at 110 a minute: fixed %d, log %d", st[0].Allowed, st[1].Allowed)
	}
	if !strings.Contains(m.status, "110 per 1m") {
		t.Errorf("the status says %q", m.status)
	}
	m = update(t, m, press("}")...)
	if c := m.eng.Config(); c.Window != 5*time.Minute || m.eng.Stats()[0].Allowed != 110 {
		t.Errorf("} gives %s, fixed %d", c.Window, m.eng.Stats()[0].Allowed)
	}
	m = update(t, m, press("{", "{", "{", "{", "{", "{", "{")...)
	if c := m.eng.Config(); c.Window != time.Second || !strings.Contains(m.status, "window is at its least") {
		t.Errorf("{ at the shortest window: %s, %q", c.Window, m.status)
	}
	for range 40 {
		m = update(t, m, press("(")...)
	}
	if c := m.eng.Config(); c.Limit != 1 || !strings.Contains(m.status, "limit is at its least") {
		t.Errorf("( at a limit of 1: %d, %q", c.Limit, m.status)
	}
}

// Bad input at a prompt gets a line saying why and changes nothing.
func TestTrafficPromptsRefuseBadInput(t *testing.T) {
	m := newModel(t, emptyClock(t), 80, 24)
	m = update(t, m, goTo("12:00:30")...)
	for _, c := range []struct {
		key, typed, want string
	}{
		{"b", "0", `a burst of "0": give a whole number of requests from 1 to 50,000,000, such as 100`},
		{"b", "1000000000000", `a burst of "1000000000000": give a whole number of requests from 1 to 50,000,000`},
		{"b", "abc", `a burst of "abc"`},
		{"s", "abc", `a rate of "abc": give requests a second from 1 to 1,000`},
		{"s", "5000", `a rate of "5000"`},
		{"s", "0/s", `a rate of "0"`},
	} {
		before := stateOf(m.eng)
		m2 := update(t, m, press(c.key)...)
		m2 = update(t, m2, typeText(c.typed)...)
		m2 = update(t, m2, keyMsg("enter"))
		if _, ok := m2.dialog.(trafficPrompt); !ok || !strings.Contains(collapse(screen(m2)), collapse("✗ "+c.want)) {
			t.Errorf("%s %q: %s\n%s", c.key, c.typed, modeOf(m2), screen(m2))
		}
		checkFrame(t, screen(m2), 80, 24)
		if got := stateOf(m2.eng); !reflect.DeepEqual(got, before) || m2.eng.Len() != 0 || len(m2.traffic.added) != 0 {
			t.Errorf("%s %q changed the engine", c.key, c.typed)
		}
		if m2 = update(t, m2, keyMsg("esc")); m2.dialog != nil {
			t.Errorf("esc left %s open", modeOf(m2))
		}
	}
	// A name with control characters: the prompt's input keeps none, and the
	// prompt's reader refuses any that get through.
	m2 := update(t, m, press("b")...)
	m2 = update(t, m2, tea.PasteMsg{Content: "2 b\x1b[31mob"})
	if v := m2.dialog.(trafficPrompt).input.Value(); strings.ContainsRune(v, 0x1b) {
		t.Errorf("the prompt holds %q", v)
	}
	if _, _, err := parseAmount("2 b\x1bob", false, 100, "client-1"); err == nil || !strings.Contains(err.Error(), "is not a client name") {
		t.Errorf("a name with ESC: %v", err)
	}
	if _, _, err := parseAmount("2 b\tob\n", false, 100, "client-1"); err == nil {
		t.Errorf("a name with a tab was taken")
	}
	if n, who, err := parseAmount(" 2,000  bob smith ", false, 100, "client-1"); err != nil || n != 2000 || who != "bob smith" {
		t.Errorf("2,000 bob smith: %d %q %v", n, who, err)
	}
	if n, who, err := parseAmount("", true, 3, "client-1"); err != nil || n != 3 || who != "client-1" {
		t.Errorf("an empty stream prompt: %d %q %v", n, who, err)
	}
}

// The file's request budget bounds what the keys may add: at the limit,
// a clear refusal and no change.
func TestTrafficBudget(t *testing.T) {
	sc := parse(`name: full
limit: 100
window: 1m
traffic:
  - {at: "12:05:00", count: 50000000}
`)
	m := newModel(t, sc, 80, 24)
	before := stateOf(m.eng)
	m = update(t, m, press("r")...)
	want := "✗ that brings the scenario to 50,000,001 requests; a scenario may make at most 50,000,000 in all"
	m0 := m
	if !strings.Contains(m.status, want) {
		t.Errorf("r over the budget says %q", m.status)
	}
	if got := stateOf(m.eng); !reflect.DeepEqual(got, before) || m.eng.Len() != 50_000_000 {
		t.Error("a refused r changed the engine")
	}
	m = update(t, m0, burstKeys("")...)
	if _, ok := m.dialog.(trafficPrompt); !ok || !strings.Contains(collapse(screen(m)), "that brings the scenario to 50,000,100 requests; a scenario may make at most 50,000,000 in all") {
		t.Errorf("b over the budget:\n%s", screen(m))
	}
}

// The prompts, the status after a burst and a running stream's line, at
// 80×24 and 140×40 (plain: what NO_COLOR shows), and the burst prompt with
// its refusal on a dark and a light background.
func TestGoldenTraffic(t *testing.T) {
	frames := []struct {
		name string
		msgs func() []tea.Msg
	}{
		{"empty-clock", func() []tea.Msg { return nil }},
		{"burst-prompt", func() []tea.Msg { return append(goTo("12:00:59"), press("b")...) }},
		{"burst-refused", func() []tea.Msg {
			return append(append(goTo("12:00:59"), press("b")...), append(typeText("0"), keyMsg("enter"))...)
		}},
		{"stream-prompt", func() []tea.Msg { return append(goTo("12:00:59"), press("s")...) }},
		{"boundary-by-hand", boundaryByHand},
	}
	for _, f := range frames {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", f.name, sz[0], sz[1]), func(t *testing.T) {
				m := update(t, newModel(t, emptyClock(t), sz[0], sz[1]), f.msgs()...)
				out := screen(m)
				checkFrame(t, out, sz[0], sz[1])
				golden.RequireEqual(t, out)
			})
		}
	}
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("stream-running/%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := newModel(t, emptyClock(t), sz[0], sz[1])
			m = update(t, m, goTo("12:00:50")...)
			m = update(t, m, append(append(press("s"), typeText("4")...), keyMsg("enter"))...)
			m = play(t, m, time.Second)
			out := screen(m)
			checkFrame(t, out, sz[0], sz[1])
			if !strings.Contains(out, "▶ stream 4/s for client-1, one every 250ms") {
				t.Errorf("no stream line:\n%s", out)
			}
			golden.RequireEqual(t, out)
		})
	}
	for _, light := range []bool{false, true} {
		t.Run(fmt.Sprintf("burst-refused-colour/%s", map[bool]string{false: "dark", true: "light"}[light]), func(t *testing.T) {
			bg := color.Color(color.Black)
			if light {
				bg = color.White
			}
			m := update(t, newModel(t, emptyClock(t), 80, 24), tea.BackgroundColorMsg{Color: bg})
			m = update(t, m, append(append(goTo("12:00:59"), press("b")...), append(typeText("0"), keyMsg("enter"))...)...)
			golden.RequireEqual(t, m.View().Content)
		})
	}
}

// In a classroom a following student's keys make no traffic until the
// student explores alone; a teacher's do, and go to the room with the
// teacher's next position (room_traffic_test.go follows them there).
func TestTrafficInTheRoom(t *testing.T) {
	teacher, student, last := classroom(t)
	n := student.eng.Len()
	student = update(t, student, press("r")...)
	if student.eng.Len() != n || !strings.Contains(student.status, "you follow the teacher") {
		t.Errorf("a following student's r: %d requests, %q", student.eng.Len(), student.status)
	}
	student = update(t, student, press("right", "r")...)
	if student.eng.Len() != n+1 {
		t.Errorf("exploring alone, r made %d requests", student.eng.Len()-n)
	}
	teacher = update(t, teacher, press("r")...)
	if teacher.eng.Len() != n+1 || last.Traffic == nil || len(last.Traffic.Added) != 1 {
		t.Errorf("the teacher's r: %d requests, the room told %+v", teacher.eng.Len(), last.Traffic)
	}
}

// The stream's line keeps its keys whole at 80 columns, giving up its
// timing first (at 6 a second it was cut at "s st…").
func TestStreamLineFitsTheWidth(t *testing.T) {
	for _, w := range []int{80, 140} {
		m := newModel(t, emptyClock(t), w, 24)
		m = update(t, m, press("s")...)
		m = update(t, m, press("6", "enter")...)
		out := screen(m)
		if !strings.Contains(out, "▶ stream 6/s for client-1") || !strings.Contains(out, "· < > rate · s stops") {
			t.Errorf("at %d columns the stream's line is not whole:\n%s", w, out)
		}
		if w >= 140 && !strings.Contains(out, "one every 167ms") {
			t.Errorf("at %d columns the stream's line leaves out its timing:\n%s", w, out)
		}
	}
}
