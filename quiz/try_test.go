package quiz

import (
	"strings"
	"testing"

	"windowlab/algo"
	"windowlab/scenarios"
)

// A typed question and a choice of three take a second try; a choice of
// two does not, since its second try would be the answer given away.
func TestTries(t *testing.T) {
	for _, c := range []struct {
		choices []string
		want    int
	}{
		{nil, 2},
		{[]string{"Allowed", "Denied"}, 1},
		{[]string{"a", "b", "c"}, 2},
	} {
		it := Item{Question: scenarios.Question{Answer: "a", Choices: c.choices}}
		if got := it.Tries(); got != c.want {
			t.Errorf("%d choices: %d tries, want %d", len(c.choices), got, c.want)
		}
	}
}

// The hint after a wrong first answer is the first step towards it: the
// question's own hint, else its explanation's first clause unless that
// gives the answer away, else where in the replay to look.
func TestFirstStep(t *testing.T) {
	fixed := algo.Algorithm{Kind: algo.KindFixedWindow}
	at := algo.Clock(12, 1, 0, 0)
	for _, c := range []struct {
		q    scenarios.Question
		want string
	}{
		{scenarios.Question{Answer: "200", Hint: "Which window?", Explain: "The bursts fall in different windows."}, "Which window?"},
		{scenarios.Question{Answer: "200", Explain: "The bursts fall in different windows, each within its limit."}, "The bursts fall in different windows."},
		{scenarios.Question{Answer: "10 billion", Explain: "Up to the limit per key, 10,000 × 1,000,000."}, "Up to the limit per key."},
		// The first clause holds the answer, however it is written: the
		// replay is pointed at instead.
		{scenarios.Question{Answer: "200", Explain: "All 200 get through: the bursts fall in different windows.", At: at, HasAt: true, Algorithm: fixed, HasAlgorithm: true},
			"Think of what the fixed window has counted by 12:01:00."},
		{scenarios.Question{Answer: "0.75", Explain: "3/4 of it, since 15 of 60 seconds have passed.", Algorithm: fixed, HasAlgorithm: true},
			"Think of how the fixed window counts, over the whole replay."},
		{scenarios.Question{Answer: "Denied", Choices: []string{"Allowed", "Denied", "Neither"}, Explain: "Denied: the window is full.", At: at, HasAt: true},
			"Think of what each limiter has counted by 12:01:00."},
		{scenarios.Question{Answer: "42"}, ""},
	} {
		if got := (Item{Question: c.q}).FirstStep(); got != c.want {
			t.Errorf("%+v:\nhint %q,\nwant %q", c.q, got, c.want)
		}
	}
}

// Every built-in question that takes a second try has a hint of its own,
// and no hint, built in or generated, gives its answer away.
func TestHintsDoNotGiveTheAnswer(t *testing.T) {
	var items []Item
	for _, s := range scenarios.Builtins() {
		for _, it := range Of(s) {
			if it.Tries() > 1 && it.Hint == "" {
				t.Errorf("%s: %q has no hint", s.Name, it.Ask)
			}
			items = append(items, it)
		}
	}
	for _, seed := range []uint64{1, 2, 3, 42} {
		generated, err := Generate(seed, 40)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range generated {
			if it.Typed() && it.Hint == "" {
				t.Errorf("seed %d: %q has no hint", seed, it.Ask)
			}
			items = append(items, it)
		}
	}
	for _, it := range items {
		if h := it.FirstStep(); h != "" && it.givesAway(h) {
			t.Errorf("the hint %q gives away the answer %q", h, it.Answer)
		}
	}
}

// The generated hints are the formula with the question's own numbers.
func TestGeneratedHints(t *testing.T) {
	items, err := Generate(1, 12)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Kind]string{
		GenEstimate: "The estimate is current + previous × weight: 6 + 22 × weight, where the weight is 1 − 6 s/60 s",
		GenWeight:   "The weight is the share of the previous window still inside the 10 s before 15:16:31: 1 − elapsed/10 s",
		GenThrough:  "A fixed window counts each window on its own: the burst at 12:50:17 falls in 12:50:10–12:50:20 and the one at 12:50:25 in 12:50:20–12:50:30, and each window allows 10.",
	}
	for _, it := range items {
		if w, ok := want[it.Kind]; ok && strings.HasPrefix(it.Hint, w) {
			delete(want, it.Kind)
		}
	}
	for kind, w := range want {
		t.Errorf("no generated question of kind %d has the hint %q…", kind, w)
	}
}
