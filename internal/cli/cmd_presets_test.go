package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"windowlab/algo"
)

// windowlab presets: every preset, as --algorithms names it, with its rule
// and its source, as a golden file; each name it prints parses back.
func TestPresetsCommand(t *testing.T) {
	out, errOut, code := windowlab(t, "presets")
	if code != 0 || errOut != "" {
		t.Fatalf("presets: exit %d, stderr %q", code, errOut)
	}
	goldenFile(t, filepath.Join("testdata", "presets", "presets.txt"), out)
	for _, p := range algo.AllPresets() {
		name := p.Kind.String() + "/" + p.Name
		if _, err := algo.ParseAlgorithm(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		flat := strings.Join(strings.Fields(out), " ") // the text as words, unwrapped
		for _, want := range []string{name, "project: " + p.Title, "rule: " + p.Rule, "source: " + p.Source} {
			if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
				t.Errorf("presets does not print %q", want)
			}
		}
	}
	for _, l := range strings.Split(out, "\n") {
		words := strings.Fields(l)
		if w := utf8.RuneCountInString(l); w > 80 && len(words) > 0 && utf8.RuneCountInString(words[len(words)-1]) > 80-11 &&
			(len(words) == 1 || len(words) == 2 && strings.HasSuffix(words[0], ":")) {
			continue // a word wider than the text's column stands alone
		} else if w > 80 {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
	if !strings.Contains(out, "token-bucket/gcra") || !strings.Contains(out, "  takes:   burst") {
		t.Errorf("presets does not list token-bucket/gcra with the burst it takes:\n%s", out)
	}
}
