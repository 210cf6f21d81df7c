package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"windowlab/accesslog"
	"windowlab/algo"
)

// logFile is one file of a log, open.
type logFile struct {
	path  string
	r     io.Reader
	size  int64 // 0 when not a regular file
	close func()
}

// ReadLogs reads the files at paths (rotated logs, in the order given:
// TimeOrder puts them in order; - alone for standard input) as one log,
// with its progress shown by work. Every file is opened before any is
// read. ctx stops the reading where it is, even waiting on an idle input
// (ErrStalled when it had no request). beside, when set, is the deciding
// beside the reading, for the progress.
func ReadLogs(ctx context.Context, paths []string, stdin io.Reader, opts accesslog.Options, work Work, beside Beside) (*accesslog.Log, error) {
	if len(paths) > 1 && slices.Contains(paths, "-") {
		return nil, errStdinAlone
	}
	var files []logFile
	defer func() {
		for _, f := range files {
			f.close()
		}
	}()
	for _, p := range paths {
		r, n, closeR, err := openLog(ctx, p, stdin)
		if err != nil {
			return nil, err
		}
		files = append(files, logFile{path: p, r: r, size: n, close: closeR})
	}
	var read, lines, size atomic.Int64
	for _, f := range files {
		size.Add(f.size)
	}
	opts.Progress = func(b, n int64) { read.Store(b); lines.Store(n) }
	opts.Interrupt = func() bool { return ctx.Err() != nil }
	done := make(chan struct{})
	shown := make(chan struct{})
	go func() {
		defer close(shown)
		showProgress(work, func(b int64) string { return reading(files, b) }, &size, &read, &lines, beside, done)
	}()
	defer func() { close(done); <-shown }()
	inputs := make([]accesslog.Input, len(files))
	for i, f := range files {
		inputs[i] = accesslog.Input{Name: f.path, R: f.r}
	}
	l, err := accesslog.ReadFiles(inputs, opts)
	if err == nil && l.Interrupted && l.Requests == 0 {
		return nil, ErrStalled
	}
	if l != nil && len(files) > 1 {
		for _, f := range files {
			l.Files = append(l.Files, f.path)
		}
	}
	return l, err
}

var errStdinAlone = errors.New("- reads standard input alone: give it without files, or the files without -")

// LogName names a log of several files read as one: the first and the
// last, in the order read.
func LogName(paths []string) string {
	if len(paths) == 1 {
		return paths[0]
	}
	return fmt.Sprintf("%s … %s (%d files)", paths[0], paths[len(paths)-1], len(paths))
}

// reading is the progress's first words: the file being read, when there
// are several, found by the bytes read of their sizes summed.
func reading(files []logFile, b int64) string {
	if len(files) == 1 {
		return "reading " + filepath.Base(files[0].path)
	}
	i := 0
	for i < len(files)-1 && b >= files[i].size {
		b -= files[i].size
		i++
	}
	return fmt.Sprintf("reading %s (%d of %d)", filepath.Base(files[i].path), i+1, len(files))
}

// TimeOrder is paths in the order given when their first requests' times
// are in that order, or else sorted by those times (a file without a
// request in its first lines last); reordered says which. Every path is
// looked at first: a missing or unreadable file is said at once. With a
// pipe or a fifo among them, the order given stands.
func TimeOrder(paths []string, opts accesslog.Options) (out []string, reordered bool, err error) {
	if len(paths) > 1 && slices.Contains(paths, "-") {
		return nil, false, errStdinAlone
	}
	regular := true
	for _, p := range paths {
		if p == "-" {
			regular = false
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, false, err
		}
		if info.IsDir() {
			return nil, false, fmt.Errorf("%s: is a directory, not a log", p)
		}
		if !info.Mode().IsRegular() {
			regular = false
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, false, err
		}
		f.Close()
	}
	if len(paths) < 2 || !regular {
		return paths, false, nil
	}
	type timed struct {
		path string
		at   algo.Instant
		ok   bool
	}
	ts := make([]timed, len(paths))
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, false, err
		}
		o := opts
		o.Name = p
		at, err := accesslog.FirstTime(f, o)
		f.Close()
		ts[i] = timed{p, at, err == nil}
	}
	order := func(a, b timed) int { return cmpTimed(a.ok, a.at, b.ok, b.at) }
	if slices.IsSortedFunc(ts, order) {
		return paths, false, nil
	}
	slices.SortStableFunc(ts, order)
	for _, t := range ts {
		out = append(out, t.path)
	}
	return out, true, nil
}

// cmpTimed orders first times, a file without one last.
func cmpTimed(aok bool, a algo.Instant, bok bool, b algo.Instant) int {
	switch {
	case aok && bok:
		return int(min(max(a-b, -1), 1))
	case aok:
		return -1
	case bok:
		return 1
	}
	return 0
}
