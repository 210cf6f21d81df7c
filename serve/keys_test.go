package serve

import (
	"crypto/ed25519"
	"os"
	"strings"
	"testing"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
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
}
