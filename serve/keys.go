package serve

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"charm.land/ssh"
)

// maxKeysFile is the most of an authorized_keys file read from a pipe.
const maxKeysFile = 1 << 20

// LoadTeacherKeys reads an authorized_keys file ("-": standard input): one
// key a line, comments and blank lines skipped. A line that is not a key is
// an error naming it.
func LoadTeacherKeys(path string) ([]ssh.PublicKey, error) {
	var data []byte
	var err error
	if path == "-" { // standard input, as wherever windowlab takes a file
		path = "standard input"
		data, err = io.ReadAll(io.LimitReader(os.Stdin, maxKeysFile))
	} else {
		data, err = os.ReadFile(path)
		if err != nil {
			err = errors.Unwrap(err)
		}
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
