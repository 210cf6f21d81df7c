package replay

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// The estimate of a log's lines, from its size and its sample's bytes a
// line, is within a tenth of the lines counted, plain and gzip (its
// compressed bytes a line), one file or several summed; a file read whole
// is counted exactly; standard input has no estimate.
func TestEstimateLines(t *testing.T) {
	old := estimateSample
	estimateSample = 64 << 10
	t.Cleanup(func() { estimateSample = old })
	rng := rand.New(rand.NewPCG(3, 5))
	dir := t.TempDir()
	write := func(name string, lines int, zip bool) string {
		var b bytes.Buffer
		for i := range lines {
			fmt.Fprintf(&b, "10.%d.%d.%d - - [30/Nov/2026:00:%02d:%02d +0000] \"GET /%d HTTP/1.1\" 200 %d \"-\" \"agent %d\"\n",
				rng.IntN(256), rng.IntN(256), rng.IntN(256), i/60%60, i%60, rng.IntN(1000), rng.IntN(100000), rng.IntN(50))
		}
		data := b.Bytes()
		if zip {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(data)
			zw.Close()
			data = z.Bytes()
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain, gz := write("a.log", 40_000, false), write("a.log.gz", 60_000, true)
	small := write("small.log", 100, false)
	for _, c := range []struct {
		paths []string
		lines int64
		exact bool
	}{
		{[]string{plain}, 40_000, false},
		{[]string{gz}, 60_000, false},
		{[]string{gz, plain, small}, 100_100, false},
		{[]string{small}, 100, true},
	} {
		e, ok, err := EstimateLines(c.paths)
		if err != nil || !ok || e.Exact != c.exact {
			t.Fatalf("%v: %v %v %v", c.paths, e, ok, err)
		}
		if d := e.Lines - c.lines; d*10 > c.lines || -d*10 > c.lines || c.exact && d != 0 {
			t.Errorf("%v: estimated %d lines, %d there", c.paths, e.Lines, c.lines)
		}
	}
	if _, ok, _ := EstimateLines([]string{"-"}); ok {
		t.Error("standard input has an estimate")
	}
}
