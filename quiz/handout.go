package quiz

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"windowlab/human"
)

// handoutWidth is where a printed quiz wraps: it prints on A4 and letter.
const handoutWidth = 78

// WriteHandout writes the quiz as plain text for a handout: the questions,
// then an answer key with each answer's explanation and the replay that
// proves it.
// The replays run first, one per scenario (Proofs); when ctx ends during
// them, the handout is written with the replays finished so far, says so,
// and WriteHandout returns ctx's cause.
func WriteHandout(ctx context.Context, w io.Writer, q Quiz) error {
	proofs, stopped := Proofs(ctx, q.Items)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "windowlab quiz · seed %d · %s\n", q.Seed, human.Noun{One: "question", Many: "questions"}.Of(int64(len(q.Items))))
	again := q.Again
	if again == "" {
		again = fmt.Sprintf("windowlab quiz --seed %d", q.Seed)
	}
	fmt.Fprintf(bw, "(%s gives the same questions)\n\n", again)
	for i, it := range q.Items {
		num := fmt.Sprintf("%d. ", i+1)
		indent := strings.Repeat(" ", len(num))
		writeWrapped(bw, num, indent, it.Ask)
		if it.Kind != FromLesson && it.From != "generated" {
			fmt.Fprintf(bw, "%s(from %s)\n", indent, it.From)
		}
		if len(it.Choices) == 0 {
			fmt.Fprintf(bw, "%sAnswer: ____________________\n", indent)
		}
		for j, c := range it.Choices {
			writeWrapped(bw, indent+choiceLetter(j)+") ", indent+"   ", c)
		}
		bw.WriteString("\n")
	}
	fmt.Fprintf(bw, "%s\nAnswer key (seed %d)\n\n", strings.Repeat("─", 40), q.Seed)
	for i, it := range q.Items {
		num := fmt.Sprintf("%d. ", i+1)
		indent := strings.Repeat(" ", len(num))
		answer := it.Answer
		if j := slices.Index(it.Choices, it.Answer); j >= 0 {
			answer = choiceLetter(j) + ") " + answer
		}
		writeWrapped(bw, num, indent, answer)
		if it.Explain != "" {
			writeWrapped(bw, indent, indent, it.Explain)
		}
		for _, line := range proofs[i] {
			writeWrapped(bw, indent+"Replay: ", indent+"  ", human.KeepVerdict(line))
		}
		bw.WriteString("\n")
	}
	if stopped != nil {
		fmt.Fprintf(bw, "STOPPED EARLY (%v): some answers above lack the replay that proves them.\n", stopped)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return stopped
}

func choiceLetter(i int) string { return string(rune('a' + i)) }

// writeWrapped writes text in words up to handoutWidth, the first line
// after first and the rest after indent.
func writeWrapped(w *bufio.Writer, first, indent, text string) {
	w.WriteString(human.Wrap(first, indent, text, handoutWidth))
}
