package ui

import (
	"context"
	"fmt"
	"strings"

	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/ui/render"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// scenarioPicker is the scenario picker (o): it lists the built-in
// scenarios and "open a file…", and loads the one chosen in the
// background.
type scenarioPicker struct {
	id      int // which opening of the picker this is (Model.opened)
	items   []*scenarios.Scenario
	canOpen bool
	cursor  int
	typing  bool // the path input is showing
	path    textinput.Model
	err     string
	busy    bool
	keys    pickerKeys
	// A load in progress: its number, so a late answer to one given up is
	// ignored, and the cancel that gives it up.
	load       int
	cancelLoad context.CancelFunc
}

// scenarioMsg carries a scenario loaded (or not) by a tea.Cmd.
type scenarioMsg struct {
	scenario *scenarios.Scenario
	engine   *sim.Engine
	err      error
	picker   int // the picker whose load it answers (scenarioPicker.id)
	load     int // the picker's load it answers; 0 for a built-in
}

func newPicker(items []*scenarios.Scenario, canOpen bool, st *render.Styles, id int) scenarioPicker {
	in := textinput.New()
	in.Prompt = "file "
	in.Placeholder = "path/to/scenario.yaml"
	in.SetStyles(st.Input) // a still cursor from the start; colours follow the root's styles
	return scenarioPicker{id: id, items: items, canOpen: canOpen, path: in, keys: newPickerKeys()}
}

func (p scenarioPicker) setWidth(w int) scenarioPicker {
	p.path.SetWidth(max(w-16, 1))
	return p
}

// reset shows the list again, cursor on the first entry.
func (p scenarioPicker) reset() scenarioPicker {
	p = p.giveUp()
	p.cursor, p.typing, p.err = 0, false, ""
	p.path.Blur()
	return p
}

// giveUp stops waiting for a file being loaded (a FIFO nobody writes, a
// slow disk): its read is cancelled, and its answer ignored if it comes.
func (p scenarioPicker) giveUp() scenarioPicker {
	if p.cancelLoad != nil {
		p.cancelLoad()
		p.cancelLoad = nil
	}
	if p.busy {
		p.busy, p.err = false, "stopped loading; enter tries again"
	}
	p.load++
	return p
}

// loaded reports whether a load's answer is still wanted.
func (p scenarioPicker) loaded(picker, load int) bool {
	return p.busy && picker == p.id && load == p.load
}

func (p scenarioPicker) failed(err error) scenarioPicker {
	p.busy, p.cancelLoad = false, nil
	p.err = err.Error()
	return p
}

func (p scenarioPicker) entries() int {
	n := len(p.items)
	if p.canOpen {
		n++
	}
	return n
}

func (p scenarioPicker) resize(w int) Dialog { return p.setWidth(w) }

// update moves the cursor, takes a path, and on enter starts loading the
// scenario chosen: the action builds its engine (and reads its file) in a
// tea.Cmd, and the root shows it when scenarioMsg comes.
func (p scenarioPicker) update(m Model, msg tea.Msg) (Dialog, action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok && p.typing:
		var cmd tea.Cmd
		p.path, cmd = p.path.Update(msg)
		return p, nil, cmd
	case !ok:
		return p, nil, nil
	case p.busy:
		if key.Matches(k, p.keys.Back) {
			return p.giveUp(), nil, nil
		}
		return p, nil, nil
	case p.typing:
		return p.updateTyping(m, k)
	}
	switch {
	case key.Matches(k, p.keys.Close):
		p.reset()
		return nil, nil, nil
	case key.Matches(k, p.keys.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(k, p.keys.Down):
		p.cursor = min(p.cursor+1, max(p.entries()-1, 0))
	case key.Matches(k, p.keys.Open):
		if p.cursor < len(p.items) {
			p.busy, p.err = true, ""
			sc, ctl := p.items[p.cursor], m.ctl
			return p, nil, func() tea.Msg {
				e, err := buildEngine(sc, ctl)
				return scenarioMsg{scenario: sc, engine: e, err: err}
			}
		}
		if p.canOpen {
			p.typing, p.err = true, ""
			p.path.Reset()
			return p, nil, p.path.Focus()
		}
	}
	return p, nil, nil
}

// updateTyping takes the path of a file: enter loads it, esc goes back to
// the list.
func (p scenarioPicker) updateTyping(m Model, k tea.KeyPressMsg) (Dialog, action, tea.Cmd) {
	switch {
	case key.Matches(k, p.keys.Back):
		p.typing, p.err = false, ""
		p.path.Blur()
		return p, nil, nil
	case key.Matches(k, p.keys.Open):
		path := strings.TrimSpace(p.path.Value())
		if path == "" {
			p.err = "type the path of a scenario file"
			return p, nil, nil
		}
		ctx, cancel := context.WithCancel(context.Background())
		p.busy, p.err, p.cancelLoad = true, "", cancel
		p.load++
		load, ctl, id, n := m.load, m.ctl, p.id, p.load
		return p, nil, func() tea.Msg {
			sc, err := load(ctx, path)
			if err != nil {
				return scenarioMsg{err: err, picker: id, load: n}
			}
			e, err := buildEngine(sc, ctl)
			return scenarioMsg{scenario: sc, engine: e, err: err, picker: id, load: n}
		}
	}
	var cmd tea.Cmd
	p.path, cmd = p.path.Update(k)
	return p, nil, cmd
}

// help is the bindings the help line offers now.
func (p scenarioPicker) help() []key.Binding {
	if p.typing && p.busy {
		return []key.Binding{p.keys.Back}
	}
	if p.typing {
		return []key.Binding{p.keys.Open, p.keys.Back}
	}
	return []key.Binding{p.keys.Up, p.keys.Open, p.keys.Close}
}

// view keeps the header, the caption and the timeline: the list takes the
// lanes' place.
func (p scenarioPicker) view(m Model) dialogView {
	return dialogView{keepCaption: true, timeline: true, body: func(h int) []string { return p.list(m.c, h) }}
}

// list draws the list in h lines.
func (p scenarioPicker) list(c render.Common, h int) []string {
	st := c.Styles
	var lines []string
	lines = append(lines, st.Title.Render("Open a scenario"), "")
	nameW := 0
	for _, s := range p.items {
		nameW = max(nameW, c.Cells.StringWidth(s.Name))
	}
	nameW = min(nameW, 32)
	var rows []string
	for i, s := range p.items {
		row := c.Fit(s.Name, nameW) + "  " + st.Faint.Render(s.Title)
		rows = append(rows, p.row(st, i, row))
	}
	if p.canOpen {
		rows = append(rows, p.row(st, len(p.items), "open a file…"))
	}
	var tail []string
	if p.typing {
		in := p.path
		in.SetStyles(st.Input)
		tail = append(tail, "", in.View())
	}
	switch {
	case p.busy:
		tail = append(tail, "", st.Faint.Render("loading… (esc stops)"))
	case p.err != "":
		tail = append(tail, "")
		for _, l := range strings.Split(c.Wrap(p.err, max(c.Width-6, 10)), "\n") {
			tail = append(tail, st.Err.Render(l))
		}
	}
	// Keep the cursor in view when the list is longer than the room, and
	// say how many rows are out of sight.
	room := max(h-len(lines)-len(tail), 1)
	from, to := 0, len(rows)
	if len(rows) > room {
		room = max(room-1, 1)
		from = max(p.cursor-room+1, 0)
		to = min(from+room, len(rows))
	}
	lines = append(lines, rows[from:to]...)
	if hidden := len(rows) - (to - from); hidden > 0 {
		lines = append(lines, st.Faint.Render(fmt.Sprintf("  … %d more (↑/↓)", hidden)))
	}
	return append(lines, tail...)
}

func (p scenarioPicker) row(st *render.Styles, i int, text string) string {
	if i == p.cursor && !p.typing {
		return st.Selected.Render("▸ ") + text
	}
	return "  " + text
}
