package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// --denied writes a row per limiter, setting and client denied: the rows'
// denials add up to the sweep's own denied column; the hostile log's keys
// (escapes, NUL, bidi, an empty key) come back exactly, in CSV and in
// JSON Lines alike, each one of the log's own (read apart with
// encoding/json); an existing file is refused, before the log is read.
func TestReplayDeniedFile(t *testing.T) {
	log := filepath.Join("testdata", "replay", "esc.jsonl")
	dir := t.TempDir()
	csvPath, jsonlPath := filepath.Join(dir, "denied.csv"), filepath.Join(dir, "denied.jsonl")
	args := []string{"replay", log, "--limits", "1,2", "--windows", "1m,10s"}
	out, errOut, code := windowlab(t, append(args, "--denied", csvPath)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := windowlab(t, append(args, "--denied", jsonlPath)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The log's own keys, read apart.
	keys := map[string]bool{}
	data, _ := os.ReadFile(log)
	for _, line := range bytes.Split(data, []byte("\n")) {
		var rec struct{ IP *string }
		if json.Unmarshal(line, &rec) == nil && rec.IP != nil {
			keys[*rec.IP] = true
			if *rec.IP == "" {
				keys["-"] = true // an empty key is the client "-", as in the Common Log Format
			}
		}
	}
	// Made as the user makes a file (0666 less the umask), not as a
	// temporary one (0600): the umask here is found by a file made so.
	if info, err := os.Stat(csvPath); err != nil || info.Mode().Perm() != userMode(t, dir) {
		t.Errorf("%s: mode %v (%v), want %v", csvPath, info.Mode().Perm(), err, userMode(t, dir))
	}
	f, _ := os.Open(csvPath)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %v, %d rows", csvPath, err, len(rows))
	}
	// The line saying it was written counts its rows, not its clients (a
	// client denied by three limiters is three rows).
	if want := "wrote " + csvPath + ": " + strconv.Itoa(len(rows)-1) + " rows (a row per limiter"; !strings.Contains(out, want) {
		t.Errorf("the output does not say %q:\n%s", want, out)
	}
	sums := map[string]int64{} // by "limiter limit window"
	var fromCSV []string
	for _, r := range rows[1:] {
		n, _ := strconv.ParseInt(r[4], 10, 64)
		sums[r[0]+" "+r[1]+" "+r[2]] += n
		fromCSV = append(fromCSV, r[3])
		if !keys[r[3]] {
			t.Errorf("%q is no key of the log", r[3])
		}
	}
	var fromJSONL []string
	jf, _ := os.Open(jsonlPath)
	sc := bufio.NewScanner(jf)
	for sc.Scan() {
		var r struct{ Client string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		fromJSONL = append(fromJSONL, r.Client)
	}
	jf.Close()
	if !slices.Equal(fromCSV, fromJSONL) {
		t.Errorf("the CSV's clients %q and the JSON Lines' %q differ", fromCSV, fromJSONL)
	}
	names := map[string]string{"Fixed window": "fixed-window", "Sliding window log": "sliding-log", "Sliding window counter": "sliding-counter"}
	// The table's rows, each under its setting's line, up to the chart.
	setting := regexp.MustCompile(`^([0-9]+) per (\S+)$`)
	row := regexp.MustCompile(`^  (Fixed window|Sliding window log|Sliding window counter) +([0-9,]+) `)
	found := 0
	var limit, window string
	for line := range strings.Lines(out[:strings.Index(out, "allowed per")]) {
		line = strings.TrimSuffix(line, "\n")
		if m := setting.FindStringSubmatch(line); m != nil {
			limit, window = m[1], m[2]
			continue
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		found++
		want, _ := strconv.ParseInt(strings.ReplaceAll(m[2], ",", ""), 10, 64)
		if got := sums[names[m[1]]+" "+limit+" "+window]; got != want {
			t.Errorf("%s, %s per %s: the file's rows deny %d, the table %d", m[1], limit, window, got, want)
		}
	}
	if found != 12 {
		t.Errorf("%d rows of the table read, want 12:\n%s", found, out)
	}
	before, _ := os.ReadFile(csvPath)
	out, errOut, code = windowlab(t, append(args, "--denied", csvPath)...)
	after, _ := os.ReadFile(csvPath)
	if code != 2 || !strings.Contains(errOut, "exists; windowlab never writes over a file") || !bytes.Equal(before, after) || out != "" {
		t.Errorf("an existing --denied file: exit %d, %s%s", code, out, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*part")); len(left) > 0 {
		t.Errorf("left behind: %q", left)
	}
}

// A key holding CR LF, a comma, quotes, NUL and an escape is written as
// CSV quotes it (every byte kept, quotes doubled) and as JSON escapes it,
// and reads back exactly.
func TestReplayDeniedKeepsAHostileKeyExactly(t *testing.T) {
	key := "x\r\ny,\"z\" =1+1\x00\x1b[2J"
	quoted, _ := json.Marshal(key)
	var b strings.Builder
	for i := range 3 {
		b.WriteString(`{"ts":179608320000` + strconv.Itoa(i) + `,"ip":` + string(quoted) + "}\n")
	}
	log := writeFile(t, "h.jsonl", []byte(b.String()))
	dir := t.TempDir()
	for _, name := range []string{"d.csv", "d.jsonl"} {
		path := filepath.Join(dir, name)
		if _, errOut, code := windowlab(t, "replay", log, "--limit", "1", "--window", "1s", "--algorithms", "fixed-window", "--denied", path); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		data, _ := os.ReadFile(path)
		if name == "d.csv" {
			want := `fixed-window,1,1s,"x` + "\r\n" + `y,""z"" =1+1` + "\x00\x1b[2J" + `",2,`
			if !strings.Contains(string(data), want) {
				t.Errorf("%s: no %q in\n%q", name, want, data)
			}
			continue
		}
		var r struct{ Client string }
		if err := json.Unmarshal(bytes.TrimSpace(data), &r); err != nil || r.Client != key {
			t.Errorf("%s: %q (%v), want %q", name, r.Client, err, key)
		}
	}
}

// userMode is the mode os.Create gives a new file in dir: 0666 less the
// umask.
func userMode(t *testing.T, dir string) os.FileMode {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "mode-probe"))
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}
