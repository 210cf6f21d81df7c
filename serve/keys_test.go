package serve

import (
	"crypto/ed25519"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"charm.land/log/v2"
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"windowlab/room"
	"windowlab/ui"
)

// --teacher-keys - reads the keys from standard input, and names it in
// its errors.
func TestTeacherKeysFromStandardInput(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(nil)
	key, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	read := func(text string) ([]ssh.PublicKey, error) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer func(in *os.File) { os.Stdin = in }(os.Stdin)
		os.Stdin = r
		go func() { w.WriteString(text); w.Close() }()
		return LoadTeacherKeys("-")
	}
	keys, err := read("# the teacher\n" + string(gossh.MarshalAuthorizedKey(key)))
	if err != nil || len(keys) != 1 || string(keys[0].Marshal()) != string(key.Marshal()) {
		t.Fatalf("keys %v, err %v", keys, err)
	}
	if _, err := read("not a key\n"); err == nil || !strings.HasPrefix(err.Error(), "standard input:1: not a public key") {
		t.Errorf("err = %v", err)
	}
	// More than an authorized_keys file may be is refused, not cut short.
	if _, err := read(strings.Repeat("#\n", maxKeysFile/2+1)); err == nil || !strings.Contains(err.Error(), "more than 4.0 MiB came through") {
		t.Errorf("err = %v", err)
	}
}

// Key files are read only when they are regular files of a sane size: a
// device that never ends (/dev/zero), a FIFO nobody writes to and a file
// too big are each refused, naming the file and why, before any of it is
// read whole, for the teacher's keys and the host key alike.
func TestKeyFilesAreBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("# a comment line\n", maxKeysFile/16)), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		load func() error
		want string
	}{
		{"teacher keys from /dev/zero", func() error { _, err := LoadTeacherKeys("/dev/zero"); return err },
			"--teacher-keys /dev/zero: a character device, not a regular file; give an authorized_keys file, or - for standard input"},
		{"teacher keys from a FIFO", func() error { _, err := LoadTeacherKeys(fifo); return err },
			"--teacher-keys " + fifo + ": a named pipe, not a regular file"},
		{"teacher keys too big", func() error { _, err := LoadTeacherKeys(big); return err },
			"--teacher-keys " + big + ": 4.2 MiB, more than the 4.0 MiB it may be here"},
		{"a host key from /dev/zero", func() error { return hostKeyErr("/dev/zero") },
			"--host-key /dev/zero: a character device, not a regular file; give --host-key an ssh private key"},
		{"a host key from a FIFO", func() error { return hostKeyErr(fifo) }, "--host-key " + fifo + ": a named pipe, not a regular file"},
		{"a host key too big", func() error { return hostKeyErr(big) }, "--host-key " + big + ": 4.2 MiB, more than the 16.0 KiB it may be here"},
		{"a host key that is a directory", func() error { return hostKeyErr(dir) }, "--host-key " + dir + ": a directory, not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- c.load() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("err = %v, want %q", err, c.want)
				}
			case <-time.After(30 * time.Second): // generous: a refusal reads nothing
				t.Fatal("still reading after 30 s")
			}
		})
	}
}

// hostKeyErr is why a server with the host key at path is not made.
func hostKeyErr(path string) error {
	_, err := New(Config{HostKeyPath: path, View: func(room.Room) ui.Options { return ui.Options{} }, Log: log.New(io.Discard)})
	return err
}
