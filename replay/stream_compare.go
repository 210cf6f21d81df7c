package replay

import (
	"context"
	"sync/atomic"

	"windowlab/accesslog"
	"windowlab/sim"
)

// compareAtOnce is Compare at every setting at once, each from its own
// source and marks of a streaming tail (a goroutine each, closed as soon
// as it is done: none may hold the reading); nil when ctx ended first.
func compareAtOnce(ctx context.Context, sources []sim.Source, marks []*accesslog.Marks, settings []Setting, decided *atomic.Int64) ([]Agreement, error) {
	results, errs := startAtOnce(sources, func(i int) ([]Agreement, error) {
		defer closeMarks(marks[i : i+1])
		return compareSetting(ctx, sources[i], marks[i], settings[i], decided)
	})()
	var out []Agreement
	for i, r := range results {
		if errs[i] != nil || r == nil { // as Compare: the first setting's error, or none when ctx ended
			return nil, errs[i]
		}
		out = append(out, r...)
	}
	return out, nil
}

// deniedAtOnce counts --denied's table at every setting at once, each
// from its own source of a streaming tail, as compareAtOnce.
func deniedAtOnce(ctx context.Context, sources []sim.Source, settings []Setting) (DeniedTable, error) {
	counts, errs := startAtOnce(sources, func(i int) (*deniedCounts, error) {
		return countDenied(ctx, sources[i], settings[i])
	})()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return counts, nil
}

func closeMarks(marks []*accesslog.Marks) {
	for _, m := range marks {
		m.Close()
	}
}
