package serve

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"charm.land/ssh"

	"windowlab/human"
)

// maxKeysFile is the largest authorized_keys file read: thousands of
// keys, where a teacher's are a few hundred bytes.
const maxKeysFile = 4 << 20

// maxHostKeyFile is the largest host key read: an RSA key of 16384 bits in
// OpenSSH's format is about 13 KiB, an ed25519 key 0.4 KiB.
const maxHostKeyFile = 16 << 10

// LoadTeacherKeys reads an authorized_keys file ("-": standard input): one
// key a line, comments and blank lines skipped. A line that is not a key is
// an error naming it.
func LoadTeacherKeys(path string) ([]ssh.PublicKey, error) {
	var data []byte
	var err error
	if path == "-" { // standard input, as wherever windowlab takes a file
		path = "standard input"
		data, err = io.ReadAll(io.LimitReader(os.Stdin, maxKeysFile+1))
		if err == nil && len(data) > maxKeysFile {
			err = fmt.Errorf("more than %s came through; an authorized_keys file may be at most %s", human.Bytes(maxKeysFile), human.Bytes(maxKeysFile))
		}
	} else {
		data, err = readKeyFile(path, maxKeysFile, "give an authorized_keys file, or - for standard input")
	}
	if err != nil {
		return nil, fmt.Errorf("--teacher-keys %s: %w", path, err)
	}
	var keys []ssh.PublicKey
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: not a public key (%v); give one key a line, as in authorized_keys", path, i+1, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no key in it; give the teacher's public keys, one a line", path)
	}
	return keys, nil
}

// readKeyFile reads a regular file of at most most bytes. A device, a pipe
// or a socket is refused before anything is read (/dev/zero never ends, a
// FIFO may never answer), and a file that is too big before it is read.
func readKeyFile(path string, most int64, valid string) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, cmp.Or(errors.Unwrap(err), err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, cmp.Or(errors.Unwrap(err), err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s, not a regular file; %s", human.FileKind(info.Mode()), valid)
	}
	tooBig := func(size int64) error {
		return fmt.Errorf("%s, more than the %s it may be here; %s", human.Bytes(size), human.Bytes(most), valid)
	}
	if info.Size() > most {
		return nil, tooBig(info.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, most+1)) // the file may grow as it is read
	if err != nil {
		return nil, cmp.Or(errors.Unwrap(err), err)
	}
	if int64(len(data)) > most {
		return nil, tooBig(int64(len(data)))
	}
	return data, nil
}

// DefaultTeacherKeys are the user's own public keys, ~/.ssh/*.pub: the
// person who starts the server is its teacher.
func DefaultTeacherKeys() ([]ssh.PublicKey, []string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, nil, err
	}
	files, _ := filepath.Glob(filepath.Join(home, ".ssh", "*.pub"))
	var keys []ssh.PublicKey
	var used []string
	for _, f := range files {
		if k, err := LoadTeacherKeys(f); err == nil {
			keys = append(keys, k...)
			used = append(used, f)
		}
	}
	return keys, used, nil
}

// DefaultHostKeyPath is where the host key lives: the user's config
// directory, windowlab/host_ed25519.
func DefaultHostKeyPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory for the host key (%v); give --host-key", err)
	}
	return filepath.Join(dir, "windowlab", "host_ed25519"), nil
}
