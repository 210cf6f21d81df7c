package replay

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// --recommend on regular files keeps no request: it reads the files again
// for each pass, the same reading with the same options (so the same
// requests, the same clients numbered the same), and decides each pass's
// settings as it reads, from a streaming tail (stream.go). The first pass
// finds the peaks (PeaksWhileReading); then each pass takes the next probe
// of every limiter's search at once (their searches go in step: each the
// same limits in the same order as one replaying the log kept); the last
// replays the candidate limits. Standard input and a fifo, which cannot be
// read twice, keep the log (Recommend).

// Passes reads a log's files again for --recommend's passes.
type Passes struct {
	Paths []string
	Log   accesslog.Options // the first reading's (each pass has its own Tail and Check)
	Work  Work              // each pass's progress
	first *accesslog.Log    // the first reading: each pass must read the same
	n     int               // the passes begun, the first reading's included
	about int               // the passes it will take, about (the progress's)
}

// NewPasses reads paths again with opts, the first reading's options, for
// each pass; l is what that reading read.
func NewPasses(paths []string, opts accesslog.Options, work Work, l *accesslog.Log) *Passes {
	opts.Tail, opts.Check, opts.Progress, opts.Interrupt = nil, nil, nil, nil
	return &Passes{Paths: paths, Log: opts, Work: work, first: l, n: 1}
}

var limitsNoun = human.Noun{One: "limit", Many: "limits"}

// PassWork is the progress of pass n of about so many (0: not known yet),
// what it does, drawn by work: the reading's, after its pass.
func PassWork(work Work, n, about int, what string) Work {
	if work == nil {
		return nil
	}
	return func(status func(time.Duration) (string, float64), done <-chan struct{}) {
		work(func(elapsed time.Duration) (string, float64) {
			text, frac := status(elapsed)
			if about == 0 { // not known yet
				return fmt.Sprintf("pass %d (%s) · %s", n, what, text), frac
			}
			return fmt.Sprintf("pass %d of about %d (%s) · %s", n, about, what, text), frac
		}, done)
	}
}

// PeaksWhileReading finds each client's peaks at s's window (aligned to
// zone at the first request) from the tail, which streams, while Read
// reads it, and sends them when the reading has ended. Call it before Read.
func PeaksWhileReading(tail *accesslog.Tail, s Setting, zone *time.Location) <-chan Peaks {
	out := make(chan Peaks, 1)
	tail.Stream()
	src := tail.Source()
	go func() {
		defer closeAll([]sim.Source{src})
		first, ok := tail.First()
		if !ok {
			out <- Peaks{}
			return
		}
		out <- streamPeaks(src, s.Aligned(zone, first).Config)
	}()
	return out
}

// streamPeaks is FindPeaks over the requests as they come, in time order:
// each client keeps its instants in the last window, not the log's.
func streamPeaks(src sim.Source, cfg algo.Config) Peaks {
	var p Peaks
	var recent [][]algo.Instant // each client's instants in (t − W, t]
	var window []int64          // each client's aligned window, and its count
	var inWindow []int64
	w, o := cfg.Window.Milliseconds(), cfg.Offset.Milliseconds()
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		c := int(a.Number - 1)
		p.Sliding, p.Aligned, p.Total = reach(p.Sliding, c), reach(p.Aligned, c), reach(p.Total, c)
		recent, window, inWindow = reach(recent, c), reach(window, c), reach(inWindow, c)
		q := recent[c]
		for len(q) > 0 && int64(a.At-q[0]) >= w {
			q = q[1:]
		}
		if len(q) == 0 {
			q = recent[c][:0] // from the start of its array again
		}
		q = append(q, a.At)
		recent[c] = q
		p.Sliding[c] = max(p.Sliding[c], int64(len(q)))
		if win := floorDiv(int64(a.At)-o, w); p.Total[c] == 0 || win != window[c] {
			window[c], inWindow[c] = win, 0
		}
		inWindow[c]++
		p.Aligned[c] = max(p.Aligned[c], inWindow[c])
		p.Total[c]++
	}
	return p
}

// RecommendPasses is Recommend on a log read again for each pass: l is
// the first reading, which found the peaks.
func RecommendPasses(ctx context.Context, ps *Passes, s Setting, share Share, peaks Peaks, decided *atomic.Int64) (*Recommendation, error) {
	r := newRecommendation(ps.first, s, share, peaks)
	ps.about = AboutPasses(peaks)
	b := &batch{asks: make(chan ask), live: len(s.Algorithms)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.run(ctx, ps, decided)
	}()
	searched := func() { b.asks <- ask{} }
	r, err := r.finish(ctx, s, len(s.Algorithms), b.probe, searched, func(ctx context.Context, settings []Setting) ([]Outcome, int, error) {
		results, err := ps.pass(ctx, settings, fmt.Sprintf("%d candidate limits", len(settings)), decided)
		if err != nil || results == nil {
			return nil, 0, err
		}
		return gather(ctx, results, make([]error, len(results)))
	})
	<-done
	return r, err
}

// AboutPasses is about how many passes --recommend reads its files in:
// the peaks', the busiest client's sliding peak's, a binary search's up
// to it, the candidates'.
func AboutPasses(p Peaks) int {
	hi := int64(1)
	if len(p.Sliding) > 0 {
		hi = max(slices.Max(p.Sliding), 1)
	}
	return 3 + bits.Len64(uint64(hi-1))
}

// batch gathers the probes of the searches going in step into a pass.
type batch struct {
	asks chan ask
	live int // searches not ended
}

// ask is a search's probe, or (reply nil) the end of its search.
type ask struct {
	s     Setting
	reply chan answer
}

// answer is a probe's row, or nil when ctx ended first, or the pass's error.
type answer struct {
	rows []Outcome
	err  error
}

// probe asks for a setting in the next pass and waits for its row.
func (b *batch) probe(ctx context.Context, s Setting) ([]Outcome, error) {
	reply := make(chan answer, 1)
	b.asks <- ask{s: s, reply: reply}
	a := <-reply
	return a.rows, a.err
}

// run waits, pass after pass, for every search going on to ask its probe
// or end, and replays the probes asked in one pass, until every search
// has ended. A pass that ends with ctx answers nil.
func (b *batch) run(ctx context.Context, ps *Passes, decided *atomic.Int64) {
	for b.live > 0 {
		var asked []ask
		for n := b.live; n > 0; n-- {
			a := <-b.asks
			if a.reply == nil {
				b.live--
				continue
			}
			asked = append(asked, a)
		}
		if len(asked) == 0 {
			continue
		}
		settings := make([]Setting, len(asked))
		for i, a := range asked {
			settings[i] = a.s
		}
		results, err := ps.pass(ctx, settings, limitsNoun.Of(int64(len(settings)))+" searched", decided)
		for i, a := range asked {
			if results == nil {
				a.reply <- answer{err: err}
				continue
			}
			a.reply <- answer{rows: results[i]}
		}
	}
}

// pass reads the files again and decides every setting while it reads,
// each from a source of its own: each setting's rows, or nil when ctx
// ended first.
func (ps *Passes) pass(ctx context.Context, settings []Setting, what string, decided *atomic.Int64) ([][]Outcome, error) {
	ps.n++
	tail := accesslog.NewTail()
	tail.Stream()
	sources := make([]sim.Source, len(settings))
	for i := range sources {
		sources[i] = tail.Source()
	}
	wait := startAtOnce(sources, func(i int) ([]Outcome, error) {
		return replaySetting(ctx, sources[i], settings[i], decided)
	})
	opts := ps.Log
	opts.Tail = tail
	mem, err := NewMemory(opts.Key, opts.Reorder, settings, len(settings), true, false)
	if err == nil {
		opts.Check, opts.Windows = mem.Check, mem.Windows()
		var l *accesslog.Log
		ps.about = max(ps.about, ps.n)
		l, err = ReadLogs(ctx, ps.Paths, nil, opts, PassWork(ps.Work, ps.n, ps.about, what), Beside{})
		if err == nil && l.Interrupted {
			err = context.Cause(ctx)
		} else if err == nil && (l.Lines != ps.first.Lines || l.Requests != ps.first.Requests) {
			err = fmt.Errorf("%s changed between --recommend's passes (%s lines, then %s): it is still written; copy it, or give it on standard input (cat %s | windowlab replay - --recommend), which keeps it",
				LogName(ps.Paths), human.Int(ps.first.Lines), human.Int(l.Lines), ps.Paths[0])
		}
	}
	tail.Abandon() // the reading ended, or never began
	results, errs := wait()
	if ctx.Err() != nil {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}
