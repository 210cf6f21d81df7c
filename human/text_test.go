package human

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Visible shows a plain name as it is and anything else Go-quoted, with
// what a terminal would act on or not show escaped.
func TestVisible(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"10.0.0.1", "10.0.0.1"},
		{"GET /a b", "GET /a b"},
		{`C:\path`, `C:\path`},
		{"Ångström 東京", "Ångström 東京"},
		{"é", "é"}, // e and a combining acute: the mark has its letter
		{"", `""`},
		{" bob", `" bob"`},
		{"bob ", `"bob "`},
		{`"quoted"`, `"quoted"`},
		{"\x1b]0;PWNED\x07\x1b[2J\u202e", `"\x1b]0;PWNED\a\x1b[2J\u202e"`},
		{"a\nb\x00", `"a\nb\x00"`},
		{"del\x7f", `"del\x7f"`},
		{"c1\u009b2J", `"c1\u009b2J"`},
		{"rtl\u2066x\u2069\u200f\u061c", `"rtl\u2066x\u2069\u200f\u061c"`},
		{"zero\u200bwidth\ufeff", `"zero\u200bwidth\ufeff"`},
		{"\u3164", `"\u3164"`},
		{"a\u3164b", `"a\u3164b"`},
		{"\u0301\u0301", `"\u0301\u0301"`},
		{"nbsp\u00a0x", `"nbsp\u00a0x"`},
		{"bad\xffbyte", `"bad\xffbyte"`},
		{"repl\ufffd", `"repl\ufffd"`},
		{`a"b\c` + "\x01", `"a\"b\\c\x01"`},
		{"tag\U000E0041", `"tag\U000e0041"`},
	} {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// Whatever the bytes, Visible's output holds nothing a terminal acts on,
// is valid UTF-8, and a quoted one reads back to the same bytes; names
// that differ in what does not show never look alike.
func TestVisibleProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 2))
	alphabet := []rune{'a', ' ', '"', '\\', 0, 7, 0x1b, '\n', 0x7f, 0x85, 0x9b, 0xa0, 0x200b, 0x200e, 0x202e, 0x2066, 0x3164, 0x0301, 0xfe0f, 0xfffd, 'é', '東', 0xe0001}
	seen := map[string]string{}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(6) {
			if r.IntN(8) == 0 {
				b.WriteByte(byte(0x80 + r.IntN(0x80))) // a byte that is not UTF-8 alone
				continue
			}
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		in := b.String()
		out := Visible(in)
		if i := Acts(out); i >= 0 || !utf8.ValidString(out) {
			t.Fatalf("Visible(%q) = %q: a character a terminal acts on at %d, or not UTF-8", in, out, i)
		}
		if out != in {
			back, err := strconv.Unquote(out)
			if err != nil || back != in {
				t.Fatalf("Visible(%q) = %s reads back as %q (%v)", in, out, back, err)
			}
		}
		if other, dup := seen[out]; dup && other != in && Plain(other) == Plain(in) {
			t.Fatalf("Visible(%q) = Visible(%q) = %s", in, other, out)
		}
		seen[out] = in
	}
}

// A plain name costs Visible nothing.
func TestVisiblePlainAllocates(t *testing.T) {
	name := "10.0.0.1 GET /api/v1/items"
	if n := testing.AllocsPerRun(100, func() { _ = Visible(name) }); n != 0 {
		t.Errorf("Visible of a plain name allocates %v times", n)
	}
}

func TestActs(t *testing.T) {
	for in, want := range map[string]int{
		"plain\nlines": -1, "tab\t": 3, "\x1b[2J": 0, "del\x7f": 3, "c1\u0085": 2, "ab\u202e": 2, "\u200f": 0, "x\u061c": 1, "東京\u2069": 6, "\u3164": -1,
	} {
		if got := Acts(in); got != want {
			t.Errorf("Acts(%q) = %d, want %d", in, got, want)
		}
	}
}
