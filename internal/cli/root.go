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
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	_ "time/tzdata" // --tz and tz: read zones on a machine without a zoneinfo database too

	"charm.land/fang/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windowlab/algo"
	"windowlab/scenarios"
)

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
	root := NewRootCommand(out)
	wrapLongHelp(root, helpWidth())
	wrapFlagHelp(root, helpWidth())
	if rootHelp(os.Args[1:]) {
		wrapCommandList(root, helpWidth())
	}
	err := fang.Execute(ctx, root, fang.WithErrorHandler(printError), fang.WithVersion(versionOf()), fang.WithoutManpage())
	if s := signalOf(ctx); s != nil {
		fmt.Fprintf(os.Stderr, "windowlab: %v.\n", context.Cause(ctx))
		exit(signalExit(s))
	}
	if err == nil && out.err != nil { // a command that did not notice
		fmt.Fprintln(os.Stderr, out.err)
		exit(exitOutput)
	}
	exit(ExitCode(err))
}

// stdio is where a command reads and writes: cobra's, which are standard
// input, standard output (through output) and standard error, or a test's
// buffers. Each command's RunE is one line handing it, the command's
// options and its arguments to run<Verb>.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

func stdioOf(cmd *cobra.Command) stdio {
	return stdio{cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()}
}

// NewRootCommand is windowlab's command tree, writing its output to stdout.
func NewRootCommand(stdout io.Writer) *cobra.Command {
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
	root.AddCommand(newTuiCommand(), newPlayCommand(), newLessonCommand(), newQuizCommand(), newRunCommand(), newListCommand(), newPresetsCommand(), newCheckCommand(),
		newMemoryCommand(), newLabCommand(), newServeCommand(), newReplayCommand(), newRecordCommand(), newChallengeCommand(), newManCommand())
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
