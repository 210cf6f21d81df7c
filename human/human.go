// Package human writes numbers, sizes and spans of time the way windowlab
// says them to people: the one place every report, view, quiz and error
// message takes its wording of a number from, so that "400,000,000", "1m",
// "twice the limit" and "1.5 KiB" read the same everywhere.
//
// It is a leaf: it imports nothing of windowlab, so the limiters (algo) can
// explain their decisions with it and everything above can print with it.
// Instants are passed as milliseconds since the clock's midnight.
package human

import (
	"fmt"
	"io/fs"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Noun is a word and its plural, to count things in.
type Noun struct{ One, Many string }

// Of counts n of the noun: "1 request", "200 requests", "1,000,000 requests".
func (w Noun) Of(n int64) string { return Int(n) + " " + w.For(n) }

// For is the word that goes with n: One for exactly 1, Many otherwise.
func (w Noun) For(n int64) string {
	if n == 1 {
		return w.One
	}
	return w.Many
}

// Int writes n with commas: 400,000,000.
func Int(n int64) string { return commas(strconv.FormatInt(n, 10)) }

// BigInt writes n with commas: 10,000,000,000.
func BigInt(n *big.Int) string { return commas(n.String()) }

// commas groups the digits of a decimal integer in threes.
func commas(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// Words says a large count the way the lesson does: "10 billion",
// "2.5 million"; below a million, with commas.
func Words(n *big.Int) string {
	for _, u := range []struct {
		name string
		exp  int64
	}{{"sextillion", 21}, {"quintillion", 18}, {"quadrillion", 15}, {"trillion", 12}, {"billion", 9}, {"million", 6}} {
		unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(u.exp), nil)
		if n.Cmp(unit) >= 0 {
			s := new(big.Rat).SetFrac(n, unit).FloatString(1)
			return groupInteger(strings.TrimSuffix(s, ".0")) + " " + u.name
		}
	}
	return BigInt(n)
}

// Abbrev writes n with the largest suffix that keeps it whole, the way a
// count is typed on the command line: 400M, 270K, 1G, 1234.
func Abbrev(n int64) string {
	for _, u := range []struct {
		v int64
		s string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "K"}} {
		if n >= u.v && n%u.v == 0 {
			return strconv.FormatInt(n/u.v, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// Compact writes a count in at most five cells, for a timeline column:
// 999, 12.3k, 456k, 1.2M, 45M.
func Compact(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	case n < 10_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%dM", n/1_000_000)
}

// Number writes a measured value without an exponent: whole numbers with
// commas (1,000,000), others as short as they round-trip (0.5, 2.25).
func Number(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return Int(int64(v))
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Decimal writes num/den exactly when it has at most six decimals, and
// otherwise rounded, prefixed with ≈, to as many decimals as it takes to
// differ from the nearest whole number (so ≈99.9999 never prints as 100):
// 0.75, 49.5, ≈0.333, 49,999,900.
func Decimal(num, den int64) string {
	if s, ok := decimal64(num, den); ok {
		return s
	}
	return decimalBig(new(big.Rat).SetFrac64(num, den))
}

// DecimalRat is Decimal for any exact fraction.
func DecimalRat(r *big.Rat) string {
	if n, d := r.Num(), r.Denom(); n.IsInt64() && d.IsInt64() {
		if s, ok := decimal64(n.Int64(), d.Int64()); ok {
			return s
		}
	}
	return decimalBig(r)
}

// pow10 are the powers of ten a uint64 holds.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// decimal64 is Decimal in 128-bit integers, as decimalBig writes it (its
// rounding is big.Rat's: to nearest, halves away from zero), without a
// big.Rat: false when den is not positive or num·10^places would pass
// den·2^64, for decimalBig to do. A view or a trace explains thousands of
// decisions a second with it.
func decimal64(num, den int64) (string, bool) {
	if den <= 0 {
		return "", false
	}
	u, d, sign := uint64(num), uint64(den), ""
	if num < 0 {
		u, sign = -u, "-" // as uint64, exact even for the least int64
	}
	for places := 0; places <= 6; places++ {
		hi, lo := bits.Mul64(u, pow10[places])
		if hi >= d {
			return "", false
		}
		if q, r := bits.Div64(hi, lo, d); r == 0 {
			return groupInteger(sign + point(q, places)), true
		}
	}
	for places := 3; places < len(pow10); places++ {
		hi, lo := bits.Mul64(u, pow10[places])
		if hi >= d {
			return "", false
		}
		q, r := bits.Div64(hi, lo, d)
		if r >= d-r { // a half or more: away from zero
			if q++; q == 0 {
				return "", false
			}
		}
		trimmed := strings.TrimRight(strings.TrimRight(point(q, places), "0"), ".")
		if !strings.Contains(trimmed, ".") && places < 12 {
			continue // rounded to a whole number it is not: show more
		}
		return "≈" + groupInteger(sign+trimmed), true
	}
	return "", false
}

// point writes q/10^places with all its places: 12345, 2 → "123.45".
func point(q uint64, places int) string {
	s := strconv.FormatUint(q, 10)
	if places == 0 {
		return s
	}
	if len(s) <= places {
		s = strings.Repeat("0", places-len(s)+1) + s
	}
	return s[:len(s)-places] + "." + s[len(s)-places:]
}

// decimalBig is Decimal on a big.Rat: every fraction, slowly.
func decimalBig(r *big.Rat) string {
	for places := 0; places <= 6; places++ {
		s := r.FloatString(places)
		back, _ := new(big.Rat).SetString(s)
		if back.Cmp(r) == 0 {
			return groupInteger(s)
		}
	}
	for places := 3; ; places++ {
		s := r.FloatString(places)
		trimmed := strings.TrimRight(strings.TrimRight(s, "0"), ".")
		if !strings.Contains(trimmed, ".") && places < 12 {
			continue // rounded to a whole number it is not: show more
		}
		return "≈" + groupInteger(trimmed)
	}
}

// groupInteger puts commas in a decimal's whole part: 49,999,900.5.
func groupInteger(s string) string {
	whole, frac, hasFrac := strings.Cut(s, ".")
	whole = commas(whole)
	if hasFrac {
		return whole + "." + frac
	}
	return whole
}

// Exact writes r with no rounding at all: as a decimal when it has a finite
// one (its denominator is 2^a·5^b), else as a fraction: 0.75, 93, 2/3. It is
// how an answer or an expectation that must match exactly is shown.
func Exact(r *big.Rat) string {
	den := new(big.Int).Set(r.Denom())
	places := 0
	for _, p := range []int64{2, 5} {
		n, m := 0, new(big.Int)
		for q := big.NewInt(p); m.Mod(den, q).Sign() == 0; n++ {
			den.Quo(den, q)
		}
		places = max(places, n)
	}
	if den.IsInt64() && den.Int64() == 1 {
		return r.FloatString(places)
	}
	return r.RatString()
}

// Percent writes a share (0.25 is a quarter) as a percentage with two
// significant digits, or more decimals for small shares: 0.0031%, 5.7%, 31%.
func Percent(share float64) string {
	p := share * 100
	switch {
	case p == 0:
		return "0%"
	case p >= 10:
		return strconv.FormatFloat(p, 'f', 0, 64) + "%"
	}
	return strconv.FormatFloat(p, 'g', 2, 64) + "%"
}

// Times compares a count with a limit, as the lesson says it: "twice the
// limit", "3 times the limit", "1.15× the limit" (truncated to hundredths).
func Times(n, limit int64) string {
	switch {
	case limit <= 0:
		return "no limit"
	case n == limit:
		return "exactly the limit"
	case n == 2*limit:
		return "twice the limit"
	case n%limit == 0:
		return fmt.Sprintf("%d times the limit", n/limit)
	}
	// ⌊n·100 / limit⌋ hundredths, in big integers so no n overflows.
	q := new(big.Int).Mul(big.NewInt(n), big.NewInt(100))
	q.Quo(q, big.NewInt(limit))
	return DecimalRat(new(big.Rat).SetFrac(q, big.NewInt(100))) + "× the limit"
}

// Bytes writes a byte count with a binary unit: 1023 B, 1.5 KiB, 10.0 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// MiB writes a byte count in whole mebibytes, rounded up, with commas:
// 1,054 MiB. It is for figures compared with a budget, where 1.0 GiB
// against 1.0 GiB would hide which is larger.
func MiB(n int64) string { return Int((n+1<<20-1)>>20) + " MiB" }

// SIBytes writes a byte count in decimal units (kB, MB, GB, TB), as storage
// is sold and as Redis's INFO reports it in its human fields: 80.1 GB.
func SIBytes(n *big.Int) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB", "RB", "QB"}
	r := new(big.Rat).SetInt(n)
	thousand := big.NewRat(1000, 1)
	i := 0
	for i < len(units)-1 && r.Cmp(thousand) >= 0 {
		r.Quo(r, thousand)
		i++
	}
	if i == 0 {
		return n.String() + " B"
	}
	return groupInteger(r.FloatString(1)) + " " + units[i]
}

// Duration writes a span of virtual time in Go duration syntax, as a
// scenario file spells it and without the zero units people leave out:
// 1m, 90s as 1m30s, 1h30m, 168h, 250ms.
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Spoken writes a span of time for a sentence, as the lesson writes it
// ("15 s into the current minute"): 15 s, 5 min, 4 min 51 s; a span that
// is not whole seconds falls back to Duration.
func Spoken(d time.Duration) string {
	if d%time.Second != 0 {
		return Duration(d)
	}
	s := int64(d / time.Second)
	switch {
	case s >= 60 && s%60 == 0:
		return fmt.Sprintf("%d min", s/60)
	case s > 60:
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	}
	return fmt.Sprintf("%d s", s)
}

// NoBreak is a space that wrapped text must not break at. Whatever wraps
// the text turns it back into a plain space once the lines are cut.
const NoBreak = "\u00a0"

// Glue joins s's words with NoBreak, so wrapping keeps them together.
func Glue(s string) string { return strings.ReplaceAll(s, " ", NoBreak) }

// breaksLine is where a line may break: any space but NoBreak.
func breaksLine(r rune) bool { return unicode.IsSpace(r) && r != '\u00a0' }

// Wrap cuts plain text into lines of at most width characters between
// its words, each line ending in a line break: the first begins with
// first, the others with indent. It breaks at any space but NoBreak,
// written as a plain space; a word longer than a line stands alone, and
// the first word stays on the first line.
func Wrap(first, indent, text string, width int) string {
	var b strings.Builder
	line := first
	empty := true
	for _, word := range strings.FieldsFunc(text, breaksLine) {
		if !empty && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += strings.ReplaceAll(word, NoBreak, " ")
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}

// KeepVerdict glues the verdict of a decision's explanation, from its last
// arrow to the parenthesis that closes its test, so "→ allow (93 < 100)" is
// never broken across lines; what follows it (", next token in 200ms") may
// wrap, so a verdict never outgrows a narrow column and is cut.
func KeepVerdict(explain string) string {
	i := strings.LastIndex(explain, " → ")
	if i < 0 {
		return explain
	}
	end := len(explain)
	if j := strings.IndexByte(explain[i:], ')'); j >= 0 {
		end = i + j + 1
	}
	return explain[:i+1] + Glue(explain[i+1:end]) + explain[end:]
}

// Span says how long a burst from first to last took, measured as every
// span is, the last instant minus the first: requests at 12:00:58 and
// 12:01:02 arrived "within 4s", at 12:00:59 and 12:01:00 "within 1s",
// and a burst at one instant "at one instant". (The lesson's "200 in 2
// seconds" counts the clock seconds the burst touches instead; it is the
// lesson's wording, in its captions, never a figure windowlab prints.)
// Both are instants in milliseconds.
func Span(first, last int64) string {
	if first == last {
		return "at one instant"
	}
	return "within " + Duration(time.Duration(last-first)*time.Millisecond)
}

// Seconds counts the clock's seconds that first to last touch, the way the
// lesson counts "200 requests in 2 seconds" for requests at 12:00:59 and
// 12:01:00 (Span says how far apart they are: within 1s).
func Seconds(first, last int64) string {
	n := floorDiv(last, 1000) - floorDiv(first, 1000) + 1
	if n == 1 {
		return "1 second"
	}
	return Int(n) + " seconds"
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// FileKind names, for a message, what a path that is not a regular file
// is: "a directory", "a named pipe", "a character device"…
func FileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}
