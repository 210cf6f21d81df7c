package quiz

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"windowlab/human"
)

// handoutWidth is where a printed quiz wraps: it prints on A4 and letter.
const handoutWidth = 78

// WriteHandout writes the quiz as plain text for a handout: the questions,
// then an answer key with each answer's explanation and the replay that
// proves it.
func WriteHandout(w io.Writer, q Quiz) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "windowlab quiz · seed %d · %d questions\n", q.Seed, len(q.Items))
	fmt.Fprintf(bw, "(windowlab quiz --seed %d gives the same questions)\n\n", q.Seed)
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
		proof, err := it.Proof()
		if err != nil {
			return err
		}
		for _, line := range proof {
			writeWrapped(bw, indent+"Replay: ", indent+"  ", human.KeepVerdict(line))
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

func choiceLetter(i int) string { return string(rune('a' + i)) }

// breaksLine is where a line may break: any space but human.NoBreak.
func breaksLine(r rune) bool { return unicode.IsSpace(r) && r != '\u00a0' }

// writeWrapped writes text in words up to handoutWidth, the first line
// after first and the rest after indent.
func writeWrapped(w *bufio.Writer, first, indent, text string) {
	line := first
	empty := true
	for _, word := range strings.FieldsFunc(text, breaksLine) {
		if !empty && len([]rune(line))+1+len([]rune(word)) > handoutWidth {
			w.WriteString(strings.TrimRight(line, " ") + "\n")
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += strings.ReplaceAll(word, human.NoBreak, " ")
		empty = false
	}
	w.WriteString(line + "\n")
}
