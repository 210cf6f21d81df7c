package cli

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"windowlab/human"
)

// filesBase is the first second of the logs these tests write.
var filesBase = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// filesLine is one Combined line at filesBase + sec seconds.
func filesLine(client, sec int) string {
	return fmt.Sprintf("10.0.0.%d - - [%s] \"GET /x HTTP/1.1\" 200 5 \"-\" \"t\"\n", client, filesBase.Add(time.Duration(sec)*time.Second).Format("02/Jan/2006:15:04:05 -0700"))
}

// filesLog is a log of n lines a few a second, a few seconds out of
// order (within --reorder's 5 s), a handful of clients, one much busier;
// secs are its lines' times.
func filesLog(seed uint64, n int) (lines []string, secs []int) {
	rng := rand.New(rand.NewPCG(seed, 3))
	for i := range n {
		sec := i/3 + rng.IntN(4)
		c := rng.IntN(6)
		if rng.IntN(3) == 0 {
			c = 9
		}
		lines, secs = append(lines, filesLine(c, sec)), append(secs, sec)
	}
	return lines, secs
}

// put writes lines to dir/name, gzip when name ends in .gz.
func put(t *testing.T, dir, name string, lines []string) string {
	t.Helper()
	data := []byte(strings.Join(lines, ""))
	if strings.HasSuffix(name, ".gz") {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		data = b.Bytes()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// decisions is a replay's output after the log's summary (its first
// paragraph), its name replaced by LOG.
func decisions(t *testing.T, out, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "\n\n")
	if !ok {
		t.Fatalf("no summary paragraph in:\n%s", out)
	}
	return strings.ReplaceAll(rest, name, "LOG")
}

func replayOK(t *testing.T, args ...string) (string, string) {
	t.Helper()
	out, errOut, code := windowlab(t, append([]string{"replay"}, args...)...)
	if code != 0 {
		t.Fatalf("replay %v: exit %d: %s", args, code, errOut)
	}
	return out, errOut
}

// Rotated files, plain and gzip, replay as their concatenation does: the
// same report and the same sweep, with a bad line and a line out of order
// beyond --reorder (across a file's boundary) named by their file and
// their line in it, and the same counts.
func TestReplaySeveralFilesIsTheirConcatenation(t *testing.T) {
	dir := t.TempDir()
	lines, _ := filesLog(1, 3000)
	// File 2's 5th line is bad; file 3's 2nd is 60 s behind the end of file 2.
	lines[1004] = "not a log line\n"
	lines[2001] = filesLine(4, 2000/3-60)
	whole := put(t, dir, "whole.log", lines)
	parts := []string{put(t, dir, "access.log.2.gz", lines[:1000]), put(t, dir, "access.log.1", lines[1000:2000]), put(t, dir, "access.log", lines[2000:])}
	for _, setting := range [][]string{{"--limit", "4", "--window", "10s"}, {"--limits", "3,6", "--windows", "10s,1m"}} {
		one, _ := replayOK(t, append([]string{whole}, setting...)...)
		several, _ := replayOK(t, append(parts, setting...)...)
		name := parts[0] + " … " + parts[2] + " (3 files)"
		if got, want := decisions(t, several, name), decisions(t, one, whole); got != want {
			t.Errorf("%v: three files decide otherwise than their concatenation:\n%s\nwant\n%s", setting, got, want)
		}
		for _, want := range []string{
			name + ": 3,000 lines, combined; 2,998 requests",
			"read as one log, in this order: " + strings.Join(parts, ", "),
			parts[1] + ":5: ",
			parts[2] + ":2: ",
		} {
			if !strings.Contains(unwrapped(several), want) {
				t.Errorf("the summary lacks %q:\n%s", want, several)
			}
		}
		if strings.Contains(several, "overlaps") {
			t.Errorf("a late line within a rotated file named as an overlap:\n%s", several)
		}
		if !strings.Contains(unwrapped(one), ": 3,000 lines, combined; 2,998 requests") {
			t.Errorf("the concatenation's summary:\n%s", one)
		}
	}
}

// A file that begins before the files read ahead of it end is not the
// next of one log's rotations: the summary names it, where it begins and
// how many of its lines were left out, as well as the late lines it names
// one by one. Its first dated line decides, not a bad line before it.
func TestReplayNamesAFileThatOverlaps(t *testing.T) {
	dir := t.TempDir()
	lines, _ := filesLog(3, 900)
	first := put(t, dir, "access.log.1", lines[:600])
	// The next file repeats the last 300 lines of the first (600 lines
	// at 3 a second: from 100 s on), after a bad line, then goes on.
	copied := append([]string{"not a log line\n"}, lines[300:900]...)
	second := put(t, dir, "access.log", copied)
	out, _ := replayOK(t, first, second, "--limit", "4", "--window", "10s")
	out = unwrapped(out) // read whole, wherever the summary wrapped
	begins := filesBase.Add(100 * time.Second).Format("2006-01-02 15:04:05")
	want := second + " overlaps the files before it: it begins at " + begins + ", before their last line at "
	if !strings.Contains(out, want) || !strings.Contains(out, "(the same lines given twice?): ") {
		t.Fatalf("the summary does not name the overlap (want %q):\n%s", want, out)
	}
	var late, named int64
	fmt.Sscanf(out[strings.Index(out, "(the same lines given twice?): ")+len("(the same lines given twice?): "):], "%d", &named)
	if i := strings.Index(out, " lines too far out of order"); i > 0 {
		j := strings.LastIndex(out[:i], " ")
		fmt.Sscanf(strings.ReplaceAll(out[j+1:i], ",", ""), "%d", &late)
	}
	if named < 250 || named != late {
		t.Errorf("the overlap names %d lines left out, the summary %d late lines: want the same, most of the 300 repeated", named, late)
	}
	if out, errOut, code := windowlab(t, "replay", first, put(t, dir, "next.log", lines[600:]), "--limit", "4", "--window", "10s"); code != 0 || strings.Contains(out+errOut, "overlaps") {
		t.Errorf("rotated files named as overlapping (exit %d):\n%s%s", code, out, errOut)
	}
}

// Files given out of time order are read in the order of their first
// lines' times (and the user told); given in order, as given.
func TestReplayOrdersFilesByTheirFirstLines(t *testing.T) {
	dir := t.TempDir()
	lines, _ := filesLog(2, 1500)
	a := put(t, dir, "a.3.gz", lines[:500])
	b := put(t, dir, "a.2.gz", lines[500:1000])
	c := put(t, dir, "a.1", lines[1000:])
	inOrder, errIn := replayOK(t, a, b, c, "--limit", "4", "--window", "10s")
	mixed, errMixed := replayOK(t, c, a, b, "--limit", "4", "--window", "10s")
	if inOrder != mixed {
		t.Errorf("files given out of order replay otherwise:\n%s\nwant\n%s", mixed, inOrder)
	}
	if strings.Contains(errIn, "not in the order given") || !strings.Contains(errMixed, "not in the order given: reading them in time order, "+strings.Join([]string{a, b, c}, ", ")) {
		t.Errorf("the notice: in order %q, out of order %q", errIn, errMixed)
	}
}

// --from and --to replay what the log cut to [from, to) replays: the
// same decisions, every setting; in --tz's zone too; and the summary
// says what was skipped.
func TestReplayFromToIsTheCutLog(t *testing.T) {
	dir := t.TempDir()
	lines, secs := filesLog(3, 6000)
	whole := put(t, dir, "whole.log", lines)
	from, to := 300, 1400 // seconds after filesBase
	var cut []string
	before, after := 0, 0
	for i, l := range lines {
		switch {
		case secs[i] < from:
			before++
		case secs[i] >= to:
			after++
		default:
			cut = append(cut, l)
		}
	}
	cutPath := put(t, dir, "cut.log", cut)
	at := func(sec int) time.Time { return filesBase.Add(time.Duration(sec) * time.Second) }
	fromUTC, toUTC := at(from).Format("2006-01-02 15:04:05"), at(to).Format(time.RFC3339)
	for _, setting := range [][]string{{"--limit", "4", "--window", "10s"}, {"--limits", "2,5", "--windows", "10s,1m"}} {
		want, _ := replayOK(t, append([]string{cutPath}, setting...)...)
		got, _ := replayOK(t, append([]string{whole, "--from", fromUTC, "--to", toUTC}, setting...)...)
		if d, w := decisions(t, got, whole), decisions(t, want, cutPath); d != w {
			t.Errorf("%v: --from/--to decide otherwise than the cut log:\n%s\nwant\n%s", setting, d, w)
		}
		summary := fmt.Sprintf("only the requests from %s UTC up to %s UTC, not included (--from, --to); %s lines before and ", fromUTC, at(to).Format("2006-01-02 15:04:05"), fmt.Sprint(before))
		if !strings.Contains(unwrapped(got), summary) || !strings.Contains(got, human.Int(int64(len(cut)))+" requests") {
			t.Errorf("the summary lacks %q or %d requests:\n%s", summary, len(cut), got)
		}
		if !strings.Contains(got, "the reading stopped past its end and --reorder") {
			t.Errorf("the reading did not stop past --to:\n%s", got)
		}
	}
	// In Berlin's zone, an hour ahead of UTC in November.
	berlin := at(from).Add(time.Hour).Format("2006-01-02 15:04:05")
	z, _ := replayOK(t, whole, "--from", berlin, "--tz", "Europe/Berlin", "--limit", "4", "--window", "10s")
	u, _ := replayOK(t, whole, "--from", fromUTC, "--limit", "4", "--window", "10s")
	if decisions(t, z, whole) != decisions(t, u, whole) {
		t.Errorf("--from in --tz Europe/Berlin is not the UTC hour before:\n%s\nwant\n%s", z, u)
	}
}

// What replay cannot read is refused before anything is read, with one
// line naming it, and exit 2.
func TestReplayFilesAndSliceRefused(t *testing.T) {
	dir := t.TempDir()
	lines, _ := filesLog(4, 30)
	a := put(t, dir, "a.log", lines)
	csv1 := filepath.Join(dir, "a.csv")
	os.WriteFile(csv1, []byte("time,ip\n2026-11-30T06:00:00Z,10.0.0.1\n"), 0o644)
	csv2 := filepath.Join(dir, "b.csv")
	os.WriteFile(csv2, []byte("when,ip\n2026-11-30T06:00:01Z,10.0.0.1\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{a, filepath.Join(dir, "missing.log")}, "missing.log: no such file or directory"},
		{[]string{a, "-"}, "- reads standard input alone"},
		{[]string{a, dir}, "is a directory, not a log"},
		{[]string{a, "--from", "yesterday"}, `--from "yesterday" is not a time: give RFC 3339`},
		{[]string{a, "--to", "2026-13-01"}, `--to "2026-13-01" is not a time`},
		{[]string{a, "--from", "2026-11-30 07:00", "--to", "2026-11-30 06:00"}, "--to 2026-11-30 06:00 is not after --from 2026-11-30 07:00"},
		{[]string{a, "--from", "2027-01-01"}, "a.log: no request in the slice of --from and --to: of 30 lines read, 30 lines before it and 0 lines after it"},
		{[]string{a, "--from", "1990-01-01"}, `--from "1990-01-01": give a time between the years 2000 and 9999`},
		{[]string{a, a, "--compare", "status"}, "--compare reads one file"},
		{[]string{csv1, csv2}, "b.csv:1: the header is not " + csv1 + "'s"},
	} {
		_, errOut, code := windowlab(t, append([]string{"replay"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("replay %v: exit %d, %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// unwrapped is a replay's output with each line its summary and its
// report's sentences wrap onto (replay.Describe under four spaces, a bad
// line it names under six, the report under two, at 80 columns) joined
// back to the line before: what a test looks for whole, wherever the wrap
// fell.
func unwrapped(out string) string {
	for _, indent := range []string{"\n      ", "\n    ", "\n  "} {
		out = strings.ReplaceAll(out, indent, " ")
	}
	return out
}

// words is out as one line of its words, one space between: a sentence
// however it wrapped, and under whatever indent.
func words(out string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(out, "\u00a0", " ")), " ")
}
