package ui

import "charm.land/bubbles/v2/key"

// keyMap is every binding of the main view; the help bar is built from it.
type keyMap struct {
	Play      key.Binding
	Next      key.Binding
	Prev      key.Binding
	NextEdge  key.Binding
	PrevEdge  key.Binding
	Faster    key.Binding
	Slower    key.Binding
	ZoomIn    key.Binding
	ZoomOut   key.Binding
	Start     key.Binding
	End       key.Binding
	GoTo      key.Binding
	Open      key.Binding
	Client    key.Binding
	Help      key.Binding
	Quit      key.Binding
	ForceQuit key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Play:      key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "play/pause")),
		Next:      key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next request")),
		Prev:      key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "previous request")),
		NextEdge:  key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next window edge")),
		PrevEdge:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous window edge")),
		Faster:    key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "speed ×2")),
		Slower:    key.NewBinding(key.WithKeys("-", "−", "_"), key.WithHelp("−", "speed ÷2")),
		ZoomIn:    key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "zoom in")),
		ZoomOut:   key.NewBinding(key.WithKeys("Z", "shift+z"), key.WithHelp("Z", "zoom out")),
		Start:     key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "start")),
		End:       key.NewBinding(key.WithKeys("G", "shift+g", "end"), key.WithHelp("G", "last request")),
		GoTo:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "go to time")),
		Open:      key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open scenario")),
		Client:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "next client")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c")),
	}
}

func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Play, k.Next, k.Prev, k.NextEdge, k.GoTo, k.Open, k.Help, k.Quit}
}

func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Play, k.Faster, k.Slower, k.Start, k.End},
		{k.Next, k.Prev, k.NextEdge, k.PrevEdge, k.GoTo},
		{k.ZoomIn, k.ZoomOut, k.Client, k.Open},
		{k.Help, k.Quit},
	}
}
