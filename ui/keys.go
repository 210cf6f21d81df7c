package ui

import "charm.land/bubbles/v2/key"

// keyMap is every binding of the main view; the help bar is built from it.
type keyMap struct {
	Play           key.Binding
	Next           key.Binding
	Prev           key.Binding
	NextEdge       key.Binding
	PrevEdge       key.Binding
	Faster         key.Binding
	Slower         key.Binding
	ZoomIn         key.Binding
	ZoomOut        key.Binding
	Start          key.Binding
	End            key.Binding
	GoTo           key.Binding
	Open           key.Binding
	Client         key.Binding
	Clients        key.Binding
	WhatIf         key.Binding
	Save           key.Binding
	Worst          key.Binding
	TimelineClient key.Binding
	Chart          key.Binding // the chart of each limiter's state (chart.go)
	ChartTotal     key.Binding // the chart: this client's state or every client's
	NextCaption    key.Binding
	PrevCaption    key.Binding
	NextStep       key.Binding
	PrevStep       key.Binding
	Quiz           key.Binding
	Code           key.Binding // the code that decided (code.go)
	Challenge      key.Binding
	// Traffic made at the clock, and the live knobs (traffic.go).
	Request    key.Binding
	Burst      key.Binding
	Stream     key.Binding
	StreamRate key.Binding // < and >
	Undo       key.Binding
	Limit      key.Binding // ( and )
	Window     key.Binding // { and }
	Help       key.Binding
	CloseHelp  key.Binding // esc, while every key is shown
	Quit       key.Binding
	ForceQuit  key.Binding

	// hasQuestions puts the quiz key in the help: it still answers without
	// them, to say there are none.
	hasQuestions bool
}

func newKeyMap() keyMap {
	return keyMap{
		Play:           key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "play/pause")),
		Next:           key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next request")),
		Prev:           key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "previous request")),
		NextEdge:       key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next window edge")),
		PrevEdge:       key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous window edge")),
		Faster:         key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "speed ×2")),
		Slower:         key.NewBinding(key.WithKeys("-", "−", "_"), key.WithHelp("−", "speed ÷2")),
		ZoomIn:         key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "zoom in")),
		ZoomOut:        key.NewBinding(key.WithKeys("Z", "shift+z"), key.WithHelp("Z", "zoom out")),
		Start:          key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "start")),
		End:            key.NewBinding(key.WithKeys("G", "shift+g", "end"), key.WithHelp("G", "last request")),
		GoTo:           key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "go to time")),
		Open:           key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open scenario")),
		Client:         key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "next client")),
		Clients:        key.NewBinding(key.WithKeys("C", "shift+c"), key.WithHelp("C", "choose a client")),
		WhatIf:         key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "what if: other rules")),
		Save:           key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "write a new scenario file")),
		Worst:          key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "worst client")),
		TimelineClient: key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "timeline: this client/all")),
		Chart:          key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "chart of state")),
		ChartTotal:     key.NewBinding(key.WithKeys("V", "shift+v"), key.WithHelp("V", "chart: this client/all")),
		NextCaption:    key.NewBinding(key.WithKeys("tab", "pgdown"), key.WithHelp("tab", "next caption")),
		PrevCaption:    key.NewBinding(key.WithKeys("shift+tab", "pgup"), key.WithHelp("shift+tab", "previous caption")),
		NextStep:       key.NewBinding(key.WithKeys("n"), key.WithHelp("n/p", "next/previous step"), key.WithDisabled()),
		PrevStep:       key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "previous step"), key.WithDisabled()),
		Quiz:           key.NewBinding(key.WithKeys("k"), key.WithHelp("k", "check yourself")),
		Code:           key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "the code that decided")),
		Challenge:      key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "challenges")),
		Request:        key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "one request now")),
		Burst:          key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "a burst now")),
		Stream:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "stream from now / stop")),
		StreamRate:     key.NewBinding(key.WithKeys("<", ">"), key.WithHelp("< >", "stream slower/faster")),
		Undo:           key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo the last traffic")),
		Limit:          key.NewBinding(key.WithKeys("(", ")"), key.WithHelp("( )", "limit −/+")),
		Window:         key.NewBinding(key.WithKeys("{", "}"), key.WithHelp("{ }", "window −/+")),
		Help:           key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		CloseHelp:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "fewer keys")),
		Quit:           key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit:      key.NewBinding(key.WithKeys("ctrl+c")),
	}
}

// setLesson turns the step keys (n, p) on for a guided lesson.
func (k *keyMap) setLesson(on bool) {
	k.NextStep.SetEnabled(on)
	k.PrevStep.SetEnabled(on)
}

// setQuestions offers the quiz key when the scenario has questions.
func (k *keyMap) setQuestions(on bool) { k.hasQuestions = on }

// quizHelp is the quiz key when the help should offer it.
func (k keyMap) quizHelp() []key.Binding {
	if k.hasQuestions {
		return []key.Binding{k.Quiz}
	}
	return nil
}

func join(parts ...[]key.Binding) []key.Binding {
	var out []key.Binding
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func (k keyMap) ShortHelp() []key.Binding {
	if k.NextStep.Enabled() {
		// A lesson: stepping through it matters more than the rest.
		return join([]key.Binding{k.Play, k.NextCaption, k.NextStep}, k.quizHelp(), []key.Binding{k.Next, k.Prev, k.NextEdge})
	}
	// The quiz key, when the scenario has questions, comes early: it is
	// the one a student looks for. Help and quit are not here: the bar
	// always ends with them (tailHelp), whatever its width.
	return join([]key.Binding{k.Play, k.NextCaption}, k.quizHelp(), []key.Binding{k.Next, k.Prev, k.WhatIf, k.Clients, k.NextEdge, k.GoTo, k.Open})
}

// tailHelp ends the help bar, always whole.
func (k keyMap) tailHelp() []key.Binding { return []key.Binding{k.Help, k.Quit} }

func (k keyMap) FullHelp() [][]key.Binding {
	// The full help says what playing does at a caption: it holds it to be
	// read (player.go, captionHold), and tab goes on to the next at once.
	play, next := k.Play, k.NextCaption
	play.SetHelp("space", "play; holds each caption")
	next.SetHelp("tab", "next caption, ends a hold")
	return [][]key.Binding{
		{play, pair(k.Faster, k.Slower, "speed ×2 / ÷2"), pair(k.Start, k.End, "start / last request")},
		{pair(k.Next, k.Prev, "next / previous request"), pair(k.NextEdge, k.PrevEdge, "next / previous window edge"), k.GoTo},
		{next, k.PrevCaption, pair(k.ZoomIn, k.ZoomOut, "zoom in / out"), k.TimelineClient,
			pair(k.Chart, k.ChartTotal, "chart of state / all clients"),
			pair(k.Client, k.Clients, "next client / choose one"), k.Worst},
		{k.WhatIf, pair(k.Limit, k.Window, "limit / window −/+"), k.Save, k.Open, k.Code, k.Challenge},
		{pair(k.Request, k.Burst, "one request / a burst now"), pair(k.Stream, k.StreamRate, "stream: start/stop, rate −/+"), k.Undo},
		join(k.stepHelp(), k.quizHelp(), []key.Binding{k.Help, k.Quit}),
	}
}

// pair is two bindings as one line of the full help ("+ −  speed ×2 / ÷2"):
// it takes both's keys, so the help names only keys it answers to.
func pair(a, b key.Binding, desc string) key.Binding {
	if !a.Enabled() && !b.Enabled() {
		return a
	}
	return key.NewBinding(key.WithKeys(append(a.Keys(), b.Keys()...)...), key.WithHelp(a.Help().Key+" "+b.Help().Key, desc))
}

// stepHelp is the step keys as the full help lists them: one line each,
// where the short bar's n/p says both at once.
func (k keyMap) stepHelp() []key.Binding {
	if !k.NextStep.Enabled() {
		return nil
	}
	next, prev := k.NextStep, k.PrevStep
	next.SetHelp("n", "")
	return []key.Binding{pair(next, prev, "next / previous step")}
}

// promptKeys are the go-to-time prompt's.
type promptKeys struct {
	Go     key.Binding
	Cancel key.Binding
}

func newPromptKeys() promptKeys {
	return promptKeys{
		Go:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "go")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

func (k promptKeys) ShortHelp() []key.Binding { return []key.Binding{k.Go, k.Cancel} }

// pickerKeys are the open dialog's: its list, then the path prompt of
// "open a file…".
type pickerKeys struct {
	Up    key.Binding
	Down  key.Binding
	Open  key.Binding
	Close key.Binding // leaves the list
	Back  key.Binding // leaves the path prompt for the list
}

func newPickerKeys() pickerKeys {
	return pickerKeys{
		Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "choose")),
		Down:  key.NewBinding(key.WithKeys("down", "j")),
		Open:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Close: key.NewBinding(key.WithKeys("esc", "q", "o"), key.WithHelp("esc", "back")),
		Back:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the list")),
	}
}

// quizKeys are the quiz's, in its three phases: asking, the revealed
// answer and the score. Their help changes with the phase (quizDialog.help).
type quizKeys struct {
	Up     key.Binding // the choices
	Down   key.Binding
	Pick   key.Binding // a choice by its number
	Check  key.Binding
	Next   key.Binding // after an answer: the next question, or the score
	Replay key.Binding
	Clock  key.Binding // stands for the main view's keys that move the clock (←/→) in the help
	Skip   key.Binding // esc while asking: skip the question, see its answer
	Leave  key.Binding // esc after the answer: the score, or back to the scenario
	Quit   key.Binding // q: leave a choice question or the score
	Exit   key.Binding // ctrl+c, as the help names it
}

func newQuizKeys() quizKeys {
	return quizKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "choose")),
		Down:   key.NewBinding(key.WithKeys("down", "j", "tab")),
		Pick:   key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9")),
		Check:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "check")),
		Next:   key.NewBinding(key.WithKeys("enter", "n"), key.WithHelp("enter", "next question")),
		Replay: key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "replay")),
		Clock:  key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "step")),
		Skip:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "skip")),
		Leave:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "see your score")),
		Quit:   key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Exit:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
	}
}
