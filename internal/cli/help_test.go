package cli

import (
	"io"
	"os/exec"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// Help shows each flag's description with its first word title-cased
// (fang's style: cases.Title, which lowers the rest of the word), so a
// description must start with a word that reads the same that way:
// "log-normal spread" would show as "Log-Normal spread", "on/off" as
// "On/Off".
func TestFlagHelpReadsAsWritten(t *testing.T) {
	title := cases.Title(language.AmericanEnglish)
	walk(NewRootCommand(io.Discard), func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			word, _, _ := strings.Cut(strings.TrimSpace(f.Usage), " ")
			r, n := utf8.DecodeRuneInString(word)
			want := string(unicode.ToUpper(r)) + word[n:]
			if got := title.String(word); got != want {
				t.Errorf("%s --%s: help shows %q for %q; start the description with a plain word", c.CommandPath(), f.Name, got, word)
			}
		})
	})
}

// walk calls f for c and every command under it.
func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walk(sub, f)
	}
}

// The manual page: every section a man page reader expects, every command
// and flag, "%" as written, and nothing a troff would misread (a line that
// starts with a dot is one of the requests written here; every character
// is ASCII, the rest escaped by code point). With groff installed, it
// renders without a warning.
func TestManPage(t *testing.T) {
	root := NewRootCommand(io.Discard)
	page := manPage(root, "v1.2.3 (0a1b2c3d4e5f)")
	for _, s := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"} {
		if !strings.Contains(page, "\n.SH "+s+"\n") {
			t.Errorf("no %s section", s)
		}
	}
	if strings.Contains(page, "%!") {
		t.Error(`a "%" went through a format string`)
	}
	for _, want := range []string{`2% of the limit`, `windowlab v1.2.3`, `NO_COLOR`, `REDIS_URL`, `host_ed25519`, `\fB\-\-median\fR`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	walk(root, func(c *cobra.Command) {
		if c == root || !c.IsAvailableCommand() || c.Name() == "help" || c.Parent().Name() == "completion" {
			return
		}
		if !strings.Contains(page, `\fB`+roffText(c.CommandPath())+`\fR`) {
			t.Errorf("%s is not on the page", c.CommandPath())
		}
	})
	requests := map[string]bool{"TH": true, "SH": true, "TP": true, "PP": true, "IP": true, "RS": true, "RE": true, "B": true, "nf": true, "fi": true}
	for i, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			req, _, _ := strings.Cut(line[1:], " ")
			if !requests[req] {
				t.Errorf("line %d is read as a request: %q", i+1, line)
			}
		}
		for _, r := range line {
			if r > 0x7e {
				t.Fatalf("line %d holds %q unescaped", i+1, r)
			}
		}
	}
	if _, err := exec.LookPath("groff"); err != nil {
		t.Log("groff is not installed: the page is not rendered")
		return
	}
	cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff: %v\n%s", err, out)
	}
}
