package arch

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The house's size limits (issue 30's "done means"): a view that is a
// router over dialogs and renderers, functions a reader holds in mind,
// files a reader finds their way in, and a root folder that is wiring only.
const (
	maxModelFields = 30  // fields of ui.Model
	maxFuncLines   = 80  // lines of a non-test function, from func to its closing brace
	maxFileLines   = 800 // lines of a non-test .go file
	maxRootFiles   = 3   // non-test .go files at the module's root
)

func TestModelFields(t *testing.T) {
	m := readModule(t)
	var model *ast.StructType
	var at string
	for _, f := range m.files {
		if f.dir != "ui" {
			continue
		}
		for _, decl := range f.ast.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				if st, ok := ts.Type.(*ast.StructType); ok && ts.Name.Name == "Model" {
					model, at = st, fmt.Sprintf("%s:%d", f.path, m.fset.Position(ts.Pos()).Line)
				}
			}
		}
	}
	if model == nil {
		t.Fatal("found no struct type Model in package ui; this guard measures the view's root model")
	}
	n := 0
	for _, f := range model.Fields.List {
		n += max(len(f.Names), 1) // an embedded field is one
	}
	if n > maxModelFields {
		t.Errorf("%s: ui.Model has %d fields; the view's root model is a router of at most %d (move a dialog's or a renderer's state into its own type)",
			at, n, maxModelFields)
	}
}

func TestFunctionLength(t *testing.T) {
	m := readModule(t)
	var long []string
	measure := func(f sourceFile, n ast.Node, name string) {
		start, end := m.fset.Position(n.Pos()), m.fset.Position(n.End())
		if lines := end.Line - start.Line + 1; lines > maxFuncLines {
			long = append(long, fmt.Sprintf("%s:%d: %s is %d lines", f.path, start.Line, name, lines))
		}
	}
	for _, f := range m.files {
		for _, decl := range f.ast.Decls {
			lit := "a func literal"
			if fn, ok := decl.(*ast.FuncDecl); ok {
				measure(f, fn, funcName(fn))
				lit += " in " + funcName(fn)
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				if fl, ok := n.(*ast.FuncLit); ok {
					measure(f, fl, lit)
				}
				return true
			})
		}
	}
	if len(long) > 0 {
		t.Errorf("%d functions are over %d lines (counted from func to the closing brace; cut each into named steps):\n\t%s",
			len(long), maxFuncLines, strings.Join(long, "\n\t"))
	}
}

func TestFileLength(t *testing.T) {
	m := readModule(t)
	var long []string
	for _, f := range m.files {
		if lines := m.fset.File(f.ast.Pos()).LineCount(); lines > maxFileLines {
			long = append(long, fmt.Sprintf("%s is %d lines", f.path, lines))
		}
	}
	if len(long) > 0 {
		t.Errorf("%d files are over %d lines (split each by topic):\n\t%s", len(long), maxFileLines, strings.Join(long, "\n\t"))
	}
}

func TestRootFiles(t *testing.T) {
	m := readModule(t)
	var root []string
	for _, f := range m.files {
		if f.dir == "." {
			root = append(root, f.path)
		}
	}
	if len(root) > maxRootFiles {
		t.Errorf("the module's root holds %d non-test .go files; it is wiring only, at most %d (main.go calls internal/cli): %s",
			len(root), maxRootFiles, strings.Join(root, ", "))
	}
}

// funcName names a function as a reader looks for it: f, T.m or (*T).m.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	recv := fn.Recv.List[0].Type
	star := false
	if s, ok := recv.(*ast.StarExpr); ok {
		recv, star = s.X, true
	}
	switch r := recv.(type) { // drop type parameters: T[K] → T
	case *ast.IndexExpr:
		recv = r.X
	case *ast.IndexListExpr:
		recv = r.X
	}
	typ := "?"
	if id, ok := recv.(*ast.Ident); ok {
		typ = id.Name
	}
	if star {
		return "(*" + typ + ")." + fn.Name.Name
	}
	return typ + "." + fn.Name.Name
}

// module is the module's non-test Go source, parsed.
type module struct {
	fset  *token.FileSet
	files []sourceFile // in path order
}

type sourceFile struct {
	path string // slash-separated, from the module's root
	dir  string // the package's folder from the root; "." for the root
	ast  *ast.File
}

var (
	parseOnce sync.Once
	parsed    module
	parseErr  error
)

// readModule is the module's source, parsed once for all the tests.
func readModule(t *testing.T) module {
	t.Helper()
	parseOnce.Do(func() { parsed, parseErr = parseModule() })
	if parseErr != nil {
		t.Fatal(parseErr)
	}
	return parsed
}

// parseModule parses every non-test .go file of the module, skipping what
// the go command skips: testdata, folders starting with . or _, and other
// modules nested inside.
func parseModule() (module, error) {
	root, err := moduleRoot()
	if err != nil {
		return module{}, err
	}
	m := module{fset: token.NewFileSet()}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path == root {
				return nil
			}
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(m.fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		m.files = append(m.files, sourceFile{path: rel, dir: filepath.ToSlash(filepath.Dir(rel)), ast: f})
		return nil
	})
	if err != nil {
		return module{}, err
	}
	if len(m.files) == 0 {
		return module{}, fmt.Errorf("found no Go source under %s", root)
	}
	slices.SortFunc(m.files, func(a, b sourceFile) int { return strings.Compare(a.path, b.path) })
	return m, nil
}

// moduleRoot is the folder holding go.mod, found by walking up from the
// test's own folder.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("found no go.mod above %s", dir)
		}
		dir = parent
	}
}
