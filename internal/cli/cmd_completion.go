package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"windowlab/algo"
	"windowlab/scenarios"
)

// Shell completion (windowlab completion bash|zsh|fish|powershell): the
// names a command or flag takes, each with its one-line description, as
// cobra's __complete hands them to the shell.

// completeScenario completes a SCENARIO|FILE argument: the built-ins by
// name; past them (a path), the shell's own file completion.
func completeScenario(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, s := range scenarios.BuiltinTitles() {
		if strings.HasPrefix(s.Name, prefix) {
			out = append(out, cobra.CompletionWithDesc(s.Name, s.Title))
		}
	}
	return out, cobra.ShellCompDirectiveDefault // files too, when no name fits
}

// completeOneScenario is completeScenario for a command of one argument.
func completeOneScenario(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return completeScenario(cmd, args, prefix)
}

// completeFrom completes from fixed values, each "name\tdescription".
func completeFrom(values ...cobra.Completion) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// ruleCompletions are the names --rules takes: the lesson's, then the presets'.
func ruleCompletions() []cobra.Completion {
	out := []cobra.Completion{cobra.CompletionWithDesc("lesson", "the lesson's rules: only allowed requests count, estimate < limit")}
	for _, p := range algo.Presets {
		out = append(out, cobra.CompletionWithDesc(p.Name, p.Title+": "+p.Rule))
	}
	return out
}

// algorithmCompletions are the limiters --algorithms takes: each kind, then
// each preset as kind/name, the token buckets' too.
func algorithmCompletions() []cobra.Completion {
	var out []cobra.Completion
	for _, k := range algo.All {
		out = append(out, cobra.CompletionWithDesc(k.String(), k.Title()))
	}
	for _, p := range algo.AllPresets() {
		out = append(out, cobra.CompletionWithDesc(p.Kind.String()+"/"+p.Name, p.Kind.Title()+", as "+p.Title))
	}
	for _, n := range []string{"fixed-window@3~sync=1s", "fixed-window@3~split"} { // fleets of gateways (algo/sharing.go)
		a, _ := algo.ParseAlgorithm(n)
		out = append(out, cobra.CompletionWithDesc(n, a.Title()))
	}
	return out
}

// completeList completes the last item of a comma-separated list, keeping
// what comes before it.
func completeList(values []cobra.Completion) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		i := strings.LastIndex(prefix, ",")
		done, last := prefix[:i+1], prefix[i+1:]
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, last) {
				out = append(out, done+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// registerFlagCompletion registers f for the flag name of cmd, which must
// have it.
func registerFlagCompletion(cmd *cobra.Command, name string, f cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(name, f); err != nil {
		panic(err) // a flag renamed without its completion: a bug, found by TestCompletion
	}
}

// refuseUnknownShells makes `windowlab completion tcsh` an error naming the
// shells there are, exit 2: cobra's completion command has no action of its
// own, so a shell it lacks printed its help and exited 0.
func refuseUnknownShells(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sh := range c.Commands() {
			shells = append(shells, sh.Name())
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return fmt.Errorf("%q is not a shell windowlab completes; use %s", args[0], strings.Join(shells, ", "))
		}
	}
}
