package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"windowlab/accesslog"
)

// ended waits for the tail's reading to have ended, failing the test if
// it has not within patience: a reading still waiting on its input.
func ended(t *testing.T, tail *accesslog.Tail) int64 {
	t.Helper()
	got := make(chan int64, 1)
	go func() { got <- tail.Source().Len() }()
	select {
	case n := <-got:
		return n
	case <-time.After(patience):
		t.Fatal("the reading goes on after readLog returned: it is still waiting on its input")
		return 0
	}
}

// A signal stops a replay waiting on an idle input at once: the reading
// itself returns when the context ends (it had waited a second more for
// it, then left it waiting), from standard input and from a fifo nobody
// writes, with nothing read or after some lines; and a reading that is not
// stopped reads standard input whole.
func TestReadingStopsOnAnIdleInput(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "access.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A writer that comes and goes lets the opening still waiting end.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	var lines strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&lines, "10.0.0.%d - - [01/Dec/2026:00:00:%02d +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n", i%7, i/100)
	}
	for _, c := range []struct {
		name  string
		path  string
		lines string // written before the input goes idle
	}{
		{"standard input, idle", "-", ""},
		{"a fifo nobody writes", fifo, ""},
		{"standard input, idle after some lines", "-", lines.String()},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			t.Cleanup(func() { pw.Close() })
			ctx, cancel := context.WithCancel(context.Background())
			tail := accesslog.NewTail()
			go func() {
				if c.lines != "" {
					io.WriteString(pw, c.lines)
					tail.First() // some requests are read: then the input goes idle
				}
				time.Sleep(50 * time.Millisecond) // into the wait
				cancel()
			}()
			l, err := readLog(ctx, c.path, pr, accesslog.Options{Name: c.name, Reorder: accesslog.DefaultReorder, Tail: tail}, io.Discard, nil)
			n := ended(t, tail)
			if c.lines == "" {
				if !errors.Is(err, errStalled) || n != 0 {
					t.Errorf("readLog: %v, the tail %d requests; want errStalled", err, n)
				}
				return
			}
			if err != nil || !l.Interrupted || l.Requests == 0 || l.Requests > 5000 || n != l.Requests {
				t.Errorf("readLog: %v, %+v; the tail %d requests", err, l, n)
			}
		})
	}
	t.Run("standard input, read whole", func(t *testing.T) {
		l, err := readLog(context.Background(), "-", strings.NewReader(lines.String()), accesslog.Options{Name: "-", Reorder: accesslog.DefaultReorder}, io.Discard, nil)
		if err != nil || l.Interrupted || l.Requests != 5000 || len(l.Clients()) != 7 {
			t.Errorf("readLog: %v, %d requests of %d clients", err, l.Requests, len(l.Clients()))
		}
	})
}
