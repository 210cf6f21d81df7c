package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"windowlab/internal/schematest"
)

// Every --json output meets its schema in schema/, with the schema_version
// it claims, on real runs: the lesson's scenarios, a token bucket, a fleet,
// a dated access log, the memory calculator at its largest and the lab.
func TestJSONMeetsItsSchema(t *testing.T) {
	log := writeFile(t, "access.log", []byte(
		`10.0.0.1 - - [30/Nov/2026:06:25:00 +0000] "GET / HTTP/1.1" 200 5 "-" "curl"`+"\n"+
			`10.0.0.1 - - [30/Nov/2026:06:25:01 +0000] "GET / HTTP/1.1" 200 5 "-" "curl"`+"\n"+
			`10.0.0.2 - - [30/Nov/2026:06:25:01 +0000] "GET / HTTP/1.1" 200 5 "-" "curl"`+"\n"))
	cases := []struct {
		schema string
		args   []string
	}{
		{"run.schema.json", []string{"run", "boundary-burst", "--json"}},
		{"run.schema.json", []string{"run", "worked-example", "--json"}},
		{"run.schema.json", []string{"run", "token-bucket", "--json"}},
		{"run.schema.json", []string{"run", "many-servers", "--json"}},
		{"run.schema.json", []string{"run", "replica-lag", "--json"}},
		{"run.schema.json", []string{"run", "presets-cloudflare-example", "--json"}},
		{"run.schema.json", []string{"run", "testdata/nginx-delay.yaml", "--json"}},
		{"run.schema.json", []string{"replay", log, "--limit", "1", "--json"}},
		{"recommend.schema.json", []string{"replay", log, "--recommend", "--json"}},
		{"compare.schema.json", []string{"replay", "testdata/replay/limit-req.log", "--limits", "2,3", "--compare", "field:extra1", "--json"}},
		{"memory.schema.json", []string{"memory", "--json"}},
		{"memory.schema.json", []string{"memory", "--limit", "1000000000", "--window", "168h", "--clients", "1000000000", "--json"}},
		{"lab.schema.json", []string{"lab", "--requests", "20000", "--sources", "200", "--json"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, errOut, code := windowlab(t, c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			schematest.Validate(t, c.schema, []byte(out))
			var v struct {
				SchemaVersion int `json:"schema_version"`
			}
			if err := json.Unmarshal([]byte(out), &v); err != nil || v.SchemaVersion != 1 {
				t.Errorf("schema_version %d (%v), want 1", v.SchemaVersion, err)
			}
		})
	}
}

// A figure past 2^53 is a JSON number, exact as written, and the same
// again as decimal text: a reader whose numbers are doubles loses nothing.
func TestBigNumbersAreNumbersAndText(t *testing.T) {
	out, _, code := windowlab(t, "memory", "--limit", "1000000000", "--window", "168h", "--clients", "1000000000", "--json")
	if code != 0 {
		t.Fatal(out)
	}
	d := json.NewDecoder(bytes.NewReader([]byte(out)))
	d.UseNumber()
	var doc struct {
		Algorithms []map[string]any `json:"algorithms"`
	}
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	big := false
	for _, a := range doc.Algorithms {
		for _, f := range []string{"entries", "bytes", "redis_bytes"} {
			n, ok := a[f].(json.Number)
			if !ok {
				t.Fatalf("%s %s is %T, not a number", a["name"], f, a[f])
			}
			if exact := a[f+"_exact"]; exact != n.String() {
				t.Errorf("%s %s: %s as a number, %v as text", a["name"], f, n, exact)
			}
			big = big || len(n.String()) > 16
		}
	}
	if !big {
		t.Error("no figure passed 2^53: the case does not test what it says")
	}
}
