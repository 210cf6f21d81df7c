package ui

import (
	"fmt"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/human"
	"windowlab/sim"
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
		m.goTo = m.goTo.setWidth(m.c.Width)
		m.picker = m.picker.setWidth(m.c.Width)
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
