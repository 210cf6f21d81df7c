package ui

import (
	"strings"

	"windowlab/ui/render"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// NamePrompt asks a student for the name the room shows, before the view:
// Claim takes the name typed (the room makes it fit and unique) and says
// what is wrong with it, or takes it.
type NamePrompt struct {
	Default string
	Claim   func(name string) error
}

// namePrompt is the name prompt: a student's name before the view.
type namePrompt struct {
	input textinput.Model
	claim func(string) error
	err   string
}

func newNamePrompt(st *render.Styles, p *NamePrompt) namePrompt {
	in := textinput.New()
	in.Prompt = "your name "
	in.CharLimit = 24
	in.SetWidth(24)
	in.SetStyles(st.Input)
	in.SetValue(p.Default)
	in.Focus()
	return namePrompt{input: in, claim: p.Claim}
}

// update claims the name typed on enter: taken, the view opens (at the
// teacher's moment when following); refused, the prompt says why.
func (p namePrompt) update(_ Model, msg tea.Msg) (Dialog, action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return p, nil, nil
	}
	if k.String() == "enter" {
		name := strings.TrimSpace(p.input.Value())
		if err := p.claim(name); err != nil {
			p.err = err.Error()
			return p, nil, nil
		}
		return nil, func(m *Model) tea.Cmd {
			m.status = "welcome, " + name
			if m.following && m.hasTeacher {
				return m.goToPosition(m.teacher)
			}
			return nil
		}, nil
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(k)
	p.err = ""
	return p, nil, cmd
}

// help is empty: the prompt says its keys.
func (p namePrompt) help() []key.Binding { return nil }

// view keeps the header alone: the prompt takes the rest.
func (p namePrompt) view(m Model) dialogView {
	return dialogView{body: func(h int) []string { return p.lines(m.c, h) }, noHelp: true}
}

// lines are the prompt, in h lines.
func (p namePrompt) lines(c render.Common, h int) []string {
	st := c.Styles
	in := p.input
	in.SetStyles(st.Input)
	out := []string{"", st.Title.Render("Welcome to the class."), "",
		st.Faint.Render("The teacher and the room see this name; up to 24 characters."), "", in.View()}
	if p.err != "" {
		out = append(out, "", st.Err.Render("✗ "+p.err))
	}
	out = append(out, "", st.Faint.Render("enter joins · ctrl+c leaves"))
	return fitHeight(out, h)
}

// naming reports whether the name prompt is open: a room's question waits
// until the student has a name.
func (m Model) naming() bool {
	_, ok := m.dialog.(namePrompt)
	return ok
}
