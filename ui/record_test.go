package ui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"windowlab/algo"
	"windowlab/scenarios"
)

// cast is a parsed asciicast v2 recording.
type cast struct {
	Width, Height int
	times         []float64
	texts         []string
}

func parseCast(t *testing.T, data []byte) cast {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	if !sc.Scan() {
		t.Fatal("no header")
	}
	var h struct {
		Version       int `json:"version"`
		Width, Height int
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Version != 2 {
		t.Fatalf("header %s: %v", sc.Bytes(), err)
	}
	c := cast{Width: h.Width, Height: h.Height}
	for sc.Scan() {
		var ev []any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || len(ev) != 3 || ev[1] != "o" {
			t.Fatalf("event %s: %v", sc.Bytes(), err)
		}
		c.times = append(c.times, ev[0].(float64))
		c.texts = append(c.texts, ev[2].(string))
	}
	return c
}

func record(t *testing.T, o RecordOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, _, err := Record(context.Background(), &b, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// windowlab record: the same options write the same bytes; a terminal that
// plays the file shows, after each event, exactly the frame the view drew
// for it; times never go back; the recording stops at --until, on it.
func TestRecord(t *testing.T) {
	until := algo.Clock(12, 1, 2, 0)
	var views []string
	o := RecordOptions{Scenario: boundaryBurst(), Width: 100, Height: 30, Keys: []string{"space"}, Until: until, HasUntil: true,
		Speed: 2, Hold: time.Second, Title: "the boundary burst"}
	a := record(t, o)
	o.onFrame = func(v string) { views = append(views, v) }
	if b := record(t, o); !bytes.Equal(a, b) {
		t.Fatal("two recordings with the same options differ")
	}
	c := parseCast(t, a)
	if c.Width != 100 || c.Height != 30 || len(c.texts) < 10 {
		t.Fatalf("%dx%d, %d events", c.Width, c.Height, len(c.texts))
	}
	for i := 1; i < len(c.times); i++ {
		if c.times[i] < c.times[i-1] {
			t.Fatalf("event %d at %v s comes before event %d at %v s", i, c.times[i], i-1, c.times[i-1])
		}
	}
	// Each event is a frame that differs from the one before: replayed,
	// the screen is that frame, cell for cell.
	distinct := []string{views[0]}
	for _, v := range views[1:] {
		if v != distinct[len(distinct)-1] {
			distinct = append(distinct, v)
		}
	}
	if len(distinct) != len(c.texts)-1 { // the last event holds the last frame
		t.Fatalf("%d distinct frames, %d events", len(distinct), len(c.texts))
	}
	emu := vt.NewEmulator(c.Width, c.Height)
	go func() { _, _ = io.Copy(io.Discard, emu) }()
	for i, v := range distinct {
		_, _ = emu.Write([]byte(c.texts[i]))
		got, want := strings.Split(emu.String(), "\n"), strings.Split(ansi.Strip(v), "\n")
		for j := range want {
			if strings.TrimRight(got[j], " ") != strings.TrimRight(want[j], " ") {
				t.Fatalf("event %d, line %d:\n got %q\nwant %q", i, j+1, got[j], want[j])
			}
		}
	}
	if last := ansi.Strip(distinct[len(distinct)-1]); !strings.Contains(last, "12:01:02.000") {
		t.Errorf("the last frame is not at --until 12:01:02:\n%s", last)
	}
}

func TestRecordRefusesABadKey(t *testing.T) {
	_, _, err := Record(context.Background(), io.Discard, RecordOptions{Scenario: boundaryBurst(), Width: 80, Height: 24, Keys: []string{"spcae"}})
	if err == nil || !strings.Contains(err.Error(), `"spcae" is not a key`) {
		t.Errorf("err = %v", err)
	}
}

// A recording holds every caption the way playing does: a terminal that
// plays the cast shows each caption for at least its reading time, the
// ones that pause the clock included.
func TestRecordHoldsEveryCaption(t *testing.T) {
	if testing.Short() {
		t.Skip("records every built-in through")
	}
	for _, sc := range scenarios.Builtins() {
		t.Run(sc.Name, func(t *testing.T) {
			// Until a second after the last caption's moment: the cast ends
			// there, its last caption held as the last frame.
			until := sc.Captions[len(sc.Captions)-1].At + 1000
			c := parseCast(t, record(t, RecordOptions{Scenario: sc, Width: 100, Height: 30, Keys: []string{"space"},
				Hold: time.Second, Until: until, HasUntil: true}))
			// A caption is on the screen when its first words are, after "» ".
			marks := make([]string, len(sc.Captions))
			for i, cp := range sc.Captions {
				marks[i] = "» " + truncateWords(cp.Text, 4)
				for j := range i {
					if marks[j] == marks[i] {
						t.Fatalf("captions %d and %d begin alike: %q", j, i, marks[i])
					}
				}
			}
			emu := vt.NewEmulator(c.Width, c.Height)
			go func() { _, _ = io.Copy(io.Discard, emu) }()
			since := make([]float64, len(sc.Captions)) // when it came on screen; -1: not on it
			shown := make([]float64, len(sc.Captions)) // its longest stretch, in seconds
			for i := range since {
				since[i] = -1
			}
			for k, text := range c.texts {
				_, _ = emu.Write([]byte(text))
				scr := strings.Join(strings.Fields(emu.String()), " ") // a wrapped caption on one line
				for i, mark := range marks {
					on := strings.Contains(scr, mark) && k < len(c.texts)-1
					switch {
					case on && since[i] < 0:
						since[i] = c.times[k]
					case !on && since[i] >= 0:
						shown[i] = max(shown[i], c.times[k]-since[i])
						since[i] = -1
					}
				}
			}
			for i, cp := range sc.Captions {
				if want := captionHold(cp.Text).Seconds(); shown[i] < want-recordFrame.Seconds() {
					t.Errorf("caption %d at %s (%q…) is on screen %.2f s of the cast; want at least %.2f s",
						i, cp.At.Short(), truncateWords(cp.Text, 6), shown[i], want)
				}
			}
		})
	}
}
