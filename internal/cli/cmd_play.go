package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/scenarios"
	"windowlab/ui"
)

// playOptions are play's flags.
type playOptions struct {
	limit        int64
	window       time.Duration
	start        string
	store        string // --store: the Redis the view's engines decide on
	onStoreError string // --on-store-error
}

// defaultPlayOptions are play's defaults: the lesson's rules at noon
// (serve --play serves the same clock).
func defaultPlayOptions() playOptions {
	return playOptions{limit: 100, window: time.Minute, start: "12:00:00"}
}

func newPlayCommand() *cobra.Command {
	opts := defaultPlayOptions()
	cmd := &cobra.Command{
		Use:   "play",
		Short: "Open an empty clock and make the traffic yourself (r, b, s), under the lesson's rules",
		Long: "Open the interactive view on an empty clock at 12:00:00 under the lesson's rules (100 requests per\n" +
			"minute; the fixed window, the sliding log, the sliding counter and the token bucket), and make\n" +
			"the traffic with the keys: r one request now, b a burst, s a steady stream (< and > its rate),\n" +
			"u takes the last away; ( ) and { } nudge the limit and the window, w writes what you made to a\n" +
			"new scenario file that windowlab run replays to the same decisions.",
		Example: "  windowlab play\n  windowlab play --limit 10 --window 10s",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return runPlay(cmd.Context(), stdioOf(cmd), opts) },
	}
	cmd.Flags().Int64Var(&opts.limit, "limit", opts.limit, "requests per window")
	cmd.Flags().DurationVar(&opts.window, "window", opts.window, "window length (Go duration: 1m, 10s, 1h)")
	cmd.Flags().StringVar(&opts.start, "start", opts.start, "where the clock starts, HH:MM:SS[.mmm]")
	registerFlagCompletion(cmd, "limit", completeFrom(cobra.CompletionWithDesc("100", "the lesson's"), "10", "1000"))
	registerFlagCompletion(cmd, "window", completeFrom(cobra.CompletionWithDesc("1m", "the lesson's"), "10s", "1h"))
	registerFlagCompletion(cmd, "start", completeFrom(cobra.CompletionWithDesc("12:00:00", "noon"), "12:00:59"))
	decideStoreFlags(cmd, &opts.store, &opts.onStoreError)
	return cmd
}

// playAlgorithms are the limiters play compares: the lesson's three and
// its next step, the token bucket.
var playAlgorithms = []algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingLog},
	{Kind: algo.KindSlidingCounter}, {Kind: algo.KindTokenBucket}}

// playScenario is play's empty clock under opts' rules.
func playScenario(opts playOptions) (*scenarios.Scenario, error) {
	switch {
	case opts.limit < 1 || opts.limit > algo.MaxLimit:
		return nil, fmt.Errorf("--limit %d: give a whole number of requests from 1 to %s", opts.limit, human.Int(algo.MaxLimit))
	case opts.window < time.Millisecond || opts.window > algo.MaxWindow || opts.window%time.Millisecond != 0:
		return nil, fmt.Errorf("--window %s: give whole milliseconds from 1ms to %s", opts.window, human.Duration(algo.MaxWindow))
	}
	start, err := algo.ParseClock(opts.start)
	if err != nil {
		return nil, fmt.Errorf("--start %q: %v", opts.start, err)
	}
	return scenarios.Empty("play", "Make the traffic yourself", algo.Config{Limit: opts.limit, Window: opts.window}, playAlgorithms, start)
}

// runPlay opens the view on the empty clock.
func runPlay(ctx context.Context, std stdio, opts playOptions) error {
	s, err := playScenario(opts)
	if err != nil {
		return invalid(err)
	}
	return showUIOnStore(ctx, std.err, ui.Options{Scenario: s}, opts.store, opts.onStoreError)
}
