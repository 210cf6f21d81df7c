package human

import (
	"strings"
	"unicode"
)

// Reorders reports the characters that reorder the text around them (the
// bidirectional embeddings, overrides and isolates, U+202A–U+202E and
// U+2066–U+2069): text holding one could show one thing and say another.
func Reorders(r rune) bool { return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) }

// Line makes what someone typed fit to show others on one line: only
// printable characters, none that Reorders, spaces single, at most most
// characters. A classroom's display names and quiz answers go through it,
// under the rules scenario text is held to.
func Line(s string, most int) string {
	var b strings.Builder
	n := 0
	for _, r := range strings.Join(strings.Fields(s), " ") {
		if n == most {
			break
		}
		if !unicode.IsPrint(r) || Reorders(r) {
			continue
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}
