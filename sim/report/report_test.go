package report

import (
	"bytes"
	"math/big"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

func TestSpan(t *testing.T) {
	for _, c := range []struct {
		first, last algo.Instant
		want        string
	}{
		{algo.Clock(12, 0, 59, 0), algo.Clock(12, 1, 0, 0), "in 2 seconds"}, // the lesson's phrase
		{algo.Clock(12, 0, 58, 0), algo.Clock(12, 1, 2, 0), "in 5 seconds"},
		{algo.Clock(12, 0, 0, 0), algo.Clock(12, 0, 0, 0), "at one instant"},
		{algo.Clock(12, 0, 0, 0), algo.Clock(12, 0, 0, 250), "within 250ms"},
	} {
		if got := Span(c.first, c.last); got != c.want {
			t.Errorf("Span(%v, %v) = %q, want %q", c.first, c.last, got, c.want)
		}
	}
}

func TestTimes(t *testing.T) {
	for _, c := range []struct {
		n, limit int64
		want     string
	}{
		{200, 100, "twice the limit"},
		{300, 100, "3 times the limit"},
		{115, 100, "1.15× the limit"},
		{150, 100, "1.5× the limit"},
	} {
		if got := Times(c.n, c.limit); got != c.want {
			t.Errorf("Times(%d, %d) = %q, want %q", c.n, c.limit, got, c.want)
		}
	}
}

func TestUnits(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Minute: "1m", time.Hour: "1h", 90 * time.Second: "1m30s", 250 * time.Millisecond: "250ms", 9 * time.Second: "9s"} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 10 << 30: "10.0 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	if Entries(algo.KindSlidingLog, 1) != "1 timestamp" || Entries(algo.KindSlidingCounter, 2) != "2 counters" {
		t.Error("Entries names the wrong unit")
	}
}

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
	h := Header{Name: "boundary-burst", Title: "The boundary burst", Limit: 100, Window: time.Minute}
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

func TestBigNumbers(t *testing.T) {
	ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(10), nil)
	if got := Thousands(ten); got != "10,000,000,000" {
		t.Errorf("Thousands(1e10) = %q", got)
	}
	if got := Words(ten); got != "10 billion" {
		t.Errorf("Words(1e10) = %q", got)
	}
	if got := Words(big.NewInt(2_500_000)); got != "2.5 million" {
		t.Errorf("Words(2.5e6) = %q", got)
	}
	if got := Words(big.NewInt(999)); got != "999" {
		t.Errorf("Words(999) = %q", got)
	}
	if got := SIBytes(big.NewInt(80_100_000_000)); got != "80.1 GB" {
		t.Errorf("SIBytes(8.01e10) = %q", got)
	}
	if got := SIBytes(big.NewInt(999)); got != "999 B" {
		t.Errorf("SIBytes(999) = %q", got)
	}
}
