package quiz

import "testing"

func TestScore(t *testing.T) {
	for _, c := range []struct {
		outcomes []Outcome
		want     string
	}{
		{[]Outcome{Right, Right, RightSecondTry, Wrong, Skipped}, "3 right (1 at the second try), 1 wrong, 1 skipped of 5"},
		{[]Outcome{Right, Wrong, Skipped, Right, Right}, "3 right, 1 wrong, 1 skipped of 5"},
		{[]Outcome{Skipped, NotReached, NotReached}, "0 right, 0 wrong, 1 skipped of 3 (2 not reached)"},
		{nil, "0 right, 0 wrong, 0 skipped of 0"},
	} {
		s := Tally(c.outcomes)
		if got := s.String(); got != c.want {
			t.Errorf("%v: %q, want %q", c.outcomes, got, c.want)
		}
	}
	if s := Tally([]Outcome{Skipped, Wrong, NotReached}); s.Reached() != 2 || s.Right != 0 {
		t.Errorf("reached %d, right %d; want 2, 0", s.Reached(), s.Right)
	}
}
