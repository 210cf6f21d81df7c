package arch

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
	"challenge":           {"algo", "human", "sim"},
	"room":                {"algo", "quiz"},
	"ui":                  {"algo", "challenge", "human", "quiz", "room", "scenarios", "sim", "ui/render"},
	"ui/render":           {"algo", "human", "sim"},
	"serve":               {"algo", "human", "quiz", "room", "ui"},
	"accesslog":           {"algo", "human", "sim"},
	"replay":              {"accesslog", "algo", "human", "scenarios", "sim", "sim/report"},
	"internal/long":       {},
	"redisstore":          {"algo"},
	"internal/redistest":  {},
	"internal/nginxtest":  {},
	"internal/schematest": {},

	// The benchmark's log and the reading floor it is measured against (BENCHMARKS.md).
	"internal/loggen":               {},
	"internal/loggen/cmd/genlog":    {"internal/loggen"},
	"internal/loggen/cmd/readfloor": {"internal/loggen"},

	"docs": {}, // the reference; its only code is the link checker
	// A Redis Cluster for the tests; it shares redistest's switch.
	"internal/redisclustertest": {"internal/redistest"},
	// The commands: everything below them, nothing above (main alone).
	"internal/cli": {"accesslog", "algo", "challenge", "human", "quiz", "redisstore", "replay", "room", "scenarios", "serve", "sim", "sim/lab", "sim/report", "ui", "internal/cli/labprogress"},
	// The commands' progress, drawn on standard error.
	"internal/cli/labprogress": {"human", "sim/lab"},
	// main calls the commands and nothing else.
	".":             {"internal/cli"},
	"internal/arch": {}, // test-only: the layers and the house's size limits
	// An HAProxy for a test.
	"internal/haproxytest": {},
}

// testsMay adds what a package's tests may import besides: the lab's tests
// check its decisions against the engine's; the classroom's serve the
// lesson; the renderers' goldens draw scenarios at their captions; the
// JSON outputs' tests keep their schemas.
var testsMay = map[string][]string{"internal/loggen": {"accesslog", "algo", "sim"}, "sim/lab": {"sim", "internal/schematest"}, "serve": {"scenarios"},
	"redisstore": {"redisstore", "sim", "scenarios", "internal/redistest", "internal/redisclustertest"}, "sim/report": {"internal/schematest"},
	"ui/render":    {"scenarios"},
	"internal/cli": {"internal/redistest", "internal/haproxytest", "internal/redisclustertest", "internal/schematest", "internal/nginxtest", "internal/loggen"}, ".": {"algo", "scenarios", "sim"},
	"internal/redisclustertest": {"internal/redisclustertest"}}

func TestLayers(t *testing.T) {
	found := map[string]bool{}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(file string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(file, ".go") || strings.Contains(file, "testdata") {
			return err
		}
		path, err := filepath.Rel(root, file)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		want, ok := allowed[pkg]
		if !ok {
			t.Errorf("%s: package %s is not in the README's map of packages", path, pkg)
			return nil
		}
		found[pkg] = true
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
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
