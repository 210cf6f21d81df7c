package scenarios

import (
	"path"
	"testing"
)

// BenchmarkLoad is what opening a built-in costs: read is the file parsed
// and checked, resolved adds the replay that fills its captions' figures
// (to the last caption's moment). BENCHMARKS.md records the ratio.
func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"boundary-burst", "worked-example", "sliding-log-memory"} {
		data, err := builtinFS.ReadFile(path.Join("builtin", name+".yaml"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/read", func(b *testing.B) {
			for b.Loop() {
				if _, err := parseText(name+".yaml", data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/resolved", func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(name+".yaml", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
