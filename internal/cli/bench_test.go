package cli

import (
	"context"
	"io"
	"testing"

	"windowlab/scenarios"
)

// bigScenario is BENCHMARKS.md's whole run: ten million Poisson requests
// from 10,000 clients over 23 hours, limit 100 per minute.
const bigScenario = `limit: 100
window: 1m
traffic:
  - {from: "00:00:00", to: "23:00:00", rate: 120.77/s, clients: 10000, seed: 3}
`

// BenchmarkRunReport is `windowlab run` on that scenario, report and all
// (written to nowhere). The target is 5 s; profile it with
// go test -run '^$' -bench RunReport -benchtime 1x -cpuprofile cpu.out .
func BenchmarkRunReport(b *testing.B) {
	for b.Loop() {
		s, err := scenarios.Parse("big.yaml", []byte(bigScenario))
		if err != nil {
			b.Fatal(err)
		}
		if err := writeReport(context.Background(), io.Discard, s, false, false); err != nil {
			b.Fatal(err)
		}
	}
}
