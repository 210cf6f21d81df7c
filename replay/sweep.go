package replay

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"windowlab/accesslog"
	"windowlab/sim"
)

// Decision is what deciding a log at its settings came to: one setting's
// report, or a sweep's rows and how many settings it replayed whole; Err is
// a setting no engine could be made for.
type Decision struct {
	Report []byte
	Rows   []Outcome
	Whole  int
	Err    error
	// Agreements are --compare's, and Denied --denied's counts, when
	// asked (Streamed); nil when ctx ended first.
	Agreements []Agreement
	Denied     DeniedTable
}

// Outcome is one limiter's at one setting of a sweep.
type Outcome struct {
	setting  Setting
	stats    sim.Stats
	affected int       // clients denied at least once
	top      []denied  // the clients denied most
	allowed  histogram // allowed, when
	sent     histogram // the log's requests, when: the chart's own line
}

type denied struct {
	client string
	n      int64
}

// sweep replays the log at every setting, side by side, one a core: each
// engine reads the log's requests from a source of its own (the log is
// read-only), and none waits on another. It returns every row of the
// settings replayed whole, and how many they were.
func sweep(ctx context.Context, source func() sim.Source, settings []Setting, decided *atomic.Int64) ([]Outcome, int, error) {
	results := make([][]Outcome, len(settings))
	errs := make([]error, len(settings))
	next := make(chan int)
	var wg sync.WaitGroup
	for range Workers(len(settings)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = replaySetting(ctx, source(), settings[i], decided)
			}
		}()
	}
	for i := range settings {
		next <- i
	}
	close(next)
	wg.Wait()
	return gather(ctx, results, errs)
}

// gather is a sweep's rows of the settings replayed whole, in the
// settings' order, and how many they were; or the first setting's error
// that was not ctx ending.
func gather(ctx context.Context, results [][]Outcome, errs []error) ([]Outcome, int, error) {
	var rows []Outcome
	whole := 0
	for i, r := range results {
		if errs[i] != nil && !errors.Is(errs[i], context.Canceled) && ctx.Err() == nil {
			return nil, 0, errs[i]
		}
		if r != nil {
			whole++
			rows = append(rows, r...)
		}
	}
	return rows, whole, nil
}

// InTurn replays the log at each setting, one after another (on Redis,
// one thread, is the bound), until one fails or ctx ends: the rows of the
// settings replayed whole, and how many they were.
func InTurn(ctx context.Context, l *accesslog.Log, settings []Setting, decided *atomic.Int64) ([]Outcome, int, error) {
	var rows []Outcome
	whole := 0
	for _, s := range settings {
		r, err := replaySetting(ctx, l.Source(), s, decided)
		if err != nil || r == nil {
			return rows, whole, err
		}
		rows, whole = append(rows, r...), whole+1
	}
	return rows, whole, nil
}

// Focus is the client denied most at setting s by any limiter, whom --tui
// follows; "" when none is denied.
func Focus(ctx context.Context, l *accesslog.Log, s Setting) (string, error) {
	outcomes, err := replaySetting(ctx, l.Source(), s, nil)
	if err != nil {
		return "", err
	}
	focus := ""
	var most int64
	for _, o := range outcomes {
		if len(o.top) > 0 && o.top[0].n > most {
			focus, most = o.top[0].client, o.top[0].n
		}
	}
	return focus, nil
}

// replaySetting replays the whole log at one setting and counts, for each
// limiter, the denials of each client and what it allowed when; nil when
// ctx ended first.
func replaySetting(ctx context.Context, src sim.Source, s Setting, decided *atomic.Int64) ([]Outcome, error) {
	e, err := Engine(ctx, src, s, nil)
	if err != nil {
		return nil, err
	}
	// By the clients' numbers in the log: a few bytes a client, where maps
	// took some 170 (Memory counts them).
	deniedBy := make([][]int32, len(s.Algorithms))
	allowed := make([]histogram, len(s.Algorithms))
	var sent histogram
	var names []string // the clients denied, by their number in the log
	var counted int64
	defer func() {
		if decided != nil {
			decided.Add(e.Processed() - counted)
		}
	}()
	for n := int64(0); ; n++ {
		r, ok := e.Step()
		if !ok {
			break
		}
		if n%4096 == 0 && n > 0 {
			if decided != nil {
				decided.Add(n - counted)
				counted = n
			}
			if ctx.Err() != nil {
				return nil, nil
			}
		}
		sent.add(r.Arrival.At)
		for k, d := range r.Decisions {
			if d.Allowed {
				allowed[k].add(r.Arrival.At)
				continue
			}
			c := int(r.Arrival.Number - 1) // the log numbers its clients from 1
			deniedBy[k], names = reach(deniedBy[k], c), reach(names, c)
			deniedBy[k][c]++
			names[c] = r.Arrival.Client
		}
	}
	var out []Outcome
	for k, st := range e.Stats() {
		o := Outcome{setting: s, stats: st, allowed: allowed[k], sent: sent}
		mostFirst := func(a, b denied) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.client, b.client)) }
		for c, n := range deniedBy[k] {
			if n == 0 {
				continue
			}
			o.affected++
			// The five denied most, kept as they are met: not a list of every client.
			d := denied{names[c], int64(n)}
			if i, _ := slices.BinarySearchFunc(o.top, d, mostFirst); i < 5 {
				o.top = slices.Insert(o.top, i, d)[:min(len(o.top)+1, 5)]
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// reach is s long enough to index i, grown as append grows it.
func reach[T any](s []T, i int) []T {
	if i < len(s) {
		return s
	}
	s = append(s, make([]T, i+1-len(s))...)
	return s[:cap(s)]
}
