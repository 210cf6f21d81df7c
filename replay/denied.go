package replay

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// DeniedClient is one client a limiter at a setting denied (--denied):
// how many of its requests, the first and the last denial, and the most
// requests it sent in one window (aligned as the setting's windows are).
type DeniedClient struct {
	Algorithm algo.Algorithm
	Limit     int64
	Window    string
	Client    string
	Denied    int64
	First     algo.Instant
	Last      algo.Instant
	Peak      int64
}

// DeniedBytes is what --denied holds a client for a setting of n
// limiters, for the memory budget.
func DeniedBytes(n int) int64 { return int64(n)*20 + 16 }

// Denied replays the log at each setting in turn and gives each client
// each limiter denied to each, setting by setting, limiter by limiter, in
// the clients' first-seen order; it stops at each's error or when ctx ends.
// windowlab replay counts them as the log is read (DecideAllWhileReading,
// DeniedTable); this, on a log kept whole, is what the tests hold that to.
func Denied(ctx context.Context, l *accesslog.Log, settings []Setting, each func(DeniedClient) error) error {
	for _, s := range settings {
		if err := deniedSetting(ctx, l, s, each); err != nil {
			return err
		}
	}
	return nil
}

func deniedSetting(ctx context.Context, l *accesslog.Log, s Setting, each func(DeniedClient) error) error {
	dc, err := countDenied(ctx, l.Source(), s)
	if err != nil {
		return err
	}
	return dc.write(l.Clients(), each)
}

// deniedCounts is what --denied counts of each client at one setting, by
// the clients' numbers in the log: for each limiter (k a client) its
// denials, the first and the last; the client's most requests in one
// window.
type deniedCounts struct {
	s           Setting
	count       []int32
	first, last []algo.Instant
	winAt       []algo.Instant
	winN, peak  []int32
	k           int
}

// countDenied decides the requests of src at s and counts each client's
// denials as they are decided: the state of the clients, not the log.
func countDenied(ctx context.Context, src sim.Source, s Setting) (*deniedCounts, error) {
	_, dc, err := checkSetting(ctx, src, nil, s, nil, true)
	if err == nil && dc == nil {
		err = context.Cause(ctx)
	}
	return dc, err
}

// add counts the decisions of r: its client's requests in the window,
// and each limiter's denials of it.
func (dc *deniedCounts) add(r sim.Record) {
	k := dc.k
	off, width := algo.Instant(dc.s.Config.Offset.Milliseconds()), dc.s.Config.Window
	c := int(r.Arrival.Number - 1)
	if c >= len(dc.peak) { // a client first seen: room for it and as many again
		dc.grow(max(2*len(dc.peak), c+1))
	}
	at := r.Arrival.At
	if start := (at - off).Truncate(width) + off; dc.winN[c] == 0 || start != dc.winAt[c] {
		dc.winAt[c], dc.winN[c] = start, 0
	}
	dc.winN[c]++
	dc.peak[c] = max(dc.peak[c], dc.winN[c])
	for i := range r.Decisions {
		if r.Decisions[i].Allowed { // by index: a Decision is some hundred bytes
			continue
		}
		j := c*k + i
		if dc.count[j] == 0 {
			dc.first[j] = at
		}
		dc.count[j]++
		dc.last[j] = at
	}
}

// grow makes room for n clients, every slice alike.
func (dc *deniedCounts) grow(n int) {
	dc.winAt, dc.winN, dc.peak = lengthen(dc.winAt, n), lengthen(dc.winN, n), lengthen(dc.peak, n)
	dc.count, dc.first, dc.last = lengthen(dc.count, n*dc.k), lengthen(dc.first, n*dc.k), lengthen(dc.last, n*dc.k)
}

// lengthen is s with zeros up to length n.
func lengthen[T any](s []T, n int) []T { return append(s, make([]T, n-len(s))...) }

// write gives each client each limiter denied, limiter by limiter, in the
// clients' first-seen order (names, by their numbers in the log).
func (dc *deniedCounts) write(names []string, each func(DeniedClient) error) error {
	s, k := dc.s, dc.k
	for i, a := range s.Algorithms {
		for c, name := range names {
			j := c*k + i
			if j >= len(dc.count) || dc.count[j] == 0 {
				continue
			}
			d := DeniedClient{Algorithm: a, Limit: s.Config.Limit, Window: human.Duration(s.Config.Window), Client: name,
				Denied: int64(dc.count[j]), First: dc.first[j], Last: dc.last[j], Peak: int64(dc.peak[c])}
			if err := each(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// DeniedTable is --denied's counts of every setting, decided as the log
// was read (Decision.Denied).
type DeniedTable []*deniedCounts

// Write gives each client each limiter at each setting denied, as Denied
// does, the clients named by their numbers in the log.
func (t DeniedTable) Write(names []string, each func(DeniedClient) error) error {
	for _, dc := range t {
		if err := dc.write(names, each); err != nil {
			return err
		}
	}
	return nil
}

// DeniedWriter writes --denied's rows as CSV (with a header) or, for a
// name ending .jsonl, JSON Lines; every key exactly as the log held it.
type DeniedWriter struct {
	csv  *csv.Writer
	json *json.Encoder
	w    io.Writer
	Rows int64
}

// NewDeniedWriter writes rows to w, as JSON Lines when jsonl.
func NewDeniedWriter(w io.Writer, jsonl bool) (*DeniedWriter, error) {
	if jsonl {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return &DeniedWriter{json: enc, w: w}, nil
	}
	cw := csv.NewWriter(w)
	err := cw.Write([]string{"limiter", "limit", "window", "client", "denied", "first_denied", "last_denied", "peak_in_window"})
	return &DeniedWriter{csv: cw, w: w}, err
}

// Write writes one row.
func (dw *DeniedWriter) Write(d DeniedClient) error {
	dw.Rows++
	first, last := d.First.Time().Format("2006-01-02T15:04:05.000Z"), d.Last.Time().Format("2006-01-02T15:04:05.000Z")
	if dw.json != nil {
		return dw.json.Encode(struct {
			Limiter string `json:"limiter"`
			Limit   int64  `json:"limit"`
			Window  string `json:"window"`
			Client  string `json:"client"`
			Denied  int64  `json:"denied"`
			First   string `json:"first_denied"`
			Last    string `json:"last_denied"`
			Peak    int64  `json:"peak_in_window"`
		}{d.Algorithm.String(), d.Limit, d.Window, d.Client, d.Denied, first, last, d.Peak})
	}
	return dw.csv.Write([]string{d.Algorithm.String(), strconv.FormatInt(d.Limit, 10), d.Window, d.Client,
		strconv.FormatInt(d.Denied, 10), first, last, strconv.FormatInt(d.Peak, 10)})
}

// Flush ends the CSV.
func (dw *DeniedWriter) Flush() error {
	if dw.csv != nil {
		dw.csv.Flush()
		return dw.csv.Error()
	}
	return nil
}

// IsJSONL tells --denied's format by the file's name.
func IsJSONL(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".jsonl") }

// PerClient has the memory budget count, for each client, what --denied
// holds of it: at the largest of the settings when they are replayed one
// at a time, at all of them when atOnce (streamed, decided side by side).
func (m *Memory) PerClient(settings []Setting, atOnce bool) {
	m.deniedAll = atOnce
	for _, s := range settings {
		if atOnce {
			m.perClient += DeniedBytes(len(s.Algorithms))
		} else {
			m.perClient = max(m.perClient, DeniedBytes(len(s.Algorithms)))
		}
	}
}
