package accesslog

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
)

// A log read in blocks (parallel.go), by the reading itself or parsed by
// workers, reads exactly as one read line by line: random logs of
// one to three files (gzip or not, one cut short), Combined, JSON with
// escaped keys or CSV with its header in every file, with bad, blank,
// long and out-of-order lines, read with random --reorder, --from/--to,
// --key, --compare, --strict and a ctrl+C, in blocks of a few lines so
// that every line falls at some block's edge. Every request, client, bad
// and late line (with its file and number), count, usage figure and the
// progress's lines must be the same.
func TestParallelReadsAsOneCore(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	defer func(lines, size int, workers func(Input, Options) int) {
		blockLines, blockBytes, parallelWorkers = lines, size, workers
	}(blockLines, blockBytes, parallelWorkers)
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 35))
		files, format := randomFiles(rng)
		opts, stopAt := randomOptions(rng, format)
		parallelWorkers = func(Input, Options) int { return 0 }
		want := readSummary(files, opts, stopAt)
		for _, workers := range []int{-1, 1, 2, 3} {
			blockLines, blockBytes = 1+rng.IntN(9), 64+rng.IntN(4096)
			parallelWorkers = func(Input, Options) int { return workers }
			got := readSummary(files, opts, stopAt)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d (%s, %d files), %d workers, blocks of %d lines or %d bytes:\nparallel %s\none core %s",
					seed, format, len(files), workers, blockLines, blockBytes, got.String(), want.String())
			}
		}
	}
}

// summary is all a reading gives.
type summary struct {
	Err                 string
	Lines, Requests     int64
	BadLines, LateLines int64
	Bad, Late           []Problem
	Digits              int
	Interrupted         bool
	Slice               Slice
	Clients             []string
	Usage               Usage
	Arrivals            []string
	Progress            []int64 // the lines at each call
	Format              Format
}

func (s summary) String() string {
	arr := s.Arrivals
	return fmt.Sprintf("err %q, %d lines, %d requests, %d bad %v, %d late %v, digits %d, interrupted %v, slice %+v, %d clients, usage %+v, progress %v, %d arrivals, the last %v",
		s.Err, s.Lines, s.Requests, s.BadLines, s.Bad, s.LateLines, s.Late, s.Digits, s.Interrupted, s.Slice, len(s.Clients), s.Usage, s.Progress, len(arr), arr[max(0, len(arr)-3):])
}

// readSummary reads files as one log, with a ctrl+C at Interrupt's
// stopAt-th question (0: none).
func readSummary(files [][]byte, opts Options, stopAt int) summary {
	var s summary
	inputs := make([]Input, len(files))
	for i, f := range files {
		inputs[i] = Input{Name: fmt.Sprintf("f%d.log", i), R: bytes.NewReader(f)}
	}
	var lastRead int64
	opts.Progress = func(b, n int64) {
		if b < lastRead {
			s.Progress = append(s.Progress, -1) // the bytes read went back
		}
		lastRead = b
		s.Progress = append(s.Progress, n)
	}
	asked := 0
	opts.Interrupt = func() bool { asked++; return stopAt > 0 && asked >= stopAt }
	l, err := ReadFiles(inputs, opts)
	if err != nil {
		s.Err = err.Error()
	}
	if l == nil {
		return s
	}
	s.Lines, s.Requests, s.BadLines, s.LateLines = l.Lines, l.Requests, l.BadLines, l.LateLines
	s.Bad, s.Late, s.Digits, s.Interrupted, s.Slice, s.Format = l.Bad, l.Late, l.Digits, l.Interrupted, l.Slice, l.Format
	s.Clients, s.Usage = l.Clients(), l.Usage()
	if opts.Compare != nil {
		m := l.Marks()
		for line, v, ok := m.Next(); ok; line, v, ok = m.Next() {
			s.Arrivals = append(s.Arrivals, fmt.Sprintf("line %d %v", line, v))
		}
	} else {
		src := l.Source()
		for a, ok := src.Next(); ok; a, ok = src.Next() {
			s.Arrivals = append(s.Arrivals, fmt.Sprintf("%d %s %d", a.At, a.Client, a.Number))
		}
	}
	return s
}

// randomOptions are a reading's options, and at which of Interrupt's
// questions a ctrl+C comes (0: none).
func randomOptions(rng *rand.Rand, format string) (Options, int) {
	opts := Options{Reorder: time.Duration(rng.IntN(6)) * time.Second, Windows: []time.Duration{time.Minute, time.Second}}
	base := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	if rng.IntN(3) == 0 {
		opts.From = algo.Instant(base + int64(rng.IntN(120_000)))
	}
	if rng.IntN(3) == 0 {
		opts.To = algo.Instant(base + 60_000 + int64(rng.IntN(300_000)))
	}
	if rng.IntN(4) == 0 {
		opts.Key, _ = ParseKey("ip+path")
		if format != "combined" {
			opts.Key, _ = ParseKey("ip+user")
		}
	}
	if format == "combined" && rng.IntN(4) == 0 {
		c, _ := ParseCompare("status")
		opts.Compare = &c
	}
	opts.Strict = rng.IntN(8) == 0
	stopAt := 0
	if rng.IntN(4) == 0 {
		stopAt = 1 + rng.IntN(4)
	}
	return opts, stopAt
}

// randomFiles writes one to three files of one log, each gzip or not.
func randomFiles(rng *rand.Rand) ([][]byte, string) {
	format := []string{"combined", "combined", "json", "csv"}[rng.IntN(4)]
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	nfiles := 1 + rng.IntN(3)
	var files [][]byte
	for f := range nfiles {
		var b bytes.Buffer
		if format == "csv" {
			b.WriteString("time,ip,user\n")
		}
		for range rng.IntN(9000) {
			at = at.Add(time.Duration(rng.IntN(60)) * time.Millisecond)
			t := at
			if rng.IntN(50) == 0 {
				t = at.Add(-time.Duration(rng.IntN(10_000)) * time.Millisecond) // behind the newest
			}
			b.WriteString(randomLine(rng, format, t))
			if rng.IntN(40) == 0 {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
		}
		if rng.IntN(5) == 0 {
			b.WriteString(randomLine(rng, format, at)) // no line break at the end
		}
		data := b.Bytes()
		if rng.IntN(3) == 0 {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(data)
			zw.Close()
			data = z.Bytes()
			if f == nfiles-1 && rng.IntN(4) == 0 {
				data = data[:len(data)*3/4] // cut short
			}
		}
		files = append(files, data)
	}
	return files, format
}

// randomLine is a line of the format at t, or now and then a bad one.
func randomLine(rng *rand.Rand, format string, t time.Time) string {
	ips := []string{"10.0.0.1", "10.0.0.2", "192.168.1.10", "010.0.0.1", "2001:db8::1", "::1", "host-a", "8.8.8.8", "255.255.255.255", "1.2.3.4.5"}
	ip := ips[rng.IntN(len(ips))]
	if rng.IntN(3) == 0 {
		ip = fmt.Sprintf("10.1.%d.%d", rng.IntN(4), rng.IntN(256))
	}
	user := []string{"-", "alice", "bob", ""}[rng.IntN(4)]
	switch rng.IntN(60) {
	case 0:
		return ""
	case 1:
		return "   \t "
	case 2:
		return "\u00a0"
	case 3:
		return "garbage " + ip
	case 4:
		if rng.IntN(20) == 0 {
			return ip + " - - [" + strings.Repeat("x", maxLine) + "]"
		}
	case 5:
		return ip + " - - [32/Foo/2026:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1"
	}
	switch format {
	case "json":
		esc := ip
		if rng.IntN(4) == 0 && len(ip) > 1 {
			esc = ip[:1] + `\u00` + fmt.Sprintf("%02x", ip[1]) + ip[2:] // the same key, escaped
		}
		ts := fmt.Sprintf("%d.%03d", t.Unix(), t.Nanosecond()/1e6)
		if rng.IntN(30) == 0 {
			ts = `"soon"`
		}
		return fmt.Sprintf(`{"ts":%s,"ip":"%s","user":"%s"}`, ts, esc, user)
	case "csv":
		return fmt.Sprintf("%s,%s,%s", t.Format("2006-01-02T15:04:05.000Z"), ip, user)
	}
	stamp := t.Format("02/Jan/2006:15:04:05 -0700")
	if rng.IntN(3) == 0 {
		stamp = t.Format("02/Jan/2006:15:04:05.000 -0700")
	}
	status := []int{200, 200, 429, 503, 404}[rng.IntN(5)]
	if rng.IntN(40) == 0 {
		return fmt.Sprintf("%s - %s [%s]", ip, user, stamp) // no request
	}
	return fmt.Sprintf("%s - %s [%s] \"GET /p%d?q=1 HTTP/1.1\" %d %d \"-\" \"agent\"", ip, user, stamp, rng.IntN(5), status, rng.IntN(5000))
}

// Read in blocks, on one core or parsed in parallel, a streamed reading
// still holds a few chunks of the store, whatever the log's length.
func TestStreamHoldsAFewChunksInBlocks(t *testing.T) {
	defer func(workers func(Input, Options) int) { parallelWorkers = workers }(parallelWorkers)
	for _, workers := range []int{-1, 2} {
		parallelWorkers = func(Input, Options) int { return workers }
		TestStreamHoldsAFewChunks(t)
	}
}
