package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

func newCheckCommand() *cobra.Command {
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
		RunE:              func(cmd *cobra.Command, args []string) error { return runCheck(cmd.Context(), stdioOf(cmd), args) },
	}
}

// runCheck checks every file of args, going on past the invalid ones: the
// exit status is the worst of them.
func runCheck(ctx context.Context, std stdio, args []string) error {
	w := std.out
	code := 0
	for i, path := range args {
		if ctx.Err() != nil {
			fmt.Fprintf(w, "stopped after %d of %d files\n", i, len(args))
			return context.Cause(ctx)
		}
		s, err := resolveShowing(ctx, std.err, path)
		if err != nil {
			fmt.Fprintln(std.err, err)
			if ctx.Err() != nil {
				fmt.Fprintf(w, "stopped after %d of %d files\n", i, len(args))
				return context.Cause(ctx)
			}
			code = exitInvalid
			continue
		}
		if err := s.Fits(viewOptions); err != nil {
			fmt.Fprintln(std.err, err) // refused as run, tui and record refuse it
			code = exitInvalid
			continue
		}
		failures, err := s.VerifyContext(ctx)
		for _, f := range failures {
			fmt.Fprintln(w, f)
		}
		if err != nil && ctx.Err() == nil {
			fmt.Fprintln(std.err, err)
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
}
