package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/replay"
	"windowlab/scenarios"
	"windowlab/sim"
)

var updateReplay = flag.Bool("update", false, "rewrite testdata/replay/*.txt from the current reports (review them before committing)")

// golden compares got with testdata/replay/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenFile(t, filepath.Join("testdata", "replay", name), got)
}

// goldenFile compares a command's output got with the file at path, or
// rewrites the file with -update.
func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	if *updateReplay {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("the output differs from %s (go test -run %s -update rewrites it; review the diff):\n%s", path, t.Name(), got)
	}
}

// The report of a small log (a night across midnight, bad and late lines
// named), and a sweep's table, as golden files; a gzip of the log gives
// the same report but for its name.
func TestReplayReports(t *testing.T) {
	log := filepath.Join("testdata", "replay", "combined.log")
	out, errOut, code := windowlab(t, "replay", log, "--limit", "2", "--window", "10s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "combined.txt", out)
	out, errOut, code = windowlab(t, "replay", log, "--limits", "1,2", "--windows", "10s,1h")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "combined-sweep.txt", out)

	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	gz := writeFile(t, "combined.log.gz", z.Bytes())
	zout, _, code := windowlab(t, "replay", gz, "--limit", "2", "--window", "10s")
	// Unwrapped: the gzip's longer name wraps the summary elsewhere.
	if first, _ := golden0(t, "combined.txt"); code != 0 || strings.ReplaceAll(unwrapped(zout), gz, log) != unwrapped(first) {
		t.Errorf("the gzip's report differs from the log's (exit %d):\n%s", code, zout)
	}
}

func golden0(t *testing.T, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join("testdata", "replay", name))
	return string(b), err
}

// --tz moves the window edges to a zone's midnight: a log that crosses
// 18:30 UTC, Asia/Kolkata's midnight, meets the day's edge there (the
// fixed window lets twice its limit through) and not with UTC's; a
// saved scenario keeps the zone, and check replays it the same.
func TestReplayInAZone(t *testing.T) {
	var b strings.Builder
	for _, at := range []string{"18:29:58", "18:29:59", "18:30:00", "18:30:01"} {
		fmt.Fprintf(&b, "10.0.0.1 - - [30/Nov/2026:%s +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"t\"\n", at)
	}
	log := writeFile(t, "tz.log", []byte(b.String()))
	utc, _, _ := windowlab(t, "replay", log, "--limit", "2", "--window", "24h", "--json")
	local, errOut, code := windowlab(t, "replay", log, "--limit", "2", "--window", "24h", "--tz", "Asia/Kolkata", "--json")
	if code != 0 || !strings.Contains(errOut, "windows align to Asia/Kolkata's calendar, UTC+05:30 at the first request") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	allowed := func(report string) int64 {
		var r struct {
			Scenario struct {
				OffsetMs int64 `json:"offset_ms"`
			} `json:"scenario"`
			Algorithms []struct {
				Name    string `json:"name"`
				Allowed int64  `json:"allowed"`
			} `json:"algorithms"`
		}
		if err := json.Unmarshal([]byte(report), &r); err != nil || len(r.Algorithms) == 0 {
			t.Fatalf("%v:\n%s", err, report)
		}
		return r.Algorithms[0].Allowed*1_000_000_000_000 + r.Scenario.OffsetMs
	}
	if got, want := allowed(utc), int64(2*1_000_000_000_000); got != want {
		t.Errorf("UTC: the fixed window allowed and offset %d, want %d", got, want)
	}
	if got, want := allowed(local), int64(4*1_000_000_000_000+66_600_000); got != want {
		t.Errorf("Asia/Kolkata: the fixed window allowed and offset %d, want %d (4 allowed, edges at 18:30 UTC)", got, want)
	}
	saved := filepath.Join(t.TempDir(), "tz.yaml")
	if _, errOut, code := windowlab(t, "replay", log, "--limit", "2", "--window", "24h", "--tz", "Asia/Kolkata", "--save", saved); code != 0 {
		t.Fatalf("--save: exit %d\n%s", code, errOut)
	}
	if data, _ := os.ReadFile(saved); !strings.Contains(string(data), "tz: \"Asia/Kolkata\"\n") {
		t.Errorf("the saved file does not name its zone:\n%s", data)
	}
	if out, errOut, code := windowlab(t, "run", saved, "--json"); code != 0 || allowed(out) != allowed(local) {
		t.Errorf("the saved file replays otherwise (exit %d):\n%s%s", code, out, errOut)
	}
	if _, errOut, code := windowlab(t, "replay", log, "--tz", "Mars/Olympus_Mons"); code != 2 || !strings.Contains(errOut, `--tz "Mars/Olympus_Mons" is not a time zone`) {
		t.Errorf("an unknown zone: exit %d\n%s", code, errOut)
	}
}

// A CSV export names its columns as the engineer would type them:
// --time-column and --client-column, the same as --time-field and
// --client-field.
func TestReplayCSVColumns(t *testing.T) {
	csv := writeFile(t, "export.csv", []byte("who,when,path\nalice,2026-11-30T23:59:59.100Z,/a\nalice,2026-11-30T23:59:59.200Z,/a\nbob,2026-11-30T23:59:59.300Z,/b\nalice,2026-11-30T23:59:59.400Z,/a\n"))
	out, errOut, code := windowlab(t, "replay", csv, "--time-column", "when", "--client-column", "who", "--limit", "2", "--window", "1s", "--json")
	if code != 0 || !strings.Contains(errOut, "4 requests") || !strings.Contains(errOut, "2 clients") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if !strings.Contains(out, `"client":"bob"`) || !strings.Contains(out, `"denied":1`) {
		t.Errorf("the report:\n%s", out)
	}
	if _, errOut, code := windowlab(t, "replay", csv, "--time-column", "when", "--time-field", "when"); code != 2 || !strings.Contains(errOut, "time-column") {
		t.Errorf("both spellings at once: exit %d\n%s", code, errOut)
	}
}

// Bad input to replay: each says what and where, exit 2.
func TestReplayRefusals(t *testing.T) {
	empty := writeFile(t, "empty.log", []byte("nothing here\nnor here\n"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "nowhere.log"}, "nowhere.log: no such file"},
		{[]string{"replay", t.TempDir()}, "is a directory, not a log"},
		{[]string{"replay", empty}, "no request could be read from 2 lines"},
		{[]string{"replay", empty, "--key", "ip+port"}, `"port" is not a part of a key`},
		{[]string{"replay", empty, "--format", "xml"}, `--format "xml": use auto, combined`},
		{[]string{"replay", empty, "--algorithms", "leaky-bucket"}, `--algorithms: unknown algorithm "leaky-bucket"`},
		{[]string{"replay", empty, "--limits", "1,2,3,4,5", "--windows", "1s,2s,3s,4s,5s"}, "25 settings; compare at most 24"},
		{[]string{"replay", empty, "--limits", "1,2", "--json"}, "--json prints one setting's report"},
		{[]string{"replay", empty, "--limits", "1,2", "--save", "x.yaml"}, "--save and --tui take one setting"},
		{[]string{"replay", filepath.Join("testdata", "replay", "combined.log"), "--strict"}, `combined.log:4: "a" is not a time`},
	} {
		_, errOut, code := windowlab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("windowlab %s: exit %d, want 2 and %q:\n%s", strings.Join(c.args, " "), code, c.want, errOut)
		}
	}
}

// A saved scenario replays to the very decisions of the log it was saved
// from: random logs across midnight, a little out of order, with bursts
// at one instant, through the three limiters.
func TestSavedScenarioReplaysTheLog(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var b strings.Builder
		base := time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)
		at := base
		for i := 0; i < 300; i++ {
			at = at.Add(time.Duration(rng.IntN(800)) * time.Millisecond)
			line := at.Add(-time.Duration(rng.IntN(3)) * time.Second) // merged logs: a little out of order
			fmt.Fprintf(&b, "10.0.0.%d - - [%s] \"GET /x HTTP/1.1\" 200 1 \"-\" \"-\"\n", rng.IntN(4), line.Format("02/Jan/2006:15:04:05.000 -0700"))
		}
		l, err := accesslog.Read(strings.NewReader(b.String()), accesslog.Options{Name: "random.log", Reorder: accesslog.DefaultReorder})
		if err != nil {
			t.Fatal(err)
		}
		cfg := algo.Config{Limit: int64(1 + rng.IntN(8)), Window: time.Duration(1+rng.IntN(20)) * time.Second}
		algos, _ := parseAlgorithms("fixed-window,sliding-log,sliding-counter")
		// A third of the logs align their windows to a zone's calendar.
		var zone *time.Location
		if seed%3 == 0 {
			zone, _ = time.LoadLocation([]string{"Asia/Kolkata", "America/St_Johns", "Pacific/Chatham"}[seed/3%3])
			cfg.Window = time.Duration(1+rng.IntN(90)) * time.Minute // long enough for the zone to move its edges
		}
		s := replay.Setting{Config: cfg, Algorithms: algos}.Aligned(zone, l.First())
		var yaml bytes.Buffer
		if err := scenarios.WriteRecorded(&yaml, scenarios.Recorded{From: "random.log", Config: cfg, Algorithms: algos, Zone: zone}, replay.Runs(l)); err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Parse("random.yaml", yaml.Bytes())
		if err != nil {
			t.Fatalf("seed %d: the saved scenario does not parse: %v", seed, err)
		}
		fromLog, err := replay.Engine(context.Background(), l.Source(), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		fromFile, err := sc.Engine(sim.Options{ForwardOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if fromLog.Len() != fromFile.Len() {
			t.Fatalf("seed %d: %d requests from the log, %d from the file", seed, fromLog.Len(), fromFile.Len())
		}
		for {
			a, okA := fromLog.Step()
			f, okF := fromFile.Step()
			if okA != okF {
				t.Fatalf("seed %d: one replay ended first", seed)
			}
			if !okA {
				break
			}
			// The same request (the log numbers its clients, the file may not)
			// and the same decisions.
			same := a.Arrival.At == f.Arrival.At && a.Arrival.Client == f.Arrival.Client
			if !same || !reflect.DeepEqual(a.Decisions, f.Decisions) {
				t.Fatalf("seed %d, request %d: the log's %v %+v, the file's %v %+v", seed, a.Index, a.Arrival, a.Decisions, f.Arrival, f.Decisions)
			}
		}
	}
}

// --save writes a new file that check accepts, also past the 1 MiB of a
// hand-written one, and never writes over a file.
func TestReplaySave(t *testing.T) {
	var b strings.Builder
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 20_000; i++ {
		fmt.Fprintf(&b, "10.0.%d.%d - - [%s] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n", i/250, i%250, at.Add(time.Duration(i)*time.Second).Format("02/Jan/2006:15:04:05 -0700"))
	}
	log := writeFile(t, "big.log", []byte(b.String()))
	saved := filepath.Join(t.TempDir(), "big.yaml")
	out, errOut, code := windowlab(t, "replay", log, "--limit", "5", "--window", "1m", "--save", saved)
	if code != 0 || !strings.Contains(out, "wrote "+saved+": 20,000 runs") {
		t.Fatalf("--save: exit %d\n%s%s", code, out, errOut)
	}
	if info, err := os.Stat(saved); err != nil || info.Size() <= 1<<20 {
		t.Fatalf("the saved file should be past 1 MiB: %v %v", info.Size(), err)
	}
	if out, errOut, code := windowlab(t, "check", saved); code != 0 || !strings.Contains(out, "big.yaml: ok") {
		t.Errorf("check of the saved file: exit %d\n%s%s", code, out, errOut)
	}
	before, _ := os.ReadFile(saved)
	_, errOut, code = windowlab(t, "replay", log, "--save", saved)
	if after, _ := os.ReadFile(saved); code != 2 || !strings.Contains(errOut, "exists; windowlab never writes over a file") || !bytes.Equal(before, after) {
		t.Errorf("--save over a file: exit %d\n%s", code, errOut)
	}
	// A hand-written file of that size is still refused.
	hand := writeFile(t, "hand.yaml", bytes.TrimPrefix(before, []byte(scenarios.RecordedMark)))
	if _, errOut, code := windowlab(t, "check", hand); code != 2 || !strings.Contains(errOut, "a scenario file may be at most 1 MiB") {
		t.Errorf("a big hand-written file: exit %d\n%s", code, errOut)
	}
}

// The many bouncers in the report: three local tallies let 300 through,
// 100 a server, where the shared tally lets 100; the JSON gives the
// same server by server.
func TestManyServersReport(t *testing.T) {
	out, errOut, code := windowlab(t, "run", "many-servers")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"fixed-window@3: 300 requests allowed", "3 times the limit",
		"fixed-window@3, server by server: 100 · 100 · 100 allowed, 0 · 0 · 0 denied", "fixed-window: at most 100 allowed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	js, _, code := windowlab(t, "run", "shared-tally-race", "--json")
	var r struct {
		Algorithms []struct {
			Name    string `json:"name"`
			Allowed int64  `json:"allowed"`
			Servers []struct {
				Allowed int64 `json:"allowed"`
			} `json:"servers"`
		} `json:"algorithms"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil || code != 0 {
		t.Fatalf("exit %d, %v", code, err)
	}
	got := map[string]int64{}
	for _, a := range r.Algorithms {
		got[a.Name] = a.Allowed
		if len(a.Servers) != 0 {
			t.Errorf("%s, one shared tally, has servers %v", a.Name, a.Servers)
		}
	}
	if got["fixed-window"] != 100 || got["fixed-window~2ms"] != 101 {
		t.Errorf("the race: %v; want 100 atomic, 101 racy", got)
	}
}

// A streamed report lets the heap grow by half its live size, not by all
// of it, before collecting (streamedGCPercent), a sweep and --recommend's
// passes over a long file by a quarter (sweptGCPercent); a user's GOGC is
// kept, and so is the default when the log is kept whole (--save,
// --recommend on a short file).
func TestStreamedReplayCollectsSooner(t *testing.T) {
	log := filepath.Join("testdata", "replay", "combined.log")
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)
	percentAfter := func(gogc string, args ...string) int {
		t.Helper()
		t.Setenv("GOGC", gogc)
		debug.SetGCPercent(100)
		if len(args) == 0 || !strings.HasPrefix(args[0], "--limits") {
			args = append([]string{"--limit", "2", "--window", "10s"}, args...)
		}
		if _, errOut, code := windowlab(t, append([]string{"replay", log}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return debug.SetGCPercent(100)
	}
	if got := percentAfter(""); got != streamedGCPercent {
		t.Errorf("a report: GOGC %d after it, want %d", got, streamedGCPercent)
	}
	if got := percentAfter("", "--limits", "2,3", "--window", "10s"); got != sweptGCPercent {
		t.Errorf("a sweep: GOGC %d after it, want %d", got, sweptGCPercent)
	}
	if got := percentAfter("", "--recommend"); got != 100 {
		t.Errorf("--recommend on a short file (kept whole): GOGC %d after it, want 100", got)
	}
	keeps := recommendKeepsAtMost
	recommendKeepsAtMost = -1 // every file in passes
	defer func() { recommendKeepsAtMost = keeps }()
	if got := percentAfter("", "--recommend"); got != sweptGCPercent {
		t.Errorf("--recommend on a file (in passes): GOGC %d after it, want %d", got, sweptGCPercent)
	}
	if got := percentAfter("100"); got != 100 {
		t.Errorf("with the user's GOGC=100: GOGC %d after the report, want 100", got)
	}
	if got := percentAfter("", "--save", filepath.Join(t.TempDir(), "s.yaml")); got != 100 {
		t.Errorf("--save (the log kept whole): GOGC %d after it, want 100", got)
	}
}

// --json's report counts the log's requests in its header, before the
// first decision: it keeps the log, as --tui does. Streamed, as a report
// is, a log longer than the few chunks the reading may hold ahead of the
// deciding hung for good: the report waited for the reading's end, the
// reading (which looks every 4,096 lines) for the deciding (found on a
// 1M-line log; here 10,000 lines in chunks of 64 bytes, some 900). It is
// refused before reading where the file's size tells it holds more than
// the requests kept.
func TestReplayJSONOfALongLog(t *testing.T) {
	oldChunk, oldLimit := accesslog.ChunkSize, accesslog.RequestLimit
	accesslog.ChunkSize = 64
	t.Cleanup(func() { accesslog.ChunkSize, accesslog.RequestLimit = oldChunk, oldLimit })
	const lines = 10_000
	var b strings.Builder
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for i := range lines {
		fmt.Fprintf(&b, "10.0.%d.%d - - [%s] \"GET / HTTP/1.1\" 200 5 \"-\" \"t\"\n", i%7, i%3, at.Add(time.Duration(i)*97*time.Millisecond).Format("02/Jan/2006:15:04:05 -0700"))
	}
	log := writeFile(t, "long.log", []byte(b.String()))

	type result struct {
		out, errOut string
		code        int
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := windowlab(t, "replay", log, "--limit", "20", "--window", "1m", "--json")
		done <- result{out, errOut, code}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(2 * time.Minute): // a hang, not a speed: the run takes well under a second
		t.Fatal("replay --json of a 10,000-line log did not end: the report and the reading wait on each other")
	}
	var report struct {
		Scenario struct {
			Requests int64 `json:"requests"`
		} `json:"scenario"`
		Requests   []json.RawMessage `json:"requests"`
		Algorithms []struct {
			Allowed, Denied int64
		} `json:"algorithms"`
		Complete bool `json:"complete"`
	}
	if err := json.Unmarshal([]byte(r.out), &report); r.code != 0 || err != nil {
		t.Fatalf("exit %d, %v:\n%.500s\n%s", r.code, err, r.out, r.errOut)
	}
	if report.Scenario.Requests != lines || len(report.Requests) != lines || !report.Complete || len(report.Algorithms) != 3 {
		t.Fatalf("the report counts %d requests and holds %d (complete %v, %d limiters), want %d", report.Scenario.Requests, len(report.Requests), report.Complete, len(report.Algorithms), lines)
	}
	for _, a := range report.Algorithms {
		if a.Allowed+a.Denied != lines || a.Denied == 0 {
			t.Errorf("a limiter allowed %d and denied %d of %d requests (21 clients at some 29 a minute each, limited to 20: want some denied)", a.Allowed, a.Denied, lines)
		}
	}

	accesslog.RequestLimit = lines / 3
	_, errOut, code := windowlab(t, "replay", log, "--limit", "20", "--window", "1m", "--json")
	if code != 2 || !strings.Contains(errOut, "--json keeps every request, at most 3,333") {
		t.Errorf("a log three times the requests kept: exit %d\n%s", code, errOut)
	}
}
