package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windowlab/quiz"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/ui"
)

// quizOptions are quiz's flags.
type quizOptions struct {
	seed      uint64
	count     int
	handout   bool // --print
	presenter bool
	flags     *pflag.FlagSet // which of them were given
}

func newQuizCommand() *cobra.Command {
	var opts quizOptions
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
		RunE:              func(cmd *cobra.Command, args []string) error { return runQuiz(cmd.Context(), stdioOf(cmd), opts, args) },
	}
	opts.flags = cmd.Flags()
	cmd.Flags().Uint64Var(&opts.seed, "seed", 0, "the seed of the generated questions (default: a new one each time)")
	cmd.Flags().IntVar(&opts.count, "count", 10, "how many generated questions to ask")
	cmd.Flags().BoolVar(&opts.handout, "print", false, "print the questions and an answer key as text, for a handout")
	cmd.Flags().BoolVar(&opts.presenter, "presenter", false, "bigger gauges and high contrast, readable from the back of a room")
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

// runQuiz asks the questions of args (the lesson's and generated ones
// without any) in the view, or prints them as a handout.
func runQuiz(ctx context.Context, std stdio, opts quizOptions, args []string) error {
	if !opts.flags.Changed("seed") {
		opts.seed = uint64(time.Now().UnixNano()%99_999) + 1 // a short number a student can read out
	}
	if len(args) > 0 && !opts.flags.Changed("count") {
		opts.count = 0
	}
	var sources []*scenarios.Scenario
	for _, a := range args {
		s, err := scenarios.ResolveContext(ctx, a)
		if err != nil {
			return invalid(err)
		}
		sources = append(sources, s)
	}
	q, err := quiz.Make(opts.seed, opts.count, sources)
	if err != nil {
		return invalid(err)
	}
	fits := viewOptions
	if opts.handout {
		fits = sim.Options{ForwardOnly: true} // as quiz.Proofs replays
	}
	for _, s := range sources { // replayed to prove their answers
		if err := s.Fits(fits); err != nil {
			return invalid(err)
		}
	}
	// The seed alone gives the same questions only with no files and
	// the default count: the command line that does, whatever was asked.
	q.Again = fmt.Sprintf("windowlab quiz --seed %d", opts.seed)
	if opts.flags.Changed("count") {
		q.Again += fmt.Sprintf(" --count %d", opts.count)
	}
	for _, a := range args {
		q.Again += " " + shellWord(a)
	}
	if opts.handout {
		return quiz.WriteHandout(ctx, std.out, q)
	}
	m, err := showUI(ctx, ui.Options{Quiz: q.Items, QuizTitle: fmt.Sprintf("seed %d", opts.seed), Presenter: opts.presenter})
	// The score is what a quiz finished: printed after ctrl+c (exit 130) too.
	if score := m.QuizScore(); (err == nil || errors.Is(err, errReported)) && score.Reached() > 0 {
		fmt.Fprintln(std.out, quizSummary(score, q.Again))
	}
	return err
}
