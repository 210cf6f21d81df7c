package scenarios

import (
	"strings"
	"testing"
)

// delay: is nginx limit_req's delay=N for token-bucket/nginx; out of range
// it is refused where it stands, and without it it is 0, nginx's default.
func TestDelayField(t *testing.T) {
	const head = "limit: 10\nwindow: 1s\nburst: 5\n"
	const tail = "algorithms: [token-bucket/nginx]\ntraffic:\n  - {at: \"12:00:00\", count: 8}\n"
	s, err := Parse("d.yaml", []byte(head+"delay: 3\n"+tail))
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.Delay != 3 || s.Config.Burst != 5 {
		t.Errorf("delay: 3, burst: 5 gives Delay %d, Burst %d", s.Config.Delay, s.Config.Burst)
	}
	if got := s.Algorithms[0].String(); got != "token-bucket/nginx" {
		t.Errorf("algorithm %q", got)
	}
	plain, err := Parse("d.yaml", []byte(head+tail))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Config.Delay != 0 {
		t.Errorf("without delay: Delay %d, want 0", plain.Config.Delay)
	}
	for _, bad := range []string{"-1", "1000000001", "2.5", "lots"} {
		_, err := Parse("d.yaml", []byte(head+"delay: "+bad+"\n"+tail))
		if err == nil || !strings.Contains(err.Error(), "d.yaml:4:") || !strings.Contains(err.Error(), "delay") {
			t.Errorf("delay: %s: %v, want a message at d.yaml:4 naming delay", bad, err)
		}
	}
	// A rate nginx cannot hold: 1 per hour is below 0.001 r/s.
	_, err = Parse("d.yaml", []byte("limit: 1\nwindow: 1h\n"+tail))
	if err == nil || !strings.Contains(err.Error(), "d.yaml:1:") || !strings.Contains(err.Error(), "nginx's smallest rate") {
		t.Errorf("1 per hour for nginx: %v, want nginx's smallest rate named", err)
	}
}
