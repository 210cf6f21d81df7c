package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"windowlab/algo"
)

func newPresetsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "presets",
		Short: "List the limiters of real libraries windowlab reproduces, with the rule each decides by",
		Long: "List every preset: the limiter a real library runs, named as --algorithms and a scenario's " +
			"algorithms: take it (kind/preset), with its kind, the project, the rule it decides by written out " +
			"(which algorithm does it use?), the setting it needs beyond the limit and window, and the source " +
			"file the rule was read from. The presets: " + presetNames() + ".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPresets(stdioOf(cmd)) },
	}
}

// runPresets prints the presets as a table, a row each (name, kind), with
// its project, rule, the setting it takes and its source on lines of their
// own beneath it, so that the rows fit 80 columns.
func runPresets(std stdio) error {
	presets := algo.AllPresets()
	rows := [][]string{{"Name", "Kind"}}
	for _, p := range presets {
		rows = append(rows, []string{algo.Algorithm{Kind: p.Kind, Rules: p.Rules}.String(), p.Kind.String()})
	}
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, c := range r {
			width[j] = max(width[j], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) string {
		s := ""
		for j, c := range cells[:len(cells)-1] {
			s += c + strings.Repeat(" ", width[j]-utf8.RuneCountInString(c)+2)
		}
		return s + cells[len(cells)-1]
	}
	total := 0
	for _, w := range width {
		total += w + 2
	}
	dashes := strings.Repeat("-", total-2)
	fmt.Fprintln(std.out, line(rows[0]))
	fmt.Fprintln(std.out, dashes)
	for i, p := range presets {
		fmt.Fprintln(std.out, line(rows[i+1]))
		presetField(std, "project", p.Title)
		presetField(std, "rule", p.Rule)
		if p.Takes != "" {
			presetField(std, "takes", p.Takes)
		}
		presetField(std, "source", p.Source)
	}
	fmt.Fprintln(std.out, dashes)
	fmt.Fprintln(std.out, wrapWords(fmt.Sprintf("%d presets; without one each kind runs the lesson's rules (%s).", len(presets), kindNames()), presetsWidth))
	return nil
}

// presetsWidth is the width presets sets its text at, whatever the
// terminal: it reads the same on a screen, in a pipe and in its golden.
const presetsWidth = 80

// presetField prints "  label:   text", the text set at presetsWidth
// between words, its further lines under its first.
func presetField(std stdio, label, text string) {
	const indent = 11 // "  source:  "
	head := "  " + label + ":" + strings.Repeat(" ", indent-3-len(label))
	lines := strings.Split(wrapWords(text, presetsWidth-indent), "\n")
	fmt.Fprintln(std.out, head+lines[0])
	for _, l := range lines[1:] {
		fmt.Fprintln(std.out, strings.Repeat(" ", indent)+l)
	}
}

// kindNames lists the kinds, as --algorithms takes them.
func kindNames() string {
	var names []string
	for _, k := range algo.All {
		names = append(names, k.String())
	}
	return strings.Join(names, ", ")
}

// presetNames lists every preset as --algorithms takes it, for the help
// and so the manual page.
func presetNames() string {
	var names []string
	for _, p := range algo.AllPresets() {
		names = append(names, p.Kind.String()+"/"+p.Name)
	}
	return strings.Join(names, ", ")
}
