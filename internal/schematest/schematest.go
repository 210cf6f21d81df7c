// Package schematest keeps windowlab's JSON Schemas (the repository's
// schema/ folder) generated from the Go types that write each --json
// output, and checks real output against them. Tests only.
package schematest

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/invopop/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update-schemas", false, "rewrite schema/*.schema.json from the Go types")

// Path is the schema file called name, in the repository's schema/ folder.
func Path(name string) string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "schema", name)
}

// generate is the schema of v's type, titled and described, as the file holds it.
func generate(v any, title, description string) []byte {
	r := &jsonschema.Reflector{Anonymous: true, ExpandedStruct: true, Mapper: func(t reflect.Type) *jsonschema.Schema {
		if t == reflect.TypeFor[big.Int]() { // written as a JSON number, exact however large
			return &jsonschema.Schema{Type: "integer"}
		}
		return nil
	}}
	s := r.Reflect(v)
	s.Title, s.Description = title, description
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(out, '\n')
}

// Keep fails unless the schema file name holds exactly what generate makes
// of v; with -update-schemas it writes it.
func Keep(t *testing.T, name string, v any, title, description string) {
	t.Helper()
	want := generate(v, title, description)
	if *update {
		if err := os.WriteFile(Path(name), want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(Path(name))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("schema/%s is not what the Go types give (go test -run Schema -update-schemas ./... rewrites it): %v", name, err)
	}
}

// Validate checks doc, one JSON document, against the schema file name.
func Validate(t *testing.T, name string, doc []byte) {
	t.Helper()
	c := sjs.NewCompiler()
	sch, err := c.Compile(Path(name))
	if err != nil {
		t.Fatalf("schema/%s: %v", name, err)
	}
	v, err := sjs.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v\n%.300s", err, doc)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("output does not meet schema/%s: %v", name, err)
	}
}
