package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"windowlab/accesslog"
	"windowlab/human"
	"windowlab/replay"
)

// writeDenied writes --denied's file: every client each limiter at each
// setting denied, to a temporary file beside path, renamed into place
// (linked, so that a file made meanwhile is never written over) only when
// it is whole: an error or a signal leaves nothing. rows gives the rows
// (replay.Denied, or the table decided as the log was read).
func writeDenied(ctx context.Context, w io.Writer, rows func(each func(replay.DeniedClient) error) error, path string) error {
	tmp, err := createPart(path)
	if err != nil {
		return invalid(fmt.Errorf("--denied %s: %w", path, err))
	}
	defer os.Remove(tmp.Name())
	dw, err := replay.NewDeniedWriter(tmp, replay.IsJSONL(path))
	if err == nil {
		err = rows(dw.Write)
	}
	if err == nil {
		err = dw.Flush()
	}
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		return fmt.Errorf("--denied %s: not written: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return invalid(fmt.Errorf("%s exists; windowlab never writes over a file: give --denied another name", path))
		}
		return fmt.Errorf("--denied %s: %w", path, err)
	}
	fmt.Fprintf(w, "\nwrote %s: %s (a row per limiter, setting and client denied)\n", path, human.Noun{One: "row", Many: "rows"}.Of(dw.Rows))
	return nil
}

// createPart creates a new temporary file beside path, named after it,
// with the mode a file the user creates gets (0666 less their umask, as
// os.Create: os.CreateTemp's 0600 made --denied's file unreadable to
// the user's group once renamed into place).
func createPart(path string) (*os.File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for {
		f, err := os.OpenFile(filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".part"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
}

// streamed is what the deciding beside the reading decides for opts.
func streamed(opts replayOptions) replay.Streamed {
	return replay.Streamed{Report: !opts.asJSON, Compare: opts.compare != "", Denied: opts.denied != ""}
}

// enginesEach is how many engines the deciding beside the reading runs a
// setting: the report's, and one for --compare and --denied together.
func enginesEach(opts replayOptions) int {
	st := streamed(opts)
	n := 0
	for _, on := range []bool{st.Report, st.Compare || st.Denied} {
		if on {
			n++
		}
	}
	return n
}

// printStreamedCompared prints what the deciding beside the reading came
// to (replay.DecideAllWhileReading): the report or the sweep (none for
// --compare --json), then --compare's agreement, and writes --denied's
// file; dctx is the deciding's (a second's grace after a signal).
func printStreamedCompared(ctx, dctx context.Context, w, errOut io.Writer, l *accesslog.Log, n int, opts replayOptions, result <-chan replay.Decision, decided *atomic.Int64) error {
	stop := replay.Deciding(workOn(errOut), l.Requests, replay.Beside{Decided: decided, Engines: enginesEach(opts) * n})
	d := <-result
	stop()
	var err error
	if streamed(opts).Report {
		if err = printDecision(dctx, w, l, n, d); err != nil && dctx.Err() == nil {
			return err
		}
	} else if d.Err != nil {
		return invalid(d.Err)
	}
	if opts.compare != "" {
		if opts.asJSON {
			if err := replay.CompareJSON(w, l, opts.compare, d.Agreements); err != nil {
				return err
			}
		} else {
			replay.PrintCompare(w, l, opts.compare, d.Agreements)
		}
	}
	if opts.denied == "" || ctx.Err() != nil {
		return err
	}
	if l.Interrupted { // stopped while reading: a file of part of the log would mislead
		fmt.Fprintf(errOut, "--denied %s: not written: the log was not read whole\n", opts.denied)
		return err
	}
	if opts.asJSON {
		w = errOut // standard output is the JSON's alone
	}
	return writeDenied(ctx, w, func(each func(replay.DeniedClient) error) error {
		if d.Denied == nil {
			return cmp.Or(d.Err, context.Cause(dctx))
		}
		return d.Denied.Write(l.Clients(), each)
	}, opts.denied)
}
