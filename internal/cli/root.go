// Package cli is windowlab's command line: one file per command
// (cmd_<verb>.go: its options, its builder with flags and completions, and
// run<Verb> doing the wiring), and what they share: the exit statuses, the
// stop signals, standard output that remembers a failed write, the --store
// Redis and the progress on standard error. The work, and the checking of
// every option, is done in scenarios (files), quiz, sim (the engine),
// sim/report (reports and the memory calculator), sim/lab, replay and ui.
//
// It is internal because the commands are not an API: their flags, output
// and exit statuses are the interface, and the module's main package, at
// the root (so that go install and go run . build windowlab), is its only
// caller.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	_ "time/tzdata" // --tz and tz: read zones on a machine without a zoneinfo database too

	"charm.land/fang/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/quiz"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/sim/lab"
	"windowlab/sim/report"
	"windowlab/ui"
	"windowlab/ui/labprogress"
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

// Main runs windowlab with os.Args and exits: the whole of the main
// package's main. version and commit are what a packager's build set
// (-ldflags "-X main.version=… -X main.commit=…"), or "".
func Main(buildVersion, buildCommit string) {
	version, commit = buildVersion, buildCommit
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(algo.GCLimit) // the README's memory budget
	}
	ctx, stop := stopOnSignals(context.Background())
	defer stop()
	out := &output{file: os.Stdout}
	root := rootCmd(out)
	err := fang.Execute(ctx, root, fang.WithErrorHandler(printError), fang.WithVersion(versionOf()), fang.WithoutManpage())
	if s := signalOf(ctx); s != nil {
		fmt.Fprintf(os.Stderr, "windowlab: %v.\n", context.Cause(ctx))
		os.Exit(signalExit(s))
	}
	if err == nil && out.err != nil { // a command that did not notice
		fmt.Fprintln(os.Stderr, out.err)
		os.Exit(exitOutput)
	}
	os.Exit(exitCode(err))
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
func (o *output) Fd() uintptr                { return o.file.Fd() }
func (o *output) Read(p []byte) (int, error) { return o.file.Read(p) }
func (o *output) Close() error               { return nil } // standard output stays open

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

// ExitCode is the exit status of a command that returned err.
func ExitCode(err error) int { return exitCode(err) }

func exitCode(err error) int {
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

// errReported marks a failure whose details are already on the screen.
var errReported = errors.New("reported")

// unknownCommand rejects a stray argument to the root, suggesting the
// command that was probably meant.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.Name())
	if s := scenarios.Nearest(args[0], cmd.SuggestionsFor(args[0])); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return fmt.Errorf("%s\ncommands: %s", msg, strings.Join(names, ", "))
}

// unknownFlag adds the nearest real flag to cobra's flag errors.
func unknownFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var flags []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { flags = append(flags, f.Name) })
	if s, ok := scenarios.Closest(name, flags); ok {
		return fmt.Errorf("%w; did you mean --%s?", err, s)
	}
	return err
}

// NewRootCommand is windowlab's command tree, writing its output to stdout.
func NewRootCommand(stdout io.Writer) *cobra.Command { return rootCmd(stdout) }

func rootCmd(stdout io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "windowlab",
		Short: "Watch window-counting rate limiters decide, side by side",
		Long: "windowlab replays one stream of traffic through the fixed window, the sliding window log " +
			"and the sliding window counter on a virtual clock, and shows every decision with its arithmetic.\n\n" +
			"With no command it opens the interactive view on the boundary-burst scenario " +
			"(or prints its report when standard output is not a terminal).",
		Args: unknownCommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDefault(cmd.Context(), cmd.OutOrStdout())
		},
	}
	root.SetOut(stdout)
	root.SetFlagErrorFunc(unknownFlag)
	root.SuggestionsMinimumDistance = 2
	root.AddCommand(tuiCmd(), lessonCmd(), quizCmd(), runCmd(), listCmd(), checkCmd(), memoryCmd(), labCmd(), serveCmd(), replayCmd(), recordCmd(), manCmd())
	refuseUnknownShells(root)
	stopsAtSignals(root)
	return root
}

// runDefault opens the interactive view on the default scenario, or prints
// its report when nobody is watching a terminal.
func runDefault(ctx context.Context, w io.Writer) error {
	s, err := scenarios.Builtin(scenarios.DefaultBuiltin)
	if err != nil {
		return err
	}
	if !isTerminal(w) {
		return writeReport(ctx, w, s, false, false)
	}
	return runUI(ctx, s)
}

func tuiCmd() *cobra.Command {
	var store string
	cmd := &cobra.Command{
		Use:   "tui [SCENARIO|FILE]",
		Short: "Open the interactive view on a scenario (boundary-burst by default)",
		Args:  cobra.MaximumNArgs(1),

		ValidArgsFunction: completeOneScenario,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := scenarios.DefaultBuiltin
			if len(args) == 1 {
				name = args[0]
			}
			s, err := resolveShowing(cmd.Context(), cmd.ErrOrStderr(), name)
			if err != nil {
				return invalid(err)
			}
			if err := s.Fits(viewOptions); err != nil {
				return invalid(err)
			}
			return showUIOnStore(cmd.Context(), cmd.ErrOrStderr(), ui.Options{Scenario: s}, store)
		},
	}
	storeFlag(cmd, &store)
	return cmd
}

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

// needTerminal refuses the interactive view when standard output is not a
// terminal; a command with long work before the view asks it first.
func needTerminal() error {
	if term.IsTerminal(os.Stdout.Fd()) {
		return nil
	}
	return invalid(errors.New("the interactive view needs a terminal, and standard output is not one;\n" +
		"for text, try `windowlab run SCENARIO --trace`, or `windowlab quiz --print` for the questions"))
}

func lessonCmd() *cobra.Command {
	var (
		presenter bool
		step      int
		store     string
	)
	cmd := &cobra.Command{
		Use:   "lesson",
		Short: "A guided lesson in six steps, from the bouncer's tally to the key takeaways",
		Long: "lesson walks through window-counting limiters one step at a time, each step a scenario " +
			"with captions. Captions marked to pause stop the clock; space goes on; tab goes to the next " +
			"caption (and past the last, to the next step); n and p move between steps. --step starts " +
			"at a step. --presenter fills the screen for a projector: the focused lane large, its key " +
			"number and verdict in block digits, high contrast.",
		Example: "  windowlab lesson\n" +
			"  windowlab lesson --step 4 --presenter   # the sliding counter, for a room",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			steps := scenarios.Lesson()
			if step < 1 || step > len(steps) {
				return invalid(fmt.Errorf("--step %d: the lesson has steps 1 to %d", step, len(steps)))
			}
			return showUIOnStore(cmd.Context(), cmd.ErrOrStderr(), ui.Options{Lesson: steps, LessonStep: step - 1, Presenter: presenter}, store)
		},
	}
	cmd.Flags().BoolVar(&presenter, "presenter", false, "fill the screen for a projector: big verdicts in high contrast")
	cmd.Flags().IntVar(&step, "step", 1, "the step to start at, 1 to 6")
	storeFlag(cmd, &store)
	registerFlagCompletion(cmd, "step", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for i, s := range scenarios.Lesson() {
			out = append(out, cobra.CompletionWithDesc(fmt.Sprint(i+1), s.Title))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func quizCmd() *cobra.Command {
	var (
		seed      uint64
		count     int
		handout   bool
		presenter bool
	)
	cmd := &cobra.Command{
		Use:   "quiz [SCENARIO|FILE...]",
		Short: "Check yourself: the lesson's two questions, then new ones answered by the engine",
		Long: "quiz asks the lesson's two check-yourself questions, then --count new questions of the " +
			"same kinds whose answers come from replaying them. After each answer the scenario replays " +
			"to the moment that proves it. The same --seed (with the same --count and files) gives the " +
			"same questions, so a class can share a set. Given scenarios or files, it asks their questions blocks instead of the " +
			"lesson's (and generates only when --count is given).",
		Example: "  windowlab quiz\n" +
			"  windowlab quiz --seed 7 --count 5\n" +
			"  windowlab quiz --seed 1 --print > handout.txt\n" +
			"  windowlab quiz worked-example my-class.yaml",
		ValidArgsFunction: completeScenario,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("seed") {
				seed = uint64(time.Now().UnixNano()%99_999) + 1 // a short number a student can read out
			}
			if len(args) > 0 && !cmd.Flags().Changed("count") {
				count = 0
			}
			var sources []*scenarios.Scenario
			for _, a := range args {
				s, err := scenarios.ResolveContext(cmd.Context(), a)
				if err != nil {
					return invalid(err)
				}
				sources = append(sources, s)
			}
			q, err := quiz.Make(seed, count, sources)
			if err != nil {
				return invalid(err)
			}
			fits := viewOptions
			if handout {
				fits = sim.Options{ForwardOnly: true} // as quiz.Proofs replays
			}
			for _, s := range sources { // replayed to prove their answers
				if err := s.Fits(fits); err != nil {
					return invalid(err)
				}
			}
			// The seed alone gives the same questions only with no files and
			// the default count: the command line that does, whatever was asked.
			q.Again = fmt.Sprintf("windowlab quiz --seed %d", seed)
			if cmd.Flags().Changed("count") {
				q.Again += fmt.Sprintf(" --count %d", count)
			}
			for _, a := range args {
				q.Again += " " + shellWord(a)
			}
			if handout {
				return quiz.WriteHandout(cmd.Context(), cmd.OutOrStdout(), q)
			}
			m, err := showUI(cmd.Context(), ui.Options{Quiz: q.Items, QuizTitle: fmt.Sprintf("seed %d", seed), Presenter: presenter})
			// The score is what a quiz finished: printed after ctrl+c (exit 130) too.
			if score := m.QuizScore(); (err == nil || errors.Is(err, errReported)) && score.Reached() > 0 {
				fmt.Fprintln(cmd.OutOrStdout(), quizSummary(score, q.Again))
			}
			return err
		},
	}
	cmd.Flags().Uint64Var(&seed, "seed", 0, "the seed of the generated questions (default: a new one each time)")
	cmd.Flags().IntVar(&count, "count", 10, "how many generated questions to ask")
	cmd.Flags().BoolVar(&handout, "print", false, "print the questions and an answer key as text, for a handout")
	cmd.Flags().BoolVar(&presenter, "presenter", false, "bigger gauges and high contrast, readable from the back of a room")
	return cmd
}

// shellWord is a as a shell reads it back: quoted when it holds more than
// letters, digits and the punctuation of paths and names.
func shellWord(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:=+,@%-") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// quizSummary is the line windowlab quiz prints when its view closes: the
// score, skipped questions counted apart from wrong ones, and the command
// that asks the same questions again.
func quizSummary(score quiz.Score, again string) string {
	return fmt.Sprintf("Your score: %s. `%s` asks the same questions again.", score, again)
}

func runCmd() *cobra.Command {
	var trace, asJSON bool
	var store string
	cmd := &cobra.Command{
		Use:   "run SCENARIO|FILE",
		Short: "Replay a scenario through every limiter and print a side-by-side report",
		Example: "  windowlab run boundary-burst\n" +
			"  windowlab run worked-example --trace\n" +
			"  windowlab run my-class.yaml --json\n" +
			"  cat my-class.yaml | windowlab run -",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeOneScenario,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := resolveShowing(cmd.Context(), cmd.ErrOrStderr(), args[0])
			if err != nil {
				return invalid(err)
			}
			if store != "" {
				return writeReportOnStore(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), s, store, trace, asJSON)
			}
			return writeReport(cmd.Context(), cmd.OutOrStdout(), s, trace, asJSON)
		},
	}
	storeFlag(cmd, &store)
	cmd.Flags().BoolVar(&trace, "trace", false, "list every decision with its evidence")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of text")
	cmd.MarkFlagsMutuallyExclusive("trace", "json")
	return cmd
}

func writeReport(ctx context.Context, w io.Writer, s *scenarios.Scenario, trace, asJSON bool) error {
	e, err := s.Engine(sim.Options{ForwardOnly: true, Interrupt: sim.Until(ctx)})
	if err != nil {
		return invalid(err)
	}
	h := report.Header{Name: s.Name, Title: s.Title}
	if asJSON {
		return report.JSON(w, h, e) // ErrInterrupted, at a signal, gives way to it
	}
	return report.Text(w, h, e, trace)
}

// writeReportOnStore is writeReport with the limiters deciding on the
// Redis flag names, pipelined, every byte of the report written only once
// Redis has answered the same for every decision before it.
func writeReportOnStore(ctx context.Context, w, errOut io.Writer, s *scenarios.Scenario, flag string, trace, asJSON bool) error {
	store, err := openStore(ctx, flag, true)
	if err != nil {
		return err
	}
	defer closeStore(errOut, store)
	opts := sim.Options{ForwardOnly: true, Interrupt: func(int64) bool { return ctx.Err() != nil || store.Err() != nil }}
	e, err := s.EngineWith(opts, store.WrapAll)
	if err != nil {
		return invalid(err)
	}
	h := report.Header{Name: s.Name, Title: s.Title}
	out := verified{w: w, store: store}
	if asJSON {
		err = report.JSON(out, h, e)
	} else {
		err = report.Text(out, h, e, trace)
	}
	return finishOnStore(errOut, store, e, err)
}

func listCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			width := 0
			for _, s := range scenarios.Builtins() {
				width = max(width, len(s.Name))
			}
			for _, s := range scenarios.Builtins() {
				fmt.Fprintf(w, "%-*s  %s\n", width, s.Name, s.Title)
			}
			return nil
		},
	}
}

func checkCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check SCENARIO|FILE...",
		Short: "Validate scenario files and verify their expect blocks",
		Long: "check parses each file, replays it and verifies its expect blocks. A file the interactive " +
			"view could not hold within the memory budget is refused, so ok means every command can open it. " +
			"Exit status: 0 when all hold, 1 when an expectation fails, 2 when a file is invalid or too large.",
		Example: "  windowlab check my-class.yaml\n" +
			"  windowlab check boundary-burst worked-example   # the built-ins hold what they claim\n" +
			"  generate-scenario | windowlab check -",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeScenario,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			code := 0
			for i, path := range args {
				if ctx.Err() != nil {
					fmt.Fprintf(w, "stopped after %d of %d files\n", i, len(args))
					return context.Cause(ctx)
				}
				s, err := resolveShowing(ctx, cmd.ErrOrStderr(), path)
				if err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), err)
					if ctx.Err() != nil {
						fmt.Fprintf(w, "stopped after %d of %d files\n", i, len(args))
						return context.Cause(ctx)
					}
					code = exitInvalid
					continue
				}
				if err := s.Fits(viewOptions); err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), err) // refused as run, tui and record refuse it
					code = exitInvalid
					continue
				}
				failures, err := s.VerifyContext(ctx)
				for _, f := range failures {
					fmt.Fprintln(w, f)
				}
				if err != nil && ctx.Err() == nil {
					fmt.Fprintln(cmd.ErrOrStderr(), err)
					code = exitInvalid
					continue
				}
				if err != nil {
					fmt.Fprintf(w, "%s: stopped while checking; %d of %d files checked before it\n", s.File, i, len(args))
					return context.Cause(ctx)
				}
				if len(failures) > 0 {
					code = max(code, exitFailedExpectation)
					continue
				}
				fmt.Fprintf(w, "%s: ok, %s\n", s.File, s.Verified())
			}
			if code != 0 {
				return exitError{code, errReported}
			}
			return nil
		},
	}
}

func memoryCmd() *cobra.Command {
	q := report.MemoryQuestion{Kinds: algo.All}
	var asJSON bool
	var store string
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Work out the state each limiter keeps at worst, in process and in Redis",
		Example: "  windowlab memory --limit 10000 --window 1h --clients 1000000   # the lesson's 10 billion timestamps\n" +
			"  windowlab memory --limit 5 --window 15m --clients 50000 --json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := q.Validate(); err != nil {
				return invalid(flagError(err))
			}
			if store != "" {
				if err := measureOnStore(cmd.Context(), cmd.ErrOrStderr(), &q, store); err != nil {
					return err
				}
			}
			if asJSON {
				return report.MemoryJSON(cmd.OutOrStdout(), q)
			}
			return report.MemoryText(cmd.OutOrStdout(), q)
		},
	}
	f := cmd.Flags()
	f.Int64Var(&q.Limit, "limit", 10_000, "requests per window")
	f.DurationVar(&q.Window, "window", time.Hour, "window length (Go duration: 1m, 1h)")
	f.Int64Var(&q.Clients, "clients", 1_000_000, "active clients (keys)")
	f.IntVar(&q.KeyBytes, "key-bytes", 12, "length of a client id in bytes")
	f.BoolVar(&asJSON, "json", false, "print one JSON object instead of text")
	storeFlag(cmd, &store)
	return cmd
}

func labCmd() *cobra.Command {
	o, text := lab.DefaultOptions, lab.DefaultFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Rerun Cloudflare's accuracy test of the sliding counter on synthetic traffic, at their scale",
		Long: "lab generates seeded traffic for many sources (heavy-tailed rates: most far below the limit, " +
			"a few above it), decides every request with the sliding window counter, the fixed window and " +
			"the exact sliding log, and reports Cloudflare's four figures beside theirs: requests decided " +
			"unlike the log, the mean relative difference from the exact count, sources allowed while above " +
			"the threshold and sources limited while below it. The same options and seed give the same " +
			"figures. ctrl+c stops it and prints the figures of the sources finished so far.",
		Example: "  windowlab lab\n" +
			"  windowlab lab --requests 400M               # Cloudflare's 400 million requests\n" +
			"  windowlab lab --rules lesson --bursts 10s/50s --seed 7\n" +
			"  windowlab lab --model lognormal --sigma 2 --json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := text.Apply(&o); err != nil {
				return invalid(flagError(err))
			}
			run, err := lab.Start(cmd.Context(), o)
			if err != nil {
				return invalid(flagError(err))
			}
			labprogress.Show(run, progressOn(cmd.ErrOrStderr()))
			write := lab.Text
			if asJSON {
				write = lab.JSON
			}
			res := run.Wait()
			if err := run.Err(); err != nil {
				return invalid(flagError(err))
			}
			if err := write(cmd.OutOrStdout(), res); err != nil {
				return err
			}
			if !res.Complete {
				return context.Cause(cmd.Context()) // stopped by a signal, which main reports
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&text.Requests, "requests", text.Requests, "requests in all, with an optional K, M or G suffix (400M is Cloudflare's scale)")
	f.StringVar(&text.Sources, "sources", text.Sources, "distinct sources (clients)")
	f.Int64Var(&o.Limit, "limit", o.Limit, "requests per window")
	f.DurationVar(&o.Window, "window", o.Window, "window length (Go duration: 1m, 10s)")
	f.StringVar(&text.Rules, "rules", text.Rules, "the rules all three limiters decide by: lesson or a preset (cloudflare-2017, httprate, upstash, express-rate-limit)")
	f.StringVar(&text.Model, "model", text.Model, "the distribution of the sources' rates: pareto or lognormal")
	f.Float64Var(&o.Model.Alpha, "alpha", o.Model.Alpha, "Pareto shape: smaller is a heavier tail")
	f.Float64Var(&o.Model.Sigma, "sigma", o.Model.Sigma, "the log-normal model's spread (the standard deviation of ln rate)")
	f.Float64Var(&o.Model.Median, "median", o.Model.Median, "the median source's rate, in limits per window (0.02: 2% of the limit)")
	f.StringVar(&text.Bursts, "bursts", text.Bursts, "bursts of traffic, as the mean lengths of ON and OFF periods: 10s/50s, or off; periods so short that they outnumber the requests 4 to 1 are refused, with the shortest the run allows")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "the seed of the traffic")
	f.IntVar(&o.Workers, "workers", 0, "goroutines deciding sources (default one per core)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object instead of text")
	registerFlagCompletion(cmd, "rules", completeFrom(ruleCompletions()...))
	registerFlagCompletion(cmd, "model", completeFrom(
		cobra.CompletionWithDesc("pareto", "heavy-tailed rates, shape --alpha"),
		cobra.CompletionWithDesc("lognormal", "log-normal rates, spread --sigma")))
	registerFlagCompletion(cmd, "bursts", completeFrom(
		cobra.CompletionWithDesc("off", "Poisson arrivals, no bursts"),
		cobra.CompletionWithDesc("10s/50s", "on for 10 s, off for 50 s, on average")))
	return cmd
}

// progressOn shows the lab's progress on w: a bar when w is a terminal.
func progressOn(w io.Writer) labprogress.Options {
	show := labprogress.Options{Out: w}
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		show.Terminal = true
		show.Width, _, _ = term.GetSize(f.Fd())
	}
	return show
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
