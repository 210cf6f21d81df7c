package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowed is the README's "How it works" table: which of windowlab's
// packages each package may import (tests included, except the switch they
// all may use). A new import that crosses a layer fails here first.
var allowed = map[string][]string{
	"human":               {},
	"algo":                {"human"},
	"sim":                 {"algo"},
	"sim/report":          {"algo", "human", "sim"},
	"sim/lab":             {"algo", "human"},
	"scenarios":           {"algo", "human", "sim"},
	"quiz":                {"algo", "human", "scenarios", "sim"},
	"ui":                  {"algo", "human", "quiz", "scenarios", "sim"},
	"ui/labprogress":      {"human", "sim/lab"},
	"serve":               {"algo", "human", "quiz", "ui"},
	"accesslog":           {"algo", "human", "sim"},
	"internal/long":       {},
	"redisstore":          {"algo"},
	"internal/redistest":  {},
	"internal/schematest": {},
	"internal/arch":       {}, // test-only: the house's guards
}

// testsMay adds what a package's tests may import besides: the lab's tests
// check its decisions against the engine's; the classroom's serve the
// lesson; the JSON outputs' tests keep their schemas.
var testsMay = map[string][]string{"sim/lab": {"sim", "internal/schematest"}, "serve": {"scenarios"},
	"redisstore": {"redisstore", "sim", "scenarios", "internal/redistest"}, "sim/report": {"internal/schematest"}}

func TestLayers(t *testing.T) {
	found := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.Contains(path, "testdata") {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			return nil // main may import anything
		}
		want, ok := allowed[pkg]
		if !ok {
			t.Errorf("%s: package %s is not in the README's map of packages", path, pkg)
			return nil
		}
		found[pkg] = true
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, ours := strings.CutPrefix(p, "windowlab/")
			if !ours || (dep == "internal/long" && strings.HasSuffix(path, "_test.go")) {
				continue
			}
			if !slices.Contains(want, dep) && !(strings.HasSuffix(path, "_test.go") && slices.Contains(testsMay[pkg], dep)) {
				t.Errorf("%s imports %s; %s may import only %v", path, p, pkg, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range allowed {
		if !found[pkg] {
			t.Errorf("the map names %s, which has no files", pkg)
		}
	}
}
