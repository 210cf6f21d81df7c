package ui

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/scenarios"
	"windowlab/ui/render"
)

// million is a million requests from a thousand clients, one every 3ms for
// 50 minutes, limit 100 per minute: request i comes from client (7·i mod
// 1000), so client c sends every 3 s from request 143·c mod 1000 on.
func million() *scenarios.Scenario {
	var b strings.Builder
	b.WriteString("name: million\ntitle: A million requests\nlimit: 100\nwindow: 1m\ntraffic:\n")
	for c := range 1000 {
		from := algo.Clock(12, 0, 0, 0) + algo.Instant(3*((143*c)%1000))
		fmt.Fprintf(&b, "  - {from: %q, to: %q, every: 3s, client: client-%d}\n", from, from.Add(3000*time.Second), c)
	}
	return parse(b.String())
}

func BenchmarkView(b *testing.B) {
	for _, zoom := range []string{"1s", "1h"} {
		b.Run("cell="+zoom, func(b *testing.B) {
			m := newModel(b, million(), 200, 50)
			m = update(b, m, goTo("12:40:00")...)
			if zoom == "1h" {
				for range len(render.ZoomLevels) {
					m = update(b, m, keyMsg("Z"))
				}
			}
			if _, n := m.Position(); n < 500_000 {
				b.Fatalf("only %d decided", n)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

// BenchmarkSeek is going to a typed time in a million requests, once the
// engine has been through them all (so its checkpoints exist): back to a
// random instant, and forward from one.
func BenchmarkSeek(b *testing.B) {
	m := newModel(b, million(), 200, 50)
	m = update(b, m, press("G")...)
	end, _ := m.Position()
	first := algo.Clock(12, 0, 0, 0)
	rng := rand.New(rand.NewPCG(5, 6))
	b.Run("back", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			m.seek(end)
			t := first + algo.Instant(rng.Int64N(int64(end-first)))
			b.StartTimer()
			m.seek(t)
		}
	})
	b.Run("forward-1m", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			t := first + algo.Instant(rng.Int64N(int64(end-first-60_000)))
			m.seek(t)
			b.StartTimer()
			m.seek(t + 60_000)
		}
	})
	// Forward across the whole scenario: the engine replays every arrival on
	// the way (sim.Engine.Seek uses checkpoints only to go back).
	b.Run("forward-all", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			m.seek(first)
			b.StartTimer()
			m.seek(end)
		}
	})
}

// BenchmarkStepBack is ← at the far end of a million requests.
func BenchmarkStepBack(b *testing.B) {
	m := newModel(b, million(), 200, 50)
	m = update(b, m, press("G")...)
	b.ResetTimer()
	for b.Loop() {
		next, _ := m.Update(keyMsg("left"))
		m = next.(Model)
	}
}
