package cli

import (
	"bytes"
	"strings"
	"testing"

	"windowlab/quiz"
)

// windowlab quiz --print: the handout, end to end.
func TestQuizPrint(t *testing.T) {
	run := func(args ...string) (string, int) {
		var out bytes.Buffer
		cmd := NewRootCommand(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(args)
		err := cmd.Execute()
		return out.String(), ExitCode(err)
	}
	out, code := run("quiz", "--seed", "1", "--print")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"windowlab quiz · seed 1 · 12 questions",
		"100 requests\n   at 12:00:58 and 100 more at 12:01:02. How many get through?",
		"What does 0.75\n   represent?",
		"Answer key (seed 1)",
		"1. 200\n",
		"The share of the previous window that still falls inside the last 60",
		"30 in the current window + 84 in the previous × weight 0.75 (1 − 15 s/60 s) = 93 → allow (93 < limit 100)",
	} {
		// Wrapped at 78 columns: compare words, not where the lines break.
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("handout lacks %q", want)
		}
	}
	if again, _ := run("quiz", "--seed", "1", "--print"); again != out {
		t.Error("the same seed printed a different handout")
	}
	out, code = run("quiz", "--seed", "1", "--print", "steady-stream")
	if code != 0 || !strings.Contains(out, "2 questions") || !strings.Contains(out, "(from steady-stream)") {
		t.Errorf("questions from a built-in: exit %d\n%s", code, out)
	}
	// The command the handout says gives the same questions does: the seed
	// alone asks the lesson's and ten generated ones, not the file's.
	for _, args := range [][]string{
		{"quiz", "--seed", "1", "--print", "steady-stream"},
		{"quiz", "--seed", "1", "--print", "--count", "3"},
		{"quiz", "--seed", "1", "--print", "--count", "2", "steady-stream", "boundary-burst"},
	} {
		out, _ := run(args...)
		line := append(strings.Split(out, "\n"), "")[1]
		again, ok := strings.CutPrefix(line, "(")
		again, ok2 := strings.CutSuffix(again, " gives the same questions)")
		if !ok || !ok2 {
			t.Errorf("%v: the second line is %q", args, line)
			continue
		}
		words := append(strings.Fields(again)[1:], "--print")
		if same, _ := run(words...); same != out {
			t.Errorf("%v says %q gives the same questions, but that prints\n%s\nnot\n%s", args, again, same, out)
		}
	}
	if _, code := run("quiz", "--count", "-1", "--print"); code != 2 {
		t.Errorf("--count -1 exits %d, want 2", code)
	}
	if _, code := run("lesson", "extra"); code != 2 {
		t.Errorf("lesson with an argument exits %d, want 2", code)
	}
}

// The line windowlab quiz prints when its view closes counts skipped
// questions apart from wrong ones and says how to be asked them again.
func TestQuizSummary(t *testing.T) {
	score := quiz.Tally([]quiz.Outcome{quiz.Right, quiz.Wrong, quiz.Skipped, quiz.RightSecondTry, quiz.NotReached})
	want := "Your score: 2 right (1 at the second try), 1 wrong, 1 skipped of 5 (1 not reached). `windowlab quiz --seed 7` asks the same questions again."
	if got := quizSummary(score, "windowlab quiz --seed 7"); got != want {
		t.Errorf("summary %q,\nwant %q", got, want)
	}
}
