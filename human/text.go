package human

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

// Visible writes a name that came from outside (a log's client key, a
// recorded file's client) so that a terminal shows exactly it and does
// nothing else: as it is when it is plain (Plain), otherwise Go-quoted
// (strconv.Unquote reads it back to the same bytes) with every character
// that would act on a terminal or not show escaped: controls, DEL, C1,
// bidirectional and other format characters, invisible and default-
// ignorable ones, spaces other than U+0020, a combining mark with nothing
// to combine with, bytes that are not UTF-8. So "\x1b]0;PWNED\a", "",
// " bob" and "\u3164": names that differ in what does not show never look
// alike. (A plain name may itself look like another's quoted form, as it
// may use a look-alike letter; where names must stay apart in writing, a
// recorded file quotes a plain one that starts with a double quote too.)
func Visible(s string) string {
	if Plain(s) {
		return s
	}
	return Quote(s)
}

// Plain reports whether s shows as itself: not empty, no space at either
// end, and every character plainly visible.
func Plain(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' {
			return plainRunes(s) // rare: only a name with a byte past ASCII or a control pays for decoding
		}
	}
	return true
}

// plainRunes is Plain's test of every character, past ASCII.
func plainRunes(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError || !shown(r) || (i == 0 && unicode.IsMark(r)) {
			return false // a RuneError in the text itself is as invisible as a bad byte
		}
	}
	return true
}

// Quote is s Go-quoted with Visible's escapes, whatever s is: for a
// message that quotes what a file or a log held.
func Quote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	base := false // the character before shows as itself: a mark may follow it
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\x`...)
			b = append(b, "0123456789abcdef"[s[i]>>4], "0123456789abcdef"[s[i]&0xf])
			base = false
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
			base = true
		case r != utf8.RuneError && shown(r) && (base || !unicode.IsMark(r)):
			b = utf8.AppendRune(b, r)
			base = true
		default:
			q := strconv.QuoteRuneToASCII(r) // '\x1b', '\u202e', '\a'
			b = append(b, q[1:len(q)-1]...)
			base = false
		}
		i += n
	}
	return string(append(b, '"'))
}

// shown reports whether r shows as itself on a terminal: printable (so no
// control, format or bidirectional character, and no space but U+0020),
// and not one of the printable characters that draw nothing.
func shown(r rune) bool { return unicode.IsPrint(r) && !unicode.Is(blank, r) }

// blank are the printable characters that draw nothing or only change
// their neighbour (Unicode's default-ignorable letters and marks, and the
// braille blank), which a name could hide behind.
var blank = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x034f, Hi: 0x034f, Stride: 1}, // combining grapheme joiner
		{Lo: 0x115f, Hi: 0x1160, Stride: 1}, // Hangul choseong and jungseong fillers
		{Lo: 0x17b4, Hi: 0x17b5, Stride: 1}, // Khmer inherent vowels
		{Lo: 0x180b, Hi: 0x180d, Stride: 1}, // Mongolian free variation selectors
		{Lo: 0x180f, Hi: 0x180f, Stride: 1},
		{Lo: 0x2800, Hi: 0x2800, Stride: 1}, // braille pattern blank
		{Lo: 0x3164, Hi: 0x3164, Stride: 1}, // Hangul filler
		{Lo: 0xfe00, Hi: 0xfe0f, Stride: 1}, // variation selectors
		{Lo: 0xffa0, Hi: 0xffa0, Stride: 1}, // halfwidth Hangul filler
	},
	R32: []unicode.Range32{
		{Lo: 0xe0100, Hi: 0xe01ef, Stride: 1}, // variation selectors supplement
	},
}

// Acts is where s holds the first character a terminal would act on
// rather than show, or that reorders what it shows: a control but the
// line break, DEL, a C1 control, a bidirectional control or mark
// (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C); -1 when it
// holds none. Visible's and Quote's output never holds one, and neither
// may any output windowlab writes for people.
func Acts(s string) int {
	for i, r := range s {
		if (r < ' ' && r != '\n') || (r >= 0x7f && r <= 0x9f) || Reorders(r) || r == 0x200e || r == 0x200f || r == 0x061c {
			return i
		}
	}
	return -1
}
