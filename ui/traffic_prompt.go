package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"windowlab/human"
	"windowlab/ui/render"
)

// trafficPrompt is the one-line prompt of b (how many, for whom) and s (how
// many a second, for whom). Bad input keeps it open with the reason and
// changes nothing.
type trafficPrompt struct {
	kind   promptKind
	input  textinput.Model
	dflt   int64  // what an empty line sends: the limit, or a rate just over it
	client string // who, when no name is typed
	err    string
	keys   promptKeys
}

type promptKind int

const (
	promptBurst promptKind = iota
	promptStream
)

// openTrafficPrompt opens the prompt of kind over the main view.
func (m Model) openTrafficPrompt(kind promptKind) Model {
	in := textinput.New()
	in.CharLimit = 80 // a number and a client's name of up to 64 characters
	in.SetStyles(m.c.Styles.Input)
	in.SetWidth(max(min(m.c.Width-40, 24), 8))
	p := trafficPrompt{kind: kind, client: m.focusClient(), keys: newPromptKeys()}
	p.keys.Go.SetHelp("enter", "send")
	cfg := m.eng.Config()
	switch kind {
	case promptBurst:
		in.Prompt = "burst of "
		p.dflt = cfg.Limit
	case promptStream:
		in.Prompt = "stream of "
		// Just over the limit's own rate: the steady stream the three limiters disagree on.
		perSecond := (cfg.Limit*1000 + int64(cfg.Window/time.Millisecond) - 1) / int64(cfg.Window/time.Millisecond)
		p.dflt = min(max(perSecond+1, 1), maxStreamRate)
	}
	in.Placeholder = fmt.Sprint(p.dflt)
	in.Focus()
	p.input = in
	m.stop()
	m.dialog = p
	return m
}

func (p trafficPrompt) resize(w int) Dialog {
	p.input.SetWidth(max(min(w-40, 24), 8))
	return p
}

// update sends the traffic typed on enter, or says what is wrong with it;
// esc closes.
func (p trafficPrompt) update(m Model, msg tea.Msg) (Dialog, action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, p.keys.Cancel):
			return nil, nil, nil
		case key.Matches(k, p.keys.Go):
			n, client, err := parseAmount(p.input.Value(), p.kind == promptStream, p.dflt, p.client)
			if err == nil {
				return nil, p.send(n, client), nil
			}
			p.err = err.Error()
			return p, nil, nil
		}
	}
	before := p.input.Value()
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	if p.input.Value() != before {
		p.err = ""
	}
	return p, nil, cmd
}

// send makes the traffic; a refusal (the scenario's budget) opens the
// prompt again with the reason.
func (p trafficPrompt) send(n int64, client string) action {
	return func(m *Model) tea.Cmd {
		var next Model
		var cmd tea.Cmd
		var err error
		if p.kind == promptBurst {
			next, cmd, err = m.burst(n, client)
		} else {
			next, cmd, err = m.startStream(n, client)
		}
		if err != nil {
			p.err = err.Error()
			m.dialog = p
			return nil
		}
		*m = next
		return cmd
	}
}

func (p trafficPrompt) help() []key.Binding { return p.keys.ShortHelp() }

// view leaves the main view on screen, the prompt in place of the help
// line, with what may be typed.
func (p trafficPrompt) view(m Model) dialogView {
	return dialogView{keepCaption: true, bottom: p.lines(m.c, m.help.ShortHelpView(p.help()))}
}

func (p trafficPrompt) lines(c render.Common, help string) []string {
	in := p.input
	in.SetStyles(c.Styles.Input)
	what := fmt.Sprintf("requests now: type how many, and a client's name after a space for another client (20, or 20 bob); enter alone sends %s for %s",
		human.Int(p.dflt), p.client)
	if p.kind == promptStream {
		what = fmt.Sprintf("a stream from now, as the clock plays: type how many a second, 1 to %s, and a name after a space for another client (5, or 5 bob); enter alone sends %d/s for %s",
			human.Int(maxStreamRate), p.dflt, p.client)
	}
	line := in.View() + "  " + help
	if p.err == "" {
		var out []string
		for _, l := range strings.Split(c.Wrap(what, max(c.Width, 10)), "\n") {
			out = append(out, c.Styles.Faint.Render(l))
		}
		return append(out, line)
	}
	var out []string
	for _, l := range strings.Split(c.Wrap("✗ "+p.err, max(c.Width, 10)), "\n") {
		out = append(out, c.Styles.Err.Render(l))
	}
	return append(out, line)
}
