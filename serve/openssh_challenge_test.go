package serve

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// With the real OpenSSH client: a teacher and three students; the teacher
// puts the sliding counter's challenge to the room (x, 2, enter), each
// student makes traffic on their own clock with the keys alone (t goes to
// a time, b sends a burst of the limit, r one request), and the teacher's
// screen shows the three bests, best first: ann's 200 reached, bob's 100,
// cy's 1. Ending it sends every student back to following.
func TestOpenSSHRoomChallenge(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no ssh client here (Debian: apt-get install openssh-client)")
	}
	signer, keyFile := writeKey(t)
	_, addr := classroom(t, signer, nil)
	teacher, keys, _ := sshClient(t, addr, "teacher", keyFile)
	teacher.waitFor(t, "the teacher", "step 1 of 6")
	type student struct {
		name string
		out  *screen
		in   *os.File
	}
	var room []student
	for _, name := range []string{"ann", "bob", "cy"} {
		out, in, _ := sshClient(t, addr, name, "")
		out.waitFor(t, name, "Welcome to the class")
		typeKeys(t, in, "\r")
		out.waitFor(t, name, "following the teacher")
		room = append(room, student{name, out, in})
	}
	teacher.waitFor(t, "the teacher", "3 students, 3 following")
	typeKeys(t, keys, "x")
	teacher.waitFor(t, "the teacher", "start it for the room")
	typeKeys(t, keys, "2")
	typeKeys(t, keys, "\r")
	teacher.waitFor(t, "the teacher", "0 of 3 reached · 3 still trying")
	for _, s := range room {
		s.out.waitFor(t, s.name, "the teacher's challenge 2")
		s.out.waitFor(t, s.name, "nothing through the sliding counter yet")
	}
	burst := func(s student, at string) {
		typeKeys(t, s.in, "t")
		s.out.waitFor(t, s.name, "go to")
		typeKeys(t, s.in, at+"\r")
		s.out.waitFor(t, s.name, at)
		typeKeys(t, s.in, "b")
		s.out.waitFor(t, s.name, "burst")
		typeKeys(t, s.in, "\r")
	}
	ann, bob, cy := room[0], room[1], room[2]
	burst(ann, "12:00:59.999")
	ann.out.waitFor(t, "ann", "best so far: 100 of 200")
	burst(ann, "12:01:59.998")
	ann.out.waitFor(t, "ann", "✓ reached")
	burst(bob, "12:00:59.999")
	bob.out.waitFor(t, "bob", "best so far: 100 of 200")
	typeKeys(t, cy.in, "r")
	cy.out.waitFor(t, "cy", "best so far: 1 of 200")

	teacher.waitFor(t, "the teacher", "1 of 3 reached · 2 still trying")
	teacher.waitFor(t, "the teacher", "200 of 200 ✓ reached")
	teacher.waitFor(t, "the teacher", "100 of 200 · 100 requests") // a view reports at most every 250 ms: the last change comes with its tick
	teacher.waitFor(t, "the teacher", "1 of 200 · 1 request")
	screen := teacher.text()
	a, b, c := strings.Index(screen, "1  ann"), strings.Index(screen, "2  bob"), strings.Index(screen, "3  cy")
	if a < 0 || b < a || c < b {
		t.Fatalf("the teacher's screen should list ann (200), bob (100) and cy (1), the best first:\n%s", tail(screen))
	}
	if !strings.Contains(screen[b:], "100 of 200") {
		t.Errorf("bob's line lacks his 100:\n%s", tail(screen))
	}
	t.Logf("the teacher's screen:\n%s", screen)
	typeKeys(t, keys, "\r")
	teacher.waitFor(t, "the teacher", "ended")
	for _, s := range room {
		s.out.waitFor(t, s.name, "following the teacher")
	}
}
