package replay

import (
	"testing"

	"windowlab/internal/schematest"
)

func TestCompareSchema(t *testing.T) {
	schematest.Keep(t, "compare.schema.json", CompareDocument{}, "windowlab replay --compare FIELD --json",
		"How often each limiter, at each setting, decided an access log's requests as the server did, by the decision the log holds; the first requests decided otherwise.")
}
