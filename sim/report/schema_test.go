package report

import (
	"testing"

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
