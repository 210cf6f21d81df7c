package loggen

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
	"testing"

	"windowlab/accesslog"
)

func write(t *testing.T, o Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The same seed writes the same bytes (pinned: a change of the generator
// changes the benchmark's log, and must say so here); another seed others.
func TestSameSeedSameBytes(t *testing.T) {
	o := Options{Seed: 1, Lines: 2000, Clients: 300, Heavy: 3, Format: "combined"}
	a, b := write(t, o), write(t, o)
	if !bytes.Equal(a, b) {
		t.Fatal("two logs of one seed differ")
	}
	const want = "2461a607108e52b72479ce1c2d86f22c610be93e61a94ff895fc7ded180d9361"
	if got := fmt.Sprintf("%x", sha256.Sum256(a)); got != want {
		t.Errorf("the seed-1 log's sha256 is %s, pinned %s", got, want)
	}
	o.Seed = 2
	if bytes.Equal(a, write(t, o)) {
		t.Error("seeds 1 and 2 wrote the same log")
	}
	o.Seed, o.Gzip = 1, true
	z1, z2 := write(t, o), write(t, o)
	if !bytes.Equal(z1, z2) {
		t.Error("two gzip logs of one seed differ")
	}
	zr, err := gzip.NewReader(bytes.NewReader(z1))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, a) {
		t.Error("the gzip log is not the plain one compressed")
	}
}

// Every line parses through accesslog, in order, Combined and JSON
// Lines, gzip or not: as many requests as lines, no bad or late line,
// within the day, the clients at most the Zipf-like and heavy ones, the
// heavy ones among them.
func TestTheLogParses(t *testing.T) {
	for _, format := range []string{"combined", "jsonl"} {
		for _, gz := range []bool{false, true} {
			o := Options{Seed: 7, Lines: 20000, Clients: 500, Heavy: 4, Format: format, Gzip: gz}
			l, err := accesslog.Read(bytes.NewReader(write(t, o)), accesslog.Options{Name: "gen", Reorder: accesslog.DefaultReorder})
			if err != nil {
				t.Fatal(err)
			}
			if l.Requests != o.Lines || l.BadLines != 0 || l.LateLines != 0 {
				t.Errorf("%s gzip %v: %d requests of %d lines, %d bad, %d late", format, gz, l.Requests, o.Lines, l.BadLines, l.LateLines)
			}
			if n := len(l.Clients()); n > o.Clients+o.Heavy || n < o.Clients/2 {
				t.Errorf("%s: %d clients, of %d Zipf-like and %d heavy", format, n, o.Clients, o.Heavy)
			}
			if l.ClientNumber("198.18.0.1") < 0 {
				t.Errorf("%s: no heavy client 198.18.0.1", format)
			}
			if day := l.Last() - l.First(); day < 23*3600_000 || day >= 24*3600_000 {
				t.Errorf("%s: the log spans %d ms, not most of a day", format, day)
			}
		}
	}
}

// A log spread over days holds each day as a one-day log of its share of
// the lines would (the same instants, a day later each day), in order:
// the same clients at the same rate, for as long as asked.
func TestDaysRepeatTheDay(t *testing.T) {
	o := Options{Seed: 3, Lines: 9001, Clients: 200, Heavy: 2, Format: "combined", Days: 3}
	l, err := accesslog.Read(bytes.NewReader(write(t, o)), accesslog.Options{Name: "gen", Reorder: accesslog.DefaultReorder})
	if err != nil {
		t.Fatal(err)
	}
	if l.Requests != o.Lines || l.LateLines != 0 {
		t.Fatalf("%d requests of %d lines, %d late", l.Requests, o.Lines, l.LateLines)
	}
	if span := l.Last() - l.First(); span < (2*24+23)*3600_000 || span >= 3*24*3600_000 {
		t.Errorf("three days span %d ms", span)
	}
	day := Options{Seed: 3, Lines: 3001, Clients: 200, Heavy: 2, Format: "combined"} // day 0's share: ⌈9001/3⌉
	if d0 := write(t, day); !bytes.HasPrefix(write(t, o), d0) {
		t.Error("day 0 of three is not the one-day log of its 3,001 lines")
	}
	o.Days = 1
	one := o
	one.Days = 0
	if !bytes.Equal(write(t, o), write(t, one)) {
		t.Error("-days 1 wrote another log than the default")
	}
	for _, o := range []Options{{Lines: 10, Clients: 5, Format: "combined", Days: 20}} {
		l, err := accesslog.Read(bytes.NewReader(write(t, o)), accesslog.Options{Name: "few", Reorder: accesslog.DefaultReorder})
		if err != nil || l.Requests != 10 || l.LateLines != 0 {
			t.Errorf("10 lines over 20 days: %v, %d requests, %d late", err, l.Requests, l.LateLines)
		}
	}
}

// Bad options are refused, naming the flag.
func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{Lines: -1, Clients: 1, Format: "combined"}, {Lines: 1, Clients: 0, Format: "combined"}, {Lines: 1, Clients: 1, Heavy: -1, Format: "jsonl"}, {Lines: 1, Clients: 1, Format: "csv"}, {Lines: 1, Clients: 1, Format: "combined", Days: -1}, {Lines: 1, Clients: 1, Format: "combined", Days: maxDays + 1}} {
		if err := Write(io.Discard, o); err == nil || err.Error()[0] != '-' {
			t.Errorf("%+v: %v, want a message naming the flag", o, err)
		}
	}
}

// The reading floor reads the log's lines and instants as accesslog does:
// every line, none bad, the same instants (summed), plain or gzip.
func TestReadFloorReadsWhatReplayReads(t *testing.T) {
	o := Options{Seed: 5, Lines: 3000, Clients: 100, Heavy: 2, Format: "combined"}
	plain := write(t, o)
	l, err := accesslog.Read(bytes.NewReader(plain), accesslog.Options{Name: "gen", Reorder: accesslog.DefaultReorder})
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	src := l.Source()
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		sum += int64(a.At)
	}
	o.Gzip = true
	for _, data := range [][]byte{plain, write(t, o)} {
		f, err := ReadFloor(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if f.Lines != 3000 || f.Bad != 0 || f.InstantSum != sum {
			t.Errorf("floor read %+v, want 3000 lines, none bad, instants summing to %d", f, sum)
		}
	}
	if f, _ := ReadFloor(strings.NewReader("10.0.0.1 - - [30/Xyz/2026:00:00:00 +0000] x\nno time\n")); f.Bad != 2 {
		t.Errorf("two bad lines read as %+v", f)
	}
}
