package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"windowlab/scenarios"
	"windowlab/ui"
)

// lessonOptions are lesson's flags.
type lessonOptions struct {
	presenter    bool
	step         int    // from 1
	store        string // --store: the Redis the view's engines decide on
	onStoreError string // --on-store-error
}

func newLessonCommand() *cobra.Command {
	var opts lessonOptions
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runLesson(cmd.Context(), stdioOf(cmd), opts) },
	}
	cmd.Flags().BoolVar(&opts.presenter, "presenter", false, "fill the screen for a projector: big verdicts in high contrast")
	cmd.Flags().IntVar(&opts.step, "step", 1, "the step to start at, 1 to 6")
	decideStoreFlags(cmd, &opts.store, &opts.onStoreError)
	registerFlagCompletion(cmd, "step", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for i, s := range scenarios.Lesson() {
			out = append(out, cobra.CompletionWithDesc(fmt.Sprint(i+1), s.Title))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// runLesson opens the view on the lesson, at --step.
func runLesson(ctx context.Context, std stdio, opts lessonOptions) error {
	steps := scenarios.Lesson()
	if opts.step < 1 || opts.step > len(steps) {
		return invalid(fmt.Errorf("--step %d: the lesson has steps 1 to %d", opts.step, len(steps)))
	}
	return showUIOnStore(ctx, std.err, ui.Options{Lesson: steps, LessonStep: opts.step - 1, Presenter: opts.presenter}, opts.store, opts.onStoreError)
}
