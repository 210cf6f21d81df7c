package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
	"windowlab/ui/render"
)

// The client picker: every client met so far with what each limiter
// denied it, worst first, filtered by typing (bubbles list). Counting
// reads the whole history, so it runs in a tea.Cmd; the clock stands still
// while the picker is open, so nothing writes the history meanwhile.

// clientRow is one client's figures up to the clock.
type clientRow struct {
	name     string
	requests int64
	denied   []int64 // by limiter, in engine order
	names    []string
	follow   bool // the row that gives the focus back to the last request
}

func (r clientRow) FilterValue() string { return human.Visible(r.name) }

func (r clientRow) Title() string {
	if r.follow {
		return "follow the last request"
	}
	return human.Visible(r.name)
}

func (r clientRow) Description() string {
	if r.follow {
		return "the lanes show whichever client sent the request decided last"
	}
	parts := []string{human.Noun{One: "request", Many: "requests"}.Of(r.requests)}
	for k, n := range r.denied {
		parts = append(parts, fmt.Sprintf("%s ✗%s", r.names[k], human.Int(n)))
	}
	return strings.Join(parts, " · ")
}

// mostDenied is the most any one limiter denied the client.
func (r clientRow) mostDenied() int64 { return slices.Max(append([]int64{0}, r.denied...)) }

// clientsMsg carries the rows counted by a tea.Cmd; jump asks to focus
// the worst client at once rather than open the picker.
type clientsMsg struct {
	rows []clientRow
	jump bool
	gen  int
}

// countClients reads every client's requests and denials off the history.
func countClients(h *sim.History, clients []string, algorithms []algo.Algorithm) []clientRow {
	names := make([]string, len(algorithms))
	for k, a := range algorithms {
		names[k] = render.ShortName(a)
	}
	rows := make([]clientRow, len(clients))
	for i, c := range clients {
		rows[i] = clientRow{name: c, denied: make([]int64, len(algorithms)), names: names}
	}
	for r := range h.Runs(0, h.Len()) {
		if int(r.Client) >= len(rows) {
			continue
		}
		row := &rows[r.Client]
		row.requests += r.N
		for k := range row.denied {
			if r.Allowed&(1<<k) == 0 {
				row.denied[k] += r.N
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b clientRow) int {
		return cmp.Or(cmp.Compare(b.mostDenied(), a.mostDenied()), cmp.Compare(b.requests, a.requests))
	})
	return rows
}

// countCmd counts the clients off the engine's history in the background.
func (m *Model) countCmd(jump bool) tea.Cmd {
	m.stop()
	m.clientsGen++
	h, clients, algorithms, gen := m.eng.History(), append([]string(nil), m.eng.Clients()...), m.snap.Algorithms, m.clientsGen
	return func() tea.Msg {
		return clientsMsg{rows: countClients(h, clients, algorithms), jump: jump, gen: gen}
	}
}

// worstClient is the client to look at first: the one a limiter admitted
// most over its limit in one window, else the one denied most.
func (m Model) worstClient(rows []clientRow) (string, string) {
	best, why := "", ""
	var bestN, bestD int64 = 0, 1
	for k, st := range m.snap.Stats {
		if st.MaxInWindow > m.snap.Config.Limit && st.MaxInWindow*bestD > bestN*m.snap.Config.Limit {
			best, bestN, bestD = st.MaxInWindowClient, st.MaxInWindow, m.snap.Config.Limit
			why = fmt.Sprintf("%s admitted %s to it in one window, %s", render.ShortName(m.snap.Algorithms[k]),
				human.Int(st.MaxInWindow), human.Times(st.MaxInWindow, m.snap.Config.Limit))
		}
	}
	if best != "" {
		return best, why
	}
	for _, r := range rows {
		if r.mostDenied() > 0 {
			return r.name, "denied most: " + r.Description()
		}
	}
	return "", ""
}

// clientPicker is the client picker (c, W): loading while the count runs,
// then the list.
type clientPicker struct {
	list    list.Model
	loading bool
	keys    clientKeys
}

type clientKeys struct {
	Choose key.Binding
	Close  key.Binding
}

// newClientPicker is a picker waiting for its count. Its rows have the
// dark background's colours, as they always had: the view made its picker
// before the terminal said its background.
func newClientPicker(isDark bool) clientPicker {
	d := list.NewDefaultDelegate()
	d.Styles = list.NewDefaultItemStyles(isDark)
	l := list.New(nil, d, 80, 20)
	l.Title = "Focus a client"
	l.SetShowHelp(false)
	l.DisableQuitKeybindings()
	// A still cursor, as in every prompt of the view: no blink timer.
	in := l.FilterInput.Styles()
	in.Cursor.Blink = false
	l.FilterInput.SetStyles(in)
	return clientPicker{list: l, loading: true, keys: clientKeys{
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "focus")),
		Close:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}}
}

func (p clientPicker) help() []key.Binding {
	return []key.Binding{p.keys.Choose, key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")), p.keys.Close}
}

// open fills the picker with rows, the client focused now selected.
func (p clientPicker) open(rows []clientRow, focused string) (clientPicker, tea.Cmd) {
	items := make([]list.Item, 0, len(rows)+1)
	items = append(items, clientRow{follow: true})
	sel := 0
	for i, r := range rows {
		items = append(items, r)
		if r.name == focused {
			sel = i + 1
		}
	}
	p.loading = false
	p.list.ResetFilter()
	cmd := p.list.SetItems(items)
	p.list.Select(sel)
	return p, cmd
}

// view keeps the header and the caption; the list takes the lanes' place.
func (p clientPicker) view(m Model) dialogView {
	return dialogView{keepCaption: true, body: func(h int) []string { return p.lines(m.c, h) }}
}

func (p clientPicker) lines(c render.Common, h int) []string {
	if p.loading {
		return []string{c.Styles.Faint.Render("counting each client's requests…")}
	}
	p.list.SetSize(c.Width, max(h, 3))
	return strings.Split(p.list.View(), "\n")
}

// update filters and moves through the list; enter focuses the client
// chosen, esc closes. While the count runs, only quitting does anything.
func (p clientPicker) update(m Model, msg tea.Msg) (Dialog, action, tea.Cmd) {
	k, isKey := msg.(tea.KeyPressMsg)
	if isKey && p.loading { // the count reads the history: nothing moves until it is done
		if key.Matches(k, m.keys.Quit) {
			return p, nil, tea.Quit
		}
		return p, nil, nil
	}
	filtering := p.list.SettingFilter()
	switch {
	case isKey && !filtering && key.Matches(k, p.keys.Close):
		return nil, nil, nil
	case isKey && !filtering && key.Matches(k, p.keys.Choose):
		r, ok := p.list.SelectedItem().(clientRow)
		return nil, func(m *Model) tea.Cmd {
			if ok {
				m.chosen = r.name
				if r.follow {
					m.chosen = ""
				}
			}
			m.refresh()
			return nil
		}, nil
	}
	var cmd tea.Cmd
	p.list, cmd = p.list.Update(msg)
	return p, nil, cmd
}

// onClients shows counted rows: in the picker, or focusing the worst.
func (m Model) onClients(msg clientsMsg) (tea.Model, tea.Cmd) {
	if msg.gen != m.clientsGen {
		return m, nil
	}
	if msg.jump {
		m.dialog = nil
		name, why := m.worstClient(msg.rows)
		if name == "" {
			m.status = "no client has been denied anything yet"
			return m, nil
		}
		m.chosen = name
		m.status = "focused " + human.Visible(name) + ": " + why
		m.refresh()
		return m, nil
	}
	p, ok := m.dialog.(clientPicker)
	if !ok {
		return m, nil
	}
	var cmd tea.Cmd
	m.dialog, cmd = p.open(msg.rows, m.snap.Client)
	return m, cmd
}
