package cli

import (
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// fang's layout of a command's flags: the key column starts fang's
// longPad in, and is the longest key and two spaces wide, at least its
// minSpace.
const (
	flagPad      = 4
	flagMinSpace = 10
)

// wrapFlagHelp makes every command's help set its flags' descriptions at
// width, between words, in the column fang gives them: fang writes each
// on one line however long, and an 80-column terminal broke run's
// --on-store-error mid-word. Only while the help is written: completions
// and the manual page read each flag's usage as it is.
func wrapFlagHelp(root *cobra.Command, width int) {
	var set func(c *cobra.Command)
	set = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			set(sub)
		}
		if c == root || c.HasAvailableSubCommands() {
			return // their keys are their commands' too: their flags are short
		}
		c.SetHelpFunc(func(c *cobra.Command, args []string) {
			defer wrapFlagUsages(c, width)()
			root.HelpFunc()(c, args)
		})
	}
	set(root)
}

// wrapFlagUsages wraps c's visible flags' usages to fit width as fang
// lays them out, its default after the last word, and returns what puts
// them back.
func wrapFlagUsages(c *cobra.Command, width int) (restore func()) {
	space := flagMinSpace
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			space = max(space, len(flagKey(f))+2)
		}
	})
	was := map[*pflag.Flag]string{}
	if room := width - flagPad - space; room >= 20 {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				was[f] = f.Usage
				f.Usage = wrapUsage(f.Usage, defaultShown(f), room)
			}
		})
	}
	return func() {
		for f, usage := range was {
			f.Usage = usage
		}
	}
}

// flagKey is a flag as fang shows it in the key column.
func flagKey(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand + " --" + f.Name
	}
	return "--" + f.Name
}

// defaultShown is what fang writes after a flag's description: its default
// in parentheses, or nothing.
func defaultShown(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]":
		return ""
	}
	return "(" + f.DefValue + ")"
}

// wrapUsage wraps usage at width leaving room for after, which fang adds
// after its last word (on a line of its own when the last line is full).
func wrapUsage(usage, after string, width int) string {
	if after == "" {
		return wrapWords(usage, width)
	}
	text := wrapWords(usage+" "+after, width)
	if s, ok := strings.CutSuffix(text, " "+after); ok {
		return s
	}
	return strings.TrimSuffix(text, after) // "…\n": after on its own line
}

// wrapCommandList wraps the root's commands' one-line descriptions to fit
// width beside the column of their keys in fang's list: at 80 columns the
// keys take 51, and the descriptions ran to 130. Only for the root's own
// help (Main asks): completions read each command's description whole,
// up to its first line break.
func wrapCommandList(root *cobra.Command, width int) {
	space := flagMinSpace
	for _, sub := range root.Commands() {
		if !sub.Hidden {
			space = max(space, commandKeyWidth(sub)+2)
		}
	}
	root.Flags().VisitAll(func(f *pflag.Flag) { space = max(space, len(flagKey(f))+2) })
	if room := width - flagPad - space; room >= 20 {
		for _, sub := range root.Commands() {
			sub.Short = wrapWords(sub.Short, room)
		}
	}
}

// commandKeyWidth is the width of sub's key in fang's list of commands:
// its use line with the markers fang moves to its end ([args], [flags],
// [command], and one bracketed span of arguments) moved there.
func commandKeyWidth(sub *cobra.Command) int {
	u := sub.Use
	hasArgs := strings.Contains(u, "[args]")
	hasFlags := strings.Contains(u, "[flags]") || strings.Contains(u, "[--flags]") || sub.HasFlags() || sub.HasPersistentFlags() || sub.HasAvailableFlags()
	hasCommands := strings.Contains(u, "[command]") || sub.HasAvailableSubCommands()
	for _, marker := range []string{"[args]", "[flags]", "[--flags]", "[command]"} {
		u = strings.ReplaceAll(u, marker, "")
	}
	n := 0
	if i, j := strings.Index(u, "["), strings.LastIndex(u, "]"); i >= 0 && j > i {
		n += 1 + j + 1 - i
		u = u[:i] + u[j+1:]
	}
	n += len(strings.TrimSpace(u))
	for _, has := range []struct {
		yes   bool
		width int
	}{{hasCommands, len(" [command]")}, {hasArgs, len(" [args]")}, {hasFlags, len(" [--flags]")}} {
		if has.yes {
			n += has.width
		}
	}
	return n
}

// rootHelp reports whether args ask for the root command's own help.
func rootHelp(args []string) bool {
	return len(args) == 1 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")
}
