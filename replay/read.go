package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"windowlab/accesslog"
	"windowlab/human"
)

// openLog opens path, or standard input for -, and says its size when it
// is a file (for the progress's time left). Standard input and a fifo,
// which may wait without end, are read as waitingInputs: their reading
// stops when ctx ends.
func openLog(ctx context.Context, path string, stdin io.Reader) (io.Reader, int64, func(), error) {
	if path == "-" {
		in := newWaitingInput(ctx, func() (io.Reader, func(), error) { return stdin, func() {}, nil })
		return in, 0, in.Close, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, 0, nil, err
	}
	if info.IsDir() {
		return nil, 0, nil, fmt.Errorf("%s: is a directory, not a log", path)
	}
	if !info.Mode().IsRegular() {
		in := newWaitingInput(ctx, func() (io.Reader, func(), error) {
			f, err := os.Open(path) // a fifo's opening waits for its writer
			if err != nil {
				return nil, nil, err
			}
			return f, func() { f.Close() }, nil
		})
		return in, 0, in.Close, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, err
	}
	return f, info.Size(), func() { f.Close() }, nil
}

// ErrStalled is a log whose input gave nothing before a signal (a pipe
// from a stalled command, a fifo nobody writes).
var ErrStalled = errors.New("stopped while waiting for the log's next line; nothing was decided")

// ReadLog opens and reads the log at path (stdin for -) with its progress
// shown by work. ctx stops it where it is, even waiting on an idle input
// (ErrStalled when it had no request). beside, when set, is the deciding
// beside the reading, for the progress.
func ReadLog(ctx context.Context, path string, stdin io.Reader, opts accesslog.Options, work Work, beside Beside) (*accesslog.Log, error) {
	return ReadLogs(ctx, []string{path}, stdin, opts, work, beside)
}

// Beside is the deciding beside a reading, for its progress: Decided is
// what its Engines have decided together, each deciding every request
// (the settings, and --compare's and --denied's engine beside each).
type Beside struct {
	Decided *atomic.Int64
	Engines int
}

// requests is about how many requests every engine has decided: a
// request counted once, not once an engine, so that it is never more than
// the lines read.
func (b Beside) requests() int64 { return b.Decided.Load() / int64(max(b.Engines, 1)) }

// showProgress draws a reading's progress until done: bytes of size (when
// known), lines a second, the time left, and the requests decided so far
// when the deciding goes on beside it.
func showProgress(work Work, what func(read int64) string, sizeOf, read, lines *atomic.Int64, beside Beside, done <-chan struct{}) {
	work.show(func(elapsed time.Duration) (string, float64) {
		// What matters most first: a narrow terminal cuts the end.
		b, n, size := read.Load(), lines.Load(), sizeOf.Load()
		text := what(b) + ": "
		frac := 0.0
		if size > 0 {
			frac = min(float64(b)/float64(size), 1)
			text += fmt.Sprintf("%s of %s · ", human.Bytes(b), human.Bytes(size))
			if b > 0 && b < size {
				text += human.Duration((time.Duration(float64(elapsed) * float64(size-b) / float64(b))).Round(time.Second)) + " left · "
			}
		}
		text += fmt.Sprintf("%s lines, %s/s", human.Int(n), human.Int(int64(float64(n)/max(elapsed.Seconds(), 0.001))))
		if beside.Decided != nil {
			text += " · " + human.Int(beside.requests()) + " decided"
		}
		return text, frac
	}, done)
}
