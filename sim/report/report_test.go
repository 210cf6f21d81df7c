package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

func boundaryBurst(t *testing.T) *sim.Engine {
	t.Helper()
	var arrivals []sim.Arrival
	for _, at := range []algo.Instant{algo.Clock(12, 0, 59, 0), algo.Clock(12, 1, 0, 0)} {
		for range 100 {
			arrivals = append(arrivals, sim.Arrival{At: at, Client: "client-1"})
		}
	}
	return lessonEngine(t, arrivals, algo.Config{Limit: 100, Window: time.Minute})
}

// lessonEngine is a forward-only engine of the lesson's three limiters
// at cfg over arrivals.
func lessonEngine(t *testing.T, arrivals []sim.Arrival, cfg algo.Config) *sim.Engine {
	t.Helper()
	var ls []algo.Limiter
	for _, k := range algo.Lesson {
		l, _ := algo.New(k, cfg)
		ls = append(ls, l)
	}
	e, err := sim.New(sim.NewSliceSource(arrivals), ls, sim.Options{ForwardOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestTextReport(t *testing.T) {
	var out bytes.Buffer
	h := Header{Name: "boundary-burst", Title: "The boundary burst"}
	e := boundaryBurst(t)
	e.RunToEnd() // Text replays from the start whatever the position
	if err := Text(&out, h, e, true); err != nil {
		t.Fatal(err)
	}
	got := unwrapped(out.String())
	for _, want := range []string{
		"limit 100 per 1m, 200 requests from 12:00:59 to 12:01:00",
		"#101  12:01:00.000  client-1",
		"fixed-window     ✓  window 12:01:00–12:02:00 holds 0 → allow (0 < 100)",
		"sliding-log      ✗  100 timestamps after 12:00:00, oldest 12:00:59 → deny (100 ≥ 100)",
		"sliding-counter  ✗  0 + 100 × 1 = 100 → deny (100 ≥ 100)",
		"fixed-window: 200 requests allowed within 1s (client-1, 12:00:59–12:01:00), twice the limit.",
		"sliding-log: at most 100 allowed to one client in any 1m: the limit of 100 held.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n#"); n != 200 {
		t.Errorf("trace lists %d requests, want 200", n)
	}
}

func TestMemoryQuestionValidate(t *testing.T) {
	good := MemoryQuestion{Limit: 10_000, Window: time.Hour, Clients: 1_000_000, KeyBytes: 12, Kinds: algo.All}
	if err := good.Validate(); err != nil {
		t.Fatalf("the lesson's question: %v", err)
	}
	for option, spoil := range map[string]func(*MemoryQuestion){
		"limit":     func(q *MemoryQuestion) { q.Limit = 0 },
		"window":    func(q *MemoryQuestion) { q.Window = 0 },
		"clients":   func(q *MemoryQuestion) { q.Clients = MaxClients + 1 },
		"key-bytes": func(q *MemoryQuestion) { q.KeyBytes = -1 },
	} {
		q := good
		spoil(&q)
		var oe *algo.OptionError
		if err := q.Validate(); !errors.As(err, &oe) || oe.Option != option {
			t.Errorf("%s: %v", option, err)
		}
	}
}

// hostile are client keys a log may hold (nginx's escape=json writes the
// first as "\u001b]0;PWNED\u0007\u001b[2J"): a title change, a screen
// clear, a bidi override, NUL, DEL, C1's CSI, nothing at all.
var hostile = []string{"\x1b]0;PWNED\x07\x1b[2J\u202e", "", "a\nb\x00", "del\x7f", "csi\u009b2J", "\u2067rtl\u200f\u061c", `"\x1b"`}

// hostileArrivals are every hostile key's boundary burst: the limit at
// 12:00:59 and again at 12:01:00.
func hostileArrivals() []sim.Arrival {
	var arrivals []sim.Arrival
	for _, at := range []algo.Instant{algo.Clock(12, 0, 59, 0), algo.Clock(12, 1, 0, 0)} {
		for i, name := range hostile {
			for range 2 {
				arrivals = append(arrivals, sim.Arrival{At: at, Client: name, Number: int32(i + 1)})
			}
		}
	}
	return arrivals
}

func hostileBurst(t *testing.T) *sim.Engine {
	t.Helper()
	return lessonEngine(t, hostileArrivals(), algo.Config{Limit: 2, Window: time.Minute})
}

// No key reaches the text report or its trace as it is: each shows by
// its Visible form, and nothing in the output is a terminal's command.
func TestTextReportShowsKeysVisibly(t *testing.T) {
	var out bytes.Buffer
	if err := Text(&out, Header{Name: "esc"}, hostileBurst(t), true); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if i := human.Acts(got); i >= 0 {
		t.Fatalf("the report holds %q at byte %d:\n%s", got[i:min(i+8, len(got))], i, got)
	}
	for _, name := range hostile {
		if !strings.Contains(got, "  "+human.Visible(name)+"\n") {
			t.Errorf("the trace does not name %q as %s", name, human.Visible(name))
		}
	}
	if !strings.Contains(unwrapped(got), `("\x1b]0;PWNED\a\x1b[2J\u202e", 12:00:59–12:01:00)`) {
		t.Errorf("the lesson line does not name the first key by its Visible form:\n%s", got)
	}
}

// JSON keeps every key exactly (its escapes are JSON's), and nothing in
// it is a terminal's command either: encoding/json leaves DEL, C1 and
// bidi controls as they are, the report escapes them.
func TestJSONReportKeepsKeysExactly(t *testing.T) {
	var out bytes.Buffer
	if err := JSON(&out, Header{Name: "esc"}, hostileBurst(t)); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if i := human.Acts(got); i >= 0 {
		t.Fatalf("the JSON holds %q at byte %d", got[i:min(i+8, len(got))], i)
	}
	var doc struct {
		Requests []struct {
			Client string `json:"client"`
		} `json:"requests"`
		Algorithms []struct {
			MaxInWindowClient string `json:"max_in_window_client"`
		} `json:"algorithms"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := hostileArrivals()
	for i, r := range doc.Requests {
		if r.Client != want[i].Client {
			t.Errorf("request %d: client %q, want %q", i, r.Client, want[i].Client)
		}
	}
	if len(doc.Requests) != 4*len(hostile) || doc.Algorithms[0].MaxInWindowClient != hostile[0] {
		t.Errorf("%d requests, the first busiest %q", len(doc.Requests), doc.Algorithms[0].MaxInWindowClient)
	}
}

// "time" is RFC 3339, which writes years up to 9999: an instant past it
// (files and logs refuse one; this is the last guard) has its at_ms alone,
// never "10000-01-01T…".
func TestJSONTimeIsRFC3339(t *testing.T) {
	const last = algo.Instant(253_402_300_799_999) // 9999-12-31T23:59:59.999Z
	l, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 5, Window: time.Minute})
	e, err := sim.New(sim.NewSliceSource([]sim.Arrival{{At: last, Client: "a"}, {At: last + 1, Client: "a"}}), []algo.Limiter{l}, sim.Options{ForwardOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := JSON(&out, Header{Name: "y"}, e); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, `"time":"9999-12-31T23:59:59.999Z"`) || strings.Contains(got, `"time":"10000`) || strings.Count(got, `"time":`) != 1 {
		t.Errorf("JSON times:\n%s", got)
	}
}

// unwrapped is a report with each line its sentences wrap onto (wrapped,
// under two spaces) joined back to the line before: what a test looks
// for whole, wherever the wrap fell.
func unwrapped(out string) string { return strings.ReplaceAll(out, "\n  ", " ") }

// A report's header and lesson lines wrap at Width between words, never
// inside what they glue: a date with its time, the client with its
// window, the verdict. A replayed log's busiest window is a client's
// address and two full dates; once unwrapped each line says what the
// JSON's summary says.
func TestTextWrapsWhole(t *testing.T) {
	at := algo.Instant(time.Date(2026, 11, 30, 7, 59, 59, 250e6, time.UTC).UnixMilli())
	var arrivals []sim.Arrival
	for _, d := range []algo.Instant{0, 0, 1000, 1000, 1000} { // 2 before 08:00 and 3 after: the boundary burst
		arrivals = append(arrivals, sim.Arrival{At: at + d, Client: "10.107.18.130"})
	}
	e := lessonEngine(t, arrivals, algo.Config{Limit: 2, Window: time.Hour})
	var out bytes.Buffer
	if err := Text(&out, Header{Name: "access.log"}, e, false); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, line := range strings.Split(got, "\n") {
		if w := utf8.RuneCountInString(line); w > Width {
			t.Errorf("a line of %d columns:\n%s", w, got)
		}
	}
	whole := unwrapped(got)
	for _, want := range []string{
		"from 2026-11-30 07:59:59.250 to 2026-11-30 08:00:00.250",
		"fixed-window: " + LessonLine(e.Stats()[0], 2, time.Hour),
		"sliding-log: " + LessonLine(e.Stats()[1], 2, time.Hour),
	} {
		if !strings.Contains(whole, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	for _, glued := range []string{"2026-11-30 07:59:59.250", "2026-11-30 08:00:00.250", "the limit of 2 held.",
		"(10.107.18.130, 2026-11-30 07:59:59.250–08:00:00.250)", "1.5× the limit."} {
		if !strings.Contains(got, glued) {
			t.Errorf("%q broken across lines:\n%s", glued, got)
		}
	}
}
