package scenarios

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input panics and that every error is located.
// Seeded with the bad corpus and the built-ins:
//
//	go test ./scenarios -run - -fuzz FuzzParse -fuzztime 1m
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "bad", "*.yaml"))
	builtins, _ := filepath.Glob(filepath.Join("builtin", "*.yaml"))
	for _, path := range append(files, builtins...) {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(minimal))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.yaml", data)
		if err != nil {
			if _, ok := err.(ErrorList); !ok {
				t.Fatalf("error is %T, want ErrorList", err)
			}
			return
		}
		if s.Len() > MaxRequests*2 {
			t.Fatalf("Len %d passed the cap", s.Len())
		}
		src := s.Source()
		for range 1000 {
			if _, ok := src.Next(); !ok {
				break
			}
		}
	})
}
