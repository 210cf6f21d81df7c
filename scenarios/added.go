package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// Traffic a student makes at the clock (windowlab play, and the view's r,
// b and s keys) becomes traffic entries appended to the scenario: a burst
// for r and b, a stream for s. The engine decides them as they are added
// (sim.Engine.Inject); the scenario carries them, so that the what-if form,
// the live knobs and w see them as any other traffic.

// Empty is a scenario with no traffic: the clock at start, the limit and
// window of cfg, the limiters of algorithms, for a student to fill.
func Empty(name, title string, cfg algo.Config, algorithms []algo.Algorithm, start algo.Instant) (*Scenario, error) {
	for _, a := range algorithms {
		if _, err := a.New(cfg); err != nil {
			return nil, fmt.Errorf("%s: %v", a, err)
		}
	}
	if len(algorithms) == 0 {
		return nil, errors.New("no limiter: keep at least one")
	}
	return &Scenario{Name: name, Title: title, File: name, Config: cfg, Algorithms: slices.Clone(algorithms), Start: start}, nil
}

// CheckClient says why name cannot name a client in a scenario file, or
// nil: 1 to 64 printable characters without spaces at either end.
func CheckClient(name string) error {
	if !clientName(name) || utf8.RuneCountInString(name) > 64 {
		return fmt.Errorf("%s is not a client name; use 1 to 64 printable characters without leading or trailing spaces", human.Quote(name))
	}
	return nil
}

// WithTraffic is s with the entries appended to its traffic, after
// checking each (a burst or a stream, of a client name a file may hold)
// and the total against MaxRequests, the budget that bounds a file. Its
// captions, questions and expectations are left out, since they speak of
// s's traffic; everything else is s's. A recorded scenario takes none.
func (s *Scenario) WithTraffic(entries []Traffic) (*Scenario, error) {
	if s.rec != nil {
		return nil, errors.New("this scenario is a recording: traffic cannot be added to it")
	}
	var total float64
	for i := range s.Traffic {
		total += s.Traffic[i].expected()
	}
	for i := range entries {
		t := &entries[i]
		if err := CheckClient(t.Client); err != nil {
			return nil, err
		}
		switch t.Shape {
		case Burst:
			if t.Count < 1 || t.Count > MaxRequests {
				return nil, fmt.Errorf("a burst of %s: %s", human.Int(t.Count), countRange)
			}
		case Stream:
			if t.Every < time.Millisecond || t.Every%time.Millisecond != 0 || t.To <= t.From {
				return nil, fmt.Errorf("a stream every %s from %s to %s: give whole milliseconds and a span", t.Every, t.From, t.To)
			}
		default:
			return nil, fmt.Errorf("a %s cannot be added at the clock", t.Shape)
		}
		total += t.expected()
	}
	if total > MaxRequests {
		return nil, fmt.Errorf("that brings the scenario to %s requests; a scenario may make at most %s in all",
			human.Int(int64(total)), human.Int(MaxRequests))
	}
	w := &Scenario{
		Zone:        s.Zone,
		Name:        s.Name,
		Title:       s.Title,
		Description: s.Description,
		File:        s.File,
		Config:      s.Config,
		Algorithms:  slices.Clone(s.Algorithms),
		Start:       s.Start,
		Speed:       s.Speed,
		Traffic:     append(slices.Clone(s.Traffic), entries...),
	}
	return w, nil
}

// Runs are the requests of an entry added at the clock, as the engine
// takes them (sim.Engine.Inject): a burst is one run; a stream, a run at
// each of its instants in [from, to). Only bursts and streams.
func (t Traffic) Runs(from, to algo.Instant) []sim.Added {
	switch t.Shape {
	case Burst:
		if t.At >= from && t.At < to {
			return []sim.Added{{At: t.At, Client: t.Client, Count: t.Count}}
		}
	case Stream:
		every := algo.Instant(t.Every / time.Millisecond)
		if every < 1 {
			return nil
		}
		var out []sim.Added
		at := t.From
		if from > at {
			at += (from - at + every - 1) / every * every
		}
		for ; at < min(to, t.To); at += every {
			out = append(out, sim.Added{At: at, Client: t.Client, Count: 1})
		}
		return out
	}
	return nil
}
