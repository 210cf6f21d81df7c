package ui

import (
	"context"
	"fmt"
	"strings"

	"windowlab/scenarios"
	"windowlab/ui/render"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// picker lists the built-in scenarios and "open a file…".
type picker struct {
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

type pickKind int

const (
	pickNone pickKind = iota
	pickCancel
	pickBuiltin
	pickFile
)

// pickAction is what the root should do after a key in the picker.
type pickAction struct {
	kind     pickKind
	scenario *scenarios.Scenario
	path     string
	ctx      context.Context // a file's load: cancelled if the user gives up
	load     int
}

func newPicker(items []*scenarios.Scenario, canOpen bool, st *render.Styles) picker {
	in := textinput.New()
	in.Prompt = "file "
	in.Placeholder = "path/to/scenario.yaml"
	in.SetStyles(st.Input) // a still cursor from the start; colours follow the root's styles
	return picker{items: items, canOpen: canOpen, path: in, keys: newPickerKeys()}
}

func (p picker) setWidth(w int) picker {
	p.path.SetWidth(max(w-16, 1))
	return p
}

// reset shows the list again, cursor on the first entry.
func (p picker) reset() picker {
	p = p.giveUp()
	p.cursor, p.typing, p.err = 0, false, ""
	p.path.Blur()
	return p
}

// giveUp stops waiting for a file being loaded (a FIFO nobody writes, a
// slow disk): its read is cancelled, and its answer ignored if it comes.
func (p picker) giveUp() picker {
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
func (p picker) loaded(load int) bool { return p.busy && load == p.load }

func (p picker) failed(err error) picker {
	p.busy, p.cancelLoad = false, nil
	p.err = err.Error()
	return p
}

func (p picker) entries() int {
	n := len(p.items)
	if p.canOpen {
		n++
	}
	return n
}

func (p picker) update(msg tea.Msg) (picker, tea.Cmd) {
	if !p.typing {
		return p, nil
	}
	var cmd tea.Cmd
	p.path, cmd = p.path.Update(msg)
	return p, cmd
}

func (p picker) updateKey(msg tea.KeyPressMsg) (picker, pickAction, tea.Cmd) {
	if p.busy {
		if key.Matches(msg, p.keys.Back) {
			return p.giveUp(), pickAction{}, nil
		}
		return p, pickAction{}, nil
	}
	if p.typing {
		switch {
		case key.Matches(msg, p.keys.Back):
			p.typing, p.err = false, ""
			p.path.Blur()
			return p, pickAction{}, nil
		case key.Matches(msg, p.keys.Open):
			path := strings.TrimSpace(p.path.Value())
			if path == "" {
				p.err = "type the path of a scenario file"
				return p, pickAction{}, nil
			}
			ctx, cancel := context.WithCancel(context.Background())
			p.busy, p.err, p.cancelLoad = true, "", cancel
			p.load++
			return p, pickAction{kind: pickFile, path: path, ctx: ctx, load: p.load}, nil
		}
		var cmd tea.Cmd
		p.path, cmd = p.path.Update(msg)
		return p, pickAction{}, cmd
	}
	switch {
	case key.Matches(msg, p.keys.Close):
		return p.reset(), pickAction{kind: pickCancel}, nil
	case key.Matches(msg, p.keys.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(msg, p.keys.Down):
		p.cursor = min(p.cursor+1, max(p.entries()-1, 0))
	case key.Matches(msg, p.keys.Open):
		if p.cursor < len(p.items) {
			p.busy, p.err = true, ""
			return p, pickAction{kind: pickBuiltin, scenario: p.items[p.cursor]}, nil
		}
		if p.canOpen {
			p.typing, p.err = true, ""
			p.path.Reset()
			return p, pickAction{}, p.path.Focus()
		}
	}
	return p, pickAction{}, nil
}

// help is the bindings the help line offers now.
func (p picker) help() []key.Binding {
	if p.typing && p.busy {
		return []key.Binding{p.keys.Back}
	}
	if p.typing {
		return []key.Binding{p.keys.Open, p.keys.Back}
	}
	return []key.Binding{p.keys.Up, p.keys.Open, p.keys.Close}
}

// view draws the list in h lines.
func (p picker) view(c render.Common, h int) []string {
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
		for _, l := range strings.Split(c.Cells.Wrap(p.err, max(c.Width-6, 10), " "), "\n") {
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

func (p picker) row(st *render.Styles, i int, text string) string {
	if i == p.cursor && !p.typing {
		return st.Selected.Render("▸ ") + text
	}
	return "  " + text
}
