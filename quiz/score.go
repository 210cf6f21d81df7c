package quiz

import "fmt"

// Outcome is how a question of a quiz ended.
type Outcome uint8

const (
	NotReached     Outcome = iota // the quiz ended before it
	Right                         // right at the first try
	RightSecondTry                // right after a wrong first answer and its hint
	Wrong                         // wrong at every try
	Skipped                       // shown, and left without an answer: esc, or the quiz ended on it
)

// Score counts a quiz's outcomes.
type Score struct {
	Right     int // right at either try
	SecondTry int // of Right, those at the second try
	Wrong     int
	Skipped   int
	Total     int // questions in the quiz, reached or not
}

// Tally counts outcomes, one per question.
func Tally(outcomes []Outcome) Score {
	s := Score{Total: len(outcomes)}
	for _, o := range outcomes {
		switch o {
		case Right:
			s.Right++
		case RightSecondTry:
			s.Right++
			s.SecondTry++
		case Wrong:
			s.Wrong++
		case Skipped:
			s.Skipped++
		}
	}
	return s
}

// Reached is how many questions were shown: answered or skipped.
func (s Score) Reached() int { return s.Right + s.Wrong + s.Skipped }

// String is the score in words: "3 right, 1 wrong, 1 skipped of 5",
// "2 right (1 at the second try), 0 wrong, 0 skipped of 12 (10 not reached)".
func (s Score) String() string {
	right := fmt.Sprintf("%d right", s.Right)
	if s.SecondTry > 0 {
		right += fmt.Sprintf(" (%d at the second try)", s.SecondTry)
	}
	out := fmt.Sprintf("%s, %d wrong, %d skipped of %d", right, s.Wrong, s.Skipped, s.Total)
	if n := s.Total - s.Reached(); n > 0 {
		out += fmt.Sprintf(" (%d not reached)", n)
	}
	return out
}
