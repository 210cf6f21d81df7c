package serve

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	gossh "golang.org/x/crypto/ssh"
)

// sshClient runs the real OpenSSH client in a terminal of 100×30 against
// addr as user, with key (a private key file) or none; its screen fills
// out, keys typed go to the returned file, and kill ends the client as a
// closed laptop would. The test is skipped where there is no ssh (.ci/run
// installs openssh-client).
func sshClient(t *testing.T, addr, user, key string) (out *screen, in *os.File, kill func()) {
	t.Helper()
	bin, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("no ssh client here (Debian: apt-get install openssh-client)")
	}
	host, port, _ := net.SplitHostPort(addr)
	args := []string{"-tt", "-p", port, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "LogLevel=ERROR", "-o", "ConnectTimeout=10", "-F", "/dev/null"}
	if key == "" {
		args = append(args, "-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=keyboard-interactive")
	} else {
		args = append(args, "-o", "IdentitiesOnly=yes", "-i", key)
	}
	cmd := exec.Command(bin, append(args, user+"@"+host)...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	out = newScreen()
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	var once sync.Once
	kill = func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
			f.Close()
		})
	}
	t.Cleanup(kill)
	return out, f, kill
}

// writeKey writes s's private key where ssh -i can read it.
func writeKey(t *testing.T) (gossh.Signer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path).CombinedOutput(); err != nil {
		t.Skipf("no ssh-keygen here: %v %s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.ParsePrivateKey(data)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

// With the real OpenSSH client: a teacher and two students connect, the
// teacher steps through the lesson and both students' screens follow.
func TestOpenSSHClassroom(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no ssh client here (Debian: apt-get install openssh-client)")
	}
	signer, keyFile := writeKey(t)
	_, addr := classroom(t, signer, nil)
	teacher, keys, _ := sshClient(t, addr, "teacher", keyFile)
	teacher.waitFor(t, "the teacher", "step 1 of 6")
	ann, annIn, _ := sshClient(t, addr, "ann", "")
	bob, bobIn, _ := sshClient(t, addr, "bob", "")
	for _, s := range []struct {
		out *screen
		in  *os.File
	}{{ann, annIn}, {bob, bobIn}} {
		s.out.waitFor(t, "a student", "Welcome to the class")
		typeKeys(t, s.in, "\r")
	}
	ann.waitFor(t, "ann", "following the teacher")
	bob.waitFor(t, "bob", "following the teacher")
	for _, k := range []string{"\t", "\t"} {
		typeKeys(t, keys, k)
		time.Sleep(100 * time.Millisecond)
	}
	teacher.waitFor(t, "the teacher", "the tally is wiped")
	ann.waitFor(t, "ann", "the tally is wiped")
	bob.waitFor(t, "bob", "the tally is wiped")
	typeKeys(t, keys, "n")
	// The renderer writes only what changed: step 2's caption, not its
	// header's one new digit.
	ann.waitFor(t, "ann", "keeps one counter per client")
	bob.waitFor(t, "bob", "keeps one counter per client")
}
