package accesslog

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"windowlab/algo"
)

// genLog writes n Combined lines of the formula below to a pipe, as a
// log of any length can be read without being held: line i is client
// i*7919 mod 997's, at a millisecond every third line (so runs of the
// same instant), and its expected arrival is worked out from i alone.
func genLog(n int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<16)
		for i := range n {
			at, client := genAt(i), genClient(i)
			fmt.Fprintf(w, "%s - - [%s] \"GET / HTTP/1.1\" 200 5 \"-\" \"t\"\n", client, at.Time().Format("02/Jan/2006:15:04:05.000 -0700"))
		}
		w.Flush()
		pw.Close()
	}()
	return pr
}

var genStart = algo.Instant(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).UnixMilli())

func genAt(i int) algo.Instant { return genStart + algo.Instant(i/3) }
func genClient(i int) string {
	c := i * 7919 % 997
	return fmt.Sprintf("10.%d.%d.%d", c/250, c%250, c%7)
}

// swap sets ChunkSize for the test.
func withChunks(t *testing.T, n int) {
	old := ChunkSize
	ChunkSize = n
	t.Cleanup(func() { ChunkSize = old })
}

// A streamed reading holds a few chunks of the store, however long the
// log: a log ten times as long peaks at the same chunks, each of its
// sources (one of them slow) still gets every request in order, and the
// same log read to be kept holds far more.
func TestStreamHoldsAFewChunks(t *testing.T) {
	withChunks(t, 4<<10)
	small, large := 100_000, 1_000_000
	if raceOn {
		withChunks(t, 512)
		small, large = 20_000, 200_000
	}
	kept, err := Read(genLog(small), Options{Name: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	if chunks := kept.Bytes() / int64(ChunkSize); chunks < 10*(aheadChunks+2) {
		t.Fatalf("the kept log holds only %d chunks: the test would not tell", chunks)
	}
	var peaks []int
	for _, n := range []int{small, large} {
		tail := NewTail()
		tail.Stream()
		var wrong atomic.Int64
		done := make(chan int64, 2)
		for slow := range 2 {
			src := tail.Source()
			go func() {
				var k int64
				for a, ok := src.Next(); ok; a, ok = src.Next() {
					if a.At != genAt(int(k)) || a.Client != genClient(int(k)) {
						wrong.Add(1)
					}
					if k++; slow == 1 && k%512 == 0 {
						runtime.Gosched()
						time.Sleep(time.Microsecond)
					}
				}
				done <- k
			}()
		}
		l, err := Read(genLog(n), Options{Name: "streamed", Tail: tail})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if k := <-done; k != int64(n) {
				t.Errorf("%d lines: a source got %d requests", n, k)
			}
		}
		if l.Requests != int64(n) || wrong.Load() != 0 {
			t.Errorf("%d lines: %d requests, %d not the line's", n, l.Requests, wrong.Load())
		}
		chunks, bytes := tail.PeakChunks()
		if chunks > aheadChunks+2 || bytes != int64(chunks)*int64(ChunkSize) {
			t.Errorf("%d lines: the reading held %d chunks (%d bytes) at once, more than %d", n, chunks, bytes, aheadChunks+2)
		}
		peaks = append(peaks, chunks)
	}
	if peaks[1] > peaks[0]+1 {
		t.Errorf("ten times the lines: the peak went from %d to %d chunks", peaks[0], peaks[1])
	}
}

// A streamed reading has no limit on its requests (it keeps none); the
// same log read to be kept stops at RequestLimit, as before.
func TestStreamHasNoRequestLimit(t *testing.T) {
	withChunks(t, 1<<10)
	old := RequestLimit
	RequestLimit = 5_000
	t.Cleanup(func() { RequestLimit = old })
	if _, err := Read(genLog(20_000), Options{Name: "kept"}); err == nil || !strings.Contains(err.Error(), "more than 5,000 requests") {
		t.Fatalf("kept: %v, want it stopped past 5,000", err)
	}
	tail := NewTail()
	tail.Stream()
	src := tail.Source()
	got := make(chan int64, 1)
	go func() {
		var k int64
		for _, ok := src.Next(); ok; _, ok = src.Next() {
			k++
		}
		got <- k
	}()
	l, err := Read(genLog(20_000), Options{Name: "streamed", Tail: tail})
	if err != nil || l.Requests != 20_000 || <-got != 20_000 {
		t.Fatalf("streamed: %v, %d requests", err, l.Requests)
	}
}

// A reading waiting for a source that decides nothing (stuck, or gone
// without Close) still stops when it is interrupted, with what it read;
// a source closed lets it read on to the end.
func TestStreamWaitsAndStops(t *testing.T) {
	withChunks(t, 1<<10)
	tail := NewTail()
	tail.Stream()
	tail.Source() // never read
	var asked atomic.Int64
	stop := func() bool { return asked.Add(1) > 20 }
	ended := make(chan *Log, 1)
	go func() {
		l, _ := Read(genLog(200_000), Options{Name: "stuck", Tail: tail, Interrupt: stop})
		ended <- l
	}()
	select {
	case l := <-ended:
		if !l.Interrupted || l.Requests >= 200_000 {
			t.Errorf("interrupted %v after %d requests", l.Interrupted, l.Requests)
		}
	case <-time.After(60 * time.Second): // a hang, not a speed
		t.Fatal("the reading waits for ever on a stuck source")
	}

	tail = NewTail()
	tail.Stream()
	src := tail.Source()
	src.(*source).Close()
	l, err := Read(genLog(50_000), Options{Name: "closed", Tail: tail})
	if err != nil || l.Requests != 50_000 || l.Interrupted {
		t.Fatalf("with the only source closed: %v, %d requests", err, l.Requests)
	}
	if chunks, _ := tail.PeakChunks(); chunks > aheadChunks+2 {
		t.Errorf("held %d chunks for no source", chunks)
	}
}
