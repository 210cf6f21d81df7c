package replay

import (
	"context"
	"errors"
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

// sweep replays the log at every setting, side by side, a pass a core
// (passes: the settings that share a window decided in one): each pass's
// engine reads the log's requests from a source of its own (the log is
// read-only), and none waits on another. It returns every row of the
// settings replayed whole, and how many they were.
func sweep(ctx context.Context, source func() sim.Source, settings []Setting, decided *atomic.Int64) ([]Outcome, int, error) {
	ps := passes(settings, Workers(len(settings)))
	results := make([][]Outcome, len(settings))
	errs := make([]error, len(settings))
	next := make(chan []int)
	var wg sync.WaitGroup
	for range Workers(len(ps)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				scatter(p, results, errs)(replayPass(ctx, source(), pick(settings, p), decided))
			}
		}()
	}
	for _, p := range ps {
		next <- p
	}
	close(next)
	wg.Wait()
	return gather(ctx, results, errs)
}

// scatter puts a pass's rows and errors in their settings' places.
func scatter(pass []int, results [][]Outcome, errs []error) func([][]Outcome, []error) {
	return func(rows [][]Outcome, es []error) {
		for j, i := range pass {
			results[i], errs[i] = rows[j], es[j]
		}
	}
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
	rows, errs := replayPass(ctx, src, []Setting{s}, decided)
	return rows[0], errs[0]
}

// reach is s long enough to index i, grown as append grows it.
func reach[T any](s []T, i int) []T {
	if i < len(s) {
		return s
	}
	s = append(s, make([]T, i+1-len(s))...)
	return s[:cap(s)]
}
