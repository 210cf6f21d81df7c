package cli

import (
	"io"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
)

// A command's long description, set the way fang sets it at every
// terminal width from 60 columns, never breaks a flag at its hyphens (serve's --seed came
// out as "with -" / "-seed" at 120 columns).
func TestLongHelpBreaksNoFlag(t *testing.T) {
	for width := 60; width <= 120; width++ {
		root := NewRootCommand(io.Discard)
		wrapLongHelp(root, width)
		walk(root, func(c *cobra.Command) {
			shown := lipgloss.NewStyle().Width(width).PaddingLeft(helpIndent).Render(c.Long)
			lines := strings.Split(ansi.Strip(shown), "\n")
			for i, l := range lines {
				l = strings.TrimRight(l, " ")
				if strings.HasSuffix(l, "-") && !strings.HasSuffix(l, " -") {
					t.Errorf("%s at %d columns: line %d ends in a hyphen: %q / %q", c.CommandPath(), width, i+1, l, lines[min(i+1, len(lines)-1)])
				}
			}
		})
	}
	if got := wrapWords("a --seed b", 9); got != "a --seed\nb" {
		t.Errorf("wrapWords: %q", got)
	}
}
