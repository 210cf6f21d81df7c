package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/ui/render"
)

// goToPrompt is the go-to-time prompt (t): it asks for a time of day to
// move the clock to.
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

func (p goToPrompt) fail(err error) goToPrompt {
	p.err = err.Error()
	return p
}

func (p goToPrompt) value() string { return p.input.Value() }

func (p goToPrompt) resize(w int) Dialog { return p.setWidth(w) }

// update goes to the time typed on enter (or says what is wrong with it),
// and closes on esc.
func (p goToPrompt) update(m Model, msg tea.Msg) (Dialog, action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, p.keys.Cancel):
			return nil, nil, nil
		case key.Matches(k, p.keys.Go):
			t, err := parseClock(p.value(), m.eng.Now())
			if err != nil {
				return p.fail(err), nil, nil
			}
			return nil, func(m *Model) tea.Cmd { return m.goToInstant(t) }, nil
		}
	}
	p, cmd := p.edit(msg)
	return p, nil, cmd
}

// edit gives msg to the input; a change clears the error.
func (p goToPrompt) edit(msg tea.Msg) (goToPrompt, tea.Cmd) {
	var cmd tea.Cmd
	before := p.input.Value()
	p.input, cmd = p.input.Update(msg)
	if p.input.Value() != before {
		p.err = ""
	}
	return p, cmd
}

func (p goToPrompt) help() []key.Binding { return p.keys.ShortHelp() }

// view leaves the main view on screen, the prompt in place of the help
// line.
func (p goToPrompt) view(m Model) dialogView {
	return dialogView{keepCaption: true, bottom: p.lines(m.c, m.help.ShortHelpView(p.help()))}
}

// lines are the prompt with what to type and help, the line of keys the
// root renders from p.keys; an error goes above it.
func (p goToPrompt) lines(c render.Common, help string) []string {
	in := p.input
	in.SetStyles(c.Styles.Input)
	line := in.View() + c.Styles.Faint.Render("  HH:MM:SS[.mmm]  ") + help
	if p.err == "" {
		return []string{line}
	}
	var out []string
	for _, l := range strings.Split(c.Wrap("✗ "+p.err, max(c.Width, 10)), "\n") {
		out = append(out, c.Styles.Err.Render(l))
	}
	return append(out, line)
}
