package lab

import (
	"testing"

	"windowlab/internal/schematest"
)

func TestSchemas(t *testing.T) {
	schematest.Keep(t, "lab.schema.json", document{}, "windowlab lab --json",
		"The accuracy lab: the sliding window counter and the fixed window against the exact sliding log, Cloudflare's four figures beside theirs.")
}
