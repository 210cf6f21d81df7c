// Package ui is windowlab's interactive view: it replays a scenario through
// the limiters side by side on a virtual clock, one lane per limiter, with a
// timeline of every decision, the scenario's captions and the arithmetic of
// the last decision always on screen.
//
// One root Model routes messages: a WindowSizeMsg reaches every child, keys
// reach the focused one (the main view, the go-to-time prompt or the
// scenario picker). Children return strings; only the root returns a tea.View.
package ui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/harmonica"
	"github.com/charmbracelet/x/ansi"

	"windowlab/algo"
	"windowlab/quiz"
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
	// Publish, when set, is called with the view's position after every
	// message that moved it: a teacher's view in a classroom. It must not
	// block.
	Publish func(Position)
	// Follow makes the view a student's in a classroom: it goes to every
	// position a FollowMsg brings until the student explores alone.
	Follow bool
	// Report, in a student's view, is called when it starts or stops
	// following; it must not block.
	Report func(following bool)
	// Ask, in a teacher's view, puts a question to the room, reveals it
	// or closes it (Poll.ID 0); it must not block. Questions are what the
	// teacher may ask beside the scenario's own (the lesson's two,
	// generated ones).
	Ask       func(Poll)
	Questions []quiz.Item
	// JoinHint, in a teacher's view, is how students join (the ssh
	// command), shown in its banner.
	JoinHint string
	// Answer, in a student's view, sends the student's answer to the
	// room's question; it must not block.
	Answer func(id int, text string)
	// StartAt opens the view at a position (a teacher taking the room back).
	StartAt *Position
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

// frame is how often the clock moves while playing: about 30 frames a second.
const frame = time.Second / 30

// Playback speeds, as multiples of real time.
const (
	minSpeed = 0.1
	maxSpeed = 1000
)

type mode int

const (
	modeMain mode = iota
	modeGoTo
	modePicker
	modeQuiz
	modeClients
	modeWhatIf
	modeName
	modePoll
)

// tickMsg moves the clock while playing; gen ties it to one run of playback
// so a tick that was in flight when the user paused is ignored.
type tickMsg struct {
	at  time.Time
	gen int
}

// scenarioMsg carries a scenario loaded (or not) by a tea.Cmd.
type scenarioMsg struct {
	scenario *scenarios.Scenario
	engine   *sim.Engine
	err      error
	load     int // the picker's load it answers; 0 for a built-in
}

// Model is the root model. It is a value; the engine it points at is the
// one piece of shared state, and only Update moves it.
type Model struct {
	// The store the limiters decide on (Options.Store), as last measured.
	storeLanes []render.StoreLane
	storeAt    storeMark
	storeWhen  time.Time
	storeErr   error

	c        render.Common
	keys     keyMap
	help     help.Model
	builtins []*scenarios.Scenario
	load     func(context.Context, string) (*scenarios.Scenario, error)

	sc    *scenarios.Scenario
	eng   *sim.Engine
	start algo.Instant // where the view's clock starts
	end   algo.Instant // where playing stops: the last arrival plus a window

	playing  bool
	speed    float64
	carry    float64 // virtual milliseconds not yet applied
	gen      int
	lastTick time.Time

	chosen   string      // the client chosen with c or the picker; "" follows the focus
	held     heldCaption // the caption whose request the lanes show (focus.go)
	landing  int         // the caption a move under way lands on, or -1
	timeline timeline
	mode     mode
	goTo     goToPrompt
	picker   picker
	status   string

	clients    clientPicker // the client picker (clients.go)
	clientsGen int          // the count it waits for

	whatIf        whatIfForm          // the what-if form (whatif.go)
	original      *scenarios.Scenario // the scenario before what-if changed its rules; nil when unchanged
	saveDir       string              // where w writes a what-if
	writesNothing bool

	snap render.Snapshot

	presenter bool
	// The guided lesson: a scenario and a ready engine per step.
	lesson        []*scenarios.Scenario
	lessonEngines []*sim.Engine
	step          int

	quiz quizView

	// Moves of the clock that outlast a frame (job.go).
	ctl      *engineControl
	budget   time.Duration // how long a move may run inside Update: frameBudget
	job      *job
	jobGen   int
	quitting bool // q was pressed during a job: quit when it has stopped

	// A note on what playing did by itself (skipping an idle stretch),
	// shown until the clock reaches noteUntil.
	note      string
	noteUntil algo.Instant
	dwell     time.Time // playing holds the clock until this tick (captionDwell)

	springs []springState // the gauges' springs while playing (animate)

	// A classroom (follow.go).
	publish    func(Position)
	published  Position
	inRoom     bool // a student's view
	following  bool
	teacher    Position // the teacher's last position
	hasTeacher bool
	follow     followKeys
	report     func(bool)
	reported   bool
	roster     []Seat // a teacher's: the students in the room
	name       namePrompt
	roomKeys   roomKeys
	roomPaused bool     // a teacher's: positions stay unpublished
	pausedAt   Position // where the room was paused
	quietMove  bool     // a teacher's: the view moved to another teacher's position, not to be published
	joinHint   string
	// The live quiz (poll.go).
	poll          pollView
	askRoom       func(Poll)
	pollQuestions []quiz.Item
	answer        func(int, string)
	pending       *Poll // a question that came during a move or the name prompt
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
	m := Model{
		c:             render.Common{Styles: st},
		keys:          newKeyMap(),
		help:          help.New(),
		builtins:      opts.Builtins,
		load:          opts.Load,
		speed:         1,
		landing:       -1,
		presenter:     opts.Presenter,
		lesson:        opts.Lesson,
		lessonEngines: lessonEngines,
		ctl:           ctl,
		budget:        frameBudget,
		saveDir:       cmp.Or(opts.SaveDir, "."),
		writesNothing: opts.WritesNothing,
		publish:       opts.Publish,
		inRoom:        opts.Follow,
		following:     opts.Follow,
		follow:        newFollowKeys(),
		report:        opts.Report,
		reported:      opts.Follow,
		roomKeys:      newRoomKeys(),
		joinHint:      opts.JoinHint,
		askRoom:       opts.Ask,
		pollQuestions: opts.Questions,
		answer:        opts.Answer,
		poll:          pollView{keys: newPollKeys()},
	}
	m.keys.setLesson(len(opts.Lesson) > 0)
	m.help.Styles = st.Help
	m.goTo = newGoToPrompt(st)
	m.picker = newPicker(opts.Builtins, opts.Load != nil, st)
	m.quiz = newQuizView(st)
	m.clients = newClientPicker(st)
	m.setScenario(first, eng)
	m.chosen = opts.Client
	if len(opts.Lesson) > 0 && opts.LessonStep > 0 {
		if opts.LessonStep >= len(opts.Lesson) {
			return Model{}, fmt.Errorf("the lesson has steps 1 to %d, not %d", len(opts.Lesson), opts.LessonStep+1)
		}
		m.goToStep(opts.LessonStep)
	}
	if opts.Name != nil {
		m.name = newNamePrompt(st, opts.Name)
		m.mode = modeName
	}
	if opts.StartAt != nil {
		m.budget = time.Hour // New has no frame to keep: go all the way
		m.goToPosition(*opts.StartAt)
		m.budget = frameBudget
	}
	if len(opts.Quiz) > 0 {
		m.quiz = m.quiz.start(opts.Quiz, opts.QuizTitle, false)
		m.mode = modeQuiz
	}
	return m, nil
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
		m.speed = min(max(sc.Speed, minSpeed), maxSpeed)
	}
	m.timeline = newTimeline(eng.Window())
	m.status = ""
	m.rewind()
	m.keys.setQuestions(len(sc.Questions) > 0)
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
func (m Model) Init() tea.Cmd { return tea.RequestBackgroundColor }

// Update routes a message to the part of the view it concerns; in a
// classroom it follows the teacher or publishes where it stands.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case FollowMsg:
		return m.onFollow(msg.Position)
	case TeacherMsg:
		next, cmd := m.onTeacher(msg)
		nm := next.(Model)
		nm.reportFollowing()
		return nm, cmd
	case RosterMsg:
		m.roster = append([]Seat{}, msg.Seats...) // empty, not nil: a room with no one yet
		return m, nil
	case PollMsg:
		return m.onPoll(msg.Poll)
	case TallyMsg:
		return m.onTally(msg.Tally)
	}
	switch msg.(type) {
	case tea.KeyPressMsg, tea.MouseClickMsg:
		m.quietMove = false // the teacher's own move, to publish
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && m.publish != nil && m.job == nil && m.mode == modeMain {
		switch {
		case key.Matches(k, m.roomKeys.Ask):
			return m.openPoll()
		case key.Matches(k, m.roomKeys.Pause):
			m.pauseRoom(!m.roomPaused)
			return m, nil
		}
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && m.inRoom && m.job == nil && m.mode == modeMain {
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
	nm.publishPosition()
	nm.reportFollowing()
	if nm.pending != nil && nm.job == nil && nm.mode != modeName {
		after, open := nm.onPoll(*nm.pending)
		return after, tea.Batch(cmd, open)
	}
	return nm, cmd
}

// reportFollowing tells the room when a student starts or stops following.
func (m *Model) reportFollowing() {
	if m.report != nil && m.following != m.reported {
		m.reported = m.following
		m.report(m.following)
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
		m.goTo = m.goTo.setWidth(m.c.Width)
		m.picker = m.picker.setWidth(m.c.Width)
		m.refresh() // the timeline's cells depend on the width
		return m, nil
	case tickMsg:
		return m.onTick(msg)
	case revealMsg:
		return m.onReveal(msg)
	case clientsMsg:
		return m.onClients(msg)
	case savedMsg:
		if msg.err != nil {
			m.status = "could not write the what-if: " + msg.err.Error()
		} else {
			m.status = "wrote " + msg.path + " (windowlab tui " + msg.path + " replays it)"
		}
		return m, nil
	case scenarioMsg:
		if msg.load != 0 && !m.picker.loaded(msg.load) {
			return m, nil // a load the user gave up
		}
		if msg.err != nil {
			if m.mode == modePicker {
				m.picker = m.picker.failed(msg.err)
			} else {
				m.status = msg.err.Error()
			}
			return m, nil
		}
		m.mode = modeMain
		m.picker = m.picker.reset()
		m.original = nil
		m.setScenario(msg.scenario, msg.engine)
		return m, nil
	case tea.KeyPressMsg:
		if key.Matches(msg, m.keys.ForceQuit) {
			return m, tea.Quit
		}
		switch m.mode {
		case modeGoTo:
			return m.updateGoTo(msg)
		case modePicker:
			return m.updatePicker(msg)
		case modeQuiz:
			return m.updateQuiz(msg)
		case modeWhatIf:
			return m.updateWhatIf(msg)
		case modeName:
			return m.updateName(msg)
		case modePoll:
			return m.updatePoll(msg)
		case modeClients:
			if m.clients.loading { // the count reads the history: nothing moves until it is done
				if key.Matches(msg, m.keys.Quit) {
					return m, tea.Quit
				}
				return m, nil
			}
			return m.updateClients(msg)
		}
		return m.updateMain(msg)
	case tea.MouseClickMsg:
		if m.showsLanes() && msg.Button == tea.MouseLeft {
			if t, ok := m.timelineInstantAt(msg.X, msg.Y); ok {
				m.release()
				return m, m.seek(t)
			}
		}
		return m, nil
	case tea.MouseWheelMsg:
		if m.showsLanes() {
			switch msg.Button {
			case tea.MouseWheelUp:
				m.timeline = m.timeline.zoomIn(m.c.Width)
			case tea.MouseWheelDown:
				m.timeline = m.timeline.zoomOut(m.c.Width)
			}
			m.refresh()
		}
		return m, nil
	}
	// Anything else (a text input's own messages) goes to the focused child.
	var cmd tea.Cmd
	switch m.mode {
	case modeGoTo:
		m.goTo, cmd = m.goTo.update(msg)
	case modePicker:
		m.picker, cmd = m.picker.update(msg)
	case modeQuiz:
		m.quiz, cmd = m.quiz.update(msg)
	case modeClients:
		m.clients.list, cmd = m.clients.list.Update(msg)
	}
	return m, cmd
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
		return m, m.stepCaption(+1)
	case key.Matches(msg, k.PrevCaption):
		return m, m.stepCaption(-1)
	case key.Matches(msg, k.GoTo, k.Open, k.Quiz):
		return m.openMode(msg)
	case key.Matches(msg, k.WhatIf):
		m.stop()
		m.whatIf = newWhatIfForm(m.c.Styles, m.sc)
		m.mode = modeWhatIf
		return m, nil
	case key.Matches(msg, k.Save):
		if m.writesNothing {
			m.status = "this view writes no files (a classroom over SSH): the what-if stays on your screen"
			return m, nil
		}
		if m.original == nil {
			m.status = "nothing to write: e changes the rules first"
			return m, nil
		}
		return m, m.saveCmd()
	case key.Matches(msg, k.Clients, k.Worst):
		if len(m.eng.Clients()) == 0 {
			m.status = "no client has sent a request yet"
			return m, nil
		}
		m.mode, m.clients.loading = modeClients, true
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

// stepCaption goes to the next (dir > 0) or previous caption's moment,
// pausing there; in a lesson, past the last caption to the next step and
// before the first to the previous one.
func (m *Model) stepCaption(dir int) tea.Cmd {
	m.stop()
	i := m.prevCaption()
	if dir > 0 {
		i = m.nextCaption()
	}
	switch {
	case i >= 0:
		return m.landCaption(i)
	case dir > 0 && len(m.lesson) > 0 && m.step < len(m.lesson)-1:
		m.goToStep(m.step + 1)
	case dir < 0 && len(m.lesson) > 0 && m.step > 0 && m.eng.Processed() == 0:
		m.goToStep(m.step - 1)
	case dir < 0:
		m.release()
		m.rewind()
	default:
		m.status = "that was the last caption"
		if len(m.lesson) > 0 {
			m.status = "that was the last caption of the lesson; p goes back a step"
		}
	}
	return nil
}

// moveClock steps to the next or previous request or window edge, or to
// either end; a move that outlasts a frame goes on in the background.
func (m *Model) moveClock(msg tea.KeyPressMsg) tea.Cmd {
	k, now, cfg := m.keys, m.eng.Now(), m.eng.Config()
	switch {
	case key.Matches(msg, k.Next):
		m.stop()
		if _, ok := m.eng.Step(); ok {
			m.refresh()
		} else {
			m.refresh() // where it stood, its caption held again
			m.status = "that was the last request; g goes back to the start"
		}
	case key.Matches(msg, k.Prev):
		m.stop()
		switch n := m.eng.Processed(); {
		case n > 0:
			return m.seekIndex(n - 1)
		case now != m.start:
			m.rewind()
		default:
			m.refresh()
			m.status = "this is the start: no request yet"
		}
	case key.Matches(msg, k.NextEdge):
		// The edge is fixed before the move, so a move that goes on in the
		// background ends there (sim.Engine.NextEdge, with a fixed target).
		if next := cfg.NextEdge(now); next <= m.lastInstant() {
			return m.seek(next)
		}
	case key.Matches(msg, k.PrevEdge):
		if now > 0 { // the clock never goes before midnight
			return m.seek(cfg.PrevEdge(now))
		}
	case key.Matches(msg, k.Start):
		m.rewind()
	case key.Matches(msg, k.End):
		return m.seekIndex(m.eng.Len())
	}
	return nil
}

// openMode opens the go-to prompt, the open dialog or the scenario's quiz.
func (m Model) openMode(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.GoTo):
		m.mode = modeGoTo
		var cmd tea.Cmd
		m.goTo, cmd = m.goTo.open(m.eng.Now())
		return m, cmd
	case key.Matches(msg, k.Open):
		if len(m.builtins) == 0 && m.load == nil {
			m.status = "there are no other scenarios to open"
			return m, nil
		}
		m.mode = modePicker
		m.picker = m.picker.reset()
	case key.Matches(msg, k.Quiz):
		if len(m.sc.Questions) == 0 {
			m.status = "this scenario has no questions; windowlab quiz has plenty"
			return m, nil
		}
		m.stop()
		m.quiz = m.quiz.start(quiz.Of(m.sc), m.title(), true)
		m.quiz.saved = savedView{sc: m.sc, eng: m.eng, processed: m.eng.Processed(), now: m.eng.Now()}
		m.mode = modeQuiz
	}
	return m, nil
}

// adjustView changes how the replay is shown, not where it stands: speed,
// zoom, the focused client, the full help.
func (m *Model) adjustView(msg tea.KeyPressMsg) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Faster):
		m.speed = min(maxSpeed, m.speed*2)
	case key.Matches(msg, k.Slower):
		m.speed = max(minSpeed, m.speed/2)
	case key.Matches(msg, k.ZoomIn):
		m.timeline = m.timeline.zoomIn(m.c.Width)
		m.refresh()
	case key.Matches(msg, k.ZoomOut):
		m.timeline = m.timeline.zoomOut(m.c.Width)
		m.refresh()
	case key.Matches(msg, k.TimelineClient):
		m.timeline.client = !m.timeline.client
		m.refresh()
	case key.Matches(msg, k.Client):
		m.chosen = nextClient(m.eng.Clients(), m.chosen)
		m.refresh()
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		if m.help.ShowAll {
			m.keys.Help.SetHelp("?", "fewer keys")
		} else {
			m.keys.Help.SetHelp("?", "keys")
		}
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

func (m Model) updateGoTo(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.goTo.keys.Cancel):
		m.mode = modeMain
		m.goTo = m.goTo.close()
		return m, nil
	case key.Matches(msg, m.goTo.keys.Go):
		t, err := parseClock(m.goTo.value(), m.eng.Now())
		if err != nil {
			m.goTo = m.goTo.fail(err)
			return m, nil
		}
		m.mode = modeMain
		m.goTo = m.goTo.close()
		return m, m.goToInstant(t)
	}
	var cmd tea.Cmd
	m.goTo, cmd = m.goTo.update(msg)
	return m, cmd
}

func (m Model) updatePicker(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	p, act, cmd := m.picker.updateKey(msg)
	m.picker = p
	switch act.kind {
	case pickCancel:
		m.mode = modeMain
	case pickBuiltin:
		sc, ctl := act.scenario, m.ctl
		return m, func() tea.Msg {
			e, err := buildEngine(sc, ctl)
			return scenarioMsg{scenario: sc, engine: e, err: err}
		}
	case pickFile:
		load, path, ctx, n, ctl := m.load, act.path, act.ctx, act.load, m.ctl
		return m, func() tea.Msg {
			sc, err := load(ctx, path)
			if err != nil {
				return scenarioMsg{err: err, load: n}
			}
			e, err := buildEngine(sc, ctl)
			return scenarioMsg{scenario: sc, engine: e, err: err, load: n}
		}
	}
	return m, cmd
}

// goToInstant lands where a person going to t expects: on the request a
// caption at t speaks of, or else before t's first request, so that →
// steps through them.
func (m *Model) goToInstant(t algo.Instant) tea.Cmd {
	m.release()
	for i, c := range m.sc.Captions {
		if c.At == t && c.Speaks() { // one that speaks of no request is on from the instant itself
			return m.landCaption(i)
		}
	}
	t = m.clamp(t)
	return m.move(func(e *sim.Engine) { e.SeekBefore(t) })
}

// play starts the clock from where it stands.
func (m *Model) play() tea.Cmd {
	m.playing = true
	m.gen++
	m.lastTick = time.Time{}
	m.dwell = time.Time{}
	m.carry = 0
	return m.tick()
}

// tick schedules the next frame of playback.
func (m Model) tick() tea.Cmd {
	gen := m.gen
	return tea.Tick(frame, func(t time.Time) tea.Msg { return tickMsg{at: t, gen: gen} })
}

// onTick moves the clock by speed × the real time since the last frame,
// measured between the ticks' own timestamps. It lands on every caption
// it crosses that speaks of a request (and stops at one that pauses), and
// crosses a stretch where nothing happens for more than idleWall quickly.
func (m Model) onTick(msg tickMsg) (tea.Model, tea.Cmd) {
	if !m.playing || msg.gen != m.gen {
		return m, nil
	}
	elapsed := frame
	if !m.lastTick.IsZero() {
		elapsed = min(max(msg.at.Sub(m.lastTick), 0), 10*frame)
	}
	m.lastTick = msg.at
	if msg.at.Before(m.dwell) {
		return m, m.tick() // a caption's moment lingers before the next at its instant
	}
	ms := m.speed*float64(elapsed)/float64(time.Millisecond) + m.carry
	whole := math.Floor(ms)
	m.carry = ms - whole
	now := m.eng.Now()
	target := now + algo.Instant(whole)
	if m.mode == modeMain {
		if i, ok := m.captionBetween(now, target); ok {
			c := &m.sc.Captions[i]
			if c.Pause {
				m.stop()
				m.status = "paused at the caption: space goes on"
			}
			if i+1 < len(m.sc.Captions) && m.sc.Captions[i+1].At == c.At {
				m.dwell = msg.at.Add(captionDwell)
			}
			if cmd := m.landCaption(i); cmd != nil {
				return m, cmd // the next frame comes when the job is done
			}
			if !m.playing {
				return m, nil
			}
			return m, m.tick()
		}
		if skip, ok := m.idleUntil(now, target); ok {
			target = skip
		}
	}
	if target >= m.end {
		target = m.end
		m.stop()
		if m.mode == modeMain && len(m.lesson) > 0 && m.step < len(m.lesson)-1 {
			m.status = "end of this step: n goes on to the next"
		}
	}
	if at, ok := m.proofBetween(now, target); ok {
		target = at
		m.stop()
	}
	if cmd := m.seek(target); cmd != nil {
		return m, cmd // the next frame comes when the job is done
	}
	if !m.playing {
		return m, nil
	}
	m.animate()
	return m, m.tick()
}

// gaugeSpring moves each gauge toward its level at 30 frames a second,
// critically damped: a fixed window's count falls to 0 at an edge in a
// few frames, visibly, without overshooting.
var gaugeSpring = harmonica.NewSpring(harmonica.FPS(30), 12, 1)

// animate moves the gauges' springs a frame toward the levels the lanes
// show now; stepping and pausing draw the exact levels (refresh).
func (m *Model) animate() {
	n := len(m.snap.Peek)
	if len(m.springs) != n {
		m.springs = make([]springState, n)
		for i, d := range m.snap.Peek {
			m.springs[i].pos = render.GaugeLevel(d)
		}
	}
	springs := make([]springState, n)
	shown := make([]float64, n)
	for i, d := range m.snap.Peek {
		s := m.springs[i]
		s.pos, s.vel = gaugeSpring.Update(s.pos, s.vel, render.GaugeLevel(d))
		springs[i], shown[i] = s, s.pos
	}
	m.springs, m.snap.Shown = springs, shown
}

// springState is one gauge's spring: where it is drawn, how fast it moves.
type springState struct{ pos, vel float64 }

// captionBetween is the first caption playing from → to reaches that
// speaks of a request or pauses: its instant in (from, to], or at from
// itself, still to come.
func (m Model) captionBetween(from, to algo.Instant) (int, bool) {
	cur := m.captionIndex()
	for i := range m.sc.Captions {
		c := &m.sc.Captions[i]
		if c.At > to {
			break
		}
		if !c.Speaks() && !c.Pause {
			continue
		}
		if (from < c.At) || (c.At == from && i > cur && !m.reached(i)) {
			return i, true
		}
	}
	return 0, false
}

// captionDwell is how long playing holds a caption's moment when another
// caption speaks of a later request at the same instant: without it the
// first would be on screen for one frame.
const captionDwell = 3 * time.Second

// idleWall is the longest stretch of real time playing shows with nothing
// happening; idleLead is how much of the approach to the next event it
// still shows.
const (
	idleWall = 3 * time.Second
	idleLead = time.Second
)

// idleUntil is where playing from now jumps when nothing happens (no
// request, caption or window edge) for more than idleWall of real time
// at the current speed: idleLead before the next event. It leaves a note
// on screen until that event.
func (m *Model) idleUntil(now, target algo.Instant) (algo.Instant, bool) {
	event := min(m.end, m.eng.Config().NextEdge(now))
	if next, ok := m.eng.Next(); ok {
		event = min(event, next.At)
	}
	for _, c := range m.sc.Captions {
		if c.At > now {
			event = min(event, c.At)
			break
		}
	}
	wall := time.Duration(float64(event-now) / m.speed * float64(time.Millisecond))
	lead := algo.Instant(m.speed * float64(idleLead/time.Millisecond))
	if wall <= idleWall || event-lead <= target {
		return 0, false
	}
	m.note, m.noteUntil = "nothing happens until "+event.Short()+": skipping to "+(event-lead).Short(), event
	return event - lead, true
}

// proofBetween is, while a quiz answer is being proved, the instant that
// proves it when it lies in (from, to].
func (m Model) proofBetween(from, to algo.Instant) (algo.Instant, bool) {
	if m.mode != modeQuiz {
		return 0, false
	}
	if at, ok := m.quiz.proofInstant(); ok && from < at && at <= to {
		return at, true
	}
	return 0, false
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
	m.step = i
	m.original = nil
	m.setScenario(m.lesson[i], m.lessonEngines[i])
}

// showsLanes reports whether the lanes and timeline are on screen.
func (m Model) showsLanes() bool {
	return m.mode == modeMain || (m.mode == modeQuiz && m.quiz.phase == quizRevealed)
}

// stop pauses playback; ticks already in flight are ignored.
func (m *Model) stop() {
	if m.playing {
		m.playing = false
	}
	m.gen++
	m.springs, m.snap.Shown = nil, nil // the gauges show exact levels until playing again
}

// Largest instant the clock is moved to: two days, past any scenario of
// a virtual day; for a dated one (a replayed log), two days past its end.
const maxInstant = algo.Instant(48 * 3600 * 1000)

func (m Model) lastInstant() algo.Instant { return max(maxInstant, m.end+maxInstant) }

// clamp keeps a seek inside the clock's range.
func (m Model) clamp(t algo.Instant) algo.Instant { return min(max(t, 0), m.lastInstant()) }

// seek moves the clock to t, forward or back, in the background if it
// outlasts a frame (see move).
func (m *Model) seek(t algo.Instant) tea.Cmd {
	t = m.clamp(t)
	return m.move(func(e *sim.Engine) { e.Seek(t) })
}

// seekIndex decides exactly the first n arrivals; with none, the clock goes
// to the view's start.
func (m *Model) seekIndex(n int64) tea.Cmd {
	start := m.start
	return m.move(func(e *sim.Engine) {
		if e.SeekIndex(n); e.Processed() == 0 {
			e.Seek(start)
		}
	})
}

// rewind puts the clock back at the view's start: restoring the engine's
// first checkpoint, always within a frame.
func (m *Model) rewind() {
	m.eng.SeekIndex(0)
	m.eng.SeekBefore(m.start)
	m.note = ""
	m.refresh()
}

// refresh reads the engine after it moved (or the timeline's geometry
// changed) into the snapshot, so that drawing reads no engine.
func (m *Model) refresh() {
	m.settle()
	h := m.eng.History()
	ci := m.captionIndex()
	var held *sim.Record
	if m.held.on {
		held = &m.held.rec
	}
	caption := ""
	if ci >= 0 && ci < len(m.sc.Captions) {
		caption = m.sc.Captions[ci].Text
	}
	m.snap = render.Take(m.eng, m.focusNow(ci), held, caption)
	m.snap.CountWindows(m.eng, m.lanes().StripCells)
	id := int32(-1)
	if m.timeline.client && m.snap.Client != "" {
		id = int32(slices.Index(m.eng.Clients(), m.snap.Client))
	}
	m.snap.Timeline = m.timeline.cellsAt(h, m.snap.Now, m.c.Width, len(m.snap.Algorithms), id)
	if id >= 0 {
		m.snap.Timeline.Client = m.snap.Client
	}
	m.snap.Recent = render.RecentRows(h, m.eng.Clients(), m.c.Height)
	m.measureStore()
}

// lanes is the lanes panel over the snapshot.
func (m Model) lanes() render.Lanes {
	question, ok := m.quizLane()
	if !ok {
		question = -1
	}
	return render.Lanes{C: m.c, Snap: &m.snap, Question: question, Presenter: m.presenter}
}

// View renders the whole screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "windowlab — " + m.title()
	return v
}

func (m Model) title() string {
	if m.sc.Title != "" {
		return m.sc.Title
	}
	if m.sc.Name != "" {
		return m.sc.Name
	}
	return "scenario"
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

func (m Model) render() string {
	c := m.c
	if c.TooSmall() {
		msg := fmt.Sprintf("windowlab needs at least %d×%d, this one is %d×%d", render.MinWidth, render.MinHeight, c.Width, c.Height)
		if c.Width <= 0 || c.Height <= 0 {
			return msg
		}
		if wrapped := c.Cells.Wrap(msg, c.Width, " "); lipgloss.Height(wrapped) <= c.Height && c.Width >= 20 {
			msg = wrapped
		} else {
			msg = c.Cells.Truncate(msg, c.Width, "…")
		}
		lines := strings.Split(lipgloss.Place(c.Width, c.Height, lipgloss.Center, lipgloss.Center, msg), "\n")
		return strings.Join(fitHeight(lines, c.Height), "\n")
	}
	header := m.headerView()
	caption := m.captionView()
	bottom := m.bottomView()
	var tl, body []string
	bodyH := c.Height - len(header) - len(caption) - len(bottom)
	switch {
	case m.mode == modeQuiz && m.quiz.phase != quizRevealed:
		header = m.quiz.headerView(c)
		caption = nil
		bodyH = c.Height - len(header) - len(bottom)
		body = m.quiz.view(c, bodyH)
	case m.mode == modePicker:
		tl = m.timelineLines(bodyH - m.lanes().MinHeight())
		bodyH -= len(tl)
		body = m.picker.view(c, bodyH)
	case m.mode == modeClients:
		body = m.clients.view(c, bodyH)
	case m.mode == modeWhatIf:
		body = m.whatIf.view(c, bodyH)
	case m.mode == modeName:
		caption, tl = nil, nil
		bodyH = c.Height - len(header) - len(bottom)
		body = m.nameView(bodyH)
	case m.mode == modePoll:
		header, caption = m.pollHeader(), nil
		bodyH = c.Height - len(header) - len(bottom)
		body = m.pollBody(bodyH)
	case m.presenter && render.PresenterFits(c):
		tl = m.timelineLines(bodyH - render.PresenterMin)
		bodyH -= len(tl)
		body = m.lanes().PresenterBody(m.presenterLane(), bodyH)
	default:
		// The caption and each lane's verdict are whole; the timeline gives
		// way first, then the lanes' details.
		lanes := m.lanes()
		units := lanes.LayOut(lanes.List())
		tl = m.timelineLines(bodyH - lanes.MinHeightOf(units))
		bodyH -= len(tl)
		body = lanes.Draw(units, bodyH)
		if spare := bodyH - len(body); spare >= 4 && !m.presenter {
			body = append(body, "")
			if m.roster != nil {
				body = append(body, m.rosterLines(spare-1, time.Now())...)
			} else {
				body = append(body, render.Recent{C: m.c, Snap: &m.snap}.Render(spare-1)...)
			}
		}
	}
	lines := make([]string, 0, c.Height)
	lines = append(lines, header...)
	lines = append(lines, caption...)
	lines = append(lines, fitHeight(body, bodyH)...)
	lines = append(lines, tl...)
	lines = append(lines, bottom...)
	lines = fitHeight(lines, c.Height)
	for i, l := range lines {
		l = strings.ReplaceAll(l, render.NoBreak, " ")
		lines[i] = l
		if c.Cells.StringWidth(l) > c.Width {
			lines[i] = c.Cells.Truncate(l, c.Width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// fitHeight pads or cuts lines to exactly h.
func fitHeight(lines []string, h int) []string {
	if h <= 0 {
		return nil
	}
	if len(lines) > h {
		return lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines
}

// bottomView is the help bar, or the go-to-time prompt while it is open,
// with a status line above when there is something to say.
func (m Model) bottomView() []string {
	var out []string
	if m.job != nil {
		return append(out, m.c.Styles.Warn.Render(m.jobLine()))
	}
	if line := m.followLine(); line != "" && m.mode == modeMain {
		out = append(out, line)
	}
	if line := m.teachLine(); line != "" && m.mode == modeMain {
		out = append(out, line)
	}
	switch {
	case m.status != "":
		out = append(out, m.c.Styles.Warn.Render(m.status))
	case m.note != "" && m.snap.Now < m.noteUntil && m.mode == modeMain:
		out = append(out, m.c.Styles.Faint.Render("⏩ "+m.note))
	}
	switch m.mode {
	case modeGoTo:
		return append(out, m.goTo.view(m.c, m.help.ShortHelpView(m.goTo.keys.ShortHelp()))...)
	case modePicker:
		return append(out, m.help.ShortHelpView(m.picker.help()))
	case modeClients:
		return append(out, m.help.ShortHelpView(m.clients.help()))
	case modeWhatIf:
		return append(out, m.help.ShortHelpView(m.whatIf.help()))
	case modeName:
		return out // the prompt says its keys
	case modePoll:
		return append(out, m.help.ShortHelpView(m.pollHelp()))
	case modeQuiz:
		line := m.help.ShortHelpView(m.quiz.help())
		if hint := m.quiz.hint(); hint != "" {
			line = m.c.Styles.Faint.Render(hint) + m.c.Styles.Help.ShortSeparator.Render(m.help.ShortSeparator) + line
		}
		return append(out, line)
	}
	if m.help.ShowAll {
		return append(out, m.fullHelp()...)
	}
	return append(out, m.shortHelp())
}

// shortHelp is the help bar: as many keys as fit, then always "? keys • q quit".
func (m Model) shortHelp() string {
	h := m.help
	sep := h.Styles.ShortSeparator.Render(h.ShortSeparator)
	item := func(b key.Binding) string {
		return h.Styles.ShortKey.Render(b.Help().Key) + " " + h.Styles.ShortDesc.Render(b.Help().Desc)
	}
	// The help styles are colours alone: an item is as wide as its words.
	sepW := m.c.Cells.StringWidth(h.ShortSeparator)
	var tail []string
	room := m.c.Width
	for i, b := range m.keys.tailHelp() {
		tail = append(tail, item(b))
		room -= m.c.Cells.StringWidth(b.Help().Key) + 1 + m.c.Cells.StringWidth(b.Help().Desc)
		if i > 0 {
			room -= sepW
		}
	}
	line := strings.Join(tail, sep)
	var head []string
	used := 0
	for _, b := range m.keys.ShortHelp() {
		if !b.Enabled() {
			continue
		}
		w := m.c.Cells.StringWidth(b.Help().Key) + 1 + m.c.Cells.StringWidth(b.Help().Desc) + sepW
		if used+w > room {
			break
		}
		head = append(head, item(b))
		used += w
	}
	if len(head) == 0 {
		return line
	}
	return strings.Join(head, sep) + sep + line
}

// fullHelp lays every key out in as many columns as the width holds,
// each column as wide as its longest entry, none cut.
func (m Model) fullHelp() []string {
	st := m.help.Styles
	type entry struct{ k, d string }
	var entries []entry
	kw := 0
	for _, col := range m.keys.FullHelp() {
		for _, b := range col {
			if !b.Enabled() {
				continue
			}
			entries = append(entries, entry{b.Help().Key, b.Help().Desc})
			kw = max(kw, m.c.Cells.StringWidth(b.Help().Key))
		}
	}
	cell := func(e entry) string {
		return st.FullKey.Render(e.k+strings.Repeat(" ", kw-m.c.Cells.StringWidth(e.k))) + " " + st.FullDesc.Render(e.d)
	}
	widest := 0
	for _, e := range entries {
		widest = max(widest, m.c.Cells.StringWidth(cell(e)))
	}
	gap := 3
	cols := max(1, (m.c.Width+gap)/(widest+gap))
	rows := (len(entries) + cols - 1) / cols
	out := make([]string, rows)
	for i, e := range entries {
		r, c := i%rows, i/rows
		text := cell(e)
		if c < cols-1 && i+rows < len(entries) {
			text += strings.Repeat(" ", widest-m.c.Cells.StringWidth(text)+gap)
		}
		out[r] += text
	}
	return out
}

// timelineLines is the timeline in at most h lines (timelinePanel.fit).
func (m Model) timelineLines(h int) []string {
	return render.Timeline{C: m.c, Snap: &m.snap}.Fit(h)
}

// timelineInstantAt maps a click to the instant it points at.
func (m Model) timelineInstantAt(x, y int) (algo.Instant, bool) {
	if m.c.TooSmall() {
		return 0, false
	}
	bottom := len(m.bottomView())
	header, caption := len(m.headerView()), len(m.captionView())
	height := len(m.timelineLines(m.c.Height - header - caption - bottom - m.lanes().MinHeight()))
	top := m.c.Height - bottom - height
	if y < top || y >= top+height {
		return 0, false
	}
	return m.timeline.instantAt(x, m.c.Width, m.eng.Now())
}

// headerView is the header's two lines for the model as it stands.
func (m Model) headerView() []string {
	h := render.HeaderInfo{
		Title: m.title(), Lesson: m.step, Lessons: len(m.lesson), Speed: m.speed,
		Playing: m.playing || (m.inRoom && m.following && m.teacher.Playing), // a follower plays as its teacher does
	}
	if m.mode == modeQuiz {
		h.Quiz, h.Question, h.Questions = true, m.quiz.index, len(m.quiz.questions)
	}
	return render.Header(m.c, &m.snap, h)
}

// captionView is the scenario's caption for the current instant, or while
// a quiz answer is revealed, the verdict and its proof.
func (m Model) captionView() []string {
	if m.mode == modeQuiz {
		if m.quiz.phase != quizRevealed {
			return nil
		}
		return m.revealView()
	}
	return render.Caption(m.c, &m.snap, len(m.sc.Captions) > 0, m.playing)
}

// presenterLane is the lane a presenter's screen is about: the revealed
// question's, else the first the caption on screen makes a claim about,
// else the first.
func (m Model) presenterLane() int {
	if i, ok := m.quizLane(); ok {
		return i
	}
	if i := m.captionIndex(); i >= 0 {
		for _, x := range m.sc.Captions[i].Shows {
			if k := slices.Index(m.sc.Algorithms, x.Algorithm); k >= 0 && x.Last != nil {
				return k
			}
		}
	}
	return 0
}
