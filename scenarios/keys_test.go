package scenarios

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"windowlab/human"
)

// unknownKeys is a valid scenario followed by n unknown top-level keys, as
// short as keys get: 133k of them fill the 1 MiB a file may have.
func unknownKeys(n int) []byte {
	var b strings.Builder
	b.WriteString("limit: 5\nwindow: 1m\ntraffic: [{at: \"12:00:00\"}]\n")
	for i := range n {
		fmt.Fprintf(&b, "%x:\n", i+0x10000)
	}
	return []byte(b.String())
}

// allocated is the bytes that parsing data allocates.
func allocated(data []byte) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _ = Parse("x.yaml", data)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A file of many unknown keys cost time and memory growing with the square
// of the keys (the YAML parser copies a block mapping's keys once per key):
// 133k of them took 70 s and 531 MB. Doubling the keys must at most about
// double the bytes allocated, and the message must count them truly.
func TestManyUnknownKeysLinear(t *testing.T) {
	sizes := []int{16_500, 33_000, 66_000, 133_000}
	var prev uint64
	for i, n := range sizes {
		data := unknownKeys(n)
		if len(data) > MaxFileSize {
			t.Fatalf("%d keys make %d bytes, more than a file may have", n, len(data))
		}
		got := allocated(data)
		t.Logf("%d keys, %d bytes: %s allocated", n, len(data), human.Bytes(int64(got)))
		if i > 0 && got > prev*5/2 {
			t.Errorf("%d keys allocated %d bytes, %d keys %d: more than 2.5 times for twice the keys", sizes[i-1], prev, n, got)
		}
		prev = got
	}
	_, err := Parse("x.yaml", unknownKeys(133_000))
	want := "x.yaml:1:1: this mapping has 133,003 keys (to line 133003)"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("got %v, want one error starting %q", err, want)
	}
}

// A mapping of up to maxKeys keys still gets one message a key; one more
// is refused before parsing, nested as well as at the top.
func TestKeysPerMapping(t *testing.T) {
	entry := func(n int) string {
		var b strings.Builder
		b.WriteString("limit: 5\nwindow: 1m\ntraffic:\n  - at: \"12:00:00\"\n")
		for i := range n - 1 {
			fmt.Fprintf(&b, "    k%d: 1\n", i)
		}
		b.WriteString("expect:\n  - {algorithm: fixed-window, allowed: 1}\n")
		return b.String()
	}
	_, err := Parse("x.yaml", []byte(entry(maxKeys)))
	if err == nil || !strings.Contains(err.Error(), "x.yaml:5:5: traffic[0].k0: unknown field") {
		t.Errorf("%d keys: got %v, want a message a key", maxKeys, err)
	}
	_, err = Parse("x.yaml", []byte(entry(maxKeys+1)))
	if want := "x.yaml:4:5: this mapping has 101 keys (to line 104)"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%d keys: got %v, want %q", maxKeys+1, err, want)
	}
}

// Past the thousand errors kept, the rest are still counted: the file's
// last line says how many more there truly are.
func TestMoreErrorsCounted(t *testing.T) {
	var b strings.Builder
	b.WriteString("limit: 5\nwindow: 1m\ntraffic:\n")
	for range 5000 {
		b.WriteString("  - {at: \"12:00:00\", zz: 1}\n")
	}
	_, err := Parse("x.yaml", []byte(b.String()))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != maxErrors {
		t.Fatalf("got %v, want %d errors", err, maxErrors)
	}
	if last := list[len(list)-1].Msg; !strings.HasPrefix(last, "4,991 more errors") {
		t.Errorf("last error %q, want 4,991 more (5,000 in all)", last)
	}
}
