package scenarios

import (
	"strings"
	"testing"
)

// burst: sets the token bucket's capacity; out of range it is refused
// where it stands, and without it the capacity is the limit.
func TestBurstField(t *testing.T) {
	const head = "limit: 10\nwindow: 1s\n"
	const tail = "algorithms: [token-bucket/gcra]\ntraffic:\n  - {at: \"12:00:00\", count: 30}\n"
	s, err := Parse("b.yaml", []byte(head+"burst: 25\n"+tail))
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.Burst != 25 || s.Config.Capacity() != 25 {
		t.Errorf("burst: 25 gives Burst %d, capacity %d", s.Config.Burst, s.Config.Capacity())
	}
	if got := s.Algorithms[0].String(); got != "token-bucket/gcra" {
		t.Errorf("algorithm %q", got)
	}
	plain, err := Parse("b.yaml", []byte(head+tail))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Config.Burst != 0 || plain.Config.Capacity() != 10 {
		t.Errorf("without burst: Burst %d, capacity %d, want 0 and the limit", plain.Config.Burst, plain.Config.Capacity())
	}
	for _, bad := range []string{"0", "-1", "1000000001", "2.5", "many"} {
		_, err := Parse("b.yaml", []byte(head+"burst: "+bad+"\n"+tail))
		if err == nil || !strings.Contains(err.Error(), "b.yaml:3:") || !strings.Contains(err.Error(), "burst") {
			t.Errorf("burst: %s: %v, want a message at b.yaml:3 naming burst", bad, err)
		}
	}
}
