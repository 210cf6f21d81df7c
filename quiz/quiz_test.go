package quiz

import (
	"bytes"
	"context"
	"math/big"
	"slices"
	"strings"
	"testing"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/scenarios"
	"windowlab/sim"
)

// The lesson's two answers, asserted here and against a replay.
func TestLessonQuizAnswers(t *testing.T) {
	items := Lesson()
	if len(items) != 2 {
		t.Fatalf("%d lesson questions, want 2", len(items))
	}
	q1, q2 := items[0], items[1]
	if q1.Answer != "200" || len(q1.Choices) != 0 || !strings.Contains(q1.Ask, "12:00:58") || !strings.Contains(q1.Ask, "12:01:02") {
		t.Errorf("question 1 = %+v", q1.Question)
	}
	e, li, err := replay(q1.Scenario, algo.Algorithm{Kind: algo.KindFixedWindow})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToEnd()
	if got := e.Stats()[li].Allowed; got != 200 {
		t.Errorf("the fixed window lets %d through, the lesson says 200", got)
	}

	const share = "The share of the previous window that still falls inside the last 60 seconds"
	if q2.Answer != share || !slices.Contains(q2.Choices, share) || len(q2.Choices) < 3 || !strings.Contains(q2.Ask, "0.75") {
		t.Errorf("question 2 = %+v", q2.Question)
	}
	e, li, err = replay(q2.Scenario, algo.Algorithm{Kind: algo.KindSlidingCounter})
	if err != nil {
		t.Fatal(err)
	}
	e.Seek(q2.At)
	rec, _ := e.Last()
	d := rec.Decisions[li]
	// 0.75 is the previous window's share inside the last 60 s: (W − elapsed)/W.
	if n, w := d.WeightRat(); big.NewRat(n, w).Cmp(big.NewRat(3, 4)) != 0 || d.Elapsed.Seconds() != 15 {
		t.Errorf("at %v the weight is %d/%d after %v, want 3/4 after 15s", q2.At, n, w, d.Elapsed)
	}
}

// independentAnswer replays a generated question's traffic through a fresh
// limiter, without the engine, and works out what its answer must be.
func independentAnswer(t *testing.T, it Item) string {
	t.Helper()
	l, err := it.Algorithm.New(it.Scenario.Config)
	if err != nil {
		t.Fatal(err)
	}
	src := it.Scenario.Source()
	var allowed int64
	var last algo.Decision
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		last = l.Allow(a.At, a.Client)
		if last.Allowed {
			allowed++
		}
	}
	if last.At != it.At {
		t.Fatalf("the last request is at %v, the question's instant %v", last.At, it.At)
	}
	switch it.Kind {
	case GenThrough:
		return big.NewInt(allowed).String()
	case GenEstimate:
		return human.Exact(last.EstimateBig())
	case GenVerdict:
		if last.Allowed {
			return "Allowed"
		}
		return "Denied"
	case GenWeight:
		n, w := last.WeightRat()
		return human.Exact(big.NewRat(n, w))
	}
	t.Fatalf("kind %d is not generated", it.Kind)
	return ""
}

// Every generated answer agrees with a separate run of the limiter, and
// the same seed gives the same questions.
func TestGeneratedAnswersAgreeWithTheLimiters(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 42, 2024} {
		items, err := Generate(seed, 40)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Generate(seed, 40)
		kinds := map[Kind]int{}
		verdicts := map[string]int{}
		for i, it := range items {
			kinds[it.Kind]++
			if it.Ask != again[i].Ask || it.Answer != again[i].Answer {
				t.Fatalf("seed %d question %d differs between two runs", seed, i+1)
			}
			if !it.HasAt || !it.HasAlgorithm || it.Ask == "" || it.Explain == "" {
				t.Errorf("seed %d question %d is incomplete: %+v", seed, i+1, it.Question)
			}
			if want := independentAnswer(t, it); it.Answer != want {
				t.Errorf("seed %d question %d: %q\nanswer %q, the limiter says %q", seed, i+1, it.Ask, it.Answer, want)
			}
			if len(it.Choices) > 0 && !slices.Contains(it.Choices, it.Answer) {
				t.Errorf("seed %d question %d: answer %q is not a choice", seed, i+1, it.Answer)
			}
			if it.Kind == GenVerdict {
				verdicts[it.Answer]++
			}
		}
		if len(kinds) != 4 || verdicts["Allowed"] == 0 || verdicts["Denied"] == 0 {
			t.Errorf("seed %d: kinds %v, verdicts %v; want all four kinds and both verdicts", seed, kinds, verdicts)
		}
	}
	a, _ := Generate(1, 5)
	b, _ := Generate(2, 5)
	if a[0].Ask == b[0].Ask {
		t.Error("seeds 1 and 2 gave the same first question")
	}
}

func TestHandoutForSeedOne(t *testing.T) {
	q, err := Make(1, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 12 {
		t.Fatalf("%d questions, want the lesson's 2 and 10 generated", len(q.Items))
	}
	var b bytes.Buffer
	if err := WriteHandout(context.Background(), &b, q); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	key := strings.Index(out, "Answer key (seed 1)")
	if key < 0 {
		t.Fatalf("no answer key:\n%s", out)
	}
	questions, answers := out[:key], out[key:]
	for _, want := range []string{
		"1. A fixed window allows 100 requests per minute. A client sends 100 requests\n   at 12:00:58 and 100 more at 12:01:02. How many get through?",
		"What does 0.75\n   represent?",
		"12. ",
	} {
		if !strings.Contains(questions, want) {
			t.Errorf("questions lack %q", want)
		}
	}
	for _, line := range strings.Split(answers, "\n") {
		if i := strings.LastIndex(line, "→"); i >= 0 && !strings.Contains(line[i:], ")") {
			t.Errorf("a verdict is broken across lines: %q", line)
		}
	}
	for _, want := range []string{
		"1. 200",
		"The share of the previous window that still falls inside the last 60",
		"Replay: By 12:01:02 the fixed window allowed 200 requests and denied 0; its last decision, on client-1's request at 12:01:02: the window 12:01:00–12:02:00 had allowed 99 requests before this one → allow (99 < limit 100).",
		"on client-1's request at 12:01:15: estimate = 30 in the current window + 84 in the previous × weight 0.75 (1 − 15 s/60 s) = 93 → allow (93 < limit 100).",
	} {
		// Wrapped at 78 columns: compare the words, not the line breaks.
		if !strings.Contains(strings.Join(strings.Fields(answers), " "), want) {
			t.Errorf("answer key lacks %q", want)
		}
	}
	var again bytes.Buffer
	q2, _ := Make(1, 10, nil)
	_ = WriteHandout(context.Background(), &again, q2)
	if again.String() != out {
		t.Error("the handout for seed 1 is not the same twice")
	}
}

func TestMakeQuizFromScenarios(t *testing.T) {
	s, _ := scenarios.Builtin("steady-stream")
	q, err := Make(7, 0, []*scenarios.Scenario{s})
	if err != nil || len(q.Items) != len(s.Questions) || q.Items[0].From != "steady-stream" {
		t.Fatalf("quiz from steady-stream: %v, %+v", err, q.Items)
	}
	bare, _ := scenarios.Parse("bare.yaml", []byte("limit: 1\nwindow: 1s\ntraffic: [{at: \"12:00:00\"}]\n"))
	if _, err := Make(7, 0, []*scenarios.Scenario{bare}); err == nil || !strings.Contains(err.Error(), "bare.yaml has no questions") {
		t.Errorf("a file without questions: %v", err)
	}
	if _, err := Make(7, -1, nil); err == nil {
		t.Error("a negative count was accepted")
	}
}

// A choice must be picked word for word; a typed answer is matched.
func TestCheck(t *testing.T) {
	typed := Item{Question: scenarios.Question{Answer: "0.75"}}
	choice := Item{Question: scenarios.Question{Answer: "Allowed", Choices: []string{"Allowed", "Denied"}}}
	if !typed.Check("3/4") || typed.Check("0.7") || !choice.Check("Allowed") || choice.Check("allowed") || choice.Check("Denied") {
		t.Error("Check: typed 3/4 should match 0.75; a choice only word for word")
	}
}

// The proof names the question's limiter, its totals and its last decision,
// from the same replay the view shows.
func TestProofAt(t *testing.T) {
	s, err := scenarios.Builtin("boundary-burst")
	if err != nil {
		t.Fatal(err)
	}
	it := Of(s)[0] // the fixed window at 12:01:00
	got, err := it.Proof()
	if err != nil {
		t.Fatal(err)
	}
	want := "By 12:01:00 the fixed window allowed 200 requests and denied 0; its last decision, on client-1's request at 12:01:00: the window 12:01:00–12:02:00 had allowed 99 requests before this one → allow (99 < limit 100)."
	if len(got) != 1 || got[0] != want {
		t.Errorf("proof %q,\nwant %q", got, want)
	}
	it.HasAlgorithm = false
	if all, _ := it.Proof(); len(all) != len(s.Algorithms) || !strings.HasPrefix(all[1], "By 12:01:00 the sliding window log allowed 100 requests and denied 100") {
		t.Errorf("a question without an algorithm proves with every limiter: %q", all)
	}
}

// A proof names the last request's client by its Visible form: a view on
// a log may hold any key.
func TestProofNamesAClientVisibly(t *testing.T) {
	s, err := scenarios.Builtin("boundary-burst")
	if err != nil {
		t.Fatal(err)
	}
	it := Of(s)[0]
	e, err := s.Engine(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	last, _ := e.Step()
	last.Arrival.Client = "\x1b]0;PWNED\x07\x1b[2J\u202e"
	got := strings.Join(it.ProofAt(e.Stats(), last, true), "\n")
	if human.Acts(got) >= 0 || !strings.Contains(got, `on "\x1b]0;PWNED\a\x1b[2J\u202e"'s request`) {
		t.Errorf("proof %q", got)
	}
}

// Shuffled puts a question's answer at every position alike over seeds,
// keeps its choices, is the same for the same seed, and leaves the items
// it was given alone.
func TestShuffledSpreadsTheAnswer(t *testing.T) {
	items := Lesson()
	var it Item
	for _, x := range items {
		if !x.Typed() {
			it = x
		}
	}
	if len(it.Choices) != 4 {
		t.Fatalf("the lesson's choice question has %d choices, want 4", len(it.Choices))
	}
	before := slices.Clone(it.Choices)
	const seeds = 800
	at := make([]int, len(it.Choices))
	for seed := range uint64(seeds) {
		got := Shuffled(seed, []Item{it})[0]
		if !slices.Equal(slices.Sorted(slices.Values(got.Choices)), slices.Sorted(slices.Values(before))) {
			t.Fatalf("seed %d: choices %q, want those of %q", seed, got.Choices, before)
		}
		if again := Shuffled(seed, []Item{it})[0]; !slices.Equal(again.Choices, got.Choices) {
			t.Fatalf("seed %d: two shuffles differ: %q, %q", seed, got.Choices, again.Choices)
		}
		at[slices.Index(got.Choices, got.Answer)]++
	}
	for pos, n := range at {
		if n < seeds/len(at)*3/4 || n > seeds/len(at)*5/4 {
			t.Errorf("the answer is choice %d for %d of %d seeds, want about %d: %v", pos+1, n, seeds, seeds/len(at), at)
		}
	}
	if !slices.Equal(it.Choices, before) {
		t.Errorf("Shuffled changed the items it was given: %q", it.Choices)
	}
}
