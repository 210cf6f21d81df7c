// Package docs is windowlab's reference, one Markdown file per topic,
// linked from the README. It holds no code: only the test that keeps the
// project's links true.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every relative link in the project's Markdown (the module root's *.md,
// this folder's and every other folder's one level down) names a file that
// exists and, with a #fragment, a heading that file has (as GitHub makes
// anchors: lower case, spaces as hyphens, punctuation dropped). A heading
// renamed or a file moved fails here instead of in a reader's browser.
func TestDocLinksResolve(t *testing.T) {
	files, _ := filepath.Glob("../*.md")
	more, _ := filepath.Glob("../*/*.md")
	files = append(files, more...)
	if !slices.Contains(files, "../README.md") || !slices.Contains(files, "../docs/keys.md") {
		t.Fatalf("found only %v: the README and docs/ must both be checked", files)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, f := range files {
		name := strings.TrimPrefix(f, "../") // as the module root names it
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target, frag, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := f
			if target != "" {
				path = filepath.Join(filepath.Dir(f), target)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %s, which does not exist", name, m[1])
					continue
				}
			}
			checked++
			if frag == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			if !anchors(t, path)[frag] {
				t.Errorf("%s links to %s, but %s has no heading with that anchor", name, m[1], strings.TrimPrefix(path, "../"))
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d relative links checked", checked)
	}
}

// anchors are the fragments GitHub gives the headings of the Markdown file
// at path.
func anchors(t *testing.T, path string) map[string]bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	drop := regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
	out := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		out[strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(h), ""), " ", "-")] = true
	}
	return out
}
