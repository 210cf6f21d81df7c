package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Dialog is a window over the main view: the scenario picker (open.go),
// the go-to-time prompt (goto.go), the client picker (clients.go), the
// what-if form (whatif.go), a student's name prompt (name.go), the
// check-yourself quiz and the room's live question (quiz.go), the
// teacher's "ask the room" (poll.go). The root holds at most one; it
// gets every key and every message the root does not take itself.
type Dialog interface {
	// update takes a message with the model as it stands, to read, never
	// to write: it returns the dialog to show next (nil closes it), what
	// the root should do to the model (an action, nil: nothing) and a
	// command.
	update(m Model, msg tea.Msg) (Dialog, action, tea.Cmd)
	// view is the dialog's part of the screen and how it shares the rest.
	view(m Model) dialogView
	// help is the keys the help line offers while it is open.
	help() []key.Binding
}

// action is the part of a dialog's answer only the root may do, run after
// the root has put the dialog's next one in place: move the clock, load a
// scenario, focus a client, close or replace the dialog.
type action func(m *Model) tea.Cmd

// whole is an action made of a model update that returns the whole model
// (the quiz's and the room's, which drive the main view's clock).
func whole(f func(Model) (tea.Model, tea.Cmd)) action {
	return func(m *Model) tea.Cmd {
		next, cmd := f(*m)
		*m = next.(Model)
		return cmd
	}
}

// dialogView is how a dialog shares the screen with the main view.
type dialogView struct {
	header []string // instead of the main view's header; nil keeps it
	// caption is shown instead of the scenario's caption, unless
	// keepCaption.
	caption     []string
	keepCaption bool
	// body draws the dialog in h lines; nil leaves the main view's lanes
	// (and keys to move the clock, where the dialog passes them on).
	body func(h int) []string
	// timeline keeps the timeline under the body.
	timeline bool
	// bottom replaces the help line of help(); noHelp shows neither.
	bottom []string
	noHelp bool
}

// resizer is a dialog whose inputs follow the terminal's width.
type resizer interface {
	resize(w int) Dialog
}

// updateDialog gives msg to the open dialog and applies what it answers.
func (m Model) updateDialog(msg tea.Msg) (Model, tea.Cmd) {
	next, act, cmd := m.dialog.update(m, msg)
	m.dialog = next
	if act != nil {
		cmd = tea.Batch(cmd, act(&m))
	}
	return m, cmd
}

// openQuiz is the quiz on screen, if one is.
func (m Model) openQuiz() (quizDialog, bool) {
	q, ok := m.dialog.(quizDialog)
	return q, ok
}
