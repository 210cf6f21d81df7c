package cli

import (
	"context"

	"github.com/spf13/cobra"

	"windowlab/scenarios"
	"windowlab/ui"
)

// tuiOptions are tui's flags.
type tuiOptions struct {
	store        string // --store: the Redis the view's engines decide on
	onStoreError string // --on-store-error
}

func newTuiCommand() *cobra.Command {
	var opts tuiOptions
	cmd := &cobra.Command{
		Use:   "tui [SCENARIO|FILE]",
		Short: "Open the interactive view on a scenario (boundary-burst by default)",
		Args:  cobra.MaximumNArgs(1),

		ValidArgsFunction: completeOneScenario,
		RunE:              func(cmd *cobra.Command, args []string) error { return runTui(cmd.Context(), stdioOf(cmd), opts, args) },
	}
	decideStoreFlags(cmd, &opts.store, &opts.onStoreError)
	return cmd
}

// runTui opens the view on the scenario named (the default one without
// any), refusing one that would not fit the memory budget.
func runTui(ctx context.Context, std stdio, opts tuiOptions, args []string) error {
	name := scenarios.DefaultBuiltin
	if len(args) == 1 {
		name = args[0]
	}
	s, err := resolveShowing(ctx, std.err, name)
	if err != nil {
		return invalid(err)
	}
	if err := s.Fits(viewOptions); err != nil {
		return invalid(err)
	}
	return showUIOnStore(ctx, std.err, ui.Options{Scenario: s}, opts.store, opts.onStoreError)
}
