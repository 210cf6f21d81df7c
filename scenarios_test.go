package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/term"

	"windowlab/algo"
	"windowlab/internal/cli"
	"windowlab/scenarios"
	"windowlab/sim"
)

// Every built-in scenario holds what its expect blocks claim.
func TestBuiltinsHoldTheirExpectations(t *testing.T) {
	all := scenarios.Builtins()
	if len(all) < 7 {
		t.Fatalf("%d built-in scenarios, want at least 7", len(all))
	}
	for _, s := range all {
		t.Run(s.Name, func(t *testing.T) {
			if len(s.Expect) == 0 {
				t.Fatal("no expect blocks: a built-in scenario must say what it shows")
			}
			for _, f := range s.Verify() {
				t.Error(f)
			}
		})
	}
}

// The project's copies of the lesson's examples hold their expected totals.
func TestLessonExamples(t *testing.T) {
	files, _ := filepath.Glob("testdata/examples/*.yaml")
	if len(files) != 3 {
		t.Fatalf("found %d example files, want 3", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, err := scenarios.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range s.Verify() {
				t.Error(f)
			}
		})
	}
}

func runToEnd(t *testing.T, name string) (*sim.Engine, map[algo.Kind]sim.Stats) {
	t.Helper()
	s, err := scenarios.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Engine(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToEnd()
	stats := map[algo.Kind]sim.Stats{}
	for _, st := range e.Stats() {
		stats[st.Kind] = st
	}
	return e, stats
}

// The lesson's numbers, asserted directly rather than through expect blocks.
func TestLessonNumbers(t *testing.T) {
	t.Run("200 requests in 2 seconds", func(t *testing.T) {
		_, st := runToEnd(t, "boundary-burst")
		fixed := st[algo.KindFixedWindow]
		if fixed.Allowed != 200 || fixed.MaxInWindow != 200 {
			t.Errorf("fixed window allowed %d, %d in one window; the lesson says 200", fixed.Allowed, fixed.MaxInWindow)
		}
		if fixed.MaxInWindowFirst != algo.Clock(12, 0, 59, 0) || fixed.MaxInWindowLast != algo.Clock(12, 1, 0, 0) {
			t.Errorf("the 200 arrived %v–%v, want 12:00:59–12:01:00", fixed.MaxInWindowFirst, fixed.MaxInWindowLast)
		}
		if log := st[algo.KindSlidingLog]; log.Allowed != 100 {
			t.Errorf("sliding log allowed %d, want 100", log.Allowed)
		}
	})
	t.Run("check yourself 1: 200", func(t *testing.T) {
		_, st := runToEnd(t, "check-yourself-1")
		if got := st[algo.KindFixedWindow].Allowed; got != 200 {
			t.Errorf("fixed window allowed %d, the lesson's answer is 200", got)
		}
	})
	t.Run("worked example: 84, 30, 0.75, 93", func(t *testing.T) {
		e, _ := runToEnd(t, "worked-example")
		r, ok := e.Last()
		if !ok {
			t.Fatal("no decision")
		}
		var d algo.Decision
		for _, x := range r.Decisions {
			if x.Kind == algo.KindSlidingCounter {
				d = x
			}
		}
		if r.Arrival.At != algo.Clock(12, 1, 15, 0) {
			t.Fatalf("last request at %v, want 12:01:15", r.Arrival.At)
		}
		wn, wd := d.WeightRat()
		en, ed := d.EstimateRat()
		if d.Previous != 84 || d.Current() != 30 || wn*4 != wd*3 || en != 93*ed || !d.Allowed {
			t.Errorf("got previous %d, current %d, weight %d/%d, estimate %d/%d, allowed %v; want 84, 30, 3/4, 93, true",
				d.Previous, d.Current(), wn, wd, en, ed, d.Allowed)
		}
		if got, want := d.Explain(), "30 + 84 × 0.75 = 93 → allow (93 < 100)"; got != want {
			t.Errorf("Explain() = %q, want %q", got, want)
		}
	})
}

// The command line, end to end: reports, JSON shape and exit codes.
func TestCommandLine(t *testing.T) {
	run := func(args ...string) (string, int) {
		var out bytes.Buffer
		cmd := cli.NewRootCommand(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(args)
		err := cmd.Execute()
		return out.String(), cli.ExitCode(err)
	}
	t.Run("no command, not a terminal: the boundary-burst report", func(t *testing.T) {
		out, code := run()
		if code != 0 || !strings.Contains(out, "The boundary burst") || !strings.Contains(out, "200 requests allowed within 1s") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})
	t.Run("memory: the lesson's 10 billion timestamps", func(t *testing.T) {
		out, code := run("memory", "--limit", "10000", "--window", "1h", "--clients", "1000000")
		if code != 0 || !strings.Contains(out, "10,000,000,000 timestamps") || !strings.Contains(out, "10 billion timestamps") ||
			!strings.Contains(out, "2,000,000 counters") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
		if _, code := run("memory", "--clients", "0"); code != 2 {
			t.Errorf("--clients 0 exits %d, want 2", code)
		}
	})
	t.Run("run prints the lesson's line", func(t *testing.T) {
		out, code := run("run", "boundary-burst")
		if code != 0 || !strings.Contains(out, "fixed-window: 200 requests allowed within 1s") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})
	t.Run("json", func(t *testing.T) {
		out, code := run("run", "worked-example", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, out)
		}
		var doc struct {
			Algorithms []struct {
				Name    string
				Allowed int64
				Denied  int64
			}
			Requests []struct {
				AtMs      int64 `json:"at_ms"`
				Client    string
				Decisions map[string]map[string]any
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		if len(doc.Requests) != 115 || len(doc.Algorithms) != 3 || doc.Algorithms[1].Name != "sliding-log" || doc.Algorithms[1].Allowed != 100 {
			t.Fatalf("unexpected report: %d requests, algorithms %+v", len(doc.Requests), doc.Algorithms)
		}
		last := doc.Requests[114]
		sc := last.Decisions["sliding-counter"]
		if last.AtMs != int64(algo.Clock(12, 1, 15, 0)) || sc["estimate"] != 93.0 || sc["weight"] != 0.75 || sc["allowed"] != true {
			t.Errorf("last request %d: sliding-counter %v", last.AtMs, sc)
		}
	})
	t.Run("trace explains each decision", func(t *testing.T) {
		out, _ := run("run", "worked-example", "--trace")
		if !strings.Contains(out, "30 + 84 × 0.75 = 93 → allow (93 < 100)") {
			t.Errorf("trace lacks the worked example's arithmetic:\n%s", out)
		}
	})
	t.Run("check passes the built-ins", func(t *testing.T) {
		files, _ := filepath.Glob("scenarios/builtin/*.yaml")
		out, code := run(append([]string{"check"}, files...)...)
		if code != 0 {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	write := func(name, text string) string { return writeFile(t, name, []byte(text)) }
	t.Run("a failed expectation exits 1", func(t *testing.T) {
		p := write("wrong.yaml", "limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:59\", count: 100}\n  - {at: \"12:01:00\", count: 100}\nexpect:\n  - {algorithm: fixed-window, allowed: 100}\n")
		out, code := run("check", p)
		if code != 1 || !strings.Contains(out, "wrong.yaml:7:") || !strings.Contains(out, "got 200") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})
	t.Run("an invalid file exits 2 and names the place", func(t *testing.T) {
		p := write("bad.yaml", "limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:60:00\"}\n")
		out, code := run("run", p)
		if code != 2 || !strings.Contains(out, "bad.yaml:4:") || !strings.Contains(out, "traffic[0].at") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
		before, _ := os.ReadFile(p)
		if string(before) != "limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:60:00\"}\n" {
			t.Error("the user's file was changed")
		}
	})
	t.Run("the view without a terminal says what to use instead", func(t *testing.T) {
		if term.IsTerminal(os.Stdout.Fd()) {
			t.Skip("standard output is a terminal here")
		}
		for _, args := range [][]string{{"tui"}, {"lesson"}, {"quiz"}} {
			out, code := run(args...)
			if code != 2 || !strings.Contains(out, "needs a terminal") || !strings.Contains(out, "windowlab run") {
				t.Errorf("%v: exit %d, output:\n%s", args, code, out)
			}
		}
	})
	t.Run("unknown command exits 2 with a suggestion", func(t *testing.T) {
		_, code := run("rn", "boundary-burst")
		if code != 2 {
			t.Errorf("exit %d, want 2", code)
		}
	})
	t.Run("unknown scenario names the valid ones", func(t *testing.T) {
		_, code := run("run", "boundry-burst")
		if code != 2 {
			t.Errorf("exit %d, want 2", code)
		}
	})
}

// writeFile writes a file into a fresh directory and returns its path.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The scenario examples in the README and in docs/ are files a reader will
// copy: each must load and hold its expectations.
func TestReadmeExamples(t *testing.T) {
	docs, _ := filepath.Glob("docs/*.md")
	var blocks [][]byte
	var names []string
	for _, f := range append([]string{"README.md"}, docs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(b, -1) {
			blocks = append(blocks, m[1])
			names = append(names, fmt.Sprintf("%s example %d", f, i+1))
		}
	}
	if len(blocks) < 2 {
		t.Fatalf("found %d yaml examples in the README and docs/, want at least 2", len(blocks))
	}
	for i, b := range blocks {
		s, err := scenarios.Parse(names[i], b)
		if err != nil {
			t.Errorf("%s: %v", names[i], err)
			continue
		}
		for _, f := range s.Verify() {
			t.Errorf("%s: %v", names[i], f)
		}
	}
}
