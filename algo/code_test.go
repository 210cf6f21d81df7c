package algo

import (
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The code a decision is written as (Code) is read back here as a student
// reads it: every value beside a variable is parsed from the text and
// held against the decision's evidence, the comparison shown is evaluated
// on the parsed numbers in exact fractions and must give the verdict, and
// the marked line must be the return of that verdict.

// codeAlgorithms are every kind and rules preset, a fleet and a racy tally.
func codeAlgorithms() []string {
	names := AlgorithmNames()
	return append(names, "fixed-window@3", "sliding-counter/upstash@2:client-hash", "fixed-window~2ms",
		"sliding-counter/httprate~5ms")
}

// drawAlgorithm is a named algorithm, or a window kind under rules drawn
// setting by setting (what the what-if form can give).
func drawAlgorithm(t *rapid.T) Algorithm {
	if rapid.Bool().Draw(t, "custom rules") {
		k := rapid.SampledFrom([]Kind{KindFixedWindow, KindSlidingLog, KindSlidingCounter}).Draw(t, "kind")
		r := Rules{
			CountRejected: rapid.Bool().Draw(t, "count rejected"),
			Compare:       Compare(rapid.IntRange(0, int(CompareAtMost)).Draw(t, "compare")),
		}
		if k == KindSlidingCounter {
			r.Rounding = Rounding(rapid.IntRange(0, int(RoundHalfUp)).Draw(t, "rounding"))
		}
		if k == KindFixedWindow {
			r.WindowStart = WindowStart(rapid.IntRange(0, int(WindowFirstRequest)).Draw(t, "window start"))
		}
		return Algorithm{Kind: k, Rules: r}
	}
	name := rapid.SampledFrom(codeAlgorithms()).Draw(t, "algorithm")
	a, err := ParseAlgorithm(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return a
}

func TestPropCodeShowsTheEvidence(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit, w := drawConfig(t)
		a := drawAlgorithm(t)
		cfg := fitExact(a, Config{Limit: limit, Window: time.Duration(w) * time.Millisecond})
		l, err := a.New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		_, ds := acceptedBy(l, drawTraffic(t, cfg.Window.Milliseconds(), 40))
		for i, d := range ds {
			if msg := checkListing(a, d, Code(a, d)); msg != "" {
				t.Fatalf("%s, decision %d (%s at %s):\n%s\n%s", a, i, d.Verb(), d.At, strings.Join(Code(a, d).Text(), "\n"), msg)
			}
		}
	})
}

// TestCodeWorkedExample is the lesson's figure on its line.
func TestCodeWorkedExample(t *testing.T) {
	c := NewSlidingCounter(Config{Limit: 100, Window: time.Minute})
	for i := 0; i < 84; i++ {
		c.Allow(Clock(12, 0, 30, 0), "client-1")
	}
	for i := 0; i < 30; i++ {
		c.Allow(Clock(12, 1, 15, 0), "client-1")
	}
	got := strings.Join(Code(Algorithm{Kind: KindSlidingCounter}, c.Allow(Clock(12, 1, 15, 0), "client-1")).Text(), "\n")
	for _, want := range []string{
		"estimate := previous*weight + current     // 84*0.75 + 30 = 93\n",
		"if estimate < limit {                     // 93 < 100\n",
		"    return allow                          // ← here\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("listing lacks %q:\n%s", want, got)
		}
	}
}

var (
	numberRE = regexp.MustCompile(`≈?-?[0-9][0-9,]*(\.[0-9]+)?`)
	compRE   = regexp.MustCompile(`^(≈?[0-9][0-9,.]*)( \+ 1)? (<|<=|>=) ([0-9][0-9,]*)$`)
)

// num parses a number as Code writes it, with how far from exact it may
// be: 0 unless it is marked ≈, then half its last decimal.
func num(s string) (v, slack *big.Rat, ok bool) {
	approx := strings.HasPrefix(s, "≈")
	s = strings.ReplaceAll(strings.TrimPrefix(s, "≈"), ",", "")
	v, ok = new(big.Rat).SetString(s)
	slack = new(big.Rat)
	if approx {
		_, frac, _ := strings.Cut(s, ".")
		slack.SetFrac(big.NewInt(1), new(big.Int).Mul(big.NewInt(2), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)))
	}
	return v, slack, ok
}

// near reports whether the shown s stands for exact.
func near(s string, exact *big.Rat) bool {
	v, slack, ok := num(s)
	if !ok {
		return false
	}
	d := new(big.Rat).Sub(v, exact)
	return d.Abs(d).Cmp(slack) <= 0
}

func whole(n int64) *big.Rat { return new(big.Rat).SetInt64(n) }

// checkListing reads l back against d; "" when it holds.
func checkListing(a Algorithm, d Decision, l Listing) string {
	code, here := 0, 0
	var est *big.Rat // the estimate or count the comparison is of, from the text
	for _, line := range l.Lines {
		if !strings.HasPrefix(line.Code, "//") {
			code++
		}
		if line.Here {
			here++
			if want := "return " + d.Verb(); line.Code != want {
				return "marked " + line.Code + ", decided " + d.Verb()
			}
		}
		nums := numberRE.FindAllString(line.Values, -1)
		bad := func(what string) string { return line.Code + " // " + line.Values + ": " + what }
		switch {
		case line.Code == "count := len(log)" || strings.HasPrefix(line.Code, "count := ") || strings.HasPrefix(line.Code, "current := "):
			if len(nums) != 1 || !near(nums[0], whole(d.Count)) {
				return bad("not the count")
			}
			if est == nil {
				est = whole(d.Count)
			}
		case strings.HasPrefix(line.Code, "previous := "):
			if len(nums) != 1 || !near(nums[0], whole(d.Previous)) {
				return bad("not the previous count")
			}
		case line.Code == "start := w.start":
			if d.Rules.WindowStart != WindowFirstEvent || line.Values != Range(d.WindowStart, d.WindowEnd()) {
				return bad("not the client's own window")
			}
		case line.Code == "start := at.Truncate(window)":
			if line.Values != d.At.Short()+" → "+d.WindowStart.Short() {
				return bad("not the instant and its window")
			}
		case strings.HasPrefix(line.Code, "weight := "):
			if msg := checkWeight(d, line.Values); msg != "" {
				return bad(msg)
			}
		case strings.HasPrefix(line.Code, "estimate := "):
			v, msg := checkEstimate(d, line.Code, line.Values)
			if msg != "" {
				return bad(msg)
			}
			est = v
		case strings.HasPrefix(line.Code, "if ") && strings.Contains(line.Code, "limit"):
			if msg := checkComparison(d, est, line.Code, line.Values); msg != "" {
				return bad(msg)
			}
		case line.Code == "if at >= w.start+window {":
			want := "still in " + Range(d.WindowStart, d.WindowEnd())
			if d.WindowStart == d.At && d.Count == 0 {
				want = "new window from " + d.At.Short()
			}
			if d.Rules.WindowStart != WindowFirstRequest || line.Values != want {
				return bad("not the client's window")
			}
		case line.Code == "log.dropUpTo(at - window)":
			want := "up to " + d.At.Add(-d.Window).Short() + "; none left"
			if d.Count > 0 {
				want = "up to " + d.At.Add(-d.Window).Short() + "; oldest left " + d.Oldest.Short()
			}
			if line.Values != want {
				return bad("not the log's cut and oldest")
			}
		case line.Code == "seg := at.Truncate(window / segments)":
			if line.Values != d.At.Short()+" → "+d.WindowStart.Short()+", "+shortDuration(d.Window/time.Duration(d.Segments))+" each" {
				return bad("not the instant, its segment and their length")
			}
		case line.Code == "r.slideTo(seg)":
			from := d.WindowStart.Add(-time.Duration(d.Segments-1) * (d.Window / time.Duration(d.Segments)))
			if line.Values != "keeps "+segmentNoun.Of(d.Segments)+", "+Range(from, d.WindowStart.Add(d.Window/time.Duration(d.Segments))) {
				return bad("not the S segments the window keeps")
			}
		case line.Code == "b.refill(at)":
			tn, tw := d.TokensRat()
			_, every, _ := strings.Cut(line.Values, " more every ")
			if len(nums) < 3 || !near(nums[0], big.NewRat(tn, tw)) || !near(nums[1], whole(d.Capacity)) || !near(nums[2], whole(d.Limit)) ||
				!isDuration(every, d.Window) {
				return bad("not the level, capacity and rate")
			}
			est, _, _ = num(nums[0])
		case line.Code == "if b.tokens >= 1 {":
			v, _, _ := num(strings.TrimSuffix(line.Values, " >= 1"))
			if v == nil || est == nil || v.Cmp(est) != 0 || (v.Cmp(whole(1)) >= 0) != d.Allowed {
				return bad("the level does not give the verdict")
			}
		case strings.HasPrefix(line.Code, "excess := max("): // nginx: excess' in thousandths
			burst := d.Capacity - 1
			if len(nums) < 2 || !near(nums[0], whole(burst*1000+1000-d.Tokens)) || !near(nums[1], whole(NginxRate(d.Limit, d.Window))) {
				return bad("not nginx's excess and rate")
			}
			est, _, _ = num(nums[0])
		case line.Code == "if excess > burst*1000 {":
			if len(nums) < 2 || est == nil || !near(nums[1], whole((d.Capacity-1)*1000)) || (est.Cmp(whole((d.Capacity-1)*1000)) > 0) == d.Allowed {
				return bad("the excess does not give the verdict")
			}
		case line.Code == "return allow" && line.Values != "":
			after, ok := strings.CutPrefix(line.Values, "after ")
			if !ok || !isDuration(after, d.Delay) || d.Delay == 0 {
				return bad("not the delay")
			}
		case line.Code == "return deny" && line.Values != "":
			next, ok := strings.CutPrefix(line.Values, "next token in ")
			if d.Kind != KindTokenBucket || !ok || !isDuration(next, d.NextToken()) {
				return bad("not when the next token comes")
			}
		case strings.HasSuffix(line.Code, "++") || line.Code == "log.append(at)":
			if (line.Values == "every request is counted") != d.Rules.CountRejected || line.Values != "" && line.Indent != 0 {
				return bad("counts what the rules do not")
			}
		}
	}
	if here != 1 {
		return "marked lines: " + string(rune('0'+here))
	}
	if code > 12 {
		return "more than a dozen lines"
	}
	if d.Kind != KindTokenBucket && est == nil {
		return "no count shown"
	}
	if (a.Servers >= 2 || a.Racy) != strings.HasPrefix(l.Lines[0].Code, "// ") {
		return "a fleet or racy tally says whose counts they are, and only they"
	}
	return ""
}

// isDuration reports whether s, as Go parses a duration, is d.
func isDuration(s string, d time.Duration) bool {
	v, err := time.ParseDuration(s)
	return err == nil && v == d
}

// checkWeight reads "1 - elapsed/window = weight".
func checkWeight(d Decision, values string) string {
	rest, ok := strings.CutPrefix(values, "1 - ")
	frac, weight, ok2 := strings.Cut(rest, " = ")
	el, win, ok3 := strings.Cut(frac, "/")
	if !ok || !ok2 || !ok3 {
		return "not 1 - elapsed/window = weight"
	}
	e, err1 := time.ParseDuration(el)
	wd, err2 := time.ParseDuration(win)
	if err1 != nil || err2 != nil || e != d.Elapsed || wd != d.Window {
		return "not the elapsed time and the window"
	}
	if !near(weight, big.NewRat(int64(wd-e), int64(wd))) {
		return "not the weight"
	}
	return ""
}

// checkEstimate reads the estimate's line by the rules' rounding,
// working the estimate out again from the numbers shown.
func checkEstimate(d Decision, code, values string) (*big.Rat, string) {
	nums := numberRE.FindAllString(values, -1)
	if len(nums) != 4 {
		return nil, "not previous, weight, current and estimate"
	}
	if !near(nums[0], whole(d.Previous)) || !near(nums[2], whole(d.Count)) {
		return nil, "not the counts"
	}
	wn, w := d.WeightRat()
	x := new(big.Rat).Mul(whole(d.Previous), big.NewRat(wn, w)) // the weighted previous count, exact
	want := new(big.Rat)
	switch {
	case strings.Contains(code, "floor("):
		if d.Rules.Rounding != RoundFloor {
			return nil, "floors under rules that do not"
		}
		want.SetInt(new(big.Int).Quo(x.Num(), x.Denom()))
		want.Add(want, whole(d.Count))
	case strings.Contains(code, "round("):
		if d.Rules.Rounding != RoundHalfUp {
			return nil, "rounds under rules that do not"
		}
		x.Add(x, whole(d.Count))
		x.Add(x, big.NewRat(1, 2))
		want.SetInt(new(big.Int).Quo(x.Num(), x.Denom()))
	default:
		if d.Rules.Rounding != RoundExact {
			return nil, "exact under rules that round"
		}
		want.Add(x, whole(d.Count))
	}
	if !near(nums[3], want) {
		return nil, "not the estimate " + want.RatString()
	}
	v, _, _ := num(nums[3])
	return v, ""
}

// checkComparison reads "v [+ 1] op limit" against the rules and evaluates
// it on the numbers shown.
func checkComparison(d Decision, est *big.Rat, code, values string) string {
	m := compRE.FindStringSubmatch(values)
	if m == nil || est == nil {
		return "not a comparison with the limit"
	}
	v, _, _ := num(m[1])
	lim, _, _ := num(m[4])
	if v.Cmp(est) != 0 || lim.Cmp(whole(d.Limit)) != 0 {
		return "not the value shown above and the limit"
	}
	wantOp := map[Compare]string{CompareLess: "<", ComparePlusOneAtMost: "<=", CompareAtMost: "<="}[d.Rules.Compare]
	if m[3] != wantOp || (m[2] != "") != (d.Rules.Compare == ComparePlusOneAtMost) || strings.Contains(code, "+1 ") != (m[2] != "") {
		return "not the rules' comparison"
	}
	if m[2] != "" {
		v.Add(v, whole(1))
	}
	holds := v.Cmp(lim) < 0 || m[3] == "<=" && v.Cmp(lim) == 0
	if holds != d.Allowed {
		return "the comparison shown does not give the verdict"
	}
	return ""
}
