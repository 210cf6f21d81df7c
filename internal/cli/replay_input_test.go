package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"charm.land/fang/v2"
	"github.com/charmbracelet/x/term"

	"windowlab/accesslog"
	"windowlab/replay"
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
			l, err := replay.ReadLog(ctx, c.path, pr, accesslog.Options{Name: c.name, Reorder: accesslog.DefaultReorder, Tail: tail}, nil, replay.Beside{})
			n := ended(t, tail)
			if c.lines == "" {
				if !errors.Is(err, replay.ErrStalled) || n != 0 {
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
		l, err := replay.ReadLog(context.Background(), "-", strings.NewReader(lines.String()), accesslog.Options{Name: "-", Reorder: accesslog.DefaultReorder}, nil, replay.Beside{})
		if err != nil || l.Interrupted || l.Requests != 5000 || len(l.Clients()) != 7 {
			t.Errorf("readLog: %v, %d requests of %d clients", err, l.Requests, len(l.Clients()))
		}
	})
}

// spyInput is a log on standard input that counts its reads.
type spyInput struct {
	r     io.Reader
	reads atomic.Int64
}

func (s *spyInput) Read(p []byte) (int, error) { s.reads.Add(1); return s.r.Read(p) }

// What would refuse a replay at its end is said before the log is read: a
// --save file that exists or whose directory does not, --tui without a
// terminal (both read the whole log first, then refused).
func TestRefusedBeforeTheLogIsRead(t *testing.T) {
	existing := writeFile(t, "saved.yaml", []byte("mine\n"))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"--save over a file", []string{"--save", existing}, existing + " exists; windowlab never writes over a file: give --save another name"},
		{"--save into no directory", []string{"--save", filepath.Join(existing, "x.yaml")}, "is not a directory; give --save a file in one"},
		{"--tui without a terminal", []string{"--tui"}, "the interactive view needs a terminal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "--tui without a terminal" && term.IsTerminal(os.Stdout.Fd()) {
				t.Skip("standard output is a terminal here")
			}
			stdin := &spyInput{r: strings.NewReader("10.0.0.1 - - [01/Dec/2026:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n")}
			var out, errOut strings.Builder
			root := NewRootCommand(&out)
			root.SetIn(stdin)
			root.SetErr(&errOut)
			root.SetArgs(append([]string{"replay", "-"}, c.args...))
			code := ExitCode(fang.Execute(context.Background(), root, fang.WithErrorHandler(printError)))
			if code != 2 || !strings.Contains(errOut.String(), c.want) {
				t.Errorf("exit %d, want 2 and %q:\n%s", code, c.want, errOut.String())
			}
			if n := stdin.reads.Load(); n != 0 {
				t.Errorf("the log was read (%d reads) before the refusal", n)
			}
		})
	}
	if data, _ := os.ReadFile(existing); string(data) != "mine\n" {
		t.Errorf("the existing file now holds %q", data)
	}
}
