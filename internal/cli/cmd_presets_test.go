package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windowlab/algo"
)

// windowlab presets: every preset, as --algorithms names it, with its rule
// and its source, as a golden file; each name it prints parses back.
func TestPresetsCommand(t *testing.T) {
	out, errOut, code := windowlab(t, "presets")
	if code != 0 || errOut != "" {
		t.Fatalf("presets: exit %d, stderr %q", code, errOut)
	}
	path := filepath.Join("testdata", "presets", "presets.txt")
	if *updateReplay {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if out != string(want) {
		t.Errorf("windowlab presets differs from %s:\n%s", path, out)
	}
	for _, p := range algo.AllPresets() {
		name := p.Kind.String() + "/" + p.Name
		if _, err := algo.ParseAlgorithm(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, want := range []string{name, p.Title, "  rule:   " + p.Rule, "  source: " + p.Source} {
			if !strings.Contains(out, want) {
				t.Errorf("presets does not print %q", want)
			}
		}
	}
	if !strings.Contains(out, "token-bucket/gcra") || !strings.Contains(out, "  takes:  burst") {
		t.Errorf("presets does not list token-bucket/gcra with the burst it takes:\n%s", out)
	}
}
