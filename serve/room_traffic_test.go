package serve

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/room"
	"windowlab/scenarios"
	"windowlab/ui"
)

// playClassroom is a classroom on windowlab play's empty clock, for the
// teacher to make the traffic.
func playClassroom(t *testing.T) func(*Config) {
	t.Helper()
	empty, err := scenarios.Empty("play", "Make the traffic yourself", algo.Config{Limit: 100, Window: time.Minute},
		[]algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingLog}, {Kind: algo.KindSlidingCounter}, {Kind: algo.KindTokenBucket}},
		algo.Clock(12, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return func(c *Config) {
		c.View = func(r room.Room) ui.Options { return ui.Options{Scenario: empty, Room: r} }
	}
}

// lanes are the lines of a screen that say what the limiters decided:
// each lane's totals, its last decision's arithmetic, its most in one
// window, and the timeline's rows.
func lanes(screen string) []string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		f := strings.TrimSpace(l)
		if strings.Contains(f, " allowed ") || strings.HasPrefix(f, "last ") || strings.HasPrefix(f, "most ") ||
			strings.HasPrefix(f, "now ") || strings.HasPrefix(f, "fixed ") || strings.HasPrefix(f, "log ") ||
			strings.HasPrefix(f, "counter ") || strings.HasPrefix(f, "bucket ") {
			out = append(out, strings.TrimRight(l, " "))
		}
	}
	return out
}

// sameLanes waits up to 10 s for each student's lanes to be the
// teacher's, line for line, and at least want lines of them.
func sameLanes(t *testing.T, what string, teacher *screen, students map[string]*screen, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for name, s := range students {
		for {
			mine, theirs := lanes(teacher.text()), lanes(s.text())
			if len(mine) >= want && slices.Equal(mine, theirs) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s's lanes:\n%s\nthe teacher's:\n%s", what, name, strings.Join(theirs, "\n"), strings.Join(mine, "\n"))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// The teacher makes the boundary burst by hand on the empty clock (a
// burst of the limit at 12:00:59 and another at 12:01:00): two students
// following over SSH see it decided as the teacher does, lane for lane,
// the fixed window's ⚠ 200 on their screens; the teacher's undo, a knob
// and a stream as it plays reach them the same.
func TestTeachersTrafficReachesTheRoom(t *testing.T) {
	teacherKey := newSigner(t)
	_, addr := classroom(t, teacherKey, playClassroom(t))
	teacher, keys := view(t, dial(t, addr, "teacher", teacherKey))
	teacher.waitFor(t, "the teacher", "make traffic: r request")
	ann, _ := student(t, addr, "ann", nil)
	bob, _ := student(t, addr, "bob", nil)
	students := map[string]*screen{"ann": ann, "bob": bob}
	press := func(s string) {
		typeKeys(t, keys, s)
		time.Sleep(150 * time.Millisecond)
	}
	for _, k := range []string{"t", "12:00:59\r", "b", "\r", "t", "12:01:00\r", "b", "\r"} {
		press(k)
	}
	teacher.waitFor(t, "the teacher", "⚠ 200 admitted to client-1 within 1s")
	for name, s := range students {
		s.waitFor(t, name, "⚠ 200 admitted to client-1 within 1s")
		s.waitFor(t, name, "the teacher made 100 requests for client-1 at 12:01:00")
	}
	sameLanes(t, "the boundary burst", teacher, students, 10)
	press("u")
	for name, s := range students {
		s.waitFor(t, name, "the teacher took away 100 requests for client-1 at 12:01:00")
	}
	sameLanes(t, "u", teacher, students, 10)
	press(")")
	teacher.waitFor(t, "the teacher", "110 per 1m")
	sameLanes(t, ") to 110 a minute", teacher, students, 10)
	press("s")
	press("50\r")
	time.Sleep(time.Second)
	press(" ") // the clock stops, and the stream with it
	for name, s := range students {
		s.waitFor(t, name, "the teacher's stream for client-1: one request every 20ms from 12:01:00")
	}
	sameLanes(t, "a stream of 50/s played a second", teacher, students, 10)
}

// What the room hands on is bounded. A position whose traffic is more
// than a room carries (more additions than room.MaxAdditions, a stream of
// 2^62 ms, more requests than a scenario holds) goes to no one: the room
// keeps the last good one, the student stays where they were. Traffic of
// the budget itself, a stream making 50,000,000 requests in all, reaches the student
// in its own form: the server's heap grows by less than 64 MB.
func TestTheRoomRefusesTrafficPastItsBudget(t *testing.T) {
	s, addr := classroom(t, newSigner(t), playClassroom(t))
	here := s.Room().Teacher()
	gone := here.Here("teacher (here)", func(tea.Msg) {})
	defer gone()
	noon := algo.Clock(12, 0, 0, 0)
	rules := room.Traffic{Scenario: "play", Name: "play", Config: algo.Config{Limit: 100, Window: time.Minute},
		Algorithms: []algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingLog}, {Kind: algo.KindSlidingCounter}, {Kind: algo.KindTokenBucket}}}
	at := func(tr room.Traffic, added ...room.Addition) room.Position {
		tr.Added = added
		return room.Position{Scenario: "play", Caption: -1, Speed: 1, Now: noon, Traffic: &tr}
	}
	good := at(rules, room.Addition{Client: "ann-s-friend", At: noon, Count: 3})
	here.Publish(good)
	zoe, _ := student(t, addr, "zoe", nil)
	zoe.waitFor(t, "zoe", "the teacher made 3 requests for ann-s-friend at 12:00:00")
	many := make([]room.Addition, 100*room.MaxAdditions)
	for i := range many {
		many[i] = room.Addition{Client: "x", At: noon, Count: 1}
	}
	for _, bad := range []room.Position{
		at(rules, many...),
		at(rules, room.Addition{Client: "x", From: noon, To: 1 << 62, Every: time.Millisecond}),
		at(rules, room.Addition{Client: "x", At: noon, Count: 1 << 62}),
		at(rules, room.Addition{Client: "x", At: noon, Count: room.MaxRequests}, room.Addition{Client: "x", At: noon, Count: 1}),
	} {
		here.Publish(bad)
		if last, _ := s.Room().Last(); last != good {
			t.Fatalf("the room keeps a position of %d additions", len(last.Traffic.Added))
		}
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	here.Publish(at(rules, good.Traffic.Added[0], room.Addition{Client: "x", From: noon, To: noon + room.MaxRequests - 3, Every: time.Millisecond}))
	zoe.waitFor(t, "zoe", "the teacher's stream for x: one request every 1ms from 12:00:00")
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("a stream of %d requests in the room: the server's heap grew by %.1f MB", room.MaxRequests-3, float64(grew)/1e6)
	if grew > 64<<20 {
		t.Errorf("a stream of %d requests grew the server's heap by %d MB", room.MaxRequests, grew>>20)
	}
}

// With the real OpenSSH client: a teacher and three students connect to
// the empty clock, the teacher makes the boundary burst by hand (a burst
// of the limit at 12:00:59, another at 12:01:00), and every student's
// screen shows the fixed window's ⚠ 200 line.
func TestOpenSSHTeachersBoundaryBurst(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no ssh client here (Debian: apt-get install openssh-client)")
	}
	signer, keyFile := writeKey(t)
	_, addr := classroom(t, signer, playClassroom(t))
	teacher, keys, _ := sshClient(t, addr, "teacher", keyFile)
	teacher.waitFor(t, "the teacher", "make traffic: r request")
	names := []string{"ann", "bob", "cy"}
	screens := map[string]*screen{}
	for _, name := range names {
		out, in, _ := sshClient(t, addr, name, "")
		out.waitFor(t, name, "Welcome to the class")
		typeKeys(t, in, "\r")
		out.waitFor(t, name, "following the teacher")
		screens[name] = out
	}
	for _, k := range []string{"t", "12:00:59\r", "b", "\r", "t", "12:01:00\r", "b", "\r"} {
		typeKeys(t, keys, k)
		time.Sleep(150 * time.Millisecond)
	}
	teacher.waitFor(t, "the teacher", "⚠ 200 admitted to client-1 within 1s (12:00:59–12:01:00)")
	for _, name := range names {
		screens[name].waitFor(t, name, "⚠ 200 admitted to client-1 within 1s (12:00:59–12:01:00)")
	}
	sameLanes(t, "the boundary burst over OpenSSH", teacher, screens, 10)
	if os.Getenv("WINDOWLAB_SHOW") != "" {
		t.Logf("cy's screen:\n%s", screens["cy"].text())
	}
}
