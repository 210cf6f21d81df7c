package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/scenarios"
)

// RecordOptions say what windowlab record films.
type RecordOptions struct {
	Scenario      *scenarios.Scenario
	Width, Height int
	// Keys are pressed one after another at the start, a frame apart:
	// names as the view's help writes them ("space", "right", "tab", "t").
	Keys []string
	// Until, when set, ends the recording once the clock reaches it.
	Until    algo.Instant
	HasUntil bool
	// Speed is the playback speed (0: the scenario's, else 1×).
	Speed float64
	// Hold is how long a caption that pauses the clock stays on screen
	// before the recording goes on, as a presenter's space would; and how
	// long the last frame stays. Either stays, besides, until the caption on
	// screen has been there for its reading time, as every caption playing
	// reaches is held (captionHold).
	Hold time.Duration
	// Longest caps the recording's length.
	Longest time.Duration
	Light   bool // draw for a light background
	Title   string

	onFrame func(view string) // tests: each frame drawn, as View gave it
}

// Recording limits.
const (
	DefaultHold    = 3 * time.Second
	DefaultLongest = 5 * time.Minute
	MaxLongest     = time.Hour
)

// A recording's frame rate: the view's own.
const recordFrame = frame

// Record plays the view on the virtual clock, at a fixed size, with no
// terminal and no wall clock, and writes it to w as an asciicast v2 file:
// a header line, then one [seconds, "o", text] event for every frame that
// differs from the one before, redrawing only the lines that changed. The
// frames are View's own. The same options always write the same bytes.
// It returns how many frames it wrote and how long the recording lasts.
func Record(ctx context.Context, w io.Writer, o RecordOptions) (frames int, length time.Duration, err error) {
	if o.Width < 1 || o.Height < 1 {
		return 0, 0, fmt.Errorf("a recording needs a size, such as 100x30")
	}
	hold, longest := o.Hold, o.Longest
	if hold <= 0 {
		hold = DefaultHold
	}
	if longest <= 0 {
		longest = DefaultLongest
	}
	keys, err := recordKeys(o.Keys)
	if err != nil {
		return 0, 0, err
	}
	m, err := recordModel(o)
	if err != nil {
		return 0, 0, err
	}
	r := &recorder{w: w, o: o}
	if err := r.header(); err != nil {
		return 0, 0, err
	}
	if err := r.draw(m); err != nil {
		return r.frames, r.at, err
	}
	base := time.Unix(0, 0) // the ticks' own clock: only differences count
	var paused time.Duration
	read := reading{caption: m.captionIndex()}
	for {
		if err := ctx.Err(); err != nil {
			return r.frames, r.at, context.Cause(ctx)
		}
		if r.at >= longest {
			break
		}
		r.at += recordFrame
		switch {
		case len(keys) > 0:
			m = apply(m, keys[0])
			keys = keys[1:]
		case m.playing:
			paused = 0
			m = apply(m, tickMsg{at: base.Add(r.at), gen: m.gen})
		case o.HasUntil && m.eng.Now() >= o.Until, m.eng.Now() >= m.end:
			if paused += recordFrame; paused >= hold && read.done(m, r.at) {
				return r.frames, r.at, r.emit("") // the last frame held
			}
		default: // stopped at a caption: read it, then go on
			if paused += recordFrame; paused >= hold && read.done(m, r.at) {
				paused = 0
				m = apply(m, tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
			}
		}
		if o.HasUntil && m.eng.Now() >= o.Until && m.playing {
			m.stop()
			if m.eng.Now() > o.Until { // a skip over a quiet stretch went past it
				m.note = "" // and says so, which no longer holds
				m.seek(o.Until)
			}
		}
		read.see(m, r.at)
		if err := r.draw(m); err != nil {
			return r.frames, r.at, err
		}
	}
	return r.frames, r.at, r.emit("")
}

// reading is the caption on a recording's screen and since when.
type reading struct {
	caption int // -1: none
	since   time.Duration
}

// see notes the caption on screen in the frame at at.
func (rd *reading) see(m Model, at time.Duration) {
	if i := m.captionIndex(); i != rd.caption {
		rd.caption, rd.since = i, at
	}
}

// done reports whether the caption on screen, if any, has been there its
// reading time at at.
func (rd reading) done(m Model, at time.Duration) bool {
	return rd.caption < 0 || at-rd.since >= captionHold(m.sc.Captions[rd.caption].Text)
}

// recordKeys reads the keys a recording presses, by the names the help
// writes.
func recordKeys(names []string) ([]tea.KeyPressMsg, error) {
	var keys []tea.KeyPressMsg
	for _, k := range names {
		msg, ok := keyNamed(k)
		if !ok {
			return nil, fmt.Errorf("%q is not a key; use a key's name as the view's help writes it: space, enter, tab, left, right, or a letter", k)
		}
		keys = append(keys, msg)
	}
	return keys, nil
}

// recordModel is the view a recording draws: sized, on its background, at
// its speed, every move inside Update.
func recordModel(o RecordOptions) (Model, error) {
	m, err := New(Options{Scenario: o.Scenario})
	if err != nil {
		return Model{}, err
	}
	m.budget = time.Hour // every move finishes inside Update: no job, no wall clock
	bg := color.Color(color.Black)
	if o.Light {
		bg = color.White
	}
	m = apply(m, tea.BackgroundColorMsg{Color: bg})
	m = apply(m, tea.WindowSizeMsg{Width: o.Width, Height: o.Height})
	if o.Speed > 0 {
		m.speed = min(max(o.Speed, scenarios.MinSpeed), scenarios.MaxSpeed)
	}
	return m, nil
}

// recorder writes an asciicast: its header, then each frame as the lines
// that changed since the last, at its time.
type recorder struct {
	w      io.Writer
	o      RecordOptions
	frames int
	at     time.Duration
	last   []string // the lines on screen
}

// header is the cast's first line.
func (r *recorder) header() error {
	header, _ := json.Marshal(struct {
		Version int               `json:"version"`
		Width   int               `json:"width"`
		Height  int               `json:"height"`
		Title   string            `json:"title,omitempty"`
		Env     map[string]string `json:"env"`
	}{2, r.o.Width, r.o.Height, r.o.Title, map[string]string{"TERM": "xterm-256color"}})
	_, err := fmt.Fprintf(r.w, "%s\n", header)
	return err
}

// emit writes one frame's output at the recorder's time.
func (r *recorder) emit(text string) error {
	r.frames++
	data, _ := json.Marshal(text)
	_, err := fmt.Fprintf(r.w, "[%s, \"o\", %s]\n", strconv.FormatFloat(r.at.Seconds(), 'f', 6, 64), data)
	return err
}

// draw emits the lines of m's view that changed; nothing when none did.
func (r *recorder) draw(m Model) error {
	view := m.View().Content
	if r.o.onFrame != nil {
		r.o.onFrame(view)
	}
	lines := strings.Split(view, "\n")
	var b strings.Builder
	if r.last == nil {
		b.WriteString("\x1b[?25l\x1b[H\x1b[2J") // no cursor, a clear screen
	}
	for i := range r.o.Height {
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		if r.last != nil && i < len(r.last) && r.last[i] == line {
			continue
		}
		// Cleared first: a line as wide as the screen leaves the cursor
		// past its end, where clearing would take its last cell.
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s\x1b[0m", i+1, line)
	}
	r.last = lines
	if b.Len() == 0 {
		return nil
	}
	return r.emit(b.String())
}

// apply is one Update; the commands it returns are not run: the recording
// makes its own ticks.
func apply(m Model, msg tea.Msg) Model {
	next, _ := m.Update(msg)
	return next.(Model)
}

// keyNamed is the key press a key's name stands for, as the view's help
// writes it: space, enter, esc, tab, shift+tab, left, right, up, down,
// backspace, or one character.
func keyNamed(name string) (tea.KeyPressMsg, bool) {
	switch name {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}, true
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}, true
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}, true
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}, true
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}, true
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}, true
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}, true
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}, true
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}, true
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}, true
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}, true
	}
	if r := []rune(name); len(r) == 1 {
		return tea.KeyPressMsg{Code: r[0], Text: name}, true
	}
	return tea.KeyPressMsg{}, false
}
