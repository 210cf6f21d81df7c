package replay

import (
	"context"
	"sync/atomic"

	"windowlab/accesslog"
	"windowlab/sim"
)

// checkAtOnce decides every setting once for --compare's agreements (from
// marks, when asked: not nil) and --denied's counts (when denied), each
// setting from its own source of a streaming tail (a goroutine each,
// closed as soon as it is done: none may hold the reading); one engine a
// setting serves both, which need the same decisions. Each is nil when not
// asked or when ctx ended first; the error is the first setting's.
func checkAtOnce(ctx context.Context, sources []sim.Source, marks []*accesslog.Marks, settings []Setting, decided *atomic.Int64, denied bool) ([]Agreement, DeniedTable, error) {
	type checked struct {
		rows []Agreement
		dc   *deniedCounts
	}
	results, errs := startAtOnce(sources, func(i int) (checked, error) {
		var m *accesslog.Marks
		if marks != nil {
			m = marks[i]
			defer closeMarks(marks[i : i+1])
		}
		rows, dc, err := checkSetting(ctx, sources[i], m, settings[i], decided, denied)
		return checked{rows, dc}, err
	})()
	var rows []Agreement
	var table DeniedTable
	for i, r := range results {
		if errs[i] != nil || r.rows == nil && r.dc == nil { // as Compare: the first setting's error, or none when ctx ended
			return nil, nil, errs[i]
		}
		rows = append(rows, r.rows...)
		if denied {
			table = append(table, r.dc)
		}
	}
	return rows, table, nil
}

func closeMarks(marks []*accesslog.Marks) {
	for _, m := range marks {
		m.Close()
	}
}
