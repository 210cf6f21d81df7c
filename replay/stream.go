package replay

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"windowlab/accesslog"
	"windowlab/sim"
	"windowlab/sim/report"
)

// DecideWhileReading decides the log at every setting as the tail gets
// its requests, while Read still reads it, and sends what it came to when
// the reading and the deciding have both ended (or ctx has). The tail
// streams (accesslog.Tail.Stream): every setting is decided at once, each
// from a source of its own made here, before the reading starts, and the
// reading drops the requests they have all decided and waits for the
// slowest; so the replay holds the clients and the limiters' state, not
// the log. Call it before Read.
func DecideWhileReading(ctx context.Context, tail *accesslog.Tail, name string, settings []Setting, zone *time.Location, decided *atomic.Int64) <-chan Decision {
	return DecideAllWhileReading(ctx, tail, name, settings, zone, decided, Streamed{Report: true})
}

// Streamed is what DecideAllWhileReading decides as the log is read.
type Streamed struct {
	// Report is one setting's report, or the sweep's rows. Never run's
	// JSON (--json): its header counts the log's requests before the
	// first, which a streamed log knows only at its end, after the
	// reading has waited on the deciding; --json keeps the log.
	Report  bool
	Compare bool // --compare's agreements (Decision.Agreements)
	Denied  bool // --denied's counts (Decision.Denied)
}

// DecideAllWhileReading is DecideWhileReading for what st asks: besides
// the report or the sweep (or instead of it), --compare's agreements and
// --denied's counts, from an engine a setting of their own (one for
// both), all decided at once as the log is read.
func DecideAllWhileReading(ctx context.Context, tail *accesslog.Tail, name string, settings []Setting, zone *time.Location, decided *atomic.Int64, st Streamed) <-chan Decision {
	out := make(chan Decision, 1)
	settings = slices.Clone(settings) // its own: the caller goes on with its copy
	tail.Stream()
	sources := func(want bool, n int) []sim.Source {
		if !want {
			return nil
		}
		s := make([]sim.Source, n)
		for i := range s {
			s[i] = tail.Source()
		}
		return s
	}
	// The sweep's passes, a source each: grouped before the zone aligns
	// the settings, which moves the edges of every window of one length
	// alike, so a pass's settings still share their window after.
	ps := passes(settings, Workers(len(settings)))
	reported := sources(st.Report, len(ps))
	checked := sources(st.Compare || st.Denied, len(settings)) // one engine a setting for both
	var marks []*accesslog.Marks
	if st.Compare {
		for range settings {
			marks = append(marks, tail.Marks())
		}
	}
	go func() {
		// Whatever happens, the reading waits for them no more.
		defer closeAll(slices.Concat(reported, checked))
		defer closeMarks(marks)
		if zone != nil {
			// The zone's offset at the first request sets the windows' edges.
			first, ok := tail.First()
			if !ok {
				out <- Decision{}
				return
			}
			for i := range settings {
				settings[i] = settings[i].Aligned(zone, first)
			}
		}
		var d Decision
		var agreements []Agreement
		var table DeniedTable
		var wg sync.WaitGroup
		var cerr error
		if st.Compare || st.Denied {
			wg.Add(1)
			go func() {
				defer wg.Done()
				agreements, table, cerr = checkAtOnce(ctx, checked, marks, settings, decided, st.Denied)
			}()
		}
		if st.Report {
			d = reportWhileReading(ctx, reported, name, settings, ps, decided)
		}
		wg.Wait()
		d.Agreements, d.Denied = agreements, table
		if ctx.Err() == nil { // ended by ctx, they are only missing (nil)
			d.Err = cmp.Or(d.Err, cerr)
		}
		out <- d
	}()
	return out
}

// reportWhileReading is one setting's report, or the sweep's rows, from
// sources of the streaming tail, one a pass of ps.
func reportWhileReading(ctx context.Context, sources []sim.Source, name string, settings []Setting, ps [][]int, decided *atomic.Int64) Decision {
	if len(settings) > 1 {
		rows, whole, err := sweepAtOnce(ctx, sources, settings, ps, decided)
		return Decision{Rows: rows, Whole: whole, Err: err}
	}
	defer closeAll(sources)
	e, err := FiguresEngine(ctx, sources[0], settings[0], decided)
	if err != nil {
		return Decision{Err: err}
	}
	var b bytes.Buffer
	h := report.Header{Name: name, Title: name + ": your traffic"}
	err = report.Text(&b, h, e, false)
	// The last few thousand, which no interrupt counted: added, not
	// stored, as --compare's and --denied's engines add to decided too.
	e.StopRequested()
	return Decision{Report: b.Bytes(), Err: err}
}

// closer is a source the reading keeps requests for until it is closed.
type closer interface{ Close() }

func closeAll(sources []sim.Source) {
	for _, s := range sources {
		if c, ok := s.(closer); ok {
			c.Close()
		}
	}
}

// sweepAtOnce replays every setting at once, a pass (passes) from each
// source of a streaming tail (a goroutine each: the cores share them, and
// none can fall a whole log behind, which the tail would have to keep):
// the rows of the settings replayed whole, and how many they were, in the
// settings' order as sweep's.
func sweepAtOnce(ctx context.Context, sources []sim.Source, settings []Setting, ps [][]int, decided *atomic.Int64) ([]Outcome, int, error) {
	type pass struct {
		rows [][]Outcome
		errs []error
	}
	done, _ := startAtOnce(sources, func(p int) (pass, error) {
		rows, errs := replayPass(ctx, sources[p], pick(settings, ps[p]), decided)
		return pass{rows, errs}, nil
	})()
	results, errs := make([][]Outcome, len(settings)), make([]error, len(settings))
	for p, d := range done {
		scatter(ps[p], results, errs)(d.rows, d.errs)
	}
	return gather(ctx, results, errs)
}

// startAtOnce starts do for every source at once, a goroutine each, each
// source closed as soon as its do returns (none may hold a streaming
// reading); wait waits for them all and gives their results and errors,
// by source.
func startAtOnce[T any](sources []sim.Source, do func(i int) (T, error)) (wait func() ([]T, []error)) {
	results := make([]T, len(sources))
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer closeAll(sources[i : i+1])
			results[i], errs[i] = do(i)
		}()
	}
	return func() ([]T, []error) {
		wg.Wait()
		return results, errs
	}
}
