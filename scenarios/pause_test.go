package scenarios

import "testing"

func TestCaptionPauseAndSpeed(t *testing.T) {
	s, err := Parse("p.yaml", []byte(`limit: 10
window: 1m
speed: 2.5
traffic: [{at: "12:00:30"}]
captions:
  - {at: "12:00:00", text: quiet}
  - {at: "12:00:30", text: look, pause: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Speed != 2.5 {
		t.Errorf("speed %v, want 2.5", s.Speed)
	}
	if s.Captions[0].Pause || !s.Captions[1].Pause {
		t.Errorf("captions %+v: only the second pauses", s.Captions)
	}
	// The errors for a wrong type or range are pinned in testdata/bad
	// (caption-pause-not-bool, speed-not-number, speed-out-of-range).
}
