package cli

import (
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
)

// helpWidth is the width fang sets a command's long description at: the
// terminal's, at most 120 columns (120 when standard output is not one),
// or its tests' __FANG_TEST_WIDTH.
func helpWidth() int {
	if s := os.Getenv("__FANG_TEST_WIDTH"); s != "" {
		if w, err := strconv.Atoi(s); err == nil {
			return w
		}
	}
	w, _, err := term.GetSize(os.Stdout.Fd())
	if err != nil {
		return 120
	}
	return min(w, 120)
}

// helpIndent is the left padding fang gives a long description, inside
// its width.
const helpIndent = 2

// wrapLongHelp sets every command's long description at width between
// words only: fang's own wrapping also breaks at a hyphen, and cut
// --seed as "with -" / "-seed". Lines that already fit are left alone by
// fang; the manual page joins a paragraph's lines again.
func wrapLongHelp(c *cobra.Command, width int) {
	c.Long = wrapWords(c.Long, width-helpIndent)
	for _, sub := range c.Commands() {
		wrapLongHelp(sub, width)
	}
}

// wrapWords wraps each line of text at width, breaking only at spaces; a
// word wider than width stands alone on its line.
func wrapWords(text string, width int) string {
	if width < 1 {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		var out strings.Builder
		used := 0
		for _, word := range strings.Fields(line) {
			w := ansi.StringWidth(word)
			switch {
			case used == 0:
			case used+1+w > width:
				out.WriteString("\n")
				used = 0
			default:
				out.WriteString(" ")
				used++
			}
			out.WriteString(word)
			used += w
		}
		lines[i] = out.String()
	}
	return strings.Join(lines, "\n")
}
