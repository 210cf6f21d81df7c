package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
)

// counted is a limiter "on a store" that counts what it was asked: the
// keys the fake store says it holds.
type counted struct {
	algo.Limiter
	n int64
}

func (c *counted) Allow(t algo.Instant, client string) algo.Decision {
	c.n++
	return c.Limiter.Allow(t, client)
}

func (c *counted) Clone() algo.Limiter { return &counted{c.Limiter.Clone(), c.n} }

// countingStore is a Store whose usage is the requests each lane decided.
type countingStore struct{}

func (countingStore) Wrap(ls []algo.Limiter) ([]algo.Limiter, error) {
	out := make([]algo.Limiter, len(ls))
	for i, l := range ls {
		out[i] = &counted{Limiter: l}
	}
	return out, nil
}
func (countingStore) Check() error { return nil }
func (countingStore) Usage(l algo.Limiter, _ algo.Instant) (StoreUsage, bool, error) {
	c, ok := l.(*counted)
	if !ok {
		return StoreUsage{}, false, nil
	}
	return StoreUsage{Keys: c.n}, true, nil
}
func (countingStore) Name() string { return "counting" }

// Playing onto a caption holds the clock there while it is read; the
// store is measured at most every 250 ms while playing, so the frame that
// decided the caption's burst may skip it. The hold's frames measure it
// then: the lanes say what the store holds at the caption's moment (100
// requests at 12:00:59 of the boundary burst), not what it held a frame
// before (0: seen in a real terminal for the whole seven seconds' hold).
func TestTheStoreIsMeasuredAtAHeldCaption(t *testing.T) {
	m, err := New(Options{Scenario: boundaryBurst(), Store: countingStore{}})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 140, Height: 40})
	wall := &virtualWall{now: time.Unix(1_000_000, 0)}
	m.ticker, m.wall = wall.tick, func() time.Time { return wall.now }
	m.storeWhen = time.Time{} // measured on the real clock before the virtual one
	next, cmd := m.Update(keyMsg("space"))
	m = next.(Model)
	burst := algo.Clock(12, 0, 59, 0)
	for frames := 0; cmd != nil && frames < 10_000; frames++ {
		msg := cmd()
		if _, ok := msg.(tickMsg); !ok {
			t.Fatalf("playing made a %T", msg)
		}
		next, cmd = m.Update(msg)
		m = next.(Model)
		if m.eng.Now() == burst && !m.dwell.IsZero() && wall.now.Sub(m.dwell) > -time.Second { // most of the hold gone
			break
		}
	}
	if m.eng.Now() != burst || !m.playing {
		t.Fatalf("not holding the burst's caption: at %s, playing %v", m.eng.Now().Short(), m.playing)
	}
	for k, l := range m.snap.Store {
		if !l.OK || l.Usage.Keys != 100 {
			t.Errorf("lane %d: the store measured %+v (ok %v) while the caption of 12:00:59 holds; want the 100 requests decided", k, l.Usage, l.OK)
		}
	}
}
