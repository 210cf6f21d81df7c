package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"windowlab/quiz"
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
		Use:   "lesson [LESSON]",
		Short: "A guided lesson: the window-counting limiters in six steps, or many-bouncers in four",
		Long: "lesson walks through a lesson one step at a time, each step a scenario with captions. " +
			"Without LESSON it is the window-counting limiters, six steps from the bouncer's tally to the " +
			"key takeaways; many-bouncers is its sequel in four, from one bouncer's exact tally to the " +
			"compromises real gateways make when the tally must be shared (synced tallies, a split quota, " +
			"a replica that trails). Captions marked to pause stop the clock; space goes on; tab goes to " +
			"the next caption (and past the last, to the next step); n and p move between steps; k asks " +
			"a step's questions. --step starts at a step. --presenter fills the screen for a projector: " +
			"the focused lane large, its key number and verdict in block digits, high contrast.",
		Example: "  windowlab lesson\n" +
			"  windowlab lesson --step 4 --presenter   # the sliding counter, for a room\n" +
			"  windowlab lesson many-bouncers          # when the tally must be shared",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeLessons,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLesson(cmd.Context(), stdioOf(cmd), opts, args)
		},
	}
	cmd.Flags().BoolVar(&opts.presenter, "presenter", false, "fill the screen for a projector: big verdicts in high contrast")
	cmd.Flags().IntVar(&opts.step, "step", 1, "the step to start at, from 1 (the window lesson has 6, many-bouncers 4)")
	decideStoreFlags(cmd, &opts.store, &opts.onStoreError)
	registerFlagCompletion(cmd, "step", func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		steps, err := scenarios.LessonNamed(lessonName(args))
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for i, s := range steps {
			out = append(out, cobra.CompletionWithDesc(fmt.Sprint(i+1), s.Title))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// completeLessons offers the lessons' names, with their titles.
func completeLessons(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, l := range scenarios.Lessons() {
		out = append(out, cobra.CompletionWithDesc(l.Name, l.Title))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// lessonName is the lesson args name, the default without one.
func lessonName(args []string) string {
	if len(args) == 0 {
		return scenarios.DefaultLesson
	}
	return args[0]
}

// runLesson opens the view on the lesson named in args, at --step.
func runLesson(ctx context.Context, std stdio, opts lessonOptions, args []string) error {
	name := lessonName(args)
	steps, err := scenarios.LessonNamed(name)
	if err != nil {
		return invalid(err)
	}
	if opts.step < 1 || opts.step > len(steps) {
		which := "the lesson"
		if name != scenarios.DefaultLesson {
			which += " " + name
		}
		return invalid(fmt.Errorf("--step %d: %s has steps 1 to %d", opts.step, which, len(steps)))
	}
	o := ui.Options{Lesson: steps, LessonStep: opts.step - 1, Presenter: opts.presenter}
	if name == scenarios.DefaultLesson {
		o.LessonQuestions = quiz.Lesson() // its check-yourself, at its end
	}
	return showUIOnStore(ctx, std.err, o, opts.store, opts.onStoreError)
}
