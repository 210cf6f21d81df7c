package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/ui/render"
)

// What if: the engineer's "what if I set 150 per minute?" without editing
// a file. e opens a small form (limit, window, expiry, which limiters);
// enter replays the same traffic under the new rules and lands at the same
// request; w writes the changed scenario to a new file, never over one.

// whatIfs is what the view keeps of what-ifs between forms.
type whatIfs struct {
	original      *scenarios.Scenario // the scenario before what-if changed its rules; nil when unchanged
	saveDir       string              // where w writes a what-if
	writesNothing bool
}

// whatIfForm is the form. Row 0 is the limit, 1 the window, 2 expiry, and
// the rest one per algorithm windowlab knows.
type whatIfForm struct {
	limit, window textinput.Model
	expiry        bool
	algorithms    []algo.Algorithm
	on            []bool
	row           int
	fresh         bool // the row was just reached: typing replaces its value
	err           string
	keys          whatIfKeys
}

type whatIfKeys struct {
	Up, Down, Toggle, More, Less, Apply, Cancel key.Binding
}

func newWhatIfKeys() whatIfKeys {
	return whatIfKeys{
		Up:     key.NewBinding(key.WithKeys("up", "shift+tab"), key.WithHelp("↑/↓", "field")),
		Down:   key.NewBinding(key.WithKeys("down", "tab")),
		Toggle: key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "on/off")),
		More:   key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+/−", "more/less")),
		Less:   key.NewBinding(key.WithKeys("-", "−", "_")),
		Apply:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "replay")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// allAlgorithms are every limiter and preset, in the order list shows them.
func allAlgorithms() []algo.Algorithm {
	var out []algo.Algorithm
	for _, n := range algo.AlgorithmNames() {
		if a, err := algo.ParseAlgorithm(n); err == nil {
			out = append(out, a)
		}
	}
	return out
}

func newWhatIfForm(st *render.Styles, sc *scenarios.Scenario) whatIfForm {
	input := func(prompt, value string) textinput.Model {
		in := textinput.New()
		in.Prompt = prompt
		in.CharLimit = 16
		in.SetWidth(16)
		in.SetStyles(st.Input)
		in.SetValue(value)
		return in
	}
	f := whatIfForm{
		limit:      input("limit  ", strconv.FormatInt(sc.Config.Limit, 10)),
		window:     input("window ", human.Duration(sc.Config.Window)),
		expiry:     !sc.Config.NoExpiry,
		algorithms: allAlgorithms(),
		keys:       newWhatIfKeys(),
	}
	for _, a := range sc.Algorithms {
		if !slices.Contains(f.algorithms, a) { // a fleet of servers (fixed-window@3): kept on offer
			f.algorithms = append(f.algorithms, a)
		}
	}
	for _, a := range f.algorithms {
		f.on = append(f.on, slices.Contains(sc.Algorithms, a))
	}
	f.limit.Focus()
	f.fresh = true
	return f
}

func (f whatIfForm) rows() int { return 3 + len(f.algorithms) }

// focus puts the text cursor in the row's input, if it has one.
func (f whatIfForm) focus() whatIfForm {
	f.limit.Blur()
	f.window.Blur()
	switch f.row {
	case 0:
		f.limit.Focus()
	case 1:
		f.window.Focus()
	}
	return f
}

// rules reads the form: the config and limiters it asks for.
func (f whatIfForm) rules() (algo.Config, []algo.Algorithm, error) {
	var cfg algo.Config
	limit, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(f.limit.Value()), ",", ""), 10, 64)
	if err != nil {
		return cfg, nil, fmt.Errorf("limit %q: give a whole number of requests", f.limit.Value())
	}
	window, err := time.ParseDuration(strings.TrimSpace(f.window.Value()))
	if err != nil {
		return cfg, nil, fmt.Errorf("window %q: give a duration such as 1m, 30s or 1h30m", f.window.Value())
	}
	cfg = algo.Config{Limit: limit, Window: window, NoExpiry: !f.expiry}
	var algos []algo.Algorithm
	for i, a := range f.algorithms {
		if f.on[i] {
			algos = append(algos, a)
		}
	}
	return cfg, algos, nil
}

// nudge moves the selected field: the limit by a tenth (at least one), the
// window to the next or previous of a few round lengths.
func (f whatIfForm) nudge(dir int) whatIfForm {
	switch f.row {
	case 0:
		n, err := strconv.ParseInt(strings.TrimSpace(f.limit.Value()), 10, 64)
		if err != nil {
			return f
		}
		d := max(n/10, 1)
		f.limit.SetValue(strconv.FormatInt(min(max(n+int64(dir)*d, 1), algo.MaxLimit), 10))
	case 1:
		w, err := time.ParseDuration(strings.TrimSpace(f.window.Value()))
		if err != nil {
			return f
		}
		lengths := []time.Duration{time.Second, 10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute,
			15 * time.Minute, time.Hour, 24 * time.Hour}
		i, _ := slices.BinarySearch(lengths, w)
		switch {
		case dir > 0 && i < len(lengths) && lengths[i] == w:
			i++
		case dir < 0:
			i--
		}
		f.window.SetValue(human.Duration(lengths[min(max(i, 0), len(lengths)-1)]))
	case 2:
		f.expiry = !f.expiry
	default:
		f.on[f.row-3] = !f.on[f.row-3]
	}
	return f
}

// view keeps the header and the caption; the form takes the lanes' place.
func (f whatIfForm) view(m Model) dialogView {
	return dialogView{keepCaption: true, body: func(h int) []string { return f.lines(m.c, h) }}
}

// lines are the form in h lines: the fields, then the limiters in columns.
func (f whatIfForm) lines(c render.Common, h int) []string {
	st := c.Styles
	out := []string{st.Title.Render("What if…") + st.Faint.Render("  the same traffic, replayed under other rules"), ""}
	cursor := func(row int) string {
		if row == f.row {
			return st.Selected.Render("▸ ")
		}
		return "  "
	}
	box := func(on bool) string {
		if on {
			return "[x]"
		}
		return "[ ]"
	}
	limit, window := f.limit, f.window
	limit.SetStyles(st.Input)
	window.SetStyles(st.Input)
	out = append(out, cursor(0)+limit.View(), cursor(1)+window.View(),
		cursor(2)+st.Title.Render("expiry ")+box(f.expiry)+st.Faint.Render(" old windows are forgotten (a TTL)"), "",
		st.Label.Render("  limiters"))
	colW := 40
	cols := max(1, c.Width/colW)
	per := (len(f.algorithms) + cols - 1) / cols
	lines := make([]string, per)
	for i, a := range f.algorithms {
		cell := cursor(3+i) + box(f.on[i]) + " " + a.String()
		if i/per < cols-1 {
			cell += strings.Repeat(" ", max(colW-c.Cells.StringWidth(cell), 1))
		}
		lines[i%per] += cell
	}
	out = append(out, lines...)
	if f.err != "" {
		out = append(out, "", st.Err.Render("✗ "+f.err))
	}
	return fitHeight(out, h)
}

func (f whatIfForm) help() []key.Binding {
	k := f.keys
	return []key.Binding{k.Up, k.More, k.Toggle, k.Apply, k.Cancel}
}

// update handles a key while the form is open: enter replays the traffic
// under the form's rules (the action), esc closes.
func (f whatIfForm) update(_ Model, msg tea.Msg) (Dialog, action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return f, nil, nil
	}
	return f.updateKey(k)
}

func (f whatIfForm) updateKey(msg tea.KeyPressMsg) (Dialog, action, tea.Cmd) {
	k := f.keys
	switch {
	case key.Matches(msg, k.Cancel):
		return nil, nil, nil
	case key.Matches(msg, k.Up):
		f.row = (f.row + f.rows() - 1) % f.rows()
	case key.Matches(msg, k.Down):
		f.row = (f.row + 1) % f.rows()
	case key.Matches(msg, k.More):
		f = f.nudge(+1)
	case key.Matches(msg, k.Less):
		f = f.nudge(-1)
	case key.Matches(msg, k.Toggle) && f.row >= 2:
		f = f.nudge(0)
	case key.Matches(msg, k.Apply):
		return f, whole(func(m Model) (tea.Model, tea.Cmd) { return m.applyWhatIf(f) }), nil
	default:
		if f.fresh && msg.Text != "" {
			// The first character typed replaces the value, as a form's does.
			switch f.row {
			case 0:
				f.limit.SetValue("")
			case 1:
				f.window.SetValue("")
			}
		}
		f.fresh = false
		var cmd tea.Cmd
		switch f.row {
		case 0:
			f.limit, cmd = f.limit.Update(msg)
		case 1:
			f.window, cmd = f.window.Update(msg)
		}
		f.err = ""
		return f, nil, cmd
	}
	f.err = ""
	f.fresh = true
	return f.focus(), nil, nil
}

// applyWhatIf replays the scenario's traffic under form f's rules and
// lands on the request the view stood at; with rules that do not hold,
// the form stays, saying why.
func (m Model) applyWhatIf(f whatIfForm) (tea.Model, tea.Cmd) {
	cfg, algos, err := f.rules()
	base := m.original
	if base == nil {
		base = m.sc
	}
	var sc *scenarios.Scenario
	if err == nil {
		sc, err = base.WhatIf(cfg, algos)
	}
	if err == nil {
		sc, err = m.withAdded(sc) // traffic made at the clock (traffic.go)
	}
	var eng *sim.Engine
	if err == nil {
		eng, err = buildEngine(sc, m.ctl)
	}
	if err != nil {
		f.err = err.Error()
		m.dialog = f
		return m, nil
	}
	n, now, last := m.eng.Processed(), m.eng.Now(), m.snap.HasLast && m.snap.Last.Arrival.At == m.eng.Now()
	if m.original == nil {
		m.original = m.sc
	}
	chosen, tl := m.chosen, m.timeline
	m.setScenario(sc, eng)
	m.chosen, tl.Window, m.timeline = chosen, sc.Config.Window, tl
	m.dialog = nil
	m.status = "the original rules again"
	if _, changed, ok := strings.Cut(sc.Title, " — what if: "); ok {
		m.status = "what if: " + changed + " · w writes it to a new file"
		if m.writesNothing {
			m.status = "what if: " + changed + " · e again changes it"
		}
	}
	start := m.start
	return m, m.move(func(e *sim.Engine) {
		// The same request, and the same instant when the clock stood past it.
		if e.SeekIndex(n); !last && e.Processed() == n {
			e.Seek(max(now, start))
		}
		if e.Processed() == 0 {
			e.SeekBefore(max(now, start))
		}
	})
}

// savedMsg says where a what-if was written, or why not.
type savedMsg struct {
	path string
	err  error
}

// saveCmd writes the what-if to a new file in dir: <name>.yaml, or with
// -2, -3… when that exists. It never writes over a file.
func (m Model) saveCmd() tea.Cmd {
	sc, dir, from := m.sc, m.saveDir, m.original
	return func() tea.Msg {
		comment := "What if: " + sc.Title + "\nWritten by windowlab from " + from.File + ". The original's captions, questions and\n" +
			"expectations are left out: they speak of its numbers, not these."
		return writeNew(sc, dir, comment)
	}
}

// writeNew writes sc to a new file in dir: <name>.yaml, or with -2, -3…
// when that exists. It never writes over a file.
func writeNew(sc *scenarios.Scenario, dir, comment string) tea.Msg {
	for i := 1; i < 100; i++ {
		name := sc.Name + ".yaml"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.yaml", sc.Name, i)
		}
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return savedMsg{err: err}
		}
		err = sc.WriteYAML(f, comment) // a recorded scenario's runs stream out
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path) // ours, half written
		}
		return savedMsg{path: path, err: err}
	}
	return savedMsg{err: fmt.Errorf("%s: 99 files named %s are there already; move some away", dir, sc.Name)}
}
