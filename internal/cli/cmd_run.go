package cli

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/sim/report"
)

// runOptions are run's flags.
type runOptions struct {
	trace, asJSON bool
	code          bool   // --code: with --trace, each decision's code with its values
	store         string // --store: the Redis the limiters decide on
	onStoreError  string // --on-store-error
}

func newRunCommand() *cobra.Command {
	var opts runOptions
	cmd := &cobra.Command{
		Use:   "run SCENARIO|FILE",
		Short: "Replay a scenario through every limiter and print a side-by-side report",
		Example: "  windowlab run boundary-burst\n" +
			"  windowlab run worked-example --trace\n" +
			"  windowlab run worked-example --trace --code\n" +
			"  windowlab run my-class.yaml --json\n" +
			"  cat my-class.yaml | windowlab run -",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeOneScenario,
		RunE:              func(cmd *cobra.Command, args []string) error { return runRun(cmd.Context(), stdioOf(cmd), opts, args) },
	}
	decideStoreFlags(cmd, &opts.store, &opts.onStoreError)
	cmd.Flags().BoolVar(&opts.trace, "trace", false, "list every decision with its evidence")
	cmd.Flags().BoolVar(&opts.code, "code", false, "with --trace, follow each decision with its limiter's code and the values it held")
	cmd.Flags().BoolVar(&opts.asJSON, "json", false, "print one JSON object instead of text")
	cmd.MarkFlagsMutuallyExclusive("trace", "json")
	return cmd
}

// runRun prints the report of the scenario args[0] names.
func runRun(ctx context.Context, std stdio, opts runOptions, args []string) error {
	if opts.code && !opts.trace {
		return invalid(errors.New("--code follows each decision of the trace with its code: add --trace (windowlab run SCENARIO --trace --code)"))
	}
	s, err := resolveShowing(ctx, std.err, args[0])
	if err != nil {
		return invalid(err)
	}
	if opts.store != "" {
		return writeReportOnStore(ctx, std.out, std.err, s, opts)
	}
	if opts.code {
		return writeCodeReport(ctx, std.out, s)
	}
	return writeReport(ctx, std.out, s, opts.trace, opts.asJSON)
}

// writeCodeReport is run --trace --code's report of s: the trace, each
// decision followed by its code with the values it held.
func writeCodeReport(ctx context.Context, w io.Writer, s *scenarios.Scenario) error {
	e, err := s.Engine(sim.Options{ForwardOnly: true, Interrupt: sim.Until(ctx)})
	if err != nil {
		return invalid(err)
	}
	return report.TextCode(w, report.Header{Name: s.Name, Title: s.Title}, e)
}

// writeReport is run's report of s: text, with every decision when trace,
// or JSON.
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
func writeReportOnStore(ctx context.Context, w, errOut io.Writer, s *scenarios.Scenario, opts runOptions) error {
	store, err := openStoreFor(ctx, opts.store, opts.onStoreError, true)
	if err != nil {
		return err
	}
	defer closeStore(errOut, store)
	simOpts := sim.Options{ForwardOnly: true, Interrupt: func(int64) bool { return ctx.Err() != nil || store.Err() != nil }}
	e, err := s.EngineWith(simOpts, store.WrapAll)
	if err != nil {
		return invalid(err)
	}
	h := report.Header{Name: s.Name, Title: s.Title}
	out := verified{w: w, store: store}
	switch {
	case opts.asJSON:
		err = report.JSON(out, h, e)
	case opts.code:
		err = report.TextCode(out, h, e)
	default:
		err = report.Text(out, h, e, opts.trace)
	}
	return finishOnStore(errOut, store, e, err)
}
