package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"windowlab/algo"
	"windowlab/challenge"
	"windowlab/human"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/ui"
)

type challengeOptions struct {
	check        bool // check a scenario file against challenge N
	store        string
	onStoreError string // --on-store-error
}

func newChallengeCommand() *cobra.Command {
	var opts challengeOptions
	cmd := &cobra.Command{
		Use:   "challenge [N [SCENARIO|FILE]]",
		Short: "Challenges to beat a limiter: list them, try one in the view, or check a file against one",
		Long: "challenge lists the goals a student reaches by making traffic, each checked by the engine. " +
			"challenge N opens the interactive view with challenge N's panel above the lanes, checked again " +
			"after every request: on the scenario named, or on windowlab play's empty clock at the lesson's numbers " +
			"(100 per 60 s), where r, b, s and u make the traffic. " +
			"challenge --check N FILE replays the scenario and prints the verdict, with the proof when the goal " +
			"is reached. Exit status: 0 when reached, 1 when not, 2 when the file is invalid or cannot be checked " +
			"against that challenge (it lacks a limiter the challenge reads).",
		Example: "  windowlab challenge                         # the list\n" +
			"  windowlab challenge 2                       # try the sliding counter's most\n" +
			"  windowlab challenge --check 2 attempt.yaml  # did attempt.yaml reach it?",
		Args:              cobra.MaximumNArgs(2),
		ValidArgsFunction: completeChallenge,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runChallenge(cmd.Context(), stdioOf(cmd), opts, args)
		},
	}
	cmd.Flags().BoolVar(&opts.check, "check", false, "check the scenario FILE against challenge N: the verdict and its proof (exit 0 reached, 1 not)")
	decideStoreFlags(cmd, &opts.store, &opts.onStoreError)
	return cmd
}

// completeChallenge offers the challenges' numbers, then a scenario.
func completeChallenge(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) == 0 {
		var out []cobra.Completion
		for i, g := range challenge.Goals {
			out = append(out, cobra.CompletionWithDesc(strconv.Itoa(i+1), g.Title))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	return completeOneScenario(cmd, args[1:], prefix)
}

func runChallenge(ctx context.Context, std stdio, opts challengeOptions, args []string) error {
	if len(args) == 0 {
		if opts.check {
			return invalid(fmt.Errorf("--check needs a challenge and a file: windowlab challenge --check N FILE"))
		}
		return listChallenges(std.out)
	}
	g, ok := challenge.Lookup(args[0])
	if !ok {
		return invalid(fmt.Errorf("there is no challenge %q: they are 1 to %d (windowlab challenge lists them)", args[0], len(challenge.Goals)))
	}
	if opts.check {
		if len(args) < 2 {
			return invalid(fmt.Errorf("--check %s needs a scenario file to check", args[0]))
		}
		return checkChallenge(ctx, std, g, args[1])
	}
	sc, err := challengeScenario(ctx, std, args[1:])
	if err != nil {
		return err
	}
	return showUIOnStore(ctx, std.err, ui.Options{Scenario: sc, Challenge: g.Name}, opts.store, opts.onStoreError)
}

// listChallenges prints the challenges as a table.
func listChallenges(w io.Writer) error {
	width := len("name")
	for _, g := range challenge.Goals {
		width = max(width, len(g.Name))
	}
	fmt.Fprintf(w, "%2s  %-*s  %s\n", "N", width, "name", "challenge")
	for i, g := range challenge.Goals {
		fmt.Fprintf(w, "%2d  %-*s  %s\n", i+1, width, g.Name, g.Title)
	}
	fmt.Fprintln(w, "\nwindowlab challenge N tries one in the view; windowlab challenge --check N FILE checks a scenario file.")
	return nil
}

// challengeScenario is the scenario named, or windowlab play's empty clock
// (12:00:00, the lesson's 100 per 60 s), where r, b, s and u make the
// traffic the challenge checks.
func challengeScenario(ctx context.Context, std stdio, args []string) (*scenarios.Scenario, error) {
	if len(args) == 0 {
		s, err := playScenario(playOptions{limit: challenge.Lesson.Limit, window: challenge.Lesson.Window, start: "12:00:00"})
		if err != nil {
			return nil, invalid(err)
		}
		return s, nil
	}
	s, err := resolveShowing(ctx, std.err, args[0])
	if err != nil {
		return nil, invalid(err)
	}
	if err := s.Fits(viewOptions); err != nil {
		return nil, invalid(err)
	}
	return s, nil
}

// checkChallenge replays the file and prints g's verdict over its records.
func checkChallenge(ctx context.Context, std stdio, g challenge.Goal, path string) error {
	s, err := resolveShowing(ctx, std.err, path)
	if err != nil {
		return invalid(err)
	}
	if err := s.Fits(viewOptions); err != nil {
		return invalid(err)
	}
	r, err := checkScenario(ctx, g, s)
	if err != nil {
		return err
	}
	fmt.Fprint(std.out, verdict(s, r))
	if !r.Reached {
		return exitError{exitFailedExpectation, errReported}
	}
	return nil
}

// checkScenario replays s once, from the start, through a checker of g.
func checkScenario(ctx context.Context, g challenge.Goal, s *scenarios.Scenario) (challenge.Result, error) {
	e, err := s.Engine(sim.Options{ForwardOnly: true, Interrupt: sim.Until(ctx)})
	if err != nil {
		return challenge.Result{}, invalid(err)
	}
	var algorithms []algo.Algorithm
	for _, st := range e.Stats() {
		algorithms = append(algorithms, st.Algorithm)
	}
	c, err := challenge.NewChecker(g, e.Config(), algorithms)
	if err != nil {
		return challenge.Result{}, invalid(fmt.Errorf("%s: %w", s.File, err))
	}
	for i := 0; ; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return challenge.Result{}, context.Cause(ctx)
		}
		rec, ok := e.Step()
		if !ok {
			break
		}
		c.Add(rec)
	}
	return c.Result(), nil
}

// verdict is what --check prints: the challenge, the numbers it was
// checked at, reached or not, and the proof or how far the file got.
func verdict(s *scenarios.Scenario, r challenge.Result) string {
	var b strings.Builder
	g := r.Goal
	fmt.Fprintf(&b, "challenge %d (%s): %s\n%s\n", g.Number(), g.Name, g.Title, g.Statement(r.Config))
	if r.Config.Limit != challenge.Lesson.Limit || r.Config.Window != challenge.Lesson.Window {
		fmt.Fprintf(&b, "checked at %s's numbers: %s per %s, not the lesson's 100 per 60 s\n",
			s.File, human.Int(r.Config.Limit), human.Duration(r.Config.Window))
	}
	if !r.Reached {
		fmt.Fprintf(&b, "%s: not reached, %s\nhint: %s\n", s.File, r.Progress, g.Hint(r.Config))
		return b.String()
	}
	fmt.Fprintf(&b, "%s: reached\n", s.File)
	for _, l := range r.Proof {
		fmt.Fprintln(&b, l)
	}
	return b.String()
}
