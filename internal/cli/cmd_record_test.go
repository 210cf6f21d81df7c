package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRecordCommand(t *testing.T) {
	dir := t.TempDir()
	cast := filepath.Join(dir, "burst.cast")
	_, errOut, code := windowlab(t, "record", "boundary-burst", "-o", cast, "--until", "12:01:01", "--hold", "1s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	first, err := os.ReadFile(cast)
	if err != nil || !bytes.HasPrefix(first, []byte(`{"version":2,"width":100,"height":30,`)) {
		t.Fatalf("the file: %v\n%.200s", err, first)
	}
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	if fi, _ := os.Stat(cast); fi.Mode().Perm() != 0o644&^os.FileMode(umask) {
		t.Errorf("mode %v, want 0644 less the umask %03o", fi.Mode().Perm(), umask)
	}
	out, _, code := windowlab(t, "record", "boundary-burst", "-o", "-", "--until", "12:01:01", "--hold", "1s")
	if code != 0 || out != string(first) {
		t.Errorf("to standard output (exit %d): not the same bytes as the file", code)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only the recording", len(entries))
	}

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"over a file", []string{"record", "boundary-burst", "-o", cast}, "burst.cast exists; windowlab never writes over a file: give -o another name"},
		{"no -o", []string{"record", "boundary-burst"}, "-o: name the file to write"},
		{"a size too small", []string{"record", "boundary-burst", "-o", "-", "--size", "60x20"}, "--size 60x20: the view needs from 80x24"},
		{"a size not a size", []string{"record", "boundary-burst", "-o", "-", "--size", "big"}, "give COLUMNSxROWS"},
		{"a time not a time", []string{"record", "boundary-burst", "-o", "-", "--until", "noon"}, "--until noon is not a clock time"},
		{"a key not a key", []string{"record", "boundary-burst", "-o", "-", "--keys", "space enterr"}, `"enterr" is not a key`},
		{"a speed out of range", []string{"record", "boundary-burst", "-o", "-", "--speed", "5000"}, "--speed 5000 is out of range"},
		{"a speed not a number", []string{"record", "boundary-burst", "-o", "-", "--speed", "NaN"}, "--speed NaN is out of range: from 0.1 to 1000"},
		{"a hold past an hour", []string{"record", "boundary-burst", "-o", "-", "--hold", "1000h"}, "--hold 1000h is out of range: a duration from 0 to 1h"},
		{"a negative hold", []string{"record", "boundary-burst", "-o", "-", "--hold", "-1s"}, "--hold -1s is out of range"},
		{"a longest past an hour", []string{"record", "boundary-burst", "-o", "-", "--longest", "2h"}, "--longest 2h is out of range"},
		{"an unknown scenario", []string{"record", "boundry-burst", "-o", "-"}, "boundary-burst"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := windowlab(t, c.args...)
			if code != 2 || !strings.Contains(out+errOut, c.want) {
				t.Errorf("exit %d, output:\n%s%s\nwant exit 2 and %q", code, out, errOut, c.want)
			}
		})
	}
	if again, _ := os.ReadFile(cast); !bytes.Equal(again, first) {
		t.Error("a refused recording changed the file")
	}
}
