package ui

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/harmonica"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
	"windowlab/ui/render"
)

// The view never waits on its engine. Every move of the clock runs at
// first inside Update, within a frame's budget; work that outlasts it (a
// seek across fifty million requests, a step back that replays from a far
// checkpoint) stops there and goes on in the background as a job, while
// the view draws its progress from the snapshot and answers every key: q
// and ctrl+c quit at once, any other key stops the job where it stands.
// Only the job touches the engine until it is done.

// frameBudget is how long a move may run inside Update before it goes on
// in the background: well under a frame, so the view never stutters.
const frameBudget = 20 * time.Millisecond

// progressEvery is how often a job's progress is drawn.
const progressEvery = 100 * time.Millisecond

// engineControl interrupts the view's engines and reads their progress
// (sim.Options.Interrupt). One is shared by every copy of a Model.
type engineControl struct {
	stop     atomic.Bool  // a key asked the job to stop
	deadline atomic.Int64 // unix ns after which a move inside Update stops; 0: none
	hit      atomic.Bool  // the current move was interrupted
	done     atomic.Int64 // arrivals decided, as the engine last said
	// checkpointBytes is each engine's checkpoint budget (Options.CheckpointBytes).
	checkpointBytes int64
	store           Store // Options.Store

}

func (c *engineControl) interrupt(done int64) bool {
	c.done.Store(done)
	stop := c.stop.Load()
	if d := c.deadline.Load(); d != 0 && time.Now().UnixNano() > d {
		stop = true
	}
	if stop {
		c.hit.Store(true)
	}
	return stop
}

// job is a move of the clock going on in the background.
type job struct {
	gen   int
	total int64 // arrivals in the scenario, for the share done
}

// jobDoneMsg says the job gen has finished (or stopped).
type jobDoneMsg struct{ gen int }

// jobProgressMsg asks to draw the job's progress again.
type jobProgressMsg struct{ gen int }

func progressTick(gen int) tea.Cmd {
	return tea.Tick(progressEvery, func(time.Time) tea.Msg { return jobProgressMsg{gen} })
}

// move runs op on the engine within a frame's budget. If it finishes, the
// snapshot is refreshed and move returns nil. If not, the engine stands
// part of the way (as consistent as anywhere), the snapshot shows that,
// and the returned command runs op again, uninterrupted but for a key, off
// the update loop. op must be such that running it again from anywhere on
// the way gets to the same place: a seek to a fixed instant or index.
func (m *Model) move(op func(*sim.Engine)) tea.Cmd {
	m.endHold() // a move of the clock, the user's or playing's own, ends a caption's hold
	ctl := m.ctl
	ctl.stop.Store(false)
	ctl.hit.Store(false)
	ctl.deadline.Store(time.Now().Add(m.budget).UnixNano())
	op(m.eng)
	ctl.deadline.Store(0)
	m.refresh()
	if !ctl.hit.Load() {
		return nil
	}
	ctl.hit.Store(false)
	m.jobGen++
	m.job = &job{gen: m.jobGen, total: m.eng.Len()}
	e, gen := m.eng, m.jobGen
	return tea.Batch(func() tea.Msg {
		op(e)
		return jobDoneMsg{gen}
	}, progressTick(gen))
}

// updateJob handles a message while a job owns the engine: nothing that
// reads or moves the engine runs until it is done.
func (m Model) updateJob(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case jobDoneMsg:
		if msg.gen != m.job.gen {
			return m, nil
		}
		stopped := m.ctl.hit.Load()
		m.job = nil
		m.refresh()
		if m.quitting {
			return m, tea.Quit
		}
		if stopped {
			m.stop()
			m.status = fmt.Sprintf("stopped replaying at %s; press the key again to go on", m.snap.Now.Short())
			return m, nil
		}
		if m.playing {
			m.lastTick = time.Time{}
			return m, m.tick()
		}
		return m, nil
	case jobProgressMsg:
		if msg.gen != m.job.gen {
			return m, nil
		}
		return m, progressTick(msg.gen)
	case tea.KeyPressMsg:
		// Any key stops the job; q and ctrl+c also quit, without waiting.
		m.ctl.stop.Store(true)
		if key := msg.String(); key == "q" || key == "ctrl+c" {
			m.quitting = true
			return m, tea.Quit
		}
		m.status = "stopping…"
		return m, nil
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = max(0, msg.Width), max(0, msg.Height)
		m.help.SetWidth(m.c.Width)
		if r, ok := m.dialog.(resizer); ok {
			m.dialog = r.resize(m.c.Width)
		}
		return m, nil // the timeline is laid out again when the job is done
	}
	return m, nil // ticks, clicks and the rest wait for the job
}

// jobLine is the progress of a job, for the bottom of the screen.
func (m Model) jobLine() string {
	done := min(m.ctl.done.Load(), m.job.total)
	pct := 0.0
	if m.job.total > 0 {
		pct = float64(done) / float64(m.job.total)
	}
	return fmt.Sprintf("replaying… %s (%s of %s requests) · any key stops, q quits", human.Percent(pct),
		human.Int(done), human.Int(m.job.total))
}

// frame is how often the clock moves while playing: about 30 frames a second.
const frame = time.Second / 30

// tickMsg moves the clock while playing; gen ties it to one run of playback
// so a tick that was in flight when the user paused is ignored.
type tickMsg struct {
	at  time.Time
	gen int
}

// jumpCaption goes to the next (dir > 0) or previous caption's moment,
// pausing there; in a lesson, past the last caption to the next step and
// before the first to the previous one.
func (m *Model) jumpCaption(dir int) tea.Cmd {
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
	m.endHold()
	m.carry = 0
	m.holdOnScreen()
	return m.tick()
}

// holdOnScreen holds the caption already on screen when space is pressed
// for what is left of its reading time, counted from when it came on: one
// that came on by tab or a step may be a moment old. A caption playing has
// held already, or one that paused the clock, was read: space goes on.
func (m *Model) holdOnScreen() {
	i := m.captionIndex()
	if i < 0 || i != m.onScreen || m.onHeld {
		return
	}
	c := &m.sc.Captions[i]
	if c.Pause {
		return
	}
	hold := captionHold(c.Text)
	left := min(max(hold-m.now().Sub(m.onSince), 0), hold)
	if left > 0 {
		m.dwellFor, m.holdAt, m.onHeld = left, c.At, true
	}
}

// now is the wall clock (player.wall).
func (m *Model) now() time.Time {
	if m.wall != nil {
		return m.wall()
	}
	return time.Now()
}

// noteOnScreen keeps track of when the caption on screen came on
// (holdOnScreen), after every move of the clock.
func (m *Model) noteOnScreen(i int) {
	if i != m.onScreen {
		m.onScreen, m.onSince, m.onHeld = i, m.now(), false
	}
}

// tick schedules the next frame of playback.
func (m Model) tick() tea.Cmd {
	gen := m.gen
	every := tea.Tick
	if m.ticker != nil {
		every = m.ticker
	}
	return every(frame, func(t time.Time) tea.Msg { return tickMsg{at: t, gen: gen} })
}

// onTick moves the clock by speed × the real time since the last frame,
// measured between the ticks' own timestamps. It lands on every caption
// it reaches and holds it there long enough to read (or stops at one that
// pauses), and crosses a stretch where nothing happens for more than
// idleWall quickly.
func (m Model) onTick(msg tickMsg) (tea.Model, tea.Cmd) {
	if !m.playing || msg.gen != m.gen {
		return m, nil
	}
	elapsed := frame
	if !m.lastTick.IsZero() {
		elapsed = min(max(msg.at.Sub(m.lastTick), 0), 10*frame)
	}
	m.lastTick = msg.at
	if m.dwellFor > 0 { // holdOnScreen: the hold starts at the first frame
		m.dwell, m.dwellFor = msg.at.Add(m.dwellFor), 0
	}
	if msg.at.Before(m.dwell) {
		m.holdNote(msg.at)
		m.measureStore()   // what the store holds at the moment read, if the last frame's was skipped
		return m, m.tick() // a caption is being read: the clock stands at its moment
	}
	m.endHold()
	ms := m.speed*float64(elapsed)/float64(time.Millisecond) + m.carry
	whole := math.Floor(ms)
	m.carry = ms - whole
	now := m.eng.Now()
	target := now + algo.Instant(whole)
	if m.dialog == nil {
		if i, ok := m.captionBetween(now, target); ok {
			return m.reachCaption(i, msg.at)
		}
		if skip, ok := m.idleUntil(now, target); ok {
			target = skip
		}
	}
	if target >= m.end {
		target = m.end
		m.stop()
		if m.dialog == nil && len(m.lesson) > 0 && m.step < len(m.lesson)-1 {
			m.status = "end of this step: n goes on to the next"
		}
	}
	if at, ok := m.proofBetween(now, target); ok {
		target = at
		m.stop()
	}
	m.feedStream(target) // a stream made at the clock sends what falls before target
	if cmd := m.seek(target); cmd != nil {
		return m, cmd // the next frame comes when the job is done
	}
	if !m.playing {
		return m, nil
	}
	m.animate()
	return m, m.tick()
}

// reachCaption lands playing on caption i, reached at the tick at: it
// stops there when the caption pauses, and otherwise holds the clock at its
// moment for its reading time (captionHold) before going on.
func (m Model) reachCaption(i int, at time.Time) (tea.Model, tea.Cmd) {
	c := &m.sc.Captions[i]
	if c.Pause {
		m.stop()
		m.status = "paused at the caption: space goes on"
	}
	cmd := m.landCaption(i)
	if m.playing {
		m.dwell, m.holdAt = at.Add(captionHold(c.Text)), c.At
		m.holdNote(at)
	}
	m.onScreen, m.onSince, m.onHeld = i, at, true
	if cmd != nil {
		return m, cmd // the next frame comes when the job is done
	}
	if !m.playing {
		return m, nil
	}
	return m, m.tick()
}

// Playing holds every caption it reaches on screen long enough to read,
// the clock standing at its moment: its words at readingPace, and never
// less than minHold. The hold is wall time whatever the speed: the speed is
// the clock's, the pace of reading the reader's. Space pauses (and, pressed
// again, goes on at once), tab goes to the next caption, and any move of the
// clock ends the hold.
const (
	readingPace = 200 // words a minute
	minHold     = 4 * time.Second
)

// captionHold is how long playing holds a caption of this text.
func captionHold(text string) time.Duration {
	return max(minHold, time.Duration(len(strings.Fields(text)))*time.Minute/readingPace)
}

// holdNote says, at the tick at, that the clock stands still for the
// caption, for how much longer, and which keys end the hold.
func (m *Model) holdNote(at time.Time) {
	left := int(math.Ceil(m.dwell.Sub(at).Seconds()))
	m.note = fmt.Sprintf("⏸ the caption holds %d s more, to be read · space pauses · tab: next caption", max(left, 1))
	m.noteUntil = m.holdAt + 1
}

// endHold ends a caption's hold, and its note.
func (m *Model) endHold() {
	m.dwellFor = 0
	if !m.dwell.IsZero() {
		m.dwell, m.note = time.Time{}, ""
	}
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

// captionBetween is the first caption with words that playing from → to
// reaches: its instant in (from, to], or at from itself, still to come.
func (m Model) captionBetween(from, to algo.Instant) (int, bool) {
	cur := m.captionIndex()
	for i := range m.sc.Captions {
		c := &m.sc.Captions[i]
		if c.At > to {
			break
		}
		if strings.TrimSpace(c.Text) == "" {
			continue
		}
		if (from < c.At) || (c.At == from && i > cur && !m.reached(i)) {
			return i, true
		}
	}
	return 0, false
}

// idleWall is the longest stretch of real time playing shows with nothing
// happening; idleLead is how much of the approach to the next event it
// still shows.
const (
	idleWall = 3 * time.Second
	idleLead = time.Second
)

// idleUntil is where playing from now jumps when nothing happens (no
// request, caption, window edge, or timestamp leaving a log the lanes show)
// for more than idleWall of real time at the current speed: idleLead
// before the next event. It leaves a note on screen until that event.
func (m *Model) idleUntil(now, target algo.Instant) (algo.Instant, bool) {
	event := min(m.end, m.eng.Config().NextEdge(now))
	if next, ok := m.eng.Next(); ok {
		event = min(event, next.At)
	}
	if next, ok := m.nextStreamRequest(); ok {
		event = min(event, next)
	}
	for _, d := range m.snap.Peek {
		// The log's verdict for the focused client changes when its oldest
		// timestamp leaves the window.
		if d.Kind == algo.KindSlidingLog && d.Count > 0 && d.Leaves() > now {
			event = min(event, d.Leaves())
		}
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
	m.note, m.noteUntil = "⏩ nothing happens until "+event.Short()+": skipping to "+(event-lead).Short(), event
	return event - lead, true
}

// proofBetween is, while a quiz answer is being proved, the instant that
// proves it when it lies in (from, to].
func (m Model) proofBetween(from, to algo.Instant) (algo.Instant, bool) {
	q, ok := m.openQuiz()
	if !ok {
		return 0, false
	}
	if at, ok := q.proofInstant(); ok && from < at && at <= to {
		return at, true
	}
	return 0, false
}

// stop pauses playback; ticks already in flight are ignored.
func (m *Model) stop() {
	if m.playing {
		m.playing = false
	}
	m.endHold()
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
	m.endHold()
	m.note = ""
	m.refresh()
}

// player is the clock's state: whether it runs and how fast, the gauges'
// springs while it does, and the moves that outlast a frame (jobs).
type player struct {
	playing  bool
	speed    float64
	carry    float64 // virtual milliseconds not yet applied
	gen      int
	lastTick time.Time
	// ticker makes playback's frames: tea.Tick when nil; tests give one
	// on a virtual wall clock.
	ticker func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	// wall reads the wall clock: time.Now when nil; tests give their
	// virtual one, the ticker's.
	wall func() time.Time

	// The caption on screen (-1: none), since when in wall time, and
	// whether playing has held it already (reachCaption): a caption that
	// came on while the clock stood still, by tab or a step, is held for
	// the rest of its reading time when space is pressed (play).
	onScreen int
	onSince  time.Time
	onHeld   bool

	// Moves of the clock that outlast a frame.
	ctl        *engineControl
	budget     time.Duration // how long a move may run inside Update: frameBudget
	job        *job
	jobGen     int
	quitting   bool // q was pressed during a job: quit when it has stopped
	clientsGen int  // the client count the view waits for (clients.go)

	// A note on what playing did by itself (skipping an idle stretch),
	// shown until the clock reaches noteUntil.
	note      string
	noteUntil algo.Instant
	dwell     time.Time     // playing holds the clock at a caption until this tick (captionHold)
	dwellFor  time.Duration // a hold to start at the next frame (holdOnScreen)
	holdAt    algo.Instant  // the held caption's instant, where its note shows

	springs []springState // the gauges' springs while playing (animate)
}
