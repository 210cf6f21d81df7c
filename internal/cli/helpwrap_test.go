package cli

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// Every command's help, as Main writes it at 80 columns, fits them: each
// flag's description wrapped in fang's column (run's --on-store-error ran
// to 298 columns, broken mid-word by the terminal), the root's list of
// commands too (130), every word of each still there.
func TestHelpFitsEighty(t *testing.T) {
	root := NewRootCommand(io.Discard)
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		args := []string{"--help"}
		if c != root {
			args = []string{c.Name(), "--help"}
		}
		p := &process{}
		p.cmd = exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
		p.cmd.Env = append(os.Environ(), beMain+"=1", "__FANG_TEST_WIDTH=80")
		p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(t); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, p.stderr.String())
		}
		out := ansi.Strip(p.stdout.String())
		for line := range strings.Lines(out) {
			if w := ansi.StringWidth(strings.TrimRight(line, " \n")); w > 80 {
				t.Errorf("%v: a line of %d columns: %q", args, w, line)
			}
		}
		words := strings.Join(strings.Fields(out), " ")
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			rest := strings.Fields(f.Usage)
			if len(rest) > 1 && !strings.Contains(words, strings.Join(rest[1:], " ")) { // the first word title-cased
				t.Errorf("%v: --%s's description is not whole: %q", args, f.Name, f.Usage)
			}
		})
		if c == root {
			for _, sub := range root.Commands() {
				if !sub.Hidden && !strings.Contains(words, strings.Join(strings.Fields(sub.Short), " ")) {
					t.Errorf("--help: %s's description is not whole: %q", sub.Name(), sub.Short)
				}
			}
		}
	}
}
