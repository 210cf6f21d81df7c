package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"windowlab/human"
	"windowlab/scenarios"
)

// The hostile logs (testdata/replay/esc.*) hold, in their keys and in
// lines that are no request, what a terminal acts on: nginx's
// escape=json "\u001b]0;PWNED\u0007\u001b[2J" (a new title, a cleared
// screen), NUL, backspaces, BEL, DEL, C1's CSI, bidi overrides, an empty
// key, and a key that looks like another's quoted form. Whatever replay
// reports of them (the log's summary and bad lines, a report, a sweep's
// most denied, an error quoting the header) shows each by its Visible
// form and writes nothing a terminal would act on.
func TestReplayKeepsLogsEscapesOffTheTerminal(t *testing.T) {
	dir := filepath.Join("testdata", "replay")
	jsonl, combined, csv := filepath.Join(dir, "esc.jsonl"), filepath.Join(dir, "esc.log"), filepath.Join(dir, "esc.csv")
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{jsonl, "--limits", "5", "--windows", "1m,10s"}, 0, []string{
			"56 requests from 2026-11-30 23:59:50 to 2026-11-30 23:59:57.006 UTC, 7 clients by ip",
			`esc.jsonl:11: "\x1b]0;PWNED\a\u202e" is not a time`, `esc.jsonl:21: "2026-11-30T23:59:5\u009b2J" is not a time`,
			"Fixed window, 5 per 1m: \"\\x1b]0;PWNED\\a\\x1b[2J\" 3 · \"\\x1b]0;PWNED\\a\\x1b[2J\" 3 · - 3 · 10.0.0.1 3 · \"a\\nb\\x00\" 3",
		}},
		{[]string{jsonl, "--limit", "5", "--window", "1m"}, 0, []string{"7 clients by ip"}},
		{[]string{combined, "--key", "user", "--limit", "2", "--window", "2s"}, 0, []string{
			"3 clients by user",
			`esc.log:6: "30/Nov/2026:23:59:5\x1b" is not a time`, `esc.log:10: "\u202e30/Nov/2026:23:59:51 +0000" is not a time`,
			`fixed-window: 4 requests allowed within 1s ("\x1b]0;PWNED\a\x1b[2J", 2026-11-30 23:59:51–23:59:52)`,
		}},
		{[]string{combined, "--key", "path", "--limits", "1,2", "--windows", "1s,2s"}, 0, []string{`"/\x1b[2J\u202e" 4`, `"/x\b\by" 4`}},
		{[]string{combined, "--key", "field:agent", "--limits", "1,2", "--windows", "1s,2s"}, 0, []string{`"agent\x7f\u009b2J\u2066" 4`, `"bell\a" 4`}},
		{[]string{combined, "--key", "user+path", "--limits", "1,2", "--windows", "1s,2s"}, 0, []string{`"\x1b]0;PWNED\a\x1b[2J /\x1b[2J\u202e" 4`}},
		{[]string{csv, "--key", "field:who", "--limits", "1,2", "--windows", "1s,2s"}, 0, []string{`"\x1b[2J\u202eevil" 4`, `"a\x00b" 4`, "bob 4"}},
		{[]string{csv, "--key", "field:missing"}, 2, []string{`the first record has no field "missing", only time, who, "\x1b]0;PWNED\a"`}},
	} {
		args := append([]string{"replay"}, c.args...)
		out, errOut, code := windowlab(t, args...)
		all := out + errOut
		if i := human.Acts(all); i >= 0 {
			t.Errorf("windowlab %s writes %q at byte %d:\n%s", strings.Join(c.args, " "), all[i:min(i+12, len(all))], i, strings.ToValidUTF8(all, "?"))
			continue
		}
		if code != c.code {
			t.Errorf("windowlab %s: exit %d, want %d\n%s", strings.Join(c.args, " "), code, c.code, all)
		}
		for _, w := range c.want {
			if !strings.Contains(unwrapped(all), w) { // wherever a line wrapped
				t.Errorf("windowlab %s: no %s in\n%s", strings.Join(c.args, " "), w, all)
			}
		}
	}
}

// The JSON report keeps each key exactly (JSON's escapes are its
// quoting), every one a client of its own, and escapes what
// encoding/json leaves raw (DEL, C1, bidi controls).
func TestReplayJSONKeepsKeysExactly(t *testing.T) {
	out, errOut, code := windowlab(t, "replay", filepath.Join("testdata", "replay", "esc.jsonl"), "--limit", "5", "--window", "1m", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if i := human.Acts(out + errOut); i >= 0 {
		t.Fatalf("the JSON or the summary holds %q", (out + errOut)[i:min(i+12, len(out+errOut))])
	}
	var doc struct {
		Requests []struct{ Client string } `json:"requests"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var clients []string
	for _, r := range doc.Requests {
		if !slices.Contains(clients, r.Client) {
			clients = append(clients, r.Client)
		}
	}
	want := []string{"\x1b]0;PWNED\a\x1b[2J", `"\x1b]0;PWNED\a\x1b[2J"`, "-", "a\nb\x00", "\u202eevil\u2066", "del\x7f csi\u009b2J", "10.0.0.1"}
	if !slices.Equal(clients, want) || len(doc.Requests) != 56 {
		t.Errorf("%d requests of clients %q, want 56 of %q", len(doc.Requests), clients, want)
	}
}

// --save writes a hostile log's keys by names a recorded file may hold,
// one name a key: check says ok, the file keeps its 7 clients, and a
// trace of it writes nothing a terminal acts on.
func TestReplaySaveNamesKeysVisibly(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "esc.yaml")
	if out, errOut, code := windowlab(t, "replay", filepath.Join("testdata", "replay", "esc.jsonl"), "--limit", "5", "--window", "1m", "--save", saved); code != 0 {
		t.Fatalf("--save: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := windowlab(t, "check", saved); code != 0 || !strings.Contains(out, "esc.yaml: ok") {
		t.Fatalf("check of the saved file: exit %d\n%s%s", code, out, errOut)
	}
	s, err := scenarios.Load(saved)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Load().Clients; n != 7 {
		t.Errorf("the saved file has %d clients, want the log's 7", n)
	}
	out, errOut, code := windowlab(t, "run", "--trace", saved)
	if i := human.Acts(out + errOut); code != 0 || i >= 0 {
		t.Fatalf("run --trace of the saved file: exit %d, %d\n%s", code, i, strings.ToValidUTF8(out+errOut, "?"))
	}
	for _, name := range []string{`"\x1b]0;PWNED\a\x1b[2J"`, `"\"\\x1b]0;PWNED\\a\\x1b[2J\""`, `"a\nb\x00"`, `"\u202eevil\u2066"`, `"del\x7f csi\u009b2J"`} {
		if !strings.Contains(out, "  "+name+"\n") {
			t.Errorf("the trace names no client %s", name)
		}
	}
}

// A file headed as replay --save writes one whose client would command the
// terminal (ESC, BEL, NUL, a bidi override, an empty name: the catalogue's
// recorded-client-*) is refused by check, run --trace and tui alike, at
// the client, exit 2, and nothing of the name reaches the output raw.
func TestRecordedHostileClientsAreRefused(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "bad", "recorded-client-*.yaml"))
	if len(files) < 4 {
		t.Fatalf("%d recorded-client files in the catalogue", len(files))
	}
	for _, f := range files {
		want, err := os.ReadFile(strings.TrimSuffix(f, ".yaml") + ".err")
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(want), "\n")
		first = strings.TrimPrefix(first, filepath.Base(f))
		for _, cmd := range [][]string{{"check", f}, {"run", "--trace", f}, {"tui", f}} {
			out, errOut, code := windowlab(t, cmd...)
			if code != 2 || !strings.Contains(errOut, f+first) || human.Acts(out+errOut) >= 0 {
				t.Errorf("windowlab %s: exit %d, want 2 and %s%s\n%s%s", strings.Join(cmd, " "), code, f, first, out, errOut)
			}
		}
	}
}
