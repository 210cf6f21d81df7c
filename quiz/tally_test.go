package quiz

import (
	"reflect"
	"testing"
)

// Answers that Check treats alike are one bar: every spelling of the
// right number, every spelling of one wrong number; words by their words.
func TestTallyGroupsAsTheQuizMatches(t *testing.T) {
	it := Lesson()[0] // 200 get through
	got := it.Tally([]string{"200", "100", "about 200 requests", "  100 ", "100 requests", "two hundred", "Two  Hundred", "1e2", "200."})
	want := []Bar{
		{Answer: "200", Count: 3, Right: true},
		{Answer: "100", Count: 3},
		{Answer: "two hundred", Count: 2},
		{Answer: "1e2", Count: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tally\n got %+v\nwant %+v", got, want)
	}
	// A fraction's spellings: 3/4, 75%, 0.75 are one number; 0.8 is written plainly.
	frac := Item{}
	frac.Answer = "0.75"
	bars := frac.Tally([]string{"3/4", "75%", "0.8", "4/5", "1/3"})
	if len(bars) != 3 || bars[0] != (Bar{Answer: "0.75", Count: 2, Right: true}) || bars[1] != (Bar{Answer: "0.8", Count: 2}) || bars[2].Answer != "1/3" {
		t.Fatalf("fractions tallied as %+v", bars)
	}
	// A choice is its own bar, word for word.
	choice := Lesson()[1]
	bars = choice.Tally([]string{choice.Choices[1], choice.Answer, choice.Choices[1]})
	if len(bars) != 2 || bars[0].Count != 2 || bars[0].Right || !bars[1].Right {
		t.Fatalf("choices tallied as %+v", bars)
	}
}
