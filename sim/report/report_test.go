package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
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
	var ls []algo.Limiter
	for _, k := range algo.Lesson {
		l, _ := algo.New(k, algo.Config{Limit: 100, Window: time.Minute})
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
	got := out.String()
	for _, want := range []string{
		"limit 100 per 1m, 200 requests from 12:00:59 to 12:01:00",
		"#101  12:01:00.000  client-1",
		"fixed-window     ✓  window 12:01:00–12:02:00 holds 0 → allow (0 < 100)",
		"sliding-log      ✗  100 timestamps after 12:00:00, oldest 12:00:59 → deny (100 ≥ 100)",
		"sliding-counter  ✗  0 + 100 × 1 = 100 → deny (100 ≥ 100)",
		"fixed-window: 200 requests allowed in 2 seconds (client-1, 12:00:59–12:01:00), twice the limit.",
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
