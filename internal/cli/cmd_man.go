package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newManCommand prints windowlab's manual page, written here from the commands'
// own help so the two never disagree. (fang's generator passed every
// description through a format string, so a "%" in one came out as
// "%!o(MISSING)", and made each line of a description its own paragraph.)
func newManCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "man",
		Short: "Print the manual page, in roff: windowlab man | man -l -",
		Example: "  windowlab man | man -l -\n" +
			"  windowlab man > /usr/local/share/man/man1/windowlab.1",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMan(stdioOf(cmd), cmd.Root()) },
	}
}

// runMan prints the manual page of the command tree under root.
func runMan(std stdio, root *cobra.Command) error {
	_, err := io.WriteString(std.out, manPage(root, versionOf()))
	return err
}

// The sections of the page that no command's help holds.
var (
	manExitStatus = [][2]string{
		{"0", "Success."},
		{"1", "An expectation in an expect block failed (check; with several files, when none is invalid)."},
		{"2", "Invalid input or usage: a malformed scenario file or access log, a file that does not exist, a replay or a lab over the memory budget, an unknown built-in scenario, command or flag, a flag value out of range, a --store Redis that cannot be used."},
		{"3", "Standard output could not be written (a full disk); one line on standard error says why."},
		{"130, 143, 129", "Stopped by SIGINT (ctrl+c, in the interactive view too), SIGTERM or SIGHUP: the command stops within a second, writes what it finished (a report marked STOPPED EARLY, JSON with \"complete\": false) and puts the terminal back; a second signal exits at once (with --store, after at most 2 s removing its keys from Redis)."},
	}
	manEnvironment = [][2]string{
		{"NO_COLOR", "When set, nothing is coloured: the help, the reports and the interactive view."},
		{"REDIS_URL", "The Redis that --store redis decides on, as redis://[:PASSWORD@]HOST:PORT[/DB], or a Redis Cluster as redis-cluster://[:PASSWORD@]HOST:PORT[,HOST:PORT...] (else " + defaultRedis + ")."},
		{"GOMEMLIMIT", "Go's soft memory limit. Unset, windowlab asks the collector to keep the heap under 768 MiB, and serve sets one that follows the number of students."},
		{"GOGC", "Go's collector percentage. Unset, a replay that streams its log (a report, a sweep, --compare, --denied, --recommend on files of more than 2,000,000 lines) collects at 50, not 100: less memory for about 1% of the CPU."},
	}
	manFiles = [][2]string{
		{"$XDG_CONFIG_HOME/windowlab/host_ed25519", "serve's SSH host key (~/.config on Linux, ~/Library/Application Support on macOS when XDG_CONFIG_HOME is unset), created once with mode 0600 and never overwritten; --host-key names another."},
		{"$XDG_CONFIG_HOME/windowlab/serve.log", "serve's connection log while the teacher's view has the terminal (else standard error)."},
		{"~/.ssh/*.pub", "The teacher's keys for serve, unless --teacher-keys names an authorized_keys file."},
	}
	manExamples = [][2]string{
		{"windowlab", "The interactive view on the boundary burst: press space."},
		{"windowlab lesson --presenter", "The guided lesson, large, for a projector."},
		{"windowlab run boundary-burst", "The same replay as a report: 200 admitted in 2 seconds by the fixed window."},
		{"windowlab memory --limit 10000 --window 1h --clients 1000000", "The lesson's 10 billion timestamps."},
		{"windowlab replay /var/log/nginx/access.log.1.gz --limits 60,120 --windows 1m", "Your own traffic through every limiter at two settings."},
		{"windowlab serve --addr 0.0.0.0:2222", "A classroom: students join with ssh -p 2222 HOST."},
	}
)

// manPage is the manual page of the command tree under root, in roff.
func manPage(root *cobra.Command, version string) string {
	var b strings.Builder
	name := root.Name()
	fmt.Fprintf(&b, ".TH %s 1 \"\" %s \"User Commands\"\n", strings.ToUpper(name), roffQuote(name+" "+version))
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", name, roffText(lowerFirst(root.Short)))
	b.WriteString(".SH SYNOPSIS\n")
	fmt.Fprintf(&b, ".B %s\n[\\fICOMMAND\\fR] [\\fIFLAGS\\fR] [\\fIARGUMENTS\\fR]\n", name)
	b.WriteString(".SH DESCRIPTION\n")
	roffParagraphs(&b, root.Long)
	b.WriteString(".SH COMMANDS\n")
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() || c.Name() == "help" {
			continue
		}
		manCommand(&b, name, c)
	}
	b.WriteString(".SH OPTIONS\n")
	manFlags(&b, root.PersistentFlags())
	b.WriteString(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nHelp for windowlab or any command (windowlab COMMAND \\-\\-help).\n")
	b.WriteString(".TP\n\\fB\\-v\\fR, \\fB\\-\\-version\\fR\nThe version: a release's number, or the commit it was built from.\n")
	manSection(&b, "EXIT STATUS", manExitStatus, false)
	manSection(&b, "ENVIRONMENT", manEnvironment, false)
	manSection(&b, "FILES", manFiles, false)
	manSection(&b, "EXAMPLES", manExamples, true)
	b.WriteString(".SH SEE ALSO\n")
	b.WriteString("README.md in windowlab's source: the lesson, the scenario format, every command and its figures.\n")
	return b.String()
}

// manCommand writes one command, its subcommands after it.
func manCommand(b *strings.Builder, parent string, c *cobra.Command) {
	full := parent + " " + c.Name()
	args := strings.TrimSpace(strings.TrimPrefix(c.Use, c.Name()))
	fmt.Fprintf(b, ".TP\n\\fB%s\\fR", roffText(full))
	if args != "" {
		fmt.Fprintf(b, " \\fI%s\\fR", roffText(args))
	}
	b.WriteString("\n")
	text := c.Long
	if text == "" || c.Name() == "completion" {
		text = c.Short
	}
	roffParagraphsIn(b, text)
	if c.HasAvailableLocalFlags() {
		b.WriteString(".RS\n")
		manFlags(b, c.LocalNonPersistentFlags())
		b.WriteString(".RE\n")
	}
	if c.Example != "" {
		b.WriteString(".RS\n.PP\nExamples:\n.nf\n")
		for _, line := range strings.Split(strings.TrimRight(c.Example, "\n"), "\n") {
			b.WriteString(roffLine(strings.TrimSpace(line)) + "\n")
		}
		b.WriteString(".fi\n.RE\n")
	}
	if c.Name() == "completion" { // its shells, without cobra's page on each
		var shells []string
		for _, sub := range c.Commands() {
			shells = append(shells, sub.Name())
		}
		fmt.Fprintf(b, ".IP\n\\fB%s\\fR \\fI%s\\fR writes the script for that shell; \\fB\\-\\-help\\fR on each says where to put it.\n", roffText(full), strings.Join(shells, "|"))
		return
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && sub.Name() != "help" {
			manCommand(b, full, sub)
		}
	}
}

// manFlags writes each visible flag as a tagged paragraph.
func manFlags(b *strings.Builder, flags *pflag.FlagSet) {
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		value, usage := pflag.UnquoteUsage(f)
		b.WriteString(".TP\n")
		if f.Shorthand != "" {
			fmt.Fprintf(b, "\\fB\\-%s\\fR, ", f.Shorthand)
		}
		fmt.Fprintf(b, "\\fB\\-\\-%s\\fR", roffText(f.Name))
		if value != "" {
			fmt.Fprintf(b, " \\fI%s\\fR", roffText(value))
		}
		b.WriteString("\n" + roffLine(usage+defaultNote(f)) + "\n")
	})
}

// defaultNote is " (default …)" for a flag whose default says something.
func defaultNote(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]":
		return ""
	}
	if f.Value.Type() == "string" {
		return fmt.Sprintf(" (default %q)", f.DefValue)
	}
	return " (default " + f.DefValue + ")"
}

// manSection writes a section of terms and their meanings.
func manSection(b *strings.Builder, title string, items [][2]string, code bool) {
	fmt.Fprintf(b, ".SH %s\n", title)
	for _, it := range items {
		if code {
			fmt.Fprintf(b, ".TP\n\\fB%s\\fR\n%s\n", roffText(it[0]), roffLine(it[1]))
		} else {
			fmt.Fprintf(b, ".TP\n%s\n%s\n", roffLine(it[0]), roffLine(it[1]))
		}
	}
}

// roffParagraphs writes text, whose paragraphs are separated by blank lines,
// one roff paragraph each: a line break inside one is only a wrap.
func roffParagraphs(b *strings.Builder, text string) {
	for i, p := range paragraphs(text) {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		b.WriteString(roffLine(p) + "\n")
	}
}

// roffParagraphsIn is roffParagraphs inside a tagged paragraph, whose
// later paragraphs keep its indent.
func roffParagraphsIn(b *strings.Builder, text string) {
	for i, p := range paragraphs(text) {
		if i > 0 {
			b.WriteString(".IP\n")
		}
		b.WriteString(roffLine(p) + "\n")
	}
}

// paragraphs splits text at blank lines, joining the lines of each.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// roffText escapes text for roff: backslashes, hyphens as the minus signs
// of options, and every character past ASCII by its code point, so any
// troff reads it. Nothing in it is a format or a request.
func roffText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > 0x7e:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// roffLine is roffText as a line of its own: one that starts with a dot or
// an apostrophe would be a request, so it starts with a zero-width \&.
func roffLine(s string) string {
	s = roffText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffQuote is s as a quoted argument of a request.
func roffQuote(s string) string { return `"` + strings.ReplaceAll(roffText(s), `"`, `\(dq`) + `"` }

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
