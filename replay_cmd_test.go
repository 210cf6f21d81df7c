package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateReplay = flag.Bool("update", false, "rewrite testdata/replay/*.txt from the current reports (review them before committing)")

// golden compares got with testdata/replay/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "replay", name)
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
		t.Errorf("windowlab replay's output differs from %s:\n%s", path, got)
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
	if first, _ := golden0(t, "combined.txt"); code != 0 || strings.ReplaceAll(zout, gz, log) != first {
		t.Errorf("the gzip's report differs from the log's (exit %d):\n%s", code, zout)
	}
}

func golden0(t *testing.T, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join("testdata", "replay", name))
	return string(b), err
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
		{[]string{"replay", filepath.Join("testdata", "replay", "combined.log"), "--strict"}, `combined.log:4: "a" is not a time`},
	} {
		_, errOut, code := windowlab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("windowlab %s: exit %d, want 2 and %q:\n%s", strings.Join(c.args, " "), code, c.want, errOut)
		}
	}
}
