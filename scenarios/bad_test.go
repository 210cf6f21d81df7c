package scenarios

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/bad/*.err from the current messages (review them before committing)")

// TestBadFiles parses every file in testdata/bad and compares the full
// error text with the sibling .err file.
func TestBadFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "bad", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad files found: %v", err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(name, data)
			if err == nil {
				t.Fatalf("%s parsed without error", name)
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 || len(list) > maxErrors {
				t.Fatalf("error is %T with %d entries, want an ErrorList of 1 to %d", err, len(list), maxErrors)
			}
			for _, e := range list {
				if e.File != name {
					t.Errorf("error names file %q, want %q", e.File, name)
				}
				if e.Line < 1 && !strings.Contains(e.Msg, "MiB") {
					t.Errorf("error has no line: %v", e)
				}
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(path, ".yaml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden file (run go test ./scenarios -run TestBadFiles -update, then review it): %v", err)
			}
			if got != string(want) {
				t.Errorf("message changed\ngot:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
