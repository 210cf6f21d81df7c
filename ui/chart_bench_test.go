package ui

import (
	"testing"

	"windowlab/ui/render"
)

// BenchmarkChart is a frame (the snapshot read after a move, then View) at
// 200×50 over a million requests from 1,000 clients at 12:40:00 (cells of
// 1 s and of 1 h), and over the worked example at 12:01:15: the
// timeline alone, then with the chart (v) from its cache, as while playing
// or paused, and cold, every column replayed from a checkpoint, as after a
// zoom or another client. Compare each with timeline, run beside it.
func BenchmarkChart(b *testing.B) {
	for _, zoom := range []string{"1s", "1h", "worked-example"} {
		var base Model
		if zoom == "worked-example" {
			base = update(b, newModel(b, workedExample(), 200, 50), goTo("12:01:15")...)
		} else {
			base = update(b, newModel(b, million(), 200, 50), goTo("12:40:00")...)
		}
		if zoom == "1h" {
			for range len(render.ZoomLevels) {
				base = update(b, base, keyMsg("Z"))
			}
		}
		for _, mode := range []string{"timeline", "chart-cached", "chart-cold"} {
			b.Run(zoom+"/"+mode, func(b *testing.B) {
				m := base
				if mode != "timeline" {
					m = update(b, m, keyMsg("v"))
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if mode == "chart-cold" {
						m.chartCache = nil
					}
					m.refresh()
					_ = m.View()
				}
				if s := m.chartStates; mode != "timeline" && b.N > 0 {
					b.ReportMetric(float64(s.Replayed), "replayed/op")
				}
			})
		}
	}
}
