package scenarios

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// WhatIf is s with another limit, window, expiry and set of limiters: the
// same traffic and start, replayed under other rules. Its captions,
// questions and expectations are left out, since they speak of s's
// numbers; its title says what changed.
func (s *Scenario) WhatIf(cfg algo.Config, algorithms []algo.Algorithm) (*Scenario, error) {
	switch {
	case cfg.Limit < 1 || cfg.Limit > algo.MaxLimit:
		return nil, fmt.Errorf("limit %s: give a whole number of requests from 1 to %s", human.Int(cfg.Limit), human.Int(algo.MaxLimit))
	case cfg.Window < time.Millisecond || cfg.Window > algo.MaxWindow || cfg.Window%time.Millisecond != 0:
		return nil, fmt.Errorf("window %s: give whole milliseconds from 1ms to %s", cfg.Window, human.Duration(algo.MaxWindow))
	case len(algorithms) == 0:
		return nil, fmt.Errorf("no limiter: keep at least one")
	}
	for i, a := range algorithms {
		if slices.Contains(algorithms[:i], a) {
			return nil, fmt.Errorf("%s twice: each limiter once", a)
		}
		if _, err := a.New(cfg); err != nil {
			return nil, fmt.Errorf("%s: %v", a, err)
		}
	}
	if s.Zone != nil {
		// The zone's calendar, for the new window length.
		if first, ok := s.firstInstant(); ok {
			cfg.Offset = algo.CalendarOffset(s.Zone, first, cfg.Window)
		}
	}
	w := &Scenario{
		Zone:        s.Zone,
		Name:        s.Name + "-what-if",
		Description: s.Description,
		File:        s.File,
		Config:      cfg,
		Algorithms:  slices.Clone(algorithms),
		Start:       s.Start,
		Speed:       s.Speed,
		Traffic:     slices.Clone(s.Traffic),
		rec:         s.rec,
	}
	var changed []string
	if cfg.Limit != s.Config.Limit || cfg.Window != s.Config.Window {
		changed = append(changed, human.Int(cfg.Limit)+" per "+human.Duration(cfg.Window))
	}
	if cfg.NoExpiry != s.Config.NoExpiry {
		expiry := "expiry on"
		if cfg.NoExpiry {
			expiry = "no expiry"
		}
		changed = append(changed, expiry)
	}
	if !slices.Equal(algorithms, s.Algorithms) {
		names := make([]string, len(algorithms))
		for i, a := range algorithms {
			names[i] = a.String()
		}
		changed = append(changed, strings.Join(names, ", "))
	}
	title := s.Title
	if title == "" {
		title = s.Name
	}
	w.Title = title
	if len(changed) > 0 {
		w.Title += " — what if: " + strings.Join(changed, "; ")
	}
	return w, nil
}

// YAML writes s in the scenario format: its name, title, description,
// rules and traffic. A what-if's file, which Parse reads back to the same
// replay.
func (s *Scenario) YAML(comment string) []byte {
	var b bytes.Buffer
	s.WriteYAML(&b, comment) // a bytes.Buffer takes every write
	return b.Bytes()
}

// WriteYAML is YAML to w, as it goes: a recorded scenario's runs may be
// millions of lines. A recorded scenario is written as replay --save
// writes one (RecordedMark first), so that it is read as one again.
func (s *Scenario) WriteYAML(w io.Writer, comment string) error {
	b := bufio.NewWriterSize(w, 1<<16)
	if s.rec != nil {
		fmt.Fprintf(b, "%s: %s of %s, a line a run at one instant.\n", RecordedMark,
			human.Noun{One: "request", Many: "requests"}.Of(s.rec.requests), human.Noun{One: "client", Many: "clients"}.Of(int64(len(s.rec.clients))))
	}
	for _, l := range strings.Split(strings.TrimSpace(comment), "\n") {
		if l != "" {
			b.WriteString("# " + l + "\n")
		}
	}
	q := strconv.Quote
	fmt.Fprintf(b, "name: %s\n", s.Name)
	if s.Title != "" {
		fmt.Fprintf(b, "title: %s\n", q(s.Title))
	}
	if s.Description != "" {
		fmt.Fprintf(b, "description: %s\n", q(s.Description))
	}
	fmt.Fprintf(b, "limit: %d\nwindow: %s\n", s.Config.Limit, s.Config.Window)
	if s.Config.Burst > 0 {
		fmt.Fprintf(b, "burst: %d\n", s.Config.Burst)
	}
	if s.Config.Segments > 0 {
		fmt.Fprintf(b, "segments: %d\n", s.Config.Segments)
	}
	if s.Config.Delay > 0 {
		fmt.Fprintf(b, "delay: %d\n", s.Config.Delay)
	}
	if s.Config.NoExpiry {
		b.WriteString("expiry: false\n")
	}
	if s.Zone != nil {
		fmt.Fprintf(b, "tz: %s\n", q(s.Zone.String()))
	}
	b.WriteString("algorithms:\n")
	for _, a := range s.Algorithms {
		fmt.Fprintf(b, "  - %s\n", a)
	}
	fmt.Fprintf(b, "start: %s\n", q(clockText(s.Start)))
	if s.Speed > 0 {
		fmt.Fprintf(b, "speed: %s\n", strconv.FormatFloat(s.Speed, 'g', -1, 64))
	}
	b.WriteString("traffic:\n")
	if s.rec != nil {
		for run := range s.rec.Runs() {
			writeRun(b, run, s.rec.raw)
		}
		return b.Flush()
	}
	for _, t := range s.Traffic {
		client := "client: " + q(t.Client)
		switch t.Shape {
		case Burst:
			fmt.Fprintf(b, "  - {at: %s, count: %d, %s}\n", q(clockText(t.At)), t.Count, client)
		case Spread:
			fmt.Fprintf(b, "  - {from: %s, to: %s, count: %d, %s}\n", q(clockText(t.From)), q(clockText(t.To)), t.Count, client)
		case Stream:
			fmt.Fprintf(b, "  - {from: %s, to: %s, every: %s, %s}\n", q(clockText(t.From)), q(clockText(t.To)), t.Every, client)
		case Random:
			fmt.Fprintf(b, "  - {from: %s, to: %s, rate: %s, clients: %d, seed: %d, %s}\n", q(clockText(t.From)), q(clockText(t.To)),
				strconv.FormatFloat(t.Rate, 'g', -1, 64), t.Clients, t.Seed, client)
		}
	}
	return b.Flush()
}

// clockText is an instant as the scenario format reads it: a time of day,
// or a date and time in RFC 3339 (UTC, to the millisecond).
func clockText(t algo.Instant) string {
	if t.IsDated() {
		return t.Time().Format("2006-01-02T15:04:05.000Z")
	}
	return t.String()
}
