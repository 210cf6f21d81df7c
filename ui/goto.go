package ui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/ui/render"
)

// goToPrompt asks for a time of day to move the clock to.
type goToPrompt struct {
	input textinput.Model
	err   string
	keys  promptKeys
}

func newGoToPrompt(st *render.Styles) goToPrompt {
	in := textinput.New()
	in.Prompt = "go to time "
	in.CharLimit = 32      // 2026-11-30T23:59:59.250+01:00 fits
	in.SetStyles(st.Input) // a still cursor from the start; colours follow the root's styles
	return goToPrompt{input: in, keys: newPromptKeys()}
}

func (p goToPrompt) setWidth(w int) goToPrompt {
	p.input.SetWidth(max(min(w-40, 30), 1))
	return p
}

// open focuses an empty prompt, with the clock as the example.
func (p goToPrompt) open(now algo.Instant) (goToPrompt, tea.Cmd) {
	p.err = ""
	p.input.Reset()
	p.input.Placeholder = now.Short()
	cmd := p.input.Focus()
	return p, cmd
}

func (p goToPrompt) close() goToPrompt {
	p.input.Blur()
	p.err = ""
	return p
}

func (p goToPrompt) fail(err error) goToPrompt {
	p.err = err.Error()
	return p
}

func (p goToPrompt) value() string { return p.input.Value() }

func (p goToPrompt) update(msg tea.Msg) (goToPrompt, tea.Cmd) {
	var cmd tea.Cmd
	before := p.input.Value()
	p.input, cmd = p.input.Update(msg)
	if p.input.Value() != before {
		p.err = ""
	}
	return p, cmd
}

// view is the prompt with what to type and help, the line of keys the
// root renders from p.keys; an error goes above it.
func (p goToPrompt) view(c render.Common, help string) []string {
	in := p.input
	in.SetStyles(c.Styles.Input)
	line := in.View() + c.Styles.Faint.Render("  HH:MM:SS[.mmm]  ") + help
	if p.err == "" {
		return []string{line}
	}
	var out []string
	for _, l := range strings.Split(c.Cells.Wrap("✗ "+p.err, max(c.Width, 10), " "), "\n") {
		out = append(out, c.Styles.Err.Render(l))
	}
	return append(out, line)
}
