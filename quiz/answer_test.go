package quiz

import "testing"

// Answer matching, accepted and refused: numbers compared exactly whatever
// their spelling, with words, units, "about" and per cent signs, but one
// number and no word that changes it; words compared as words.
func TestAnswerMatches(t *testing.T) {
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		// The same number, spelt differently.
		{"200", "200", true},
		{"200", " 200 ", true},
		{"200", "200.0", true},
		{"200", "200.", true},
		{"25.8", "25.8", true},
		{"25.8", "25.80", true},
		{"25.8", "129/5", true},
		{"25.8", "129 / 5", true},
		{"0.75", "3/4", true},
		{"0.75", ".75", true},
		{"0.75", "0.750", true},
		{"0.75", "75%", true},
		{"0.75", "75 %", true},
		{"0.75", "75 percent", true},
		{"0.75", "75 per cent", true},
		{"0.9", "90%", true},
		{"75%", "0.75", true},
		{"75%", "3/4", true},
		{"10 billion", "10,000,000,000", true},
		{"10 billion", "10000000000", true},
		{"10 billion", "10 Billion", true},
		{"24", "24k", false},
		{"24000", "24k", true},
		{"96.67", "96.67", true},
		// With words, units or an "about".
		{"96", "about 96", true},
		{"96", "~96", true},
		{"96", "≈96", true},
		{"96", "≈ 96", true},
		{"96", "around 96", true},
		{"96", "roughly 96.", true},
		{"96", "96 requests", true},
		{"96", "96 req", true},
		{"96", "96req", true},
		{"96", "about 96 requests, I think", true},
		{"25.8", "25.8 requests", true},
		{"25.8", "an estimate of about 25.8", true},
		{"200", "all 200", true},
		{"4", "4 of them", true},
		// Other numbers.
		{"96", "960", false},
		{"96", "9.6", false},
		{"96", "96.5", false},
		{"96", "-96", false},
		{"0.9", "0.9%", false},
		{"0.9", "9%", false},
		{"0.75", "0.7", false},
		{"200", "1,000", false},
		{"125", "12,5", false}, // not 125: grouping commas come in threes
		{"10 billion", "1 billion", false},
		{"1000", "1e3", false}, // an exponent is not how a count is written
		{"1", "1/0", false},
		// Not exactly one number, or a claim about another.
		{"96", "between 90 and 96", false},
		{"96", "96 or 97", false},
		{"96", "96 in 60 s", false},
		{"96", "not 96", false},
		{"96", "under 96", false},
		{"96", "96 or more", false},
		{"96", "at least 96", false},
		{"96", "almost 96", false},
		{"96", "96+", false},
		{"96", "< 96", false},
		{"96", "≥96", false},
		{"96", "96 ± 1", false},
		{"96", "12:01:36", false},
		{"93", "ninety-three", false},
		{"200", "", false},
		{"200", "   ", false},
		{"200", "requests", false},
		// Words.
		{"Allowed", " allowed.", true},
		{"Allowed", "ALLOWED", true},
		{"Allowed", "Denied", false},
		{"Allowed", "", false},
		{"sliding-counter/cloudflare-2017", "sliding-counter/cloudflare-2017", true},
		{"sliding-counter/cloudflare-2017", "2017", false},
	} {
		if got := Matches(c.want, c.got); got != c.ok {
			t.Errorf("Matches(%q, %q) = %v, want %v", c.want, c.got, got, c.ok)
		}
	}
}
