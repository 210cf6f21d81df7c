package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"windowlab/algo"
	"windowlab/scenarios"
)

// FuzzModel decodes the fuzzer's bytes into a sequence of key, mouse,
// resize, paste, background and tick messages (sizes from 0×0 up), sends
// them to the root model through Update, and renders after every one: no
// message may panic, View must always return, and every frame must be
// exactly the terminal's height with no line wider than it. The commands a
// real program would run for opening a scenario or revealing a quiz answer
// are run here too, synchronously, and their messages sent back.
// Seed corpus in testdata/fuzz/FuzzModel; run it for ten minutes with
//
//	go test -run '^$' -fuzz FuzzModel -fuzztime 10m ./ui/
func FuzzModel(f *testing.F) {
	// Opcodes: 0–2 a key (the next byte indexes fuzzKeys), 3 a key release,
	// 4 a resize (width, height), 5 the mouse (x, y, button), 6 a
	// background colour or a paste, 7 a tick (how long since the last one).
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0, 4, 80, 24, 0, 0, 7, 30, 7, 30, 0, 1, 0, 3})                                       // 80×24: play, two ticks, →, h
	f.Add([]byte{1, 4, 140, 40, 0, 0, 7, 200, 7, 200, 0, 18, 0, 19})                                  // the lesson: play, long ticks, n, p
	f.Add([]byte{2, 4, 100, 30, 0, 24, 0, 25, 0, 14, 7, 250, 0, 14})                                  // the quiz: type 20, enter, reveal, enter
	f.Add([]byte{3, 4, 0, 0, 5, 3, 3, 0, 12, 255, 255, 5, 60, 49, 0})                                 // presenter: 0×0, a click, 511×255, a click
	f.Add([]byte{0, 4, 120, 40, 0, 13, 0, 16, 0, 14})                                                 // open the picker, ↓, enter
	f.Add([]byte{0, 4, 90, 30, 0, 22, 0, 31, 0, 24, 0, 32, 0, 25, 0, 31, 0, 32, 0, 25, 0, 25, 0, 14}) // t 12:01:00 enter
	f.Add([]byte{0, 4, 90, 30, 0, 22, 6, 6, '1', '2', ':', '0', '1', ':', 0, 14})                     // t, paste, enter
	title := "a\tb 漢字 e\u0301 👩‍👧\nx"                                                                 // tabs, wide runes, a combining mark, a ZWJ sequence, a line break
	f.Add(append(append([]byte{0x80, byte(len(title))}, title...), 4, 80, 24, 0, 0, 7, 9, 7, 9))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		opts, rest := fuzzOptions(data[0]), data[1:]
		if data[0] >= 0x80 && len(rest) > 0 {
			// Titles and captions from the bytes, as the loader lets them
			// through: any printable text, tabs and line breaks (a title
			// folded onto one line).
			n := min(int(rest[0])%64, len(rest)-1)
			text := fuzzText(rest[1 : 1+n])
			rest = rest[1+n:]
			withText := func(sc *scenarios.Scenario) {
				if sc == nil {
					return
				}
				sc.Title = strings.Join(strings.Fields(text), " ") // the loader makes a title one line
				sc.Captions = append([]scenarios.Caption{{At: algo.Clock(12, 0, 0, 0), Text: text, Pause: len(text)%2 == 0}}, sc.Captions...)
			}
			withText(opts.Scenario)
			for _, sc := range opts.Lesson {
				withText(sc)
			}
			for i := range opts.Quiz {
				opts.Quiz[i].Ask += text
			}
		}
		opts.SaveDir = t.TempDir()
		m, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		m.budget = inFrame
		w, h := 0, 0
		checkView(t, m, w, h, "the first frame")
		d := fuzzDecoder{data: rest}
		at := time.Unix(1_000_000, 0)
		for steps := 0; d.more() && steps < 200; steps++ {
			msg := d.next(m, &at)
			if ws, ok := msg.(tea.WindowSizeMsg); ok {
				w, h = ws.Width, ws.Height
			}
			wasMode, wasPhase := modeOf(m), quizOf(m).phase
			next, cmd := m.Update(msg)
			m = next.(Model)
			// Opening a scenario and revealing an answer (enter, or esc to skip) are commands that
			// build an engine; a real program runs them and sends back the
			// result. Every other command is a timer or a quit, left alone.
			if k, ok := msg.(tea.KeyPressMsg); ok && cmd != nil &&
				((k.String() == "enter" && wasMode == modePicker) ||
					((k.String() == "enter" || k.String() == "esc") && wasMode == modeQuiz && wasPhase == quizAsking) ||
					((k.String() == "C" || k.String() == "!") && wasMode == modeMain && modeOf(m) == modeClients)) {
				switch res := cmd().(type) {
				case scenarioMsg, revealMsg, clientsMsg:
					next, _ = m.Update(res)
					m = next.(Model)
				}
			}
			checkView(t, m, w, h, msgName(msg))
		}
	})
}

// fuzzOptions picks what the view shows from the first byte: a scenario
// with questions, built-ins and a file loader; the guided lesson; the quiz;
// the presenter's view; or a scenario with no requests.
func fuzzOptions(b byte) Options {
	sc := boundaryBurst()
	sc.Questions = []scenarios.Question{
		{Ask: "How many get through?", Answer: "200", At: algo.Clock(12, 1, 0, 0), HasAt: true,
			Algorithm: algo.Algorithm{Kind: algo.KindFixedWindow}, HasAlgorithm: true},
		{Ask: "Which?", Choices: []string{"one", "two", "three"}, Answer: "two"},
	}
	opts := Options{
		Scenario: sc,
		Builtins: []*scenarios.Scenario{boundaryBurst(), workedExample()},
		Load: func(_ context.Context, path string) (*scenarios.Scenario, error) {
			if strings.HasPrefix(path, "ok") {
				return workedExample(), nil
			}
			return nil, errors.New(path + ":3:8: limit: 0 is too small\n" + path + ":4: window: missing")
		},
	}
	switch b % 5 {
	case 1:
		opts = Options{Lesson: lessonSteps()}
	case 2:
		opts = Options{Quiz: quizQuestions(), QuizTitle: "seed 1"}
	case 3:
		opts.Presenter = true
	case 4:
		opts.Scenario = quiet()
	}
	return opts
}

// fuzzText is b as the scenario loader would accept it: valid UTF-8 with no
// control characters but tabs and line breaks.
func fuzzText(b []byte) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return -1
		}
		return r
	}, strings.ToValidUTF8(string(b), "?"))
}

// fuzzKeys are the keys the view binds, the prompts' editing keys, and a
// few it does not know.
var fuzzKeys = []tea.KeyPressMsg{
	{Code: tea.KeySpace, Text: " "}, {Code: tea.KeyRight}, {Code: tea.KeyLeft}, {Code: 'l', Text: "l"},
	{Code: 'h', Text: "h"}, {Code: ']', Text: "]"}, {Code: '[', Text: "["}, {Code: '+', Text: "+"},
	{Code: '-', Text: "-"}, {Code: 'z', Text: "z"}, {Code: 'Z', Text: "Z"}, {Code: 'g', Text: "g"},
	{Code: 'G', Text: "G"}, {Code: 'o', Text: "o"}, {Code: tea.KeyEnter}, {Code: tea.KeyEscape},
	{Code: tea.KeyUp}, {Code: tea.KeyDown}, {Code: 'n', Text: "n"}, {Code: 'p', Text: "p"},
	{Code: 'c', Text: "c"}, {Code: '?', Text: "?"}, {Code: 't', Text: "t"}, {Code: 'k', Text: "k"},
	{Code: '2', Text: "2"}, {Code: '0', Text: "0"}, {Code: tea.KeyBackspace}, {Code: tea.KeyTab},
	{Code: tea.KeyHome}, {Code: tea.KeyEnd}, {Code: 'j', Text: "j"}, {Code: '1', Text: "1"},
	{Code: ':', Text: ":"}, {Code: '.', Text: "."}, {Code: '/', Text: "/"}, {Code: '=', Text: "="},
	{Code: '_', Text: "_"}, {Code: '−', Text: "−"}, {Code: 'x', Text: "x"}, {Code: 'é', Text: "é"},
	{Code: 'z', Mod: tea.ModShift, Text: "Z"}, {Code: 'a', Mod: tea.ModCtrl}, {Code: tea.KeyPgDown},
	{Code: tea.KeyDelete}, {Code: 'q', Text: "q"}, {Code: 'c', Mod: tea.ModCtrl},
	{Code: 'e', Text: "e"}, {Code: 'w', Text: "w"}, {Code: 'C', Text: "C"}, {Code: '!', Text: "!"},
	{Code: 'f', Text: "f"}, {Code: tea.KeyTab, Mod: tea.ModShift}, {Code: '5', Text: "5"},
}

type fuzzDecoder struct{ data []byte }

func (d *fuzzDecoder) more() bool { return len(d.data) > 0 }

func (d *fuzzDecoder) byte() int {
	if len(d.data) == 0 {
		return 0
	}
	b := d.data[0]
	d.data = d.data[1:]
	return int(b)
}

// next decodes one message: an opcode byte, then its operands.
func (d *fuzzDecoder) next(m Model, at *time.Time) tea.Msg {
	switch op := d.byte(); op % 8 {
	case 0, 1, 2:
		return fuzzKeys[d.byte()%len(fuzzKeys)]
	case 3:
		return tea.KeyReleaseMsg(fuzzKeys[d.byte()%len(fuzzKeys)])
	case 4:
		// Sizes from 0×0 up: one byte each, the width's top bits from the opcode.
		return tea.WindowSizeMsg{Width: d.byte() + (op>>3&1)*256, Height: d.byte()}
	case 5:
		x, y, b := d.byte(), d.byte(), d.byte()
		mouse := tea.Mouse{X: x, Y: y, Button: tea.MouseButton(b % 12)}
		switch b / 12 % 4 {
		case 0:
			return tea.MouseClickMsg(mouse)
		case 1:
			return tea.MouseWheelMsg(mouse)
		case 2:
			return tea.MouseReleaseMsg(mouse)
		}
		return tea.MouseMotionMsg(mouse)
	case 6:
		switch n := d.byte(); n % 4 {
		case 0:
			return tea.BackgroundColorMsg{Color: color.White}
		case 1:
			return tea.BackgroundColorMsg{Color: color.Black}
		default:
			var b strings.Builder
			for range n % 16 {
				b.WriteByte(byte(d.byte()))
			}
			return tea.PasteMsg{Content: b.String()}
		}
	}
	// A frame of playback: the usual 33 ms, or a stall of up to seconds;
	// mostly for the running playback, sometimes a stale one.
	dt := d.byte()
	*at = at.Add(time.Duration(dt*dt) * time.Millisecond)
	gen := m.gen
	if dt%7 == 0 {
		gen--
	}
	return tickMsg{at: *at, gen: gen}
}

func msgName(msg tea.Msg) string {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		return "key " + k.String()
	}
	return fmt.Sprintf("%T %v", msg, msg)
}

// checkView renders the model: View must return, and once a size is known
// the frame is exactly h lines, none wider than w.
func checkView(t *testing.T, m Model, w, h int, after string) {
	t.Helper()
	v := m.View()
	out := ansi.Strip(v.Content)
	if out == "" {
		t.Fatalf("after %s at %d×%d: an empty frame", after, w, h)
	}
	if w <= 0 || h <= 0 {
		return
	}
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Fatalf("after %s at %d×%d: %d lines:\n%s", after, w, h, len(lines), out)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Fatalf("after %s at %d×%d: line %d is %d wide: %q", after, w, h, i+1, n, l)
		}
	}
}
