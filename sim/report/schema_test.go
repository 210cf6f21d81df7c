package report

import (
	"math/big"
	"strconv"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/internal/schematest"
)

// runDocument is run --json's object, as JSON streams it: the parts are
// the types that write them.
type runDocument struct {
	SchemaVersion int             `json:"schema_version" jsonschema_description:"the version of this contract: it changes when a field is renamed, removed or changes its meaning, not when one is added"`
	Scenario      jsonScenario    `json:"scenario"`
	Requests      []jsonRequest   `json:"requests" jsonschema_description:"every request in the order decided"`
	Algorithms    []jsonAlgorithm `json:"algorithms" jsonschema_description:"each limiter's figures"`
	Complete      bool            `json:"complete" jsonschema_description:"false when a signal stopped the replay: the figures are then of what was decided"`
}

func TestSchemas(t *testing.T) {
	schematest.Keep(t, "run.schema.json", runDocument{}, "windowlab run --json (and replay --json)",
		"A scenario or an access log replayed through every limiter: each request's decisions with their evidence, then each limiter's figures.")
	schematest.Keep(t, "memory.schema.json", memoryDocument{}, "windowlab memory --json",
		"The state each limiter keeps at worst, in process and in Redis.")
}

// The estimate's exact text holds past where an int64 product overflows:
// counts of rejected requests in the trillions over a week's window.
func TestEstimateExactPastInt64(t *testing.T) {
	w := 7 * 24 * time.Hour
	for _, counts := range [][2]int64{{30, 84}, {1_000_000_000_000, 3_000_000_000_000}} {
		d := algo.Decision{Kind: algo.KindSlidingCounter, Window: w, Count: counts[0], Previous: counts[1], Elapsed: time.Hour}
		wn, wd := d.WeightRat()
		num := new(big.Int).Add(new(big.Int).Mul(big.NewInt(counts[0]), big.NewInt(wd)), new(big.Int).Mul(big.NewInt(counts[1]), big.NewInt(wn)))
		if got, want := decisionJSON(d).EstimateExact, num.String()+"/"+strconv.FormatInt(wd, 10); got != want {
			t.Errorf("counts %v: %q, want %q", counts, got, want)
		}
	}
}
