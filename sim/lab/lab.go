// Package lab is windowlab's accuracy lab: it reruns Cloudflare's 2017
// measurement of the sliding window counter ("0.003% of requests wrongly
// allowed or rate limited" across 400 million requests from 270,000
// sources) on synthetic traffic at the same scale, and reports the same
// four figures beside theirs.
//
// The sliding counter and the fixed window are compared with the exact
// sliding log on identical arrivals. Sources are independent, so the lab
// replays each source's whole stream, then the next, on all cores, with
// dense limiters (algo.DenseSlidingCounter, …) that decide through the same
// per-client code as the engine's keyed limiters; arrivals are generated on
// the fly and never stored. Nothing here reads the wall clock: progress is
// counted in requests, and timing is the caller's business.
package lab

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// Options are one experiment's parameters.
type Options struct {
	Limit    int64         // requests per window
	Window   time.Duration // window length
	Rules    algo.Rules    // the edge rules all three limiters decide by
	Sources  int           // distinct sources (clients)
	Requests int64         // requests in all, divided among the sources
	Model    Model
	Seed     uint64
	Workers  int // goroutines; 0 means one per core (GOMAXPROCS)
}

// Defaults: Cloudflare's 270,000 sources, a tenth of a minute's worth of
// their 400 million requests, a limit of 100 a minute.
var DefaultOptions = Options{
	Limit: 100, Window: time.Minute, Rules: algo.PresetCloudflare2017.Rules,
	Sources: 270_000, Requests: 10_000_000, Model: DefaultModel, Seed: 1,
}

// Bounds of the options.
const (
	MaxSources  = 10_000_000
	MaxRequests = 100_000_000_000
	MaxWorkers  = 1024
)

// Validate reports the first option out of range, as an *algo.OptionError.
func (o Options) Validate() error {
	if err := o.config().Validate(); err != nil {
		return err
	}
	if o.Sources < 1 || o.Sources > MaxSources {
		return algo.Problem("sources", "%d is out of range: it must be from 1 to %s", o.Sources, human.Int(MaxSources))
	}
	if o.Requests < 1 || o.Requests > MaxRequests {
		return algo.Problem("requests", "%d is out of range: it must be from 1 to %s (%s)", o.Requests, human.Int(MaxRequests), human.Abbrev(MaxRequests))
	}
	if o.Workers < 0 || o.Workers > MaxWorkers {
		return algo.Problem("workers", "%d is out of range: it must be from 1 to %d, or 0 for one per core", o.Workers, MaxWorkers)
	}
	return o.Model.validate()
}

// Flags are the options the command line gives as text, with suffixes and
// names: --requests 400M, --sources 270k, --model, --rules, --bursts.
type Flags struct {
	Requests, Sources, Model, Rules, Bursts string
}

// DefaultFlags spell DefaultOptions.
var DefaultFlags = Flags{
	Requests: human.Abbrev(DefaultOptions.Requests), Sources: strconv.Itoa(DefaultOptions.Sources),
	Model: DefaultOptions.Model.Rates.String(), Rules: DefaultOptions.Rules.Name(), Bursts: "off",
}

// Apply reads f into o, and reports the first that does not read as an
// *algo.OptionError; o's other options are left as they are.
func (f Flags) Apply(o *Options) error {
	var err error
	if o.Requests, err = ParseCount(f.Requests); err != nil {
		return &algo.OptionError{Option: "requests", Problem: err.Error()}
	}
	n, err := ParseCount(f.Sources)
	if err != nil {
		return &algo.OptionError{Option: "sources", Problem: err.Error()}
	}
	o.Sources = int(n) // Validate checks the range
	var ok bool
	if o.Model.Rates, ok = ParseDistribution(f.Model); !ok {
		return algo.Problem("model", "%q is not a model; use pareto or lognormal", f.Model)
	}
	if o.Rules, ok = algo.ParseRules(f.Rules); !ok {
		return algo.Problem("rules", "%q is not a rule set; use %s", f.Rules, strings.Join(algo.RuleSetNames(), ", "))
	}
	if o.Model.On, o.Model.Off, err = ParseBursts(f.Bursts); err != nil {
		return &algo.OptionError{Option: "bursts", Problem: err.Error()}
	}
	return nil
}

// config is the limiters' configuration.
func (o Options) config() algo.Config {
	return algo.Config{Limit: o.Limit, Window: o.Window, Rules: o.Rules}
}

// Progress is how far a run has got.
type Progress struct {
	Requests, TotalRequests int64
	Sources, TotalSources   int64
}

// Run is an experiment in progress.
type Run struct {
	opts     Options
	plan     plan
	requests atomic.Int64 // decided so far
	sources  atomic.Int64 // finished so far
	stop     atomic.Bool
	done     chan struct{}
	result   Result
	err      error // the lab was refused (a *TooBigError, or an *algo.OptionError for --bursts)
}

// chunkSources is how many consecutive sources a worker takes at a time.
// It is fixed, not derived from the worker count, so that the figures are
// added up in the same order however many workers there are.
const chunkSources = 256

// Start checks the options and starts the experiment: drawing the sources'
// rates, then the workers.
// Cancelling ctx stops them after the source each is deciding; Wait then
// returns the figures of the sources finished so far.
func Start(ctx context.Context, o Options) (*Run, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	r := &Run{opts: o, done: make(chan struct{})}
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			r.stop.Store(true)
		case <-stopped:
		}
	}()
	go func() {
		defer close(r.done)
		defer close(stopped)
		var chunks []Totals
		var ok bool
		if r.plan, ok = newPlan(o.Model, o.Seed, o.Sources, o.Requests, o.Limit, int64(o.Window/time.Millisecond), &r.stop); ok {
			if err := r.plan.periodsProblem(o.Requests); err != nil {
				r.err = err
			} else if est, busiest := r.plan.footprint(o); est > algo.BudgetLive {
				r.err = &TooBigError{Estimate: est, Instants: busiest, Window: o.Window, Workers: min(o.Workers, o.Sources)}
			} else {
				chunks = r.decide()
			}
		}
		r.result = r.collect(chunks)
	}()
	return r, nil
}

// decide runs the workers over every source, chunk by chunk.
func (r *Run) decide() []Totals {
	o := r.opts
	chunks := make([]Totals, (o.Sources+chunkSources-1)/chunkSources)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(o.Workers, len(chunks)) {
		wg.Go(func() {
			w := newWorker(r)
			for !r.stop.Load() {
				c := int(next.Add(1) - 1)
				if c >= len(chunks) {
					return
				}
				first := c * chunkSources
				w.chunk(first, min(first+chunkSources, o.Sources), &chunks[c])
			}
		})
	}
	wg.Wait()
	return chunks
}

// RunToEnd runs an experiment to the end (or until ctx is cancelled) and
// returns its figures.
func RunToEnd(ctx context.Context, o Options) (Result, error) {
	r, err := Start(ctx, o)
	if err != nil {
		return Result{}, err
	}
	return r.Wait(), nil
}

// Progress is safe to call at any time, from any goroutine.
func (r *Run) Progress() Progress {
	return Progress{
		Requests: r.requests.Load(), TotalRequests: r.opts.Requests,
		Sources: r.sources.Load(), TotalSources: int64(r.opts.Sources),
	}
}

// Done is closed when the figures are ready.
func (r *Run) Done() <-chan struct{} { return r.done }

// Wait returns the figures once every worker has stopped.
func (r *Run) Wait() Result {
	<-r.done
	return r.result
}

// Err is why the lab was refused once its sources' rates were drawn (a
// *TooBigError, or bursts too short for the run: an *algo.OptionError), or
// nil; valid after Wait.
func (r *Run) Err() error {
	<-r.done
	return r.err
}

// worker decides whole sources, one after another, with one client id.
type worker struct {
	run  *Run
	j    *judge
	arr  *arrivals
	stop *atomic.Bool
}

func newWorker(r *Run) *worker {
	return &worker{run: r, j: newJudge(r.opts.config()), arr: newArrivals(), stop: &r.stop}
}

// progressEvery is how many requests a worker decides between reports of
// progress and checks for a stop.
const progressEvery = 1 << 16

// chunk decides sources [first, end) into t, stopping early if asked.
func (w *worker) chunk(first, end int, t *Totals) {
	p := &w.run.plan
	for s := first; s < end; s++ {
		if w.stop.Load() {
			return
		}
		n := p.counts[s]
		if !w.arr.reset(p, s, n, w.stop) {
			return // stopped while setting the source up: its figures are left out
		}
		w.j.begin()
		for n > 0 {
			k := min(n, progressEvery)
			for left := k; left > 0; {
				ts := w.arr.take(int(left))
				w.j.decideEach(ts)
				left -= int64(len(ts))
			}
			n -= k
			w.run.requests.Add(k)
			if n > 0 && w.stop.Load() {
				return // the source is unfinished: its figures are left out
			}
		}
		w.j.end(t)
		w.run.sources.Add(1)
	}
}
