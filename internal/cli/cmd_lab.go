package cli

import (
	"context"

	"github.com/spf13/cobra"

	"windowlab/internal/cli/labprogress"
	"windowlab/sim/lab"
)

// labOptions are lab's flags: the lab's options, those given as text
// (checked by lab), and --json.
type labOptions struct {
	o      lab.Options
	text   lab.Flags
	asJSON bool
}

func newLabCommand() *cobra.Command {
	opts := labOptions{o: lab.DefaultOptions, text: lab.DefaultFlags}
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runLab(cmd.Context(), stdioOf(cmd), opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.text.Requests, "requests", opts.text.Requests, "requests in all, with an optional K, M or G suffix (400M is Cloudflare's scale)")
	f.StringVar(&opts.text.Sources, "sources", opts.text.Sources, "distinct sources (clients)")
	f.Int64Var(&opts.o.Limit, "limit", opts.o.Limit, "requests per window")
	f.DurationVar(&opts.o.Window, "window", opts.o.Window, "window length (Go duration: 1m, 10s)")
	f.StringVar(&opts.text.Rules, "rules", opts.text.Rules, "the rules all three limiters decide by: lesson or a preset (cloudflare-2017, httprate, upstash, haproxy, express-rate-limit)")
	f.StringVar(&opts.text.Model, "model", opts.text.Model, "the distribution of the sources' rates: pareto or lognormal")
	f.Float64Var(&opts.o.Model.Alpha, "alpha", opts.o.Model.Alpha, "Pareto shape: smaller is a heavier tail")
	f.Float64Var(&opts.o.Model.Sigma, "sigma", opts.o.Model.Sigma, "the log-normal model's spread (the standard deviation of ln rate)")
	f.Float64Var(&opts.o.Model.Median, "median", opts.o.Model.Median, "the median source's rate, in limits per window (0.02: 2% of the limit)")
	f.StringVar(&opts.text.Bursts, "bursts", opts.text.Bursts, "bursts of traffic, as the mean lengths of ON and OFF periods: 10s/50s, or off; periods so short that they outnumber the requests 4 to 1 are refused, with the shortest the run allows")
	f.Uint64Var(&opts.o.Seed, "seed", opts.o.Seed, "the seed of the traffic")
	f.IntVar(&opts.o.Workers, "workers", 0, "goroutines deciding sources (default one per core)")
	f.BoolVar(&opts.asJSON, "json", false, "print one JSON object instead of text")
	registerFlagCompletion(cmd, "rules", completeFrom(ruleCompletions()...))
	registerFlagCompletion(cmd, "model", completeFrom(
		cobra.CompletionWithDesc("pareto", "heavy-tailed rates, shape --alpha"),
		cobra.CompletionWithDesc("lognormal", "log-normal rates, spread --sigma")))
	registerFlagCompletion(cmd, "bursts", completeFrom(
		cobra.CompletionWithDesc("off", "Poisson arrivals, no bursts"),
		cobra.CompletionWithDesc("10s/50s", "on for 10 s, off for 50 s, on average")))
	return cmd
}

// runLab runs the lab with its progress on standard error and prints its
// figures, those of the sources finished when a signal stopped it.
func runLab(ctx context.Context, std stdio, opts labOptions) error {
	if err := opts.text.Apply(&opts.o); err != nil {
		return invalid(flagError(err))
	}
	run, err := lab.Start(ctx, opts.o)
	if err != nil {
		return invalid(flagError(err))
	}
	labprogress.Show(run, progressOn(std.err))
	write := lab.Text
	if opts.asJSON {
		write = lab.JSON
	}
	res := run.Wait()
	if err := run.Err(); err != nil {
		return invalid(flagError(err))
	}
	if err := write(std.out, res); err != nil {
		return err
	}
	if !res.Complete {
		return context.Cause(ctx) // stopped by a signal, which main reports
	}
	return nil
}
