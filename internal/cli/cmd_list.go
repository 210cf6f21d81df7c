package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"windowlab/scenarios"
)

func newListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runList(stdioOf(cmd)) },
	}
}

// runList prints each built-in scenario's name and title.
func runList(std stdio) error {
	width := 0
	for _, s := range scenarios.BuiltinTitles() {
		width = max(width, len(s.Name))
	}
	for _, s := range scenarios.BuiltinTitles() {
		fmt.Fprintf(std.out, "%-*s  %s\n", width, s.Name, s.Title)
	}
	return nil
}
