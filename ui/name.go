package ui

import (
	"strings"

	"windowlab/ui/render"

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

// namePrompt is the prompt's state.
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

func (m Model) updateName(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if msg.String() == "enter" {
		name := strings.TrimSpace(m.name.input.Value())
		if err := m.name.claim(name); err != nil {
			m.name.err = err.Error()
			return m, nil
		}
		m.mode = modeMain
		m.status = "welcome, " + name
		if m.following && m.hasTeacher {
			return m, m.goToPosition(m.teacher)
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.name.input, cmd = m.name.input.Update(msg)
	m.name.err = ""
	return m, cmd
}

// nameView is the prompt, in h lines.
func (m Model) nameView(h int) []string {
	st := m.c.Styles
	in := m.name.input
	in.SetStyles(st.Input)
	out := []string{"", st.Title.Render("Welcome to the class."), "",
		st.Faint.Render("The teacher and the room see this name; up to 24 characters."), "", in.View()}
	if m.name.err != "" {
		out = append(out, "", st.Err.Render("✗ "+m.name.err))
	}
	out = append(out, "", st.Faint.Render("enter joins · ctrl+c leaves"))
	return fitHeight(out, h)
}
