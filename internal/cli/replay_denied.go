package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"windowlab/accesslog"
	"windowlab/human"
	"windowlab/replay"
)

// writeDenied writes --denied's file: every client each limiter at each
// setting denied, to a temporary file beside path, renamed into place
// (linked, so that a file made meanwhile is never written over) only when
// it is whole: an error or a signal leaves nothing.
func writeDenied(ctx context.Context, w io.Writer, l *accesslog.Log, settings []replay.Setting, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.part")
	if err != nil {
		return invalid(fmt.Errorf("--denied %s: %w", path, err))
	}
	defer os.Remove(tmp.Name())
	dw, err := replay.NewDeniedWriter(tmp, replay.IsJSONL(path))
	if err == nil {
		err = replay.Denied(ctx, l, settings, dw.Write)
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
	fmt.Fprintf(w, "\nwrote %s: %s (a row per limiter, setting and client denied)\n", path, human.Noun{One: "client denied", Many: "clients denied"}.Of(dw.Rows))
	return nil
}

// replayCompared prints the report or the sweep of the log read whole,
// then --compare's agreement, and writes --denied's file.
func replayCompared(ctx context.Context, w, errOut io.Writer, l *accesslog.Log, settings []replay.Setting, opts replayOptions) error {
	var decided atomic.Int64
	passes := int64(1)
	if opts.compare != "" {
		passes++
		if opts.asJSON {
			passes--
		}
	}
	stop := replay.Deciding(workOn(errOut), passes*l.Requests*int64(len(settings)), &decided)
	err := replay.Compared(ctx, w, l, settings, opts.compare, opts.asJSON, &decided)
	stop()
	if err != nil || opts.denied == "" || ctx.Err() != nil {
		return err
	}
	if l.Interrupted { // stopped while reading: a file of part of the log would mislead
		fmt.Fprintf(errOut, "--denied %s: not written: the log was not read whole\n", opts.denied)
		return nil
	}
	if opts.asJSON {
		w = errOut // standard output is the JSON's alone
	}
	return writeDenied(ctx, w, l, settings, opts.denied)
}
