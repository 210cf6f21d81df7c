package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// minimal is the format's minimal form, exactly as documented.
const minimal = `limit: 100          # requests per window
window: 1m          # Go duration syntax
traffic:
  - {at: "12:00:59", count: 100, client: client-1}   # a burst at one instant; client defaults to client-1
  - {at: "12:01:00", count: 100}
  - {from: "12:02:00", to: "12:03:00", every: 500ms, client: bob}   # steady stream, ` + "`to`" + ` exclusive
`

func mustParse(t *testing.T, file, text string) *Scenario {
	t.Helper()
	s, err := Parse(file, []byte(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

// drain reads every arrival of src, checking on the way that each client
// has one number and no two clients share one (sim.Arrival.Number), and
// returns them without their numbers.
func drain(src sim.Source) []sim.Arrival {
	var out []sim.Arrival
	byName, byNumber := map[string]int32{}, map[int32]string{}
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		if a.Number < 1 {
			panic(fmt.Sprintf("%+v: no number", a))
		}
		if n, seen := byName[a.Client]; seen && n != a.Number {
			panic(fmt.Sprintf("%s numbered %d, then %d", a.Client, n, a.Number))
		}
		if c, seen := byNumber[a.Number]; seen && c != a.Client {
			panic(fmt.Sprintf("%s and %s share the number %d", c, a.Client, a.Number))
		}
		byName[a.Client], byNumber[a.Number] = a.Number, a.Client
		a.Number = 0
		out = append(out, a)
	}
	return out
}

func TestMinimalForm(t *testing.T) {
	s := mustParse(t, "class.yaml", minimal)
	var want []sim.Arrival
	for range 100 {
		want = append(want, sim.Arrival{At: algo.Clock(12, 0, 59, 0), Client: "client-1"})
	}
	for range 100 {
		want = append(want, sim.Arrival{At: algo.Clock(12, 1, 0, 0), Client: "client-1"})
	}
	for ms := 0; ms < 60_000; ms += 500 {
		want = append(want, sim.Arrival{At: algo.Clock(12, 2, 0, ms), Client: "bob"})
	}
	got := drain(s.Source())
	if !slices.Equal(got, want) {
		t.Fatalf("arrivals differ: got %d, want %d; first got %v", len(got), len(want), got[:min(3, len(got))])
	}
	if s.Len() != int64(len(want)) || s.Source().Len() != int64(len(want)) {
		t.Errorf("Len = %d, source Len = %d, want %d", s.Len(), s.Source().Len(), len(want))
	}
	// Defaults.
	if s.Name != "class" {
		t.Errorf("Name = %q, want the file's base name", s.Name)
	}
	if s.Config != (algo.Config{Limit: 100, Window: time.Minute}) {
		t.Errorf("Config = %+v", s.Config)
	}
	if !slices.Equal(s.Algorithms, lessonAlgorithms()) {
		t.Errorf("Algorithms = %v, want the lesson's three", s.Algorithms)
	}
	if s.Start != algo.Clock(12, 0, 0, 0) {
		t.Errorf("Start = %v, want the window edge 12:00:00 before the first arrival", s.Start)
	}
	if got := len(s.Limiters()); got != 3 {
		t.Errorf("Limiters: %d, want 3", got)
	}
}

func TestFields(t *testing.T) {
	s := mustParse(t, "x.yaml", `
name: my-lesson
title: "A: title"
description: |
  Two lines
  of text.
limit: 5
window: 90s
expiry: false
algorithms: [sliding-counter, fixed-window]
start: "11:58:30"
traffic:
  - at: 12:00:00.5
  - {from: "12:00:00", to: "12:00:01", count: 3, client: spread}
  - {from: "12:00:00", to: "12:00:02", rate: "3000/m", clients: 3, seed: -9, client: r}
captions:
  - {at: "12:00:00", text: hello, until: "12:00:10"}
questions:
  - {ask: "How many?", answer: 200, choices: [100, 200], hint: "Which window?", at: "12:00:00", algorithm: fixed-window}
expect:
  - {algorithm: sliding-counter, at: "12:00:01", allowed: 1, last: {weight: "3/4", estimate: 0.5}}
`)
	if s.Name != "my-lesson" || s.Title != "A: title" || s.Description != "Two lines\nof text.\n" {
		t.Errorf("name/title/description = %q, %q, %q", s.Name, s.Title, s.Description)
	}
	if s.Config != (algo.Config{Limit: 5, Window: 90 * time.Second, NoExpiry: true}) {
		t.Errorf("Config = %+v", s.Config)
	}
	if !slices.Equal(s.Algorithms, []algo.Algorithm{{Kind: algo.KindSlidingCounter}, {Kind: algo.KindFixedWindow}}) {
		t.Errorf("Algorithms = %v", s.Algorithms)
	}
	if s.Start != algo.Clock(11, 58, 30, 0) {
		t.Errorf("Start = %v", s.Start)
	}
	wantTraffic := []Traffic{
		{Shape: Burst, Line: 13, Column: 5, Client: "client-1", At: algo.Clock(12, 0, 0, 500), Count: 1},
		{Shape: Spread, Line: 14, Column: 5, Client: "spread", From: algo.Clock(12, 0, 0, 0), To: algo.Clock(12, 0, 1, 0), Count: 3},
		{Shape: Random, Line: 15, Column: 5, Client: "r", From: algo.Clock(12, 0, 0, 0), To: algo.Clock(12, 0, 2, 0), Rate: 50, Clients: 3, Seed: -9},
	}
	if !slices.Equal(s.Traffic, wantTraffic) {
		t.Errorf("Traffic =\n%+v\nwant\n%+v", s.Traffic, wantTraffic)
	}
	if c := s.Captions; len(c) != 1 || c[0].Text != "hello" || c[0].Until != algo.Clock(12, 0, 10, 0) {
		t.Errorf("Captions = %+v", c)
	}
	q := s.Questions
	if len(q) != 1 || q[0].Answer != "200" || !slices.Equal(q[0].Choices, []string{"100", "200"}) || q[0].Hint != "Which window?" ||
		!q[0].HasAt || !q[0].HasAlgorithm || q[0].Algorithm != (algo.Algorithm{Kind: algo.KindFixedWindow}) {
		t.Errorf("Questions = %+v", q)
	}
	e := s.Expect
	if len(e) != 1 || e[0].Line != 21 || e[0].Column != 5 || *e[0].Allowed != 1 || e[0].Last == nil ||
		e[0].Last.Weight.RatString() != "3/4" || e[0].Last.Estimate.RatString() != "1/2" || e[0].Denied != nil {
		t.Errorf("Expect = %+v", e)
	}
	// Spread: request i at from + floor(i·1000/3) ms, interleaved by time
	// with the burst at 12:00:00.500.
	var got []string
	for _, a := range drain(s.Source()) {
		if a.Client == "spread" || a.Client == "client-1" {
			got = append(got, a.At.String()+" "+a.Client)
		}
	}
	want := []string{"12:00:00.000 spread", "12:00:00.333 spread", "12:00:00.500 client-1", "12:00:00.666 spread"}
	if !slices.Equal(got, want) {
		t.Errorf("spread and burst arrivals = %q, want %q", got, want)
	}
}

func TestSameInstantFollowsFileOrder(t *testing.T) {
	s := mustParse(t, "x.yaml", `
limit: 1
window: 1s
traffic:
  - {from: "12:00:00", to: "12:00:02", every: 1s, client: stream}
  - {at: "12:00:01", count: 2, client: burst}
  - {from: "12:00:01", to: "12:00:02", count: 1, client: spread}
  - {at: "12:00:00", client: late-listed}
`)
	var got []string
	for _, a := range drain(s.Source()) {
		got = append(got, a.At.Short()+" "+a.Client)
	}
	want := []string{
		"12:00:00 stream", "12:00:00 late-listed",
		"12:00:01 stream", "12:00:01 burst", "12:00:01 burst", "12:00:01 spread",
	}
	if !slices.Equal(got, want) {
		t.Errorf("order = %q\nwant %q", got, want)
	}
}

func TestClockTimes(t *testing.T) {
	for _, tc := range []struct {
		text string
		want algo.Instant
		ok   bool
	}{
		{"12:00:59", algo.Clock(12, 0, 59, 0), true},
		{"00:00:00", 0, true},
		{"23:59:59.999", algo.Clock(23, 59, 59, 999), true},
		{"9:05:00", algo.Clock(9, 5, 0, 0), true},
		{"12:00:00.5", algo.Clock(12, 0, 0, 500), true},
		{"12:00:00.05", algo.Clock(12, 0, 0, 50), true},
		{"24:00:00", 0, false},
		{"12:60:00", 0, false},
		{"12:00:60", 0, false},
		{"12:00", 0, false},
		{"12:0:00", 0, false},
		{"12:00:00.", 0, false},
		{"12:00:00.1234", 0, false},
		{"-1:00:00", 0, false},
		{"12:00:00:00", 0, false},
	} {
		got, msg := parseClock(tc.text)
		if (msg == "") != tc.ok || got != tc.want {
			t.Errorf("parseClock(%q) = %v, %q; want %v, ok=%v", tc.text, got, msg, tc.want, tc.ok)
		}
	}
}

// An unquoted clock time is a plain string to this YAML library, so it
// needs no quotes; this guards that against a library upgrade.
func TestUnquotedClock(t *testing.T) {
	s := mustParse(t, "x.yaml", "limit: 1\nwindow: 1m\ntraffic:\n  - {at: 12:00:59}\n  - at: 12:01:00\n")
	if s.Traffic[0].At != algo.Clock(12, 0, 59, 0) || s.Traffic[1].At != algo.Clock(12, 1, 0, 0) {
		t.Errorf("unquoted at = %v, %v", s.Traffic[0].At, s.Traffic[1].At)
	}
}

func TestRateForms(t *testing.T) {
	var first []sim.Arrival
	for i, rate := range []string{"50", "50.0", `"50/s"`, `"3000/m"`, `"180000/h"`, `"0.05/ms"`} {
		s := mustParse(t, "x.yaml", "limit: 1\nwindow: 1m\ntraffic:\n  - {from: \"12:00:00\", to: \"12:01:00\", rate: "+rate+", clients: 4}\n")
		if s.Traffic[0].Rate != 50 {
			t.Errorf("rate %s = %v per second, want 50", rate, s.Traffic[0].Rate)
		}
		got := drain(s.Source())
		if i == 0 {
			first = got
		} else if !slices.Equal(got, first) {
			t.Errorf("rate %s gives different arrivals from rate 50", rate)
		}
	}
}

func TestErrorFields(t *testing.T) {
	_, err := Parse("bad.yaml", []byte("limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:59\"}\n  - {at: \"12:60:00\"}\n"))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) holds no *Error", err, err)
	}
	want := Error{File: "bad.yaml", Line: 5, Column: 10, Field: "traffic[1].at",
		Msg: `"12:60:00" is not a clock time; use HH:MM:SS or HH:MM:SS.mmm with minutes 00–59`}
	if *e != want {
		t.Errorf("error = %+v\nwant %+v", *e, want)
	}
	if got := err.Error(); got != "bad.yaml:5:10: traffic[1].at: "+want.Msg {
		t.Errorf("Error() = %q", got)
	}
}

func TestErrorsSortedAndCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("limit: 1\nwindow: 1m\ntraffic:\n")
	for range 30 {
		b.WriteString("  - {at: \"12:00:00\", count: 0}\n")
	}
	b.WriteString("limit: 2\n")
	_, err := Parse("x.yaml", []byte(b.String()))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != maxErrors {
		t.Fatalf("got %d errors, want %d: %v", len(list), maxErrors, err)
	}
	for i := 1; i < len(list); i++ {
		if list[i].Line < list[i-1].Line {
			t.Errorf("errors out of file order: %v before %v", list[i-1], list[i])
		}
	}
	if last := list[len(list)-1]; !strings.Contains(last.Msg, "22 more errors") {
		t.Errorf("last error %q does not say how many more there are", last.Msg)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "My Class.v2.yaml")
	if err := os.WriteFile(good, []byte(minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(good)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "my-class-v2" || s.File != good {
		t.Errorf("Name, File = %q, %q", s.Name, s.File)
	}

	big := filepath.Join(dir, "big.yaml")
	data := []byte(minimal + "# " + strings.Repeat("x", MaxFileSize) + "\n")
	if err := os.WriteFile(big, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(big)
	if err == nil || !strings.Contains(err.Error(), "may be at most 1 MiB") || !strings.HasPrefix(err.Error(), big+": ") {
		t.Errorf("Load of an oversized file: %v", err)
	}

	_, err = Load(filepath.Join(dir, "missing.yaml"))
	if err == nil || !strings.HasSuffix(err.Error(), "missing.yaml: no such file") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

func TestResolve(t *testing.T) {
	s, err := Resolve("worked-example")
	if err != nil || s.Name != "worked-example" {
		t.Fatalf("Resolve(builtin) = %v, %v", s, err)
	}
	path := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(path, []byte(minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Resolve(path); err != nil || s.Name != "mine" {
		t.Fatalf("Resolve(path) = %v, %v", s, err)
	}
	_, err = Resolve("boundary-brust")
	if err == nil || !strings.Contains(err.Error(), "boundary-burst") {
		t.Errorf("Resolve of a typo should list the built-ins: %v", err)
	}
}

func TestEngineStartsAtScenarioStart(t *testing.T) {
	s := mustParse(t, "x.yaml", "limit: 1\nwindow: 1m\ntraffic: [{at: \"12:00:59\"}]\n")
	e, err := s.Engine(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Start() != algo.Clock(12, 0, 0, 0) || e.Len() != 1 {
		t.Errorf("engine Start, Len = %v, %d", e.Start(), e.Len())
	}
}

func TestWholeNumberMessages(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{`1e3`, `traffic[0].count: 1e3 is a floating-point number in YAML; write it as the whole number 1000`},
		{`"12"`, `traffic[0].count: expected a whole number, got string "12"; remove the quotes`},
		{`-99999999999999999999`, `traffic[0].count: -99999999999999999999 is too small; use a whole number from 1 to 50,000,000`},
		{`2.5`, `traffic[0].count: 2.5 is not a whole number; use a whole number from 1 to 50,000,000`},
		{`[1]`, `traffic[0].count: expected a whole number, got a list`},
		{`true`, `traffic[0].count: expected a whole number, got boolean true`},
		{`1_000`, `traffic[0].count: 1_000 is not a number in YAML 1.2, which scenario files are written in; write 1000`},
		{`0b11`, `traffic[0].count: 0b11 is not a number in YAML 1.2, which scenario files are written in; write 3`},
		{`0x10`, ``},
	} {
		_, err := Parse("x.yaml", []byte("limit: 1\nwindow: 1m\ntraffic:\n  - at: \"12:00:00\"\n    count: "+tc.value+"\n"))
		var e *Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("count: %s: unexpected error %v", tc.value, err)
		case tc.want != "" && !errors.As(err, &e):
			t.Errorf("count: %s: no error", tc.value)
		case tc.want != "" && e.Field+": "+e.Msg != tc.want:
			t.Errorf("count: %s:\n got %s: %s\nwant %s", tc.value, e.Field, e.Msg, tc.want)
		}
	}
}

// Numbers are read as YAML 1.2 writes them, the same in every field: a
// leading zero is decimal (0100 is one hundred, not YAML 1.1's octal 64).
func TestNumbersAreYAML12(t *testing.T) {
	s := mustParse(t, "x.yaml", "limit: 0100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:00\", count: 010}\n"+
		"  - {from: \"12:01:00\", to: \"12:02:00\", rate: 010, clients: 0o17, seed: 0x10}\n"+
		"expect:\n  - {algorithm: fixed-window, at: \"12:00:00\", allowed: 010}\n")
	if s.Config.Limit != 100 || s.Traffic[0].Count != 10 || s.Traffic[1].Rate != 10 || s.Traffic[1].Clients != 15 || s.Traffic[1].Seed != 16 {
		t.Errorf("limit %d, count %d, rate %v, clients %d, seed %d; want 100, 10, 10, 15, 16",
			s.Config.Limit, s.Traffic[0].Count, s.Traffic[1].Rate, s.Traffic[1].Clients, s.Traffic[1].Seed)
	}
	if *s.Expect[0].Allowed != 10 {
		t.Errorf("expect allowed %d, want 10", *s.Expect[0].Allowed)
	}
	r := mustParse(t, "y.yaml", "limit: 1\nwindow: 1m\ntraffic:\n  - {from: \"12:00:00\", to: \"12:00:01\", rate: 1e3}\n")
	if r.Traffic[0].Rate != 1000 {
		t.Errorf("rate 1e3 read as %v", r.Traffic[0].Rate)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"count", "cuont", 2}, {"limt", "limit", 1}, {"abc", "", 3}, {"kitten", "sitting", 3}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// A %YAML 1.2 directive before the document is the version these files
// are, not a second document.
func TestYAMLDirective(t *testing.T) {
	s := mustParse(t, "d.yaml", "%YAML 1.2\n---\nlimit: 0100\nwindow: 1m\ntraffic: [{at: \"12:00:00\"}]\n")
	if s.Config.Limit != 100 {
		t.Errorf("limit %d, want 100", s.Config.Limit)
	}
}

// A dated at (a replayed log's, or a person's) is a date and time to the
// millisecond with its zone, from 2000 on; a night across midnight reads
// in order, and windows align to the epoch.
func TestDatedTraffic(t *testing.T) {
	s, err := Parse("dated.yaml", []byte(`limit: 2
window: 10s
traffic:
  - {at: "2026-11-30T23:59:58Z", client: a}
  - {at: "2026-12-01T00:00:00Z", client: a, count: 2}
  - {at: "2026-12-01T01:00:00.500+01:00", client: b}
`))
	if err != nil {
		t.Fatal(err)
	}
	src := s.Source()
	var got []string
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		got = append(got, a.At.String()+" "+a.Client)
	}
	want := "2026-11-30 23:59:58.000 a|2026-12-01 00:00:00.000 a|2026-12-01 00:00:00.000 a|2026-12-01 00:00:00.500 b"
	if strings.Join(got, "|") != want {
		t.Errorf("arrivals\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
	for at, msg := range map[string]string{
		"2026-11-30T23:59:58":       `use a date and time such as "2026-11-30T23:59:59.250Z" (RFC 3339, with its zone)`,
		"2026-11-30T23:59:58.0001Z": "give at most three digits after the second",
		"1999-12-31T23:59:59Z":      "a date is from 2000-01-01 on",
	} {
		_, err := Parse("bad.yaml", []byte("limit: 2\nwindow: 10s\ntraffic:\n  - {at: \""+at+"\"}\n"))
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("at %q: %v, want %q", at, err, msg)
		}
	}
}

// The commands and the view quote the playback speeds in their messages
// through SpeedRange; its text is part of those messages.
func TestSpeedRange(t *testing.T) {
	if got := SpeedRange(); got != "0.1 to 1000" {
		t.Fatalf("SpeedRange() = %q, want %q", got, "0.1 to 1000")
	}
}
