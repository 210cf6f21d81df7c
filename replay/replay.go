// Package replay replays an access log through the limiters: it reads the
// log while deciding it (one core reads, the others decide), within
// windowlab's memory budget, sweeps many settings on a worker pool, and
// writes what the command line prints: the log's summary, the sweep's
// table, its histogram and chart. Flags, files and exit statuses are the
// command line's (internal/cli); drawing the progress is too (Work).
package replay

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// Work shows a long operation's status until done is closed: status gives
// its text and the fraction done after elapsed. The command line draws it
// on standard error; nil shows nothing.
type Work func(status func(elapsed time.Duration) (string, float64), done <-chan struct{})

// show runs w, or waits for done when w is nil.
func (w Work) show(status func(elapsed time.Duration) (string, float64), done <-chan struct{}) {
	if w == nil {
		<-done
		return
	}
	w(status, done)
}

// Store is where a setting's limiters decide instead of in process: a
// redisstore.Store, whose Err is its first failure.
type Store interface {
	WrapAll([]algo.Limiter) ([]algo.Limiter, error)
	Err() error
}

// Setting is one limit and window of a sweep, for every limiter.
type Setting struct {
	Config     algo.Config
	Algorithms []algo.Algorithm
	Store      Store // --store: where its limiters decide, or nil
}

// Aligned is s with its windows on zone's calendar, at the offset the zone
// has at first (nil: UTC's, as it is).
func (s Setting) Aligned(zone *time.Location, first algo.Instant) Setting {
	if zone != nil {
		s.Config.Offset = algo.CalendarOffset(zone, first, s.Config.Window)
	}
	return s
}

// maxSettings bounds a sweep: each setting is a replay of the whole log.
const maxSettings = 24

// Settings are the sweep of every limit at every window (windows outer),
// each checked against every algorithm; the errors name the flags.
func Settings(limits []int64, windows []time.Duration, algos []algo.Algorithm) ([]Setting, error) {
	if n := len(limits) * len(windows); n > maxSettings {
		return nil, fmt.Errorf("--limits × --windows is %d settings; compare at most %d at once", n, maxSettings)
	}
	var out []Setting
	for _, w := range windows {
		for _, lim := range limits {
			cfg := algo.Config{Limit: lim, Window: w}
			for _, a := range algos {
				if _, err := a.New(cfg); err != nil {
					return nil, fmt.Errorf("limit %d per %s for %s: %w", lim, human.Duration(w), a, err)
				}
			}
			out = append(out, Setting{Config: cfg, Algorithms: algos})
		}
	}
	return out, nil
}

// setup is what s decides with, on its store when it has one.
func (s Setting) setup() sim.Setup {
	setup := sim.Setup{Algorithms: s.Algorithms, Config: s.Config}
	if s.Store != nil {
		setup.Wrap = s.Store.WrapAll
	}
	return setup
}

// Engine is an engine replaying the log at setting s; every few thousand
// requests it adds what it decided to decided (when set), for the
// progress. ctx, or the store's failure, stops it.
func Engine(ctx context.Context, src sim.Source, s Setting, decided *atomic.Int64) (*sim.Engine, error) {
	return engine(ctx, src, s, decided, false)
}

// FiguresEngine is Engine for a report of the figures alone (the text
// report, not --json's every decision): sim.Options.FiguresOnly, so that
// the default setting's three limiters are decided at once (algo.Trio). A
// setting on a store keeps Engine's.
func FiguresEngine(ctx context.Context, src sim.Source, s Setting, decided *atomic.Int64) (*sim.Engine, error) {
	return engine(ctx, src, s, decided, s.Store == nil)
}

func engine(ctx context.Context, src sim.Source, s Setting, decided *atomic.Int64, figuresOnly bool) (*sim.Engine, error) {
	var last int64
	interrupt := func(n int64) bool {
		if decided != nil && n > last {
			decided.Add(n - last)
			last = n
		}
		return ctx.Err() != nil || s.Store != nil && s.Store.Err() != nil
	}
	return s.setup().Engine(src, sim.Options{ForwardOnly: true, FiguresOnly: figuresOnly, Interrupt: interrupt}, nil)
}

// Grace is a context that ends a second after ctx does: how long a
// replay goes on deciding what it read after a signal, to report it.
func Grace(ctx context.Context) (context.Context, context.CancelFunc) {
	g, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	var timer *time.Timer
	var mu sync.Mutex
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(time.Second, func() { cancel(context.Cause(ctx)) })
	})
	return g, func() {
		stop()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel(nil)
	}
}

// Deciding shows the deciding's progress with work until stop is called:
// of total requests, each decided by every one of beside's engines.
func Deciding(work Work, total int64, beside Beside) (stop func()) {
	done, shown := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(shown)
		showDeciding(work, total, beside, done)
	}()
	return func() { close(done); <-shown }
}

// showDeciding draws the deciding's progress until done: requests decided
// of total, a second (of those decided since it began: some may have been
// decided while the log was read), the time left. Its last line, drawn
// when done, says only how many were decided: a total estimated, as
// --recommend's, may be more than its passes reach, and "5,700,000 of
// 10,800,000 requests · 11s left in 1.45s" read as if it were cut short
// (a run stopped early says so in its report).
func showDeciding(work Work, total int64, beside Beside, done <-chan struct{}) {
	base := beside.requests()
	work.show(func(elapsed time.Duration) (string, float64) {
		n := beside.requests()
		rate := human.Int(int64(float64(n-base) / max(elapsed.Seconds(), 0.001)))
		select {
		case <-done:
			return fmt.Sprintf("deciding: %s requests, %s/s", human.Int(n), rate), 1
		default:
		}
		text := fmt.Sprintf("deciding: %s of %s requests, %s/s", human.Int(n), human.Int(total), rate)
		if left := (time.Duration(float64(elapsed) * float64(total-n) / float64(max(n-base, 1)))).Round(time.Second); n < total && left > 0 {
			text += " · " + human.Duration(left) + " left"
		}
		return text, min(float64(n)/float64(max(total, 1)), 1)
	}, done)
}
