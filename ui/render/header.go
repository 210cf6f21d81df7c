package render

import (
	"fmt"
	"strconv"
	"strings"

	"windowlab/human"
)

// headerInfo is what the header says beside the snapshot.
type HeaderInfo struct {
	Title string
	// quiz: a check-yourself question is on screen, question of questions
	// (0-based).
	Quiz                bool
	Question, Questions int
	// Room, when not 0, is the room's number for the question on screen
	// (room.Poll.Number): the header says it rather than "1 of 1".
	Room int
	// lesson, lessons: the lesson's page on screen (0-based) and how many
	// there are; lessons 0 outside a lesson.
	Lesson, Lessons int
	Playing         bool
	Speed           float64
}

// quizPlace is where a quiz stands, before the title: "question 2 of 5 · ",
// or for the room's question, "the room's question 2 · ".
func quizPlace(h HeaderInfo) string {
	if h.Room > 0 {
		return fmt.Sprintf("the room's question %d · ", h.Room)
	}
	return fmt.Sprintf("question %d of %d · ", h.Question+1, h.Questions)
}

// headerLines is two lines: the scenario and the clock, then the limit, the
// position in the replay and the focused client.
func Header(c Common, s *Snapshot, h HeaderInfo) []string {
	st := c.Styles
	left := st.AppName.Render("windowlab · ") + st.Title.Render(h.Title)
	switch {
	case h.Quiz:
		left = st.AppName.Render(quizPlace(h)) + st.Title.Render(h.Title)
	case h.Lessons > 0:
		// The step first: when the line is short, the title's tail gives way.
		left = st.AppName.Render(fmt.Sprintf("step %d of %d · ", h.Lesson+1, h.Lessons)) + st.Title.Render(h.Title)
	}
	playing := h.Playing
	state := st.Playing.Render("▶ " + SpeedText(h.Speed))
	if !playing {
		state = st.Paused.Render("❚❚ paused") + st.Faint.Render(" · "+SpeedText(h.Speed))
	}
	right := state + "  " + st.Clock.Render(s.Now.String())
	// The title is whole at every width: the app's name goes first, then
	// the words of the state, then the state moves down a line.
	w := c.Cells.StringWidth
	line1 := c.Spread(left, right, c.Width, true)
	if w(left)+2+w(right) > c.Width {
		bare := st.Title.Render(h.Title)
		switch {
		case h.Quiz:
			bare = st.AppName.Render(quizPlace(h)) + bare
		case h.Lessons > 0:
			bare = st.AppName.Render(fmt.Sprintf("%d/%d · ", h.Lesson+1, h.Lessons)) + bare
		}
		short := st.Playing.Render("▶ "+SpeedText(h.Speed)) + "  " + st.Clock.Render(s.Now.String())
		if !playing {
			short = st.Paused.Render("❚❚ "+SpeedText(h.Speed)) + "  " + st.Clock.Render(s.Now.String())
		}
		if h.Lessons > 0 && !h.Quiz {
			if long := st.AppName.Render(fmt.Sprintf("step %d of %d · ", h.Lesson+1, h.Lessons)) + st.Title.Render(h.Title); w(long)+2+w(short) <= c.Width {
				bare = long
			}
		}
		line1 = c.Spread(bare, short, c.Width, true)
		if w(bare)+2+w(short) > c.Width {
			line1 = c.Cells.Truncate(bare, c.Width, "…")
			return []string{line1, c.Spread(focusLine(c, s, true), short, c.Width, true)}
		}
	}

	// The focus matters more than the next request's time, and its words
	// (whose, and why) more than the limit's.
	full, next := focusLine(c, s, false), nextText(c, s)
	var line2 string
	switch w := c.Cells.StringWidth; {
	case w(full)+2+w(next) <= c.Width:
		line2 = c.Spread(full, next, c.Width, false)
	case w(full) <= c.Width:
		line2 = full
	default:
		line2 = c.Spread(focusLine(c, s, true), next, c.Width, false)
	}
	return []string{line1, line2}
}

// focusLine names the limit and the focus: the request the lanes explain
// (and how many are decided, when that is another) and the client whose
// state they show, saying why each is the one. Compact drops the words.
func focusLine(c Common, s *Snapshot, compact bool) string {
	st := c.Styles
	sep := st.Faint.Render(" · ")
	var b strings.Builder
	limit := human.Int(s.Config.Limit) + " per " + human.Duration(s.Config.Window)
	if compact {
		limit = human.Int(s.Config.Limit) + "/" + human.Duration(s.Config.Window)
	}
	b.WriteString(st.Label.Render("limit ") + st.Value.Render(limit) + sep)
	switch {
	case !s.HasLast:
		b.WriteString(st.Label.Render("request ") + st.Value.Render("0/"+human.Int(s.Total)))
	case s.Held:
		label := "the caption's request "
		if compact {
			label = "request "
		}
		b.WriteString(st.Label.Render(label) + st.Value.Render(human.Int(s.Last.Index+1)+"/"+human.Int(s.Total)))
		if s.Processed != s.Last.Index+1 {
			b.WriteString(st.Faint.Render(", " + human.Int(s.Processed) + " decided"))
		}
	default:
		b.WriteString(st.Label.Render("request ") + st.Value.Render(human.Int(s.Processed)+"/"+human.Int(s.Total)))
	}
	if s.Client != "" {
		b.WriteString(sep + st.Label.Render("client ") + st.Value.Render(human.Visible(s.Client)))
		switch {
		case compact:
		case s.Why == FocusChosen:
			b.WriteString(st.Faint.Render(" (chosen)"))
		case s.Why == FocusCaption && !s.Held:
			b.WriteString(st.Faint.Render(" (the caption's)"))
		case s.Why == FocusLast:
			b.WriteString(st.Faint.Render(" (the last request's)"))
		}
	}
	return b.String()
}

// nextText is the next request's instant, for the header's right.
func nextText(c Common, s *Snapshot) string {
	st := c.Styles
	if s.HasNext {
		return st.Label.Render("next ") + s.Next.At.String()
	}
	return st.Faint.Render("no more requests")
}

// captionLines is the scenario's caption for the current instant: whole,
// however many lines it takes. hasCaptions says the scenario has any.
func Caption(c Common, s *Snapshot, hasCaptions, playing bool) []string {
	if !hasCaptions && (s.Processed > 0 || playing) {
		return nil
	}
	st := c.Styles
	text := s.Caption
	if text == "" {
		if s.Processed == 0 && !playing {
			if s.Total == 0 { // an empty clock (windowlab play): the traffic is the reader's to make
				return []string{st.Faint.Render("an empty clock: make the traffic at it (r, b, s) and watch every limiter decide")}
			}
			return []string{st.Faint.Render("press space to play, or → to step to the first request")}
		}
		return []string{""}
	}
	// Whole, however many lines it takes: the lanes give way to it. Lines
	// after the first hang under the text, not under the mark.
	wrapped := strings.Split(c.Wrap(text, max(c.Width-2, 10)), "\n")
	lines := make([]string, len(wrapped))
	for i, l := range wrapped {
		lead := "  "
		if i == 0 {
			lead = "» "
		}
		lines[i] = st.Caption.Render(lead + l)
	}
	return append(lines, s.Storeless.noteLines(c)...)
}

// speedText prints a playback speed: 1×, 0.5×, 1000×.
func SpeedText(s float64) string {
	return strconv.FormatFloat(s, 'g', 3, 64) + "×"
}
