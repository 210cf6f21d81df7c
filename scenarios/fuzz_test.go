package scenarios

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode"

	"windowlab/algo"
)

// FuzzParse checks that any bytes give either a valid scenario or a list of
// located errors: never a panic (the parser's own recover would turn one
// into "please report this file", which fails here too), never an error
// without a line and column, and never an allocation out of proportion to
// the input. Seeded with the committed corpus (testdata/fuzz/FuzzParse), the
// bad catalogue (../testdata/bad) and the built-ins:
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 10m ./scenarios/
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "bad", "*.yaml"))
	builtins, _ := filepath.Glob(filepath.Join("builtin", "*.yaml"))
	lessons, _ := filepath.Glob(filepath.Join("lesson", "*.yaml"))
	for _, path := range append(append(files, builtins...), lessons...) {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(minimal))
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := parseText("f.yaml", data) // Parse's reading; resolving captions replays, within the engine's budget
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > parseAllocBound(len(data)) {
			t.Fatalf("parsing %d bytes allocated %d bytes, more than %d", len(data), grew, parseAllocBound(len(data)))
		}
		if err == nil {
			if errs := s.resolveCaptions(); len(errs) > 0 {
				err = errs
			}
		}
		if err != nil {
			checkLocated(t, data, err)
			return
		}
		checkValid(t, s)
	})
}

// parseAllocBound is what parsing n bytes may allocate: the tokens and the
// syntax tree cost a few hundred bytes per input byte, never more.
func parseAllocBound(n int) uint64 { return 16<<20 + 1024*uint64(n) }

// checkLocated holds for every error Parse returns: an ErrorList of one to
// maxErrors errors, each naming the file, each on one line, each with a line
// and column inside the input (only a file over the size limit is reported
// as a whole), none of them the recovered panic of the YAML library.
func checkLocated(t *testing.T, data []byte, err error) {
	t.Helper()
	list, ok := err.(ErrorList)
	if !ok {
		t.Fatalf("error is %T, want ErrorList: %v", err, err)
	}
	if len(list) == 0 || len(list) > maxErrors {
		t.Fatalf("%d errors, want 1 to %d:\n%v", len(list), maxErrors, err)
	}
	// YAML breaks lines at \n, \r\n and a lone \r; once a file has a lone
	// \r, the YAML library counts the \r and the \n of a later \r\n apart
	// (found by this fuzzer: "\r#0\r\n0" is reported on line 4), so the
	// bound counts every \r.
	lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 1
	for _, e := range list {
		if e.File != "f.yaml" {
			t.Errorf("error names file %q: %v", e.File, e)
		}
		if strings.Contains(e.Error(), "\n") {
			t.Errorf("an error spans lines, so a CLI printing one per line would lose its position: %q", e.Error())
		}
		if strings.Contains(e.Msg, "the YAML parser failed") {
			t.Errorf("the YAML library panicked: %v", e)
		}
		if len(data) > MaxFileSize {
			continue
		}
		if e.Line < 1 || e.Column < 1 || e.Line > lines {
			t.Errorf("error at line %d, column %d of a %d-line input: %v", e.Line, e.Column, lines, e)
		}
	}
}

// checkValid holds for every scenario Parse accepts: what the loader
// promises the engine (a valid config, known algorithms, traffic within the
// limits, a start at or before the first request), and, for scenarios small
// enough to replay here, arrivals in order, as many as Len says.
func checkValid(t *testing.T, s *Scenario) {
	t.Helper()
	if err := s.Config.Validate(); err != nil {
		t.Fatalf("accepted an invalid config: %v", err)
	}
	if len(s.Algorithms) == 0 || (len(s.Traffic) == 0 && s.rec == nil) || !isSlug(s.Name) {
		t.Fatalf("accepted a scenario with %d algorithms, %d traffic entries, name %q", len(s.Algorithms), len(s.Traffic), s.Name)
	}
	clients := s.trafficClients()
	if s.rec != nil {
		clients = s.rec.clients // a recorded file's: under the hand-written rule too
	}
	for _, c := range clients {
		if !clientName(c) {
			t.Fatalf("accepted a client named %q", c)
		}
	}
	for _, a := range s.Algorithms {
		if _, err := a.New(s.Config); err != nil {
			t.Fatalf("accepted algorithm %v: %v", a, err)
		}
	}
	if s.Title != strings.Join(strings.Fields(s.Title), " ") {
		t.Fatalf("accepted a title that is not one line of single spaces: %q", s.Title)
	}
	texts := []string{s.Title, s.Description}
	for _, c := range s.Captions {
		texts = append(texts, c.Text)
	}
	for _, q := range s.Questions {
		texts = append(texts, q.Ask, q.Answer, q.Explain)
		texts = append(texts, q.Choices...)
	}
	for _, text := range texts {
		if strings.ContainsFunc(text, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
			t.Fatalf("accepted text with a control character, which would reach the terminal: %q", text)
		}
	}
	if s.Speed != 0 && (s.Speed < MinSpeed || s.Speed > MaxSpeed) {
		t.Fatalf("accepted speed %v", s.Speed)
	}
	var expected float64
	for i, tr := range s.Traffic {
		switch tr.Shape {
		case Burst:
			if tr.Count < 1 || tr.Count > MaxRequests {
				t.Fatalf("traffic[%d]: accepted count %d", i, tr.Count)
			}
		case Spread, Stream, Random:
			if tr.To <= tr.From {
				t.Fatalf("traffic[%d]: accepted an empty span %v–%v", i, tr.From, tr.To)
			}
		}
		if tr.Shape == Random && (tr.Clients < 1 || tr.Clients > MaxClients || !(tr.Rate > 0)) {
			t.Fatalf("traffic[%d]: accepted %d clients at rate %v", i, tr.Clients, tr.Rate)
		}
		expected += tr.expected()
	}
	if expected > MaxRequests {
		t.Fatalf("accepted about %v requests, more than %d", expected, MaxRequests)
	}
	if first, ok := firstArrival(s); ok && s.Start > first {
		t.Fatalf("the clock starts at %v, after the first request at %v", s.Start, first)
	}
	if expected > 100_000 {
		return // counting it is Len's job, tested on its own; keep each input quick
	}
	n := s.Len()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	src := s.Source()
	runtime.ReadMemStats(&after)
	// The source builds each random client's name once: at most MaxClients
	// names of at most 64+8 bytes, and a few words per traffic entry.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20+uint64(MaxClients)*(16+80)+1024*uint64(len(s.Traffic)) {
		t.Fatalf("building the source allocated %d bytes", grew)
	}
	var count int64
	last := algo.Instant(-1 << 62)
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		if a.At < last {
			t.Fatalf("arrival %d at %v comes after one at %v", count, a.At, last)
		}
		last = a.At
		count++
	}
	if count != n || src.Len() != n {
		t.Fatalf("the source made %d arrivals, Len says %d (source %d)", count, n, src.Len())
	}
}

// A run line never panics the reader, and every run writeRun writes reads
// back as itself, its client (a log's key, whatever its bytes) by its
// savedName: a name a recorded file may hold, on a line the reader
// takes for a key of up to 1 KiB.
func FuzzRecordedRun(f *testing.F) {
	f.Add([]byte(`  - {at: "2026-11-30T23:59:59.250Z", client: "10.0.0.1", count: 3}`), "10.0.0.1", int64(1), int64(1764547199250))
	f.Add([]byte(`  - {at: "2026-11-30T23:59:59.250Z", client: "a \"b\" \\ c"}`), "é\t\"", int64(7), int64(946684800000))
	f.Add([]byte(`- {at: "", client: ""}`), "", int64(0), int64(0))
	f.Add([]byte(`- {at: "2026-11-30T23:59:59.250Z", client: "\x1b]0;PWNED\a"}`), "\x1b]0;PWNED\a\x1b[2J\u202e", int64(1), int64(1764547199250))
	f.Add([]byte(`- {at: "2026-11-30T23:59:59.250Z", client: ""}`), strings.Repeat("\x01", 1024), int64(2), int64(1764547199250))
	f.Fuzz(func(t *testing.T, line []byte, client string, count, at int64) {
		recordedRun(line) // must not panic
		if count < 1 || count > math.MaxInt32 || at < int64(algo.Dated) || at > 253402300799999 || len(client) > 1<<10 {
			return
		}
		run := Run{At: algo.Instant(at), Client: client, Count: count}
		var b bytes.Buffer
		bw := bufio.NewWriter(&b)
		writeRun(bw, run, true)
		bw.Flush()
		if b.Len() > maxRecordedLine {
			t.Fatalf("a run of a %d-byte key is a %d-byte line; the reader takes %d", len(client), b.Len(), maxRecordedLine)
		}
		gotAt, gotClient, n, why := recordedRun(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		want := run
		want.Client = savedName(client)
		if got := (Run{At: gotAt, Client: string(gotClient), Count: n}); why != "" || got != want || !clientName(got.Client) {
			t.Fatalf("%q: read back %+v (%s), want %+v, a client name", b.String(), got, why, want)
		}
	})
}
