package replay

import (
	"bytes"
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
	return decideStreaming(ctx, tail, name, settings, zone, decided, false)
}

// DecideJSONWhileReading is DecideWhileReading for one setting whose
// report is run's JSON (--json).
func DecideJSONWhileReading(ctx context.Context, tail *accesslog.Tail, name string, s Setting, zone *time.Location, decided *atomic.Int64) <-chan Decision {
	return decideStreaming(ctx, tail, name, []Setting{s}, zone, decided, true)
}

func decideStreaming(ctx context.Context, tail *accesslog.Tail, name string, settings []Setting, zone *time.Location, decided *atomic.Int64, asJSON bool) <-chan Decision {
	out := make(chan Decision, 1)
	settings = slices.Clone(settings) // its own: the caller goes on with its copy
	tail.Stream()
	sources := make([]sim.Source, len(settings))
	for i := range sources {
		sources[i] = tail.Source()
	}
	go func() {
		defer closeAll(sources) // whatever happens, the reading waits for them no more
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
		if len(settings) > 1 {
			rows, whole, err := sweepAtOnce(ctx, sources, settings, decided)
			out <- Decision{Rows: rows, Whole: whole, Err: err}
			return
		}
		e, err := Engine(ctx, sources[0], settings[0], decided)
		if err != nil {
			out <- Decision{Err: err}
			return
		}
		var b bytes.Buffer
		h := report.Header{Name: name, Title: name + ": your traffic"}
		if asJSON {
			err = report.JSON(&b, h, e)
		} else {
			err = report.Text(&b, h, e, false)
		}
		decided.Store(e.Processed()) // the last few thousand, which no interrupt counted
		out <- Decision{Report: b.Bytes(), Err: err}
	}()
	return out
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

// sweepAtOnce replays every setting at once, each from its own source of
// a streaming tail (a goroutine each: the cores share them, and none can
// fall a whole log behind, which the tail would have to keep): the rows
// of the settings replayed whole, and how many they were, in the
// settings' order as sweep's.
func sweepAtOnce(ctx context.Context, sources []sim.Source, settings []Setting, decided *atomic.Int64) ([]Outcome, int, error) {
	results := make([][]Outcome, len(settings))
	errs := make([]error, len(settings))
	var wg sync.WaitGroup
	for i := range settings {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer closeAll(sources[i : i+1])
			results[i], errs[i] = replaySetting(ctx, sources[i], settings[i], decided)
		}()
	}
	wg.Wait()
	return gather(ctx, results, errs)
}
