package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/term"

	"windowlab/human"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/ui"
)

// viewOptions are the interactive view's engine options as far as the
// memory budget counts them: every decision kept, and checkpoints. Of all
// the engines windowlab builds over a file, the view's holds the most.
var viewOptions = sim.Options{History: true}

// resolveShowing is scenarios.ResolveContext, with the reading's progress
// on errOut while a large file (one replay --save wrote) is read.
func resolveShowing(ctx context.Context, errOut io.Writer, nameOrPath string) (*scenarios.Scenario, error) {
	return withLoadProgress(errOut, nameOrPath, func(l scenarios.Loader) (*scenarios.Scenario, error) { return l.Resolve(ctx, nameOrPath) })
}

func withLoadProgress(errOut io.Writer, path string, load func(scenarios.Loader) (*scenarios.Scenario, error)) (*scenarios.Scenario, error) {
	var read, size atomic.Int64
	var once sync.Once
	done, shown := make(chan struct{}), make(chan struct{})
	l := scenarios.Loader{Progress: func(r, n int64) {
		read.Store(r)
		size.Store(n)
		once.Do(func() {
			go func() {
				defer close(shown)
				showWork(errOut, func(time.Duration) (string, float64) {
					r, n := read.Load(), size.Load()
					return fmt.Sprintf("reading %s: %s of %s", filepath.Base(path), human.Bytes(r), human.Bytes(n)), float64(r) / float64(max(n, 1))
				}, done)
			}()
		})
	}}
	s, err := load(l)
	close(done)
	once.Do(func() { close(shown) }) // no progress was shown
	<-shown
	return s, err
}

func runUI(ctx context.Context, s *scenarios.Scenario) error {
	_, err := showUI(ctx, ui.Options{Scenario: s})
	return err
}

// showUI runs the view with the built-ins and file loading every mode
// offers, and returns the final model.
func showUI(ctx context.Context, opts ui.Options) (ui.Model, error) {
	if err := needTerminal(); err != nil {
		return ui.Model{}, err
	}
	opts.Builtins = scenarios.Builtins()
	opts.Load = scenarios.LoadContext
	if opts.Seed == 0 {
		opts.Seed = rand.Uint64() // a new order of k's choices each time
	}
	viewTerminal.save()
	defer viewTerminal.forget()
	m, err := ui.RunFinal(ctx, opts)
	if errors.Is(err, ui.ErrInterrupted) { // ctrl+c as a key: exit as ctrl+c anywhere does
		return m, exitError{signalExit(os.Interrupt), errReported}
	}
	if err != nil {
		return m, invalid(fmt.Errorf("the interactive view could not run here: %w", err))
	}
	return m, nil
}

// needTerminal refuses the interactive view when standard output is not a
// terminal; a command with long work before the view asks it first.
func needTerminal() error {
	if term.IsTerminal(os.Stdout.Fd()) {
		return nil
	}
	return invalid(errors.New("the interactive view needs a terminal, and standard output is not one;\n" +
		"for text, try `windowlab run SCENARIO --trace`, or `windowlab quiz --print` for the questions"))
}

// leaveView turns off what the view turned on: mouse reporting, bracketed
// paste, the kitty keyboard's flags, the alternate screen; and shows the
// cursor.
const leaveView = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[<u\x1b[?1049l\x1b[?25h"

// viewTerminal is the terminal's state before the view took it, so that a
// second signal, which exits without waiting for the view to end, still
// puts the terminal back.
var viewTerminal savedTerminal

type savedTerminal struct {
	sync.Mutex
	states map[uintptr]*term.State
}

func (s *savedTerminal) save() {
	s.Lock()
	defer s.Unlock()
	s.states = map[uintptr]*term.State{}
	for _, f := range []*os.File{os.Stdin, os.Stdout} {
		if st, err := term.GetState(f.Fd()); err == nil {
			s.states[f.Fd()] = st
		}
	}
}

func (s *savedTerminal) forget() {
	s.Lock()
	defer s.Unlock()
	s.states = nil
}

// restore puts the terminal back if the view has it.
func (s *savedTerminal) restore() {
	s.Lock()
	defer s.Unlock()
	if s.states == nil {
		return
	}
	_, _ = os.Stdout.WriteString(leaveView)
	for fd, st := range s.states {
		_ = term.Restore(fd, st)
	}
	s.states = nil
}
