package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"charm.land/fang/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"windowlab/algo"
)

// Exit codes, documented in the README.
const (
	exitFailedExpectation = 1
	exitInvalid           = 2
	exitOutput            = 3 // standard output could not be written
)

// exitError carries an exit code through cobra and fang.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }

func (e exitError) Unwrap() error { return e.err }

func invalid(err error) error { return exitError{exitInvalid, err} }

// ExitCode is the exit status of a command that returned err.
func ExitCode(err error) int {
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, new(writeFailed)):
		return exitOutput
	}
	// cobra's own errors: unknown commands, flags and arguments.
	return exitInvalid
}

// errReported marks a failure whose details are already on the screen.
var errReported = errors.New("reported")

// printError writes an error as the user needs it: every line of it, as
// written (file paths and names keep their case), and how to get help when
// the command line itself was wrong.
func printError(w io.Writer, styles fang.Styles, err error) {
	var ee exitError
	if errors.As(err, &ee) && ee.err == errReported {
		return // the command already printed what went wrong
	}
	var wf writeFailed
	if errors.As(err, &wf) {
		fmt.Fprintln(w, wf) // one line: nothing about usage is wrong
		return
	}
	fmt.Fprintln(w, styles.ErrorHeader.String())
	for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		fmt.Fprintln(w, "  "+line)
	}
	if !errors.As(err, &ee) {
		fmt.Fprintln(w, "\n  Try --help for usage.")
	}
}

// stopsAtSignals makes every command's error give way to a signal that
// stopped it: the command has written what it finished, main says why it
// stopped and exits with the signal's status, and fang prints nothing (its
// error path asks the terminal for its colours, which can hang on a
// terminal the view has just given back).
func stopsAtSignals(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			err := run(cmd, args)
			if signalOf(cmd.Context()) != nil {
				return nil
			}
			return err
		}
	}
	for _, sub := range c.Commands() {
		stopsAtSignals(sub)
	}
}

// flagError names the flag an *algo.OptionError is about, as typed:
// "--sources: 0 is out of range …".
func flagError(err error) error {
	var oe *algo.OptionError
	if errors.As(err, &oe) {
		return fmt.Errorf("--%s: %s", oe.Option, oe.Problem)
	}
	return err
}

// output is standard output, remembering the first write that failed (a
// full disk, /dev/full): every command's output goes through it, so none
// can finish "successfully" having written nothing.
type output struct {
	file *os.File // not embedded: its WriteString would bypass Write
	err  error
}

func (o *output) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.file.Write(p)
	if err != nil {
		o.err = writeFailed{err}
	}
	return n, o.err
}

// Fd, Read and Close make output a term.File, so a terminal is recognised
// through the wrapper and help is styled as on os.Stdout itself.
func (o *output) Fd() uintptr { return o.file.Fd() }

func (o *output) Read(p []byte) (int, error) { return o.file.Read(p) }

func (o *output) Close() error { return nil } // standard output stays open

// output must stay a term.File: fang styles help only on one.
var _ term.File = (*output)(nil)

// writeFailed is a write to standard output that failed.
type writeFailed struct{ err error }

func (w writeFailed) Error() string { return "windowlab: could not write the output: " + w.err.Error() }

func (w writeFailed) Unwrap() error { return w.err }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	var f *os.File
	switch x := w.(type) {
	case *os.File:
		f = x
	case *output:
		f = x.file
	}
	return f != nil && term.IsTerminal(f.Fd())
}
