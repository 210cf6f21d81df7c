package scenarios

import (
	"bytes"
	"math/big"
	"slices"
	"strings"
	"testing"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// The lesson's two answers, asserted here and against a replay.
func TestLessonQuizAnswers(t *testing.T) {
	items := LessonQuiz()
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
func independentAnswer(t *testing.T, it QuizItem) string {
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
		kinds := map[QuizKind]int{}
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
	q, err := MakeQuiz(1, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 12 {
		t.Fatalf("%d questions, want the lesson's 2 and 10 generated", len(q.Items))
	}
	var b bytes.Buffer
	if err := WriteHandout(&b, q); err != nil {
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
	for _, want := range []string{
		"1. 200\n",
		"The share of the previous window that still falls inside the last 60",
		"Replay: fixed-window by 12:01:02: 200 allowed, 0 denied",
		"30 + 84 × 0.75 = 93 → allow (93 < 100)",
	} {
		if !strings.Contains(answers, want) {
			t.Errorf("answer key lacks %q", want)
		}
	}
	var again bytes.Buffer
	q2, _ := MakeQuiz(1, 10, nil)
	_ = WriteHandout(&again, q2)
	if again.String() != out {
		t.Error("the handout for seed 1 is not the same twice")
	}
}

func TestMakeQuizFromScenarios(t *testing.T) {
	s, _ := Builtin("steady-stream")
	q, err := MakeQuiz(7, 0, []*Scenario{s})
	if err != nil || len(q.Items) != len(s.Questions) || q.Items[0].From != "steady-stream" {
		t.Fatalf("quiz from steady-stream: %v, %+v", err, q.Items)
	}
	bare, _ := Parse("bare.yaml", []byte("limit: 1\nwindow: 1s\ntraffic: [{at: \"12:00:00\"}]\n"))
	if _, err := MakeQuiz(7, 0, []*Scenario{bare}); err == nil || !strings.Contains(err.Error(), "bare.yaml has no questions") {
		t.Errorf("a file without questions: %v", err)
	}
	if _, err := MakeQuiz(7, -1, nil); err == nil {
		t.Error("a negative count was accepted")
	}
}

func TestLessonSteps(t *testing.T) {
	steps := Lesson()
	var names []string
	for _, s := range steps {
		names = append(names, s.Name)
		pauses := 0
		for _, c := range s.Captions {
			if c.Pause {
				pauses++
			}
		}
		if s.Title == "" || s.Description == "" || pauses == 0 || len(s.Expect) == 0 {
			t.Errorf("%s: wants a title, a description, pausing captions and expectations", s.Name)
		}
		for _, f := range s.Verify() {
			t.Error(f)
		}
		e, err := s.Engine(sim.Options{})
		if err != nil || e.Len() > 100_000 {
			t.Errorf("%s: %v, %d requests; a lesson step should replay instantly", s.Name, err, e.Len())
		}
	}
	want := []string{"bouncer", "fixed-window", "sliding-log", "sliding-counter", "common-mistakes", "takeaways"}
	if !slices.Equal(names, want) {
		t.Errorf("lesson steps %v, want %v", names, want)
	}
	// The lesson's big number is said where the log's memory is shown.
	var said bool
	for _, c := range steps[2].Captions {
		said = said || strings.Contains(c.Text, "10 billion")
	}
	if !said {
		t.Error("the sliding-log step never says 10 billion")
	}
}
