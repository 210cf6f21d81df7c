package accesslog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"time"

	"windowlab/algo"
)

// Input is one file of a log: rotated logs are read, oldest first, as one.
type Input struct {
	Name string
	R    io.Reader
}

// Slice is what --from and --to kept of a log: the requests at or after
// From and before To (0: the log's start, its end); the lines outside were
// read and skipped, not decided.
type Slice struct {
	From, To algo.Instant
	// Before and After are the lines skipped before From and at or after
	// To; Stopped, that the reading stopped past To and the reorder
	// window, at a line of that time, with the rest of the log unread.
	Before, After int64
	Stopped       bool
}

// Overlap is a file of several whose first dated line is further back
// than --reorder from the newest line of the files read before it: not
// the next of one log's rotations (the same lines twice, or a file given
// beside its own copy), its lines that far back left out as late.
type Overlap struct {
	File   string
	Begins algo.Instant // its first dated line's time
	Newest algo.Instant // the newest time read before it
	Late   int64        // its lines left out as out of order
}

// files is a reader's place in its inputs.
type files struct {
	inputs     []Input
	index      int    // the input being read
	name       string // its name, for messages
	lineNo     int64  // the line in it
	header     []byte // a CSV's or TSV's header, which every file repeats
	headerNext bool   // the next line is a later file's header
	past       bool   // the reading ends (past --to, or the first time found)
	gzipErr    bool   // a file's gzip header is bad: no log at all
	firstOnly  bool   // FirstTime: stop at the first request's time
	firstAt    algo.Instant
	found      bool
	dated      bool // a line of this file had a time (parsed)
	overlaps   bool // this file overlaps those before it (Log.Overlaps' last)
}

// file is the line's file for a Problem: "" when the log is one file.
func (f *files) file() string {
	if len(f.inputs) < 2 {
		return ""
	}
	return f.name
}

// open starts reading inputs[i]: gzip-compressed or not (by its magic
// bytes). stop: a signal came while its gzip header was awaited.
func (rd *reader) open(i int) (stop bool, err error) {
	in := rd.inputs[i]
	rd.index, rd.name, rd.lineNo = i, in.Name, 0
	rd.dated, rd.overlaps = false, false
	rd.headerNext = i > 0 && rd.header != nil
	if !rd.firstOnly {
		rd.workers = parallelWorkers(in, rd.opts)
	}
	rd.counted.r = in.R
	rd.br = bufio.NewReaderSize(rd.counted, 1<<16)
	if magic, _ := rd.br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(rd.br)
		if err != nil && rd.opts.Interrupt != nil && rd.opts.Interrupt() {
			rd.log.Interrupted = true
			return true, nil
		}
		if err != nil {
			rd.gzipErr = true
			return false, fmt.Errorf("%s: %w", in.Name, err)
		}
		rd.br = bufio.NewReaderSize(zr, 1<<16)
	}
	return false, nil
}

// sameHeader skips a later CSV or TSV file's header, which must be the
// first file's.
func (rd *reader) sameHeader(line []byte) error {
	rd.headerNext = false
	if !bytes.Equal(bytes.TrimSpace(line), bytes.TrimSpace(rd.header)) {
		return fmt.Errorf("%s:%d: the header is not %s's; rotated files of one log share their header: replay them apart", rd.name, rd.lineNo, rd.inputs[0].Name)
	}
	return nil
}

// skip says a request at at is left out: before --from, or at or after
// --to (past --to and the reorder window, the reading ends); for
// FirstTime, every request, the first ending the reading.
func (rd *reader) skip(at, reorder algo.Instant) bool {
	s := &rd.log.Slice
	switch {
	case rd.firstOnly:
		rd.firstAt, rd.found, rd.past = at, true, true
		return true
	case s.From != 0 && at < s.From:
		s.Before++
		return true
	case s.To != 0 && at >= s.To:
		s.After++
		if at >= s.To+reorder {
			s.Stopped, rd.past = true, true
		}
		return true
	}
	return false
}

// errNoTime is a file FirstTime found no request in.
var errNoTime = errors.New("no request in its first lines")

// firstLines is how far FirstTime looks for a request.
const firstLines = 10_000

// FirstTime is the time of the first request in r (of its first
// firstLines lines), read as opts say: rotated files are put in the order
// of their first lines' times.
func FirstTime(r io.Reader, opts Options) (algo.Instant, error) {
	opts.Tail, opts.Check, opts.Progress, opts.Strict, opts.Compare = nil, nil, nil, false, nil
	opts.From, opts.To = 0, 0
	if len(opts.Key.parts) == 0 {
		opts.Key, _ = ParseKey("ip")
	}
	l := &Log{Name: opts.Name, Format: opts.Format, Key: opts.Key, index: newClientTable()}
	nkey, minus := len(opts.Key.parts), -1
	if opts.TimeMinus != "" {
		minus = len(opts.Key.parts)
		opts.Key.parts = append(opts.Key.parts[:len(opts.Key.parts):len(opts.Key.parts)], opts.TimeMinus)
		opts.Key.named = append(opts.Key.named[:len(opts.Key.named):len(opts.Key.named)], true)
	}
	rd := reader{log: l, opts: opts, files: files{inputs: []Input{{Name: opts.Name, R: io.LimitReader(r, 1<<30)}}}, counted: &countingReader{},
		parts: make([][]byte, len(opts.Key.parts)), nkey: nkey, minus: minus, known: -1}
	rd.firstOnly = true
	if _, err := rd.open(0); err != nil {
		return 0, err
	}
	rd.reorder = algo.Instant(opts.Reorder / time.Millisecond)
	for !rd.found && rd.lineNo < firstLines {
		line, err := rd.line()
		if len(line) > 0 || err == nil {
			rd.lineNo++
			l.Lines++
			if err := rd.take(line); err != nil {
				return 0, err
			}
		}
		if err != nil {
			break
		}
	}
	if !rd.found {
		return 0, fmt.Errorf("%s: %w", opts.Name, errNoTime)
	}
	return rd.firstAt, nil
}
