package scenarios

import "testing"

// BenchmarkLoad is what opening a built-in costs: read is the file parsed
// and checked, resolved adds the replay that fills its captions' figures
// (to the last caption's moment). BENCHMARKS.md records the ratio.
func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"boundary-burst", "worked-example", "sliding-log-memory"} {
		file := builtinFile(name)
		data, err := builtinFS.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/read", func(b *testing.B) {
			for b.Loop() {
				if _, err := parseText(file, data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/resolved", func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(file, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
