// Package ui is windowlab's interactive view: it replays a scenario through
// the limiters side by side on a virtual clock, one lane per limiter, with a
// timeline of every decision, the scenario's captions and the arithmetic of
// the last decision always on screen.
//
// The root Model is a router. It takes the classroom's messages (package
// room) and the terminal's (size, background, grapheme clustering) itself;
// while a move of the clock outlasts a frame, the player's job (player.go)
// has every message; otherwise keys go to the open Dialog (dialog.go) or,
// with none open, to the main view's keys. A Dialog answers with the next
// dialog, an action the root applies to the model and a command, and says
// how it shares the screen. Drawing is package ui/render's: pure functions
// of the snapshot the root takes after every move and of the terminal's
// size (view.go lays them out). Only the root returns a tea.View.
package ui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"windowlab/algo"
	"windowlab/quiz"
	"windowlab/room"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/ui/render"
)

// Options configure the view.
type Options struct {
	Scenario *scenarios.Scenario   // shown first
	Builtins []*scenarios.Scenario // offered by the open key (o)
	// Load reads a scenario file for "open a file…"; nil hides that entry.
	// It runs inside a tea.Cmd, never in Update.
	Load func(ctx context.Context, path string) (*scenarios.Scenario, error)
	// Lesson, when set, makes the view a guided lesson: one scenario per
	// step, n and p move between them, and Scenario is ignored.
	Lesson []*scenarios.Scenario
	// LessonStep is the step the lesson opens on (0-based).
	LessonStep int
	// LessonQuestions are what k asks at the lesson's last step beside the
	// step's own: the window lesson's two check-yourself questions
	// (quiz.Lesson), nil for a lesson without them.
	LessonQuestions []quiz.Item
	// Quiz, when set, opens the view on these questions; QuizTitle says
	// which set they are (such as "seed 1").
	Quiz      []quiz.Item
	QuizTitle string
	// Client, when set, is the client the view follows from the start (c
	// and C choose another): windowlab replay --tui's most denied.
	Client string
	// Presenter draws for the back of a room: taller, wider gauges and
	// high-contrast text.
	Presenter bool
	// Room, when set, puts the view in a classroom (room.Room): a
	// teacher's view publishes its position after every message that moved
	// it and may ask the room questions; a student's (Room.Follows) goes to
	// every position a room.FollowMsg brings until the student explores
	// alone, and answers the room's questions.
	Room room.Room
	// Questions, in a teacher's view, are what the teacher may ask beside
	// the scenario's own (the lesson's two, generated ones).
	Questions []quiz.Item
	// JoinHint, in a teacher's view, is how students join (the ssh
	// command), shown in its banner.
	JoinHint string
	// StartAt opens the view at a position (a teacher taking the room back).
	StartAt *room.Position
	// Name, when set, asks a student's name before the view.
	Name *NamePrompt
	// Started, when set, is given the program's Send once RunFinal has
	// made it, for messages from outside (a classroom's roster); Send
	// blocks until the program takes the message.
	Started func(send func(tea.Msg))
	// Store, when set, is where every engine's limiters decide
	// (windowlab tui --store): each lane's memory then shows what its keys
	// hold there beside the model.
	Store Store
	// CheckpointBytes bounds what each engine of the view keeps to step
	// back fast (sim.Options.CheckpointBytes; 0: the engine's default). A
	// server of many views sets it low.
	CheckpointBytes int64
	// SaveDir is where w writes a what-if scenario; "" is the working
	// directory.
	SaveDir string
	// WritesNothing keeps the view from writing any file (w says why): a
	// classroom's sessions, where the keys are a student's and the disk
	// the teacher's.
	WritesNothing bool
	// Seed orders the choices of the questions k asks (quiz.Shuffled):
	// the commands pick a new one for each view.
	Seed uint64
	// Challenge, when set, is a challenge to try from the start (its
	// number or name, challenge.Lookup): windowlab challenge N.
	Challenge string
	// ProgramOptions are passed to tea.NewProgram by RunFinal (tests pin the
	// size, input, output and colour profile here).
	ProgramOptions []tea.ProgramOption
}

// ErrInterrupted is RunFinal's error, with the final model, when the user
// quit with ctrl+c: the key a shell's SIGINT comes from, so the caller
// exits as an interrupted command does (130), where q is a normal quit.
var ErrInterrupted = errors.New("quit with ctrl+c")

// RunFinal shows the view until the user quits or ctx ends, and returns
// the final model (to read a quiz's score). It handles no signal itself:
// the caller ends ctx on ctrl+c from outside, a kill or a hangup.
func RunFinal(ctx context.Context, opts Options) (Model, error) {
	m, err := New(opts)
	if err != nil {
		return Model{}, err
	}
	// The last key pressed, to tell a quit by ctrl+c from one by q.
	var last string
	lastKey := tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
		if k, ok := msg.(tea.KeyPressMsg); ok {
			last = k.String()
		}
		return msg
	})
	// Signals are the caller's: ending ctx ends the view and puts the
	// terminal back. Bubble Tea's own handler would race the caller's.
	popts := append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler(), lastKey}, opts.ProgramOptions...)
	p := tea.NewProgram(m, popts...)
	if opts.Started != nil {
		opts.Started(p.Send)
	}
	final, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return m, ctx.Err()
	}
	if fm, ok := final.(Model); ok {
		m = fm
	}
	if err == nil && last == "ctrl+c" {
		err = ErrInterrupted
	}
	return m, err
}

// guidedLesson is the guided lesson: a scenario and a ready engine per
// step, and the step on screen.
type guidedLesson struct {
	lesson        []*scenarios.Scenario
	lessonEngines []*sim.Engine
	step          int
	checks        []quiz.Item // k's at the last step (Options.LessonQuestions)
}

// sources are the scenarios the open key offers: the built-ins, and files
// through load (nil: none).
type sources struct {
	builtins []*scenarios.Scenario
	load     func(context.Context, string) (*scenarios.Scenario, error)
	opened   int // the pickers opened so far: a load's answer names its own
}

// Model is the root model. It is a value; the engine it points at is the
// one piece of shared state, and only Update moves it.
type Model struct {
	c    render.Common
	keys keyMap
	help help.Model

	sc    *scenarios.Scenario
	eng   *sim.Engine
	start algo.Instant // where the view's clock starts
	end   algo.Instant // where playing stops: the last arrival plus a window
	snap  render.Snapshot

	player // the clock: playing, its speed, moves that outlast a frame (player.go)

	chosen   string      // the client chosen with c or the picker; "" follows the focus
	held     heldCaption // the caption whose request the lanes show (focus.go)
	landing  int         // the caption a move under way lands on, or -1
	timeline render.Zoom
	status   string

	// dialog is the window open over the main view (dialog.go); nil: none,
	// the main view has the keys.
	dialog Dialog

	sources                   // what the open key offers (open.go)
	guidedLesson              // the guided lesson's scenarios and the step on screen
	whatIfs                   // the scenario before what-if changed its rules, and where w writes (whatif.go)
	storeView                 // the store the limiters decide on, as last measured (store.go)
	roomState                 // a classroom's state (follow.go, poll.go)
	traffic      trafficState // traffic made at the clock (traffic.go)
	chartView                 // the chart of each limiter's state under the timeline, v (chart.go)

	presenter bool
	seed      uint64 // what k shuffles the choices by (Options.Seed)

	code   codeView     // the code that decided, beside a lane (d; code.go)
	trying challengeTry // the challenge being tried (x), its panel above the lanes (challenge.go)
}

// New returns the root model showing opts.Scenario (or the lesson's first
// step, or the quiz's first question), paused at its start.
func New(opts Options) (Model, error) {
	ctl := &engineControl{checkpointBytes: opts.CheckpointBytes, store: opts.Store}
	first := opts.Scenario
	var lessonEngines []*sim.Engine
	if len(opts.Lesson) > 0 {
		// A lesson is a handful of small scenarios: ready them all now, so
		// n and p switch instantly.
		for _, sc := range opts.Lesson {
			e, err := buildEngine(sc, ctl)
			if err != nil {
				return Model{}, err
			}
			lessonEngines = append(lessonEngines, e)
		}
		first = opts.Lesson[0]
	}
	if len(opts.Quiz) > 0 && first == nil {
		if opts.Quiz[0].Scenario == nil {
			return Model{}, errors.New("the quiz's first question has no scenario")
		}
		first = opts.Quiz[0].Scenario
	}
	var eng *sim.Engine
	if len(lessonEngines) > 0 {
		eng = lessonEngines[0]
	} else {
		var err error
		if eng, err = buildEngine(first, ctl); err != nil {
			return Model{}, err
		}
	}
	st := render.NewStyles(true, opts.Presenter)
	follows := opts.Room != nil && opts.Room.Follows()
	m := Model{
		c:            render.Common{Styles: st},
		keys:         newKeyMap(),
		help:         help.New(),
		sources:      sources{builtins: opts.Builtins, load: opts.Load},
		player:       player{speed: 1, ctl: ctl, budget: frameBudget, onScreen: -1},
		landing:      -1,
		presenter:    opts.Presenter,
		seed:         opts.Seed,
		guidedLesson: guidedLesson{lesson: opts.Lesson, lessonEngines: lessonEngines, checks: opts.LessonQuestions},
		whatIfs:      whatIfs{saveDir: cmp.Or(opts.SaveDir, "."), writesNothing: opts.WritesNothing},
		roomState: roomState{
			room:          opts.Room,
			inRoom:        follows,
			following:     follows,
			follow:        newFollowKeys(),
			reported:      follows,
			roomKeys:      newRoomKeys(),
			joinHint:      opts.JoinHint,
			pollQuestions: opts.Questions,
			poll:          pollDialog{keys: newPollKeys()},
		},
	}
	m.keys.setLesson(len(opts.Lesson) > 0)
	m.help.Styles = st.Help
	m.setScenario(first, eng)
	m.chosen = opts.Client
	if len(opts.Lesson) > 0 && opts.LessonStep > 0 {
		if opts.LessonStep >= len(opts.Lesson) {
			return Model{}, fmt.Errorf("the lesson has steps 1 to %d, not %d", len(opts.Lesson), opts.LessonStep+1)
		}
		m.goToStep(opts.LessonStep)
	}
	if opts.Name != nil {
		m.dialog = newNamePrompt(st, opts.Name)
	}
	if opts.StartAt != nil {
		m.budget = time.Hour // New has no frame to keep: go all the way
		m.goToPosition(*opts.StartAt)
		m.budget = frameBudget
	}
	if len(opts.Quiz) > 0 {
		m.dialog = newQuizDialog(st).start(opts.Quiz, opts.QuizTitle, false)
	}
	return m, m.tryFromStart(opts.Challenge)
}

// buildEngine makes a scenario's engine, with the history the timeline needs
// and ctl to interrupt its long work.
func buildEngine(sc *scenarios.Scenario, ctl *engineControl) (*sim.Engine, error) {
	if sc == nil {
		return nil, errors.New("there is no scenario to show")
	}
	opts := sim.Options{History: true, Interrupt: ctl.interrupt, CheckpointBytes: ctl.checkpointBytes}
	var wrap func([]algo.Limiter) ([]algo.Limiter, error)
	if ctl.store != nil {
		wrap = ctl.store.Wrap
	}
	e, err := sc.EngineWith(opts, wrap)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
	}
	return e, nil
}

func (m *Model) setScenario(sc *scenarios.Scenario, eng *sim.Engine) {
	m.sc, m.eng = sc, eng
	m.start = startInstant(eng)
	m.end = m.start
	if eng.Len() > 0 {
		m.end = eng.LastBound().Add(eng.Window()) // no pass over the arrivals
	}
	m.chosen = ""
	m.release()
	m.stop()
	m.speed = 1
	if sc.Speed > 0 {
		m.speed = min(max(sc.Speed, scenarios.MinSpeed), scenarios.MaxSpeed)
	}
	m.openEnd() // an empty clock plays on (windowlab play)
	m.timeline = render.NewZoom(eng.Window())
	m.status = ""
	m.rewind()
	m.keys.setQuestions(len(m.viewQuestions()) > 0)
}

// viewQuestions are what k asks: the scenario's questions, and at the
// lesson's last step the lesson's own (Options.LessonQuestions: the window
// lesson's two check-yourself questions), each proved by a replay of its
// scenario. Their choices are shuffled by the
// view's seed, so the first choice is not the answer.
func (m Model) viewQuestions() []quiz.Item {
	items := quiz.Of(m.sc)
	if n := len(m.lesson); n > 0 && m.sc == m.lesson[n-1] {
		items = append(items, m.checks...)
	}
	return quiz.Shuffled(m.seed, items)
}

// startInstant is where the view's clock starts: the engine's start when it
// is within a window before the first arrival, and otherwise a second before
// it, so pressing play does not spend hours of empty clock first.
func startInstant(e *sim.Engine) algo.Instant {
	s := e.Start()
	if e.Len() == 0 {
		return s
	}
	first := e.FirstArrival()
	w := algo.Instant(e.Window() / time.Millisecond)
	if s >= first || first-s > w {
		s = max(0, first.Truncate(time.Second)-1000)
		if s >= first { // an arrival at midnight
			s = first
		}
	}
	return s
}

// Init asks the terminal for its background, to pick light or dark styles.
func (m Model) Init() tea.Cmd { return tea.Batch(tea.RequestBackgroundColor, m.trying.wait()) }

// Update routes a message to the part of the view it concerns; in a
// classroom it follows the teacher or publishes where it stands.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if next, cmd, done := m.onRoomMsg(msg); done { // a room's challenge (roomchallenge.go)
		return next, cmd
	}
	switch msg := msg.(type) {
	case room.FollowMsg:
		return m.onFollow(msg.Position)
	case room.TeacherMsg:
		next, cmd := m.onTeacher(msg)
		nm := next.(Model)
		nm.reportFollowing()
		return nm, cmd
	case room.RosterMsg:
		m.roster = append([]room.Seat{}, msg.Seats...) // empty, not nil: a room with no one yet
		return m, nil
	case room.PollMsg:
		return m.onPoll(msg.Poll)
	case room.TallyMsg:
		return m.onTally(msg.Tally)
	}
	switch msg.(type) {
	case tea.KeyPressMsg, tea.MouseClickMsg:
		m.quietMove = false // the teacher's own move, to publish
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && m.teaching() && m.job == nil && m.dialog == nil {
		switch {
		case key.Matches(k, m.roomKeys.Ask):
			return m.openPoll()
		case key.Matches(k, m.roomKeys.Pause):
			m.pauseRoom(!m.roomPaused)
			return m, nil
		}
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && m.inRoom && m.job == nil && m.dialog == nil {
		if key.Matches(k, m.follow.Follow) {
			m.following, m.status = true, ""
			m.reportFollowing()
			if m.hasTeacher {
				return m, m.goToPosition(m.teacher)
			}
			return m, nil
		}
		m.detachOnMove(k)
	}
	next, cmd := m.update(msg)
	nm := next.(Model)
	if nm.missed && nm.job == nil && nm.dialog == nil {
		nm.missed = false
		if nm.following && nm.hasTeacher {
			cmd = tea.Batch(cmd, nm.goToPosition(nm.teacher))
		}
	}
	nm.publishPosition()
	nm.reportFollowing()
	cmd = tea.Batch(cmd, nm.reportAttempt())
	if c := nm.trying.room.pending; c != nil && nm.job == nil && !nm.naming() {
		after, open := nm.onRoomChallenge(*c)
		nm, cmd = after.(Model), tea.Batch(cmd, open)
	}
	if nm.pending != nil && nm.job == nil && !nm.naming() {
		after, open := nm.onPoll(*nm.pending)
		return after, tea.Batch(cmd, open)
	}
	return nm, cmd
}

// reportFollowing tells the room when a student starts or stops following.
func (m *Model) reportFollowing() {
	if m.room != nil && m.following != m.reported {
		m.reported = m.following
		m.room.Report(m.following)
	}
}

// update is Update without the classroom.
func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.ModeReportMsg:
		// The terminal lays out grapheme clusters (mode 2027), and the
		// renderer counts cells that way from now on: so does the view.
		if msg.Mode == ansi.ModeUnicodeCore && (msg.Value == ansi.ModeSet || msg.Value == ansi.ModeReset || msg.Value == ansi.ModePermanentlySet) {
			m.c.Cells = ansi.GraphemeWidth
		}
		return m, nil
	case tea.BackgroundColorMsg:
		// Children read the styles from m.c when they draw.
		m.c.Styles = render.NewStyles(msg.IsDark(), m.presenter)
		m.help.Styles = m.c.Styles.Help
		return m, nil
	}
	if m.job != nil {
		return m.updateJob(msg)
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = max(0, msg.Width), max(0, msg.Height)
		m.help.SetWidth(m.c.Width)
		if r, ok := m.dialog.(resizer); ok {
			m.dialog = r.resize(m.c.Width)
		}
		m.refresh() // the timeline's cells depend on the width
		return m, nil
	case tickMsg:
		return m.onTick(msg)
	case revealMsg:
		return m.onReveal(msg)
	case clientsMsg:
		return m.onClients(msg)
	case challengeHintMsg:
		m.trying.hintDue(msg)
		return m, nil
	case savedMsg:
		if msg.err != nil {
			m.status = "could not write the what-if: " + msg.err.Error()
		} else {
			m.status = "wrote " + msg.path + " (windowlab tui " + msg.path + " replays it)"
		}
		return m, nil
	case scenarioMsg:
		return m.onScenario(msg), nil
	case tea.KeyPressMsg:
		if key.Matches(msg, m.keys.ForceQuit) {
			return m, tea.Quit
		}
		if m.dialog != nil {
			return m.updateDialog(msg)
		}
		next, cmd := m.updateMain(msg)
		if nm, ok := next.(Model); ok && nm.dialog != nil && nm.help.ShowAll {
			nm.showAllKeys(false) // a dialog has its own keys: the view's list would come back when it closes
			return nm, cmd
		}
		return next, cmd
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		return m.onMouse(msg)
	}
	// Anything else (a text input's own messages) goes to the dialog.
	if m.dialog != nil {
		return m.updateDialog(msg)
	}
	return m, nil
}

// onScenario shows a scenario the picker loaded, or says why it could
// not; an answer to a load the user gave up is dropped.
func (m Model) onScenario(msg scenarioMsg) Model {
	p, picking := m.dialog.(scenarioPicker)
	if msg.load != 0 && !(picking && p.loaded(msg.picker, msg.load)) {
		return m // a load the user gave up
	}
	if msg.err != nil {
		if picking {
			m.dialog = p.failed(msg.err)
		} else {
			m.status = msg.err.Error()
		}
		return m
	}
	if picking {
		p.reset() // its load is done: let go of its context
	}
	m.dialog = nil
	m.original = nil
	m.setScenario(msg.scenario, msg.engine)
	return m
}

// onMouse seeks where a click on the timeline points, and zooms it with
// the wheel, while the lanes are on screen.
func (m Model) onMouse(msg tea.Msg) (tea.Model, tea.Cmd) {
	if !m.showsLanes() {
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.MouseClickMsg:
		if msg.Button == tea.MouseLeft {
			if t, ok := m.timelineInstantAt(msg.X, msg.Y); ok {
				m.release()
				return m, m.seek(t)
			}
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.timeline = m.timeline.In(m.c.Width)
		case tea.MouseWheelDown:
			m.timeline = m.timeline.Out(m.c.Width)
		}
		m.refresh()
	}
	return m, nil
}

func (m Model) updateMain(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	m.status = ""
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Play):
		if m.playing {
			m.stop()
			return m, nil
		}
		if m.eng.Now() >= m.end {
			m.rewind() // play again from the start
		}
		return m, m.play()
	case key.Matches(msg, k.Next, k.Prev, k.NextEdge, k.PrevEdge, k.Start, k.End):
		m.release()
		return m, m.moveClock(msg)
	case key.Matches(msg, k.NextCaption):
		return m, m.jumpCaption(+1)
	case key.Matches(msg, k.PrevCaption):
		return m, m.jumpCaption(-1)
	case key.Matches(msg, k.Challenge):
		m.dialog = m.challengeDialog()
		return m, nil
	case key.Matches(msg, k.GoTo, k.Open, k.Quiz):
		return m.openDialog(msg)
	case key.Matches(msg, k.WhatIf):
		m.stop()
		m.dialog = newWhatIfForm(m.c.Styles, m.sc)
		return m, nil
	case key.Matches(msg, k.Request, k.Burst, k.Stream, k.StreamRate, k.Undo, k.Limit, k.Window):
		return m.onTrafficKey(msg)
	case key.Matches(msg, k.Save):
		if m.writesNothing {
			m.status = "this view writes no files (a classroom over SSH): the what-if stays on your screen"
			return m, nil
		}
		if len(m.entries()) > 0 {
			cmd := m.saveTrafficCmd()
			return m, cmd
		}
		if m.original == nil {
			m.status = "nothing to write: e changes the rules first, r b s make traffic"
			return m, nil
		}
		return m, m.saveCmd()
	case key.Matches(msg, k.Clients, k.Worst):
		if len(m.eng.Clients()) == 0 {
			m.status = "no client has sent a request yet"
			return m, nil
		}
		m.dialog = newClientPicker(true)
		return m, m.countCmd(key.Matches(msg, k.Worst))
	case key.Matches(msg, k.NextStep):
		m.goToStep(m.step + 1)
	case key.Matches(msg, k.PrevStep):
		m.goToStep(m.step - 1)
	default:
		m.adjustView(msg)
	}
	return m, nil
}

// openDialog opens the go-to prompt, the scenario picker or the scenario's quiz.
func (m Model) openDialog(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.GoTo):
		p, cmd := newGoToPrompt(m.c.Styles).setWidth(m.c.Width).open(m.eng.Now())
		m.dialog = p
		return m, cmd
	case key.Matches(msg, k.Open):
		if len(m.builtins) == 0 && m.load == nil {
			m.status = "there are no other scenarios to open"
			return m, nil
		}
		m.opened++
		m.dialog = newPicker(m.builtins, m.load != nil, m.c.Styles, m.opened).setWidth(m.c.Width)
	case key.Matches(msg, k.Quiz):
		questions := m.viewQuestions()
		if len(questions) == 0 {
			m.status = "this scenario has no questions; windowlab quiz has plenty"
			return m, nil
		}
		m.stop()
		q := newQuizDialog(m.c.Styles).start(questions, m.title(), true)
		q.saved = savedView{sc: m.sc, eng: m.eng, processed: m.eng.Processed(), now: m.eng.Now()}
		m.dialog = q
	}
	return m, nil
}

// adjustView changes how the replay is shown, not where it stands: speed,
// zoom, the focused client, the full help.
func (m *Model) adjustView(msg tea.KeyPressMsg) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Faster):
		m.speed = min(scenarios.MaxSpeed, m.speed*2)
	case key.Matches(msg, k.Slower):
		m.speed = max(scenarios.MinSpeed, m.speed/2)
	case key.Matches(msg, k.ZoomIn):
		m.timeline = m.timeline.In(m.c.Width)
		m.refresh()
	case key.Matches(msg, k.ZoomOut):
		m.timeline = m.timeline.Out(m.c.Width)
		m.refresh()
	case key.Matches(msg, k.TimelineClient):
		m.timeline.Client = !m.timeline.Client
		m.refresh()
	case key.Matches(msg, k.Chart, k.ChartTotal):
		m.toggleChart(key.Matches(msg, k.ChartTotal))
	case key.Matches(msg, k.Client):
		m.chosen = nextClient(m.eng.Clients(), m.chosen)
		m.refresh()
	case key.Matches(msg, k.Code):
		m.toggleCode()
		m.refresh() // the lanes beside the panel are narrower: the log's strip is counted again
	case key.Matches(msg, k.Help):
		m.showAllKeys(!m.help.ShowAll)
	case key.Matches(msg, k.CloseHelp):
		m.showAllKeys(false)
	}
}

// showAllKeys shows every key (?) or the short bar; esc and opening a
// dialog go back to the short bar.
func (m *Model) showAllKeys(all bool) {
	m.help.ShowAll = all
	if all {
		m.keys.Help.SetHelp("?", "fewer keys")
	} else {
		m.keys.Help.SetHelp("?", "keys")
	}
}

// nextClient is the client after chosen in first-seen order, "" (follow
// the focus) after the last.
func nextClient(clients []string, chosen string) string {
	i := -1
	for j, c := range clients {
		if c == chosen {
			i = j
		}
	}
	if chosen != "" && i < 0 { // not met yet at this point of the replay
		return ""
	}
	if i+1 < len(clients) {
		return clients[i+1]
	}
	return ""
}

// goToStep shows step i of the lesson from its start.
func (m *Model) goToStep(i int) {
	switch {
	case len(m.lesson) == 0:
		return
	case i < 0:
		m.status = "this is the first step"
		return
	case i >= len(m.lesson):
		m.status = "this is the last step; p goes back"
		return
	}
	m.leaveTraffic()
	m.step = i
	m.original = nil
	m.setScenario(m.lesson[i], m.lessonEngines[i])
}

// showsLanes reports whether the lanes and timeline are on screen.
func (m Model) showsLanes() bool {
	q, quizzing := m.openQuiz()
	return m.dialog == nil || (quizzing && q.phase == quizRevealed)
}

// refresh reads the engine after it moved (or the timeline's geometry
// changed) into the snapshot, so that drawing reads no engine.
func (m *Model) refresh() {
	m.settle()
	h := m.eng.History()
	ci := m.captionIndex()
	m.noteOnScreen(ci)
	var held *sim.Record
	if m.held.on {
		held = &m.held.rec
	}
	caption := ""
	if ci >= 0 && ci < len(m.sc.Captions) {
		caption = m.sc.Captions[ci].Text
	}
	m.snap = render.Take(m.eng, m.focusNow(ci), held, caption)
	if caption != "" { // a caption's words beside decisions the store did not make
		m.snap.Storeless = render.NoteWithoutStore(m.eng, m.sc.Captions[ci].At, m.sc.CaptionEnd(ci))
	}
	m.snap.CountWindows(m.eng, m.lanes().StripCells)
	id := int32(-1)
	if m.timeline.Client && m.snap.Client != "" {
		id = int32(slices.Index(m.eng.Clients(), m.snap.Client))
	}
	m.snap.Timeline = m.timeline.CellsAt(h, m.snap.Now, m.c.Width, len(m.snap.Algorithms), id)
	if id >= 0 {
		m.snap.Timeline.Client = m.snap.Client
	}
	m.snap.Recent = render.RecentRows(h, m.eng.Clients(), m.c.Height)
	m.measureStore()
	m.readChart()
	m.trying.recheck(m.eng, m.snap.Config, m.snap.Algorithms, m.playing)
}

// Position reports the clock and how many arrivals are decided (for tests
// and for main to read back the final model). It reads the model's own
// snapshot, never the engine, so it is safe on a copy held elsewhere.
func (m Model) Position() (now algo.Instant, processed int64) {
	return m.snap.Now, m.snap.Processed
}

// Playing reports whether the clock is running.
func (m Model) Playing() bool { return m.playing }

// Step reports the lesson step on screen (0-based) and how many there are.
func (m Model) Step() (int, int) { return m.step, len(m.lesson) }
