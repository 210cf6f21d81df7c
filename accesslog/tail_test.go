package accesslog

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"windowlab/sim"
)

// follow replays a tail's source to its end on its own goroutine, sending
// each arrival on the channel it returns (closed at the end).
func follow(t *Tail) <-chan sim.Arrival {
	out := make(chan sim.Arrival, 1<<16)
	go func() {
		defer close(out)
		src := t.Source()
		for a, ok := src.Next(); ok; a, ok = src.Next() {
			out <- a
		}
	}()
	return out
}

// A tail replays the log's requests while the log is still being read:
// the first thousands reach it before the rest of the file is written,
// and in all it gives exactly the log's requests, in order.
func TestTailFollowsTheReading(t *testing.T) {
	start := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	line := func(i int) string {
		// A second apart, with every 7th line 2 s back (inside --reorder).
		s := start.Add(time.Duration(i) * time.Second)
		if i%7 == 3 {
			s = s.Add(-2 * time.Second)
		}
		return fmt.Sprintf("10.0.%d.%d - - [%s] \"GET / HTTP/1.1\" 200 5 \"-\" \"t\"\n", i%3, i%250, s.Format("02/Jan/2006:15:04:05 -0700"))
	}
	pr, pw := io.Pipe()
	tail := NewTail()
	got := follow(tail)
	read := make(chan *Log, 1)
	go func() {
		l, err := Read(pr, Options{Name: "piped.log", Reorder: DefaultReorder, Tail: tail})
		if err != nil {
			t.Error(err)
		}
		read <- l
	}()
	// The first 5,000 lines; the tail must pass on 4,000 requests before
	// any more is written.
	for i := range 5000 {
		io.WriteString(pw, line(i))
	}
	var seen []sim.Arrival
	deadline := time.After(30 * time.Second) // a hang, not a speed: nothing is timed
	for len(seen) < 4000 {
		select {
		case a := <-got:
			seen = append(seen, a)
		case <-deadline:
			t.Fatalf("the tail passed on %d requests while the reading waited for more lines; want 4,000", len(seen))
		}
	}
	for i := 5000; i < 12000; i++ {
		io.WriteString(pw, line(i))
	}
	pw.Close()
	for a := range got {
		seen = append(seen, a)
	}
	l := <-read
	want := arrivals(l)
	if len(seen) != len(want) || l.Requests != 12000 {
		t.Fatalf("the tail gave %d requests, the log holds %d (want 12,000)", len(seen), len(want))
	}
	for i := range want {
		if seen[i].At != want[i].At || seen[i].Client != want[i].Client || seen[i].Number != int32(l.ClientNumber(want[i].Client))+1 {
			t.Fatalf("request %d: the tail's %+v, the log's %+v", i, seen[i], want[i])
		}
	}
	src := tail.Source()
	if src.Len() != l.Requests {
		t.Errorf("the tail's Len %d, want %d", src.Len(), l.Requests)
	}
	if last, exact := src.(sim.Bounded).LastBound(); last != l.Last() || !exact {
		t.Errorf("the tail's LastBound %v %v, want %v exactly", last, exact, l.Last())
	}
}

// However a reading ends (a refused option, a bad line under --strict, a
// cut gzip), the tail ends with it: nothing following it waits forever.
func TestTailEndsWithTheReading(t *testing.T) {
	ok := "10.0.0.1 - - [30/Nov/2026:23:59:59 +0000] \"GET / HTTP/1.1\" 200 5\n"
	for _, c := range []struct {
		name string
		in   string
		opts Options
		want int64
	}{
		{"negative reorder", ok, Options{Reorder: -time.Second}, 0},
		{"strict", ok + "garbage\n" + ok, Options{Strict: true, Reorder: DefaultReorder}, 0},
		{"cut gzip", string(gzipped(t, strings.Repeat(ok, 100))[:60]), Options{Reorder: DefaultReorder}, -1},
		{"whole", strings.Repeat(ok, 3), Options{Reorder: DefaultReorder}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			tail := NewTail()
			c.opts.Tail, c.opts.Name = tail, c.name
			got := follow(tail)
			l, err := Read(bytes.NewReader([]byte(c.in)), c.opts)
			n := int64(0)
			for range got {
				n++
			}
			if c.want >= 0 && n != c.want {
				t.Errorf("the tail gave %d requests, want %d", n, c.want)
			}
			if l != nil && n != l.Requests {
				t.Errorf("the tail gave %d requests, the log %d (err %v)", n, l.Requests, err)
			}
			if (err == nil) != (c.name == "whole") {
				t.Errorf("err %v", err)
			}
		})
	}
}

func gzipped(t *testing.T, text string) []byte {
	t.Helper()
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte(text))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}
