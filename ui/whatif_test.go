package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"windowlab/scenarios"
)

// typeInto types text into the focused field.
func typeInto(t *testing.T, m Model, text string) Model {
	t.Helper()
	for _, r := range text {
		m = update(t, m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return m
}

// e, a new limit, enter: the same traffic replays under it at once, at the
// same request, the caption of the original rules gone.
func TestWhatIfReplaysAtTheSameRequest(t *testing.T) {
	m := update(t, newModel(t, boundaryBurst(), 100, 30), goTo("12:01:00")...)
	m = update(t, m, press("e")...)
	if modeOf(m) != modeWhatIf || !strings.Contains(screen(m), "What if…") || !strings.Contains(screen(m), "[x] sliding-log") {
		t.Fatalf("e should open the form:\n%s", screen(m))
	}
	m = typeInto(t, m, "150")
	m = update(t, m, press("enter")...)
	s := screen(m)
	if now, n := m.Position(); modeOf(m) != modeMain || n != 200 || now != m.snap.Now || m.snap.Config.Limit != 150 {
		t.Fatalf("after enter: mode %v, %d decided, limit %d:\n%s", modeOf(m), n, m.snap.Config.Limit, s)
	}
	if m.snap.Stats[1].Allowed != 150 || m.snap.Stats[0].Allowed != 200 || !strings.Contains(s, "what if: 150 per 1m") {
		t.Errorf("the log should admit 150 of the 200 at a limit of 150:\n%s", s)
	}
	if strings.Contains(s, "» ") {
		t.Errorf("a caption of the original rules is still on screen:\n%s", s)
	}
	// Another limiter, and expiry off: the toggles.
	m = update(t, m, press("e", "down", "down", "space")...) // expiry off
	for range 3 + 3 {                                        // to token-bucket
		m = update(t, m, press("down")...)
	}
	m = update(t, m, press("space", "enter")...)
	if len(m.snap.Algorithms) != 4 || m.snap.Config.NoExpiry != true || m.snap.Config.Limit != 150 {
		t.Errorf("the form's toggles: %v, expiry off %v, limit %d", m.snap.Algorithms, m.snap.Config.NoExpiry, m.snap.Config.Limit)
	}
	// +/- nudge the selected field.
	m = update(t, m, press("e", "+", "+")...)
	if v := m.dialog.(whatIfForm).limit.Value(); v != "181" {
		t.Errorf("+ + from 150: %s, want 165 then 181", v)
	}
}

// An impossible value keeps the form open and says what would be valid.
func TestWhatIfRefusesAnImpossibleLimit(t *testing.T) {
	m := update(t, newModel(t, boundaryBurst(), 100, 30), press("e")...)
	m = typeInto(t, m, "0")
	m = update(t, m, press("enter")...)
	if modeOf(m) != modeWhatIf || !strings.Contains(screen(m), "✗ limit 0: give a whole number of requests from 1 to") {
		t.Fatalf("limit 0:\n%s", screen(m))
	}
	m = update(t, m, press("esc")...)
	if modeOf(m) != modeMain || m.snap.Config.Limit != 100 {
		t.Errorf("esc should leave the rules as they were")
	}
}

// w writes the what-if to a new file that replays the same, and never
// over a file already there.
func TestWhatIfWritesANewFile(t *testing.T) {
	dir := t.TempDir()
	m, err := New(Options{Scenario: boundaryBurst(), SaveDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = settle(t, m, keyMsg("w"))
	if !strings.Contains(screen(m), "nothing to write: e changes the rules first") {
		t.Fatalf("w before a change:\n%s", screen(m))
	}
	m = update(t, m, press("e")...)
	m = typeInto(t, m, "150")
	m = update(t, m, press("enter")...)
	first := filepath.Join(dir, "boundary-burst-what-if.yaml")
	if err := os.WriteFile(first, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m = settle(t, m, keyMsg("w"))
	second := filepath.Join(dir, "boundary-burst-what-if-2.yaml")
	if !strings.Contains(screen(m), "wrote "+second) {
		t.Fatalf("w:\n%s", screen(m))
	}
	if mine, _ := os.ReadFile(first); string(mine) != "mine\n" {
		t.Errorf("w wrote over a file: %q", mine)
	}
	sc, err := scenarios.Load(second)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Config.Limit != 150 || sc.Len() != 200 || len(sc.Captions) != 0 {
		t.Errorf("the file read back: limit %d, %d requests, %d captions", sc.Config.Limit, sc.Len(), len(sc.Captions))
	}
}

// A classroom's session writes nothing: w says so, and the directory it
// would have written to stays empty.
func TestAClassroomViewWritesNothing(t *testing.T) {
	dir := t.TempDir()
	m, err := New(Options{Scenario: boundaryBurst(), SaveDir: dir, WritesNothing: true})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = update(t, m, press("e")...)
	m = typeInto(t, m, "150")
	m = update(t, m, press("enter")...)
	if s := screen(m); !strings.Contains(s, "what if: 150 per 1m · e again changes it") || strings.Contains(s, "w writes") {
		t.Fatalf("after the what-if:\n%s", s)
	}
	m = settle(t, m, keyMsg("w"))
	if !strings.Contains(screen(m), "this view writes no files") {
		t.Fatalf("w in a classroom:\n%s", screen(m))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a classroom's view wrote %v", entries)
	}
}
