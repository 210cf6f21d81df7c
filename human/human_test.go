package human

import (
	"io/fs"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestNoun(t *testing.T) {
	request := Noun{"request", "requests"}
	for n, want := range map[int64]string{0: "0 requests", 1: "1 request", 2: "2 requests", 200: "200 requests", -1: "-1 requests"} {
		if got := request.Of(n); got != want {
			t.Errorf("Of(%d) = %q, want %q", n, got, want)
		}
	}
	if request.For(1) != "request" || request.For(5) != "requests" {
		t.Error("For picks the wrong word")
	}
}

func TestInt(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 999: "999", 1000: "1,000", 400_000_000: "400,000,000", -1234567: "-1,234,567",
		9_223_372_036_854_775_807: "9,223,372,036,854,775,807",
	} {
		if got := Int(n); got != want {
			t.Errorf("Int(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestBigNumbers(t *testing.T) {
	ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(10), nil)
	if got := BigInt(ten); got != "10,000,000,000" {
		t.Errorf("BigInt(1e10) = %q", got)
	}
	for _, c := range []struct {
		n    *big.Int
		want string
	}{
		{ten, "10 billion"}, // the lesson's 10 billion timestamps
		{big.NewInt(2_500_000), "2.5 million"},
		{big.NewInt(2_000_000), "2 million"},
		{big.NewInt(999_999), "999,999"},
		{big.NewInt(999), "999"},
		{new(big.Int).Exp(big.NewInt(10), big.NewInt(13), nil), "10 trillion"},
		{new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil), "1 sextillion"}, // the calculator's largest: 10¹² keys × 10⁹
		{new(big.Int).Exp(big.NewInt(10), big.NewInt(25), nil), "10,000 sextillion"},
	} {
		if got := Words(c.n); got != c.want {
			t.Errorf("Words(%v) = %q, want %q", c.n, got, c.want)
		}
	}
	for n, want := range map[int64]string{80_100_000_000: "80.1 GB", 999: "999 B", 1000: "1.0 kB", 2_000_000: "2.0 MB"} {
		if got := SIBytes(big.NewInt(n)); got != want {
			t.Errorf("SIBytes(%d) = %q, want %q", n, got, want)
		}
	}
	huge := new(big.Int).Mul(big.NewInt(113), new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil))
	if got := SIBytes(huge); got != "113.0 ZB" {
		t.Errorf("SIBytes(1.13e23) = %q, want 113.0 ZB", got)
	}
}

func TestAbbrevAndCompact(t *testing.T) {
	for n, want := range map[int64]string{400_000_000: "400M", 270_000: "270K", 1_000_000_000: "1G", 100_000_000_000: "100G", 1234: "1234", 0: "0"} {
		if got := Abbrev(n); got != want {
			t.Errorf("Abbrev(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1.0k", 12_345: "12k", 9_999: "10.0k", 456_789: "456k", 1_234_567: "1.2M", 45_000_000: "45M"} {
		if got := Compact(n); got != want {
			t.Errorf("Compact(%d) = %q, want %q", n, got, want)
		}
		if len([]rune(Compact(n))) > 5 {
			t.Errorf("Compact(%d) = %q takes more than five cells", n, Compact(n))
		}
	}
}

func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{1_000_000: "1,000,000", 0.5: "0.5", 50: "50", 2.25: "2.25", 1e16: "10000000000000000"} {
		if got := Number(v); got != want {
			t.Errorf("Number(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestDecimal(t *testing.T) {
	cases := []struct {
		num, den int64
		want     string
	}{
		{3, 4, "0.75"},
		{93, 1, "93"},
		{93 * 60_000, 60_000, "93"},
		{99, 2, "49.5"},
		{0, 7, "0"},
		{-3, 4, "-0.75"},
		{1, 8, "0.125"},
		{1, 1_000_000, "0.000001"},
		{1, 3, "≈0.333"},
		{2, 3, "≈0.667"},
		{200, 3, "≈66.667"},
		{1, 128, "≈0.008"},                // 0.0078125 has seven decimals
		{1, 3_000_000, "≈0.0000003"},      // rounds to 0 at three places
		{2_999_999, 30_000, "≈99.99997"},  // 99.9999666…
		{1_999_999, 20_000, "99.99995"},   // exact, five decimals
		{599_999, 6_000, "≈99.9998"},      // 99.999833…
		{3_000_001, 30_000, "≈100.00003"}, // 100.0000333…
	}
	for _, c := range cases {
		if got := Decimal(c.num, c.den); got != c.want {
			t.Errorf("Decimal(%d, %d) = %q, want %q", c.num, c.den, got, c.want)
		}
	}
}

// Every exact Decimal is exactly num/den; every ≈ one is close to it and is
// never a whole number.
func TestDecimalProperties(t *testing.T) {
	for den := int64(1); den <= 300; den++ {
		for _, base := range []int64{0, 1, 15, 93, 100} {
			for off := int64(-3); off <= 3; off++ {
				num := base*den + off
				got := Decimal(num, den)
				r := big.NewRat(num, den)
				s, approx := strings.CutPrefix(got, "≈")
				v, ok := new(big.Rat).SetString(s)
				if !ok {
					t.Fatalf("Decimal(%d, %d) = %q does not parse", num, den, got)
				}
				if !approx {
					if v.Cmp(r) != 0 {
						t.Errorf("Decimal(%d, %d) = %q is not exact", num, den, got)
					}
					continue
				}
				if v.IsInt() {
					t.Errorf("Decimal(%d, %d) = %q prints a whole number for a fraction", num, den, got)
				}
				diff := new(big.Rat).Sub(v, r)
				if diff.Abs(diff).Cmp(big.NewRat(1, 2000)) > 0 {
					t.Errorf("Decimal(%d, %d) = %q is off by %s", num, den, got, diff.FloatString(8))
				}
			}
		}
	}
}

// Exact never rounds: what it prints parses back to the same fraction.
func TestExact(t *testing.T) {
	for _, c := range []struct {
		r    *big.Rat
		want string
	}{
		{big.NewRat(3, 4), "0.75"},
		{big.NewRat(93, 1), "93"},
		{big.NewRat(2, 3), "2/3"},
		{big.NewRat(3, 2), "1.5"},
		{big.NewRat(1, 1024), "0.0009765625"},
		{big.NewRat(131, 300), "131/300"},
		{big.NewRat(-7, 8), "-0.875"},
	} {
		got := Exact(c.r)
		if got != c.want {
			t.Errorf("Exact(%v) = %q, want %q", c.r, got, c.want)
		}
		if back, ok := new(big.Rat).SetString(got); !ok || back.Cmp(c.r) != 0 {
			t.Errorf("Exact(%v) = %q does not read back as %v", c.r, got, c.r)
		}
	}
}

func TestPercent(t *testing.T) {
	for share, want := range map[float64]string{0: "0%", 0.00003: "0.003%", 0.000031: "0.0031%", 0.057: "5.7%", 0.31: "31%", 0.06: "6%", 1: "100%"} {
		if got := Percent(share); got != want {
			t.Errorf("Percent(%v) = %q, want %q", share, got, want)
		}
	}
}

func TestTimes(t *testing.T) {
	for _, c := range []struct {
		n, limit int64
		want     string
	}{
		{200, 100, "twice the limit"}, // the lesson's boundary burst
		{300, 100, "3 times the limit"},
		{115, 100, "1.15× the limit"},
		{150, 100, "1.5× the limit"},
		{100, 100, "exactly the limit"},
		{50, 100, "0.5× the limit"},
		{1, 3, "0.33× the limit"},
		{9_000_000_000_000_000_000, 7, "1,285,714,285,714,285,714.28× the limit"},
	} {
		if got := Times(c.n, c.limit); got != c.want {
			t.Errorf("Times(%d, %d) = %q, want %q", c.n, c.limit, got, c.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 10 << 30: "10.0 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Minute: "1m", time.Hour: "1h", 90 * time.Second: "1m30s", 90 * time.Minute: "1h30m",
		168 * time.Hour: "168h", 250 * time.Millisecond: "250ms", 9 * time.Second: "9s", 0: "0s",
		time.Hour + time.Second: "1h0m1s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(Duration(d)); err != nil || back != d {
			t.Errorf("Duration(%v) = %q does not read back as a Go duration", d, Duration(d))
		}
	}
}

func TestSpan(t *testing.T) {
	const s = 1000
	noon := int64(12 * 3600 * s)
	for _, c := range []struct {
		first, last int64
		want        string
	}{
		// The last instant minus the first, as the lane's interval reads
		// (12:00:58–12:01:02 is 4 s, as check-yourself-1 says, not "in 5
		// seconds", the seconds it touches).
		{noon + 59*s, noon + 60*s, "within 1s"},
		{noon + 58*s, noon + 62*s, "within 4s"},
		{noon, noon + 60*s, "within 1m"},
		{noon, noon, "at one instant"},
		{noon, noon + 250, "within 250ms"},
		{noon, noon + 1500, "within 1.5s"},
	} {
		if got := Span(c.first, c.last); got != c.want {
			t.Errorf("Span(%d, %d) = %q, want %q", c.first, c.last, got, c.want)
		}
	}
}

func TestSpoken(t *testing.T) {
	for d, want := range map[time.Duration]string{
		15 * time.Second: "15 s", // the lesson's "15 s into the current minute"
		time.Minute:      "1 min", 5 * time.Minute: "5 min", 291 * time.Second: "4 min 51 s",
		0: "0 s", 1500 * time.Millisecond: "1.5s",
	} {
		if got := Spoken(d); got != want {
			t.Errorf("Spoken(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestKeepVerdict(t *testing.T) {
	got := KeepVerdict("30 + 84 × 0.75 = 93 → allow (93 < 100)")
	if want := "30 + 84 × 0.75 = 93 →" + NoBreak + "allow" + NoBreak + "(93" + NoBreak + "<" + NoBreak + "100)"; got != want {
		t.Errorf("KeepVerdict = %q, want %q", got, want)
	}
	// What follows the verdict's test may wrap: a narrow column does not
	// have to cut "next token in 200ms" in two.
	got = KeepVerdict("bucket 0.5 of 1 token → deny (0.5 < 1), next token in 200ms")
	if want := "bucket 0.5 of 1 token →" + NoBreak + "deny" + NoBreak + "(0.5" + NoBreak + "<" + NoBreak + "1), next token in 200ms"; got != want {
		t.Errorf("KeepVerdict = %q, want %q", got, want)
	}
	if got := KeepVerdict("no arrow here"); got != "no arrow here" {
		t.Errorf("KeepVerdict without a verdict = %q", got)
	}
}

func TestParseNumber(t *testing.T) {
	for s, want := range map[string]*big.Rat{
		"200": big.NewRat(200, 1), " 200 ": big.NewRat(200, 1), "3/4": big.NewRat(3, 4), ".75": big.NewRat(3, 4),
		"10 billion": big.NewRat(10_000_000_000, 1), "10,000,000,000": big.NewRat(10_000_000_000, 1), "2.5 Million": big.NewRat(2_500_000, 1),
	} {
		if got, ok := ParseNumber(s); !ok || got.Cmp(want) != 0 {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "1e3", "ten", "10 zillion", "1 2 3", "fixed-window"} {
		if got, ok := ParseNumber(s); ok {
			t.Errorf("ParseNumber(%q) = %v, want no number", s, got)
		}
	}
}

// Line keeps what is printable and in order, single-spaced, and bounded.
func TestLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		most int
		want string
	}{
		{"  ann   lee ", 24, "ann lee"},
		{"evil\x1b[2J\u202eeman", 24, "evil[2Jeman"},
		{"\u2066x\u2069\t\ny", 24, "x y"},
		{"ÅngströmÅngströmÅngströmÅngström", 10, "ÅngströmÅn"},
		{"\x00\x07", 24, ""},
	} {
		if got := Line(c.in, c.most); got != c.want {
			t.Errorf("Line(%q, %d) = %q, want %q", c.in, c.most, got, c.want)
		}
	}
}

// Decimal in 128-bit integers writes what big.Rat's FloatString does
// (decimalBig), for fractions of every size and sign: exact ones, ones that
// round to a whole number at first, halves, and products past 2^64.
func TestDecimalAsBigRatWritesIt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := [][2]int64{{0, 1}, {1, 3}, {-1, 3}, {2, 3}, {59998, 60000}, {1, 2000}, {-1, 2000}, {5, 10_000_000},
		{-5, 10_000_000}, {999_999_999, 1_000_000_000}, {1, 1_000_000_000_000}, {math.MaxInt64, 1}, {math.MinInt64, 1},
		{math.MinInt64, 3}, {math.MaxInt64, math.MaxInt64 - 1}, {7, -2}, {3, 0x7fff_ffff_ffff_fff0}}
	for range 200_000 {
		num := r.Int64N(1 << (1 + r.IntN(62)))
		if r.IntN(3) == 0 {
			num = -num
		}
		den := 1 + r.Int64N(1<<(1+r.IntN(62)))
		switch r.IntN(4) {
		case 0:
			den = []int64{1, 2, 3, 4, 5, 8, 10, 60_000, 86_400_000, 1000, 7}[r.IntN(11)]
		case 1:
			num = den*r.Int64N(100) + r.Int64N(3) - 1 // near a whole number
		}
		cases = append(cases, [2]int64{num, den})
	}
	fast := 0
	for _, c := range cases {
		want := decimalBig(new(big.Rat).SetFrac64(c[0], c[1]))
		if got := Decimal(c[0], c[1]); got != want {
			t.Fatalf("Decimal(%d, %d) = %q, big.Rat writes %q", c[0], c[1], got, want)
		}
		if _, ok := decimal64(c[0], c[1]); ok {
			fast++
		}
	}
	if fast < len(cases)/2 {
		t.Errorf("only %d of %d cases in 128-bit integers", fast, len(cases))
	}
}

func TestFileKind(t *testing.T) {
	for mode, want := range map[fs.FileMode]string{
		fs.ModeDir: "a directory", fs.ModeNamedPipe: "a named pipe", fs.ModeSocket: "a socket",
		fs.ModeDevice | fs.ModeCharDevice: "a character device", fs.ModeDevice: "a device", fs.ModeIrregular: "a special file",
	} {
		if got := FileKind(mode); got != want {
			t.Errorf("FileKind(%v) = %q, want %q", mode, got, want)
		}
	}
}

// Seconds counts the clock's seconds touched, as the lesson does; Span
// how far apart first and last are. They differ by design.
func TestSecondsCountsTheClocksSeconds(t *testing.T) {
	for _, c := range []struct {
		first, last int64
		want        string
	}{
		{59_000, 60_000, "2 seconds"}, // 12:00:59 and 12:01:00: the lesson's 200 in 2 seconds
		{59_999, 60_000, "2 seconds"}, // a millisecond apart, across a second
		{59_000, 59_999, "1 second"},  // one second of the clock
		{58_000, 62_000, "5 seconds"}, // 12:00:58 to 12:01:02
		{-1, 0, "2 seconds"},          // before midnight, floored
	} {
		if got := Seconds(c.first, c.last); got != c.want {
			t.Errorf("Seconds(%d, %d) = %q, want %q", c.first, c.last, got, c.want)
		}
	}
	if got := Span(59_000, 60_000); got != "within 1s" {
		t.Errorf("Span(12:00:59, 12:01:00) = %q, want within 1s", got)
	}
}
