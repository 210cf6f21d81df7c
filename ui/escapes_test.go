package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/scenarios"
)

// hostileKeys are a log's client keys holding what a terminal acts on
// (nginx's escape=json writes the first as "\u001b]0;PWNED\u0007…"), an
// empty one, invisible ones, and one that looks like the first's quoted
// form.
var hostileKeys = []string{"\x1b]0;PWNED\x07\x1b[2J\u202e", "", "a\nb\x00", "del\x7f csi\u009b2J", "\u2067rtl\u200f\u061c", "\u3164", `"\x1b]0;PWNED\a\x1b[2J\u202e"`}

// hostileView is the scenario replay --tui opens on such a log
// (scenarios.Record keeps its keys exactly): each key sends the limit at
// a minute's last second and again at the next one's first.
func hostileView(t *testing.T) *scenarios.Scenario {
	t.Helper()
	at := algo.Instant(time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC).UnixMilli())
	var runs []scenarios.Run
	for _, when := range []algo.Instant{at, at + 1000} {
		for _, k := range hostileKeys {
			runs = append(runs, scenarios.Run{At: when, Client: k, Count: 2})
		}
	}
	algos := []algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingLog}, {Kind: algo.KindSlidingCounter}}
	sc, err := scenarios.Record(scenarios.Recorded{From: "esc.jsonl", Config: algo.Config{Limit: 2, Window: time.Minute}, Algorithms: algos}, slices.Values(runs))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// sgr is the styling the view itself writes: colours and weights.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// checkNoEscapes fails when the frame, its own styling left out, holds
// anything a terminal would act on.
func checkNoEscapes(t *testing.T, what string, m Model) {
	t.Helper()
	frame := sgr.ReplaceAllString(m.View().Content, "")
	if i := human.Acts(frame); i >= 0 {
		t.Fatalf("%s: the frame holds %q at byte %d:\n%s", what, frame[i:min(i+12, len(frame))], i, screen(m))
	}
}

// No frame of the view on a hostile log writes a key as it is: not the
// header, the lanes, the recent list, the timeline's legend, the client
// picker or the status line of ! (the worst client). Each shows the key's
// Visible form.
func TestViewShowsHostileKeysVisibly(t *testing.T) {
	for _, sz := range sizes {
		m := newModel(t, hostileView(t), sz[0], sz[1])
		checkNoEscapes(t, "the first frame", m)
		m = update(t, m, press("G")...)
		checkNoEscapes(t, "at the end", m)
		m = update(t, m, press("f")...) // the timeline: this client's
		for range hostileKeys {
			m = update(t, m, press("c")...)
			checkNoEscapes(t, "client "+human.Visible(m.snap.Client), m)
			if want := human.Visible(m.snap.Client); sz[0] >= 140 && !strings.Contains(screen(m), "client "+want) {
				t.Errorf("the header does not name %s:\n%s", want, screen(m))
			}
		}
		m = settle(t, m, keyMsg("!"))
		checkNoEscapes(t, "the worst client", m)
		if s := screen(m); !strings.Contains(s, `focused "\x1b]0;PWNED\a\x1b[2J\u202e"`) {
			t.Errorf("! should name the first key by its Visible form:\n%s", s)
		}
		m = settle(t, m, keyMsg("C"))
		checkNoEscapes(t, "the client picker", m)
		if s := screen(m); sz[1] >= 40 && !strings.Contains(s, `"a\nb\x00"`) {
			t.Errorf("the picker does not list \"a\\nb\\x00\":\n%s", s)
		}
	}
}

// w writes the what-if of the view on a hostile log as a file the
// recorded reader takes back, one client a key, each named so that a
// terminal shows it as it is.
func TestWhatIfOfAHostileLogReadsBack(t *testing.T) {
	dir := t.TempDir()
	m, err := New(Options{Scenario: hostileView(t), SaveDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = update(t, m, press("e")...)
	m = typeInto(t, m, "3")
	m = update(t, m, press("enter")...)
	m = settle(t, m, keyMsg("w"))
	checkNoEscapes(t, "after w", m)
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("w wrote %v:\n%s", files, screen(m))
	}
	data, _ := os.ReadFile(files[0])
	if i := human.Acts(string(data)); i >= 0 {
		t.Fatalf("the what-if holds %q", data[i:min(i+12, len(data))])
	}
	sc, err := scenarios.Load(files[0])
	if err != nil {
		t.Fatalf("the what-if does not read back: %v", err)
	}
	src := sc.Source()
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		if human.Acts(a.Client) >= 0 || a.Client == "" {
			t.Fatalf("the what-if names a client %q", a.Client)
		}
	}
	if n := sc.Load().Clients; n != int64(len(hostileKeys)) || sc.Config.Limit != 3 {
		t.Errorf("the what-if read back with %d clients, limit %d; want %d", n, sc.Config.Limit, len(hostileKeys))
	}
}
