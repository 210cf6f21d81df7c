package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// stopSignals end a command: ctrl+c, a kill, a closed terminal or SSH link.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalled is the cause of a context ended by a signal.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "stopped by " + signalName(s.sig) }

// signalsWatched, when set (by the tests' TestMain only), is called once a
// command watches its stop signals: a test's signal sent before that would
// kill the process instead of stopping it.
var signalsWatched func()

// stopOnSignals returns a context that ends at the first of stopSignals,
// with that signal as its cause. Every command watches it and stops within
// a second, writing what it finished; a second signal exits at once, but
// for a last cleanup of Redis of abandonWithin (a third skips it).
func stopOnSignals(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, stopSignals...)
	if signalsWatched != nil {
		signalsWatched()
	}
	go func() {
		s, ok := <-ch
		if !ok {
			return
		}
		cancel(signalled{s})
		if s, ok := <-ch; ok {
			viewTerminal.restore()
			go func() {
				if s, ok := <-ch; ok {
					os.Exit(signalExit(s))
				}
			}()
			lastCleanup.Store(true)
			abandonStores(os.Stderr)
			os.Exit(signalExit(s))
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel(nil) }
}

// signalOf is the signal that ended ctx, or nil.
func signalOf(ctx context.Context) os.Signal {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		return s.sig
	}
	return nil
}

// signalExit is the shell's exit status for a process ended by s: 128 + its
// number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
func signalExit(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
}

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT (ctrl+c)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP (the terminal closed)"
	}
	return s.String()
}

// lastCleanup is set while a second signal's last cleanup of Redis runs
// (abandonStores): the process exits at its end, after its report. The
// run's own path, its stores closed beside it, must not exit first.
var lastCleanup atomic.Bool

// exit ends the process with code, or, while a second signal's last
// cleanup runs, leaves the exit (and its status) to it.
func exit(code int) {
	if lastCleanup.Load() {
		select {} // the cleanup's goroutine exits the process
	}
	os.Exit(code)
}
