package algo

import (
	"strings"

	"windowlab/human"
)

// Listing is one decision written as the limiter's own short code, Go-like:
// the rule its kind and rules decide by, each line beside the values it
// held for this request, the line that decided marked. Every value is read
// from the Decision's evidence, never worked out a second way.
type Listing struct {
	Title string // the algorithm in words (Algorithm.Title)
	Lines []CodeLine
}

// CodeLine is one line of a Listing.
type CodeLine struct {
	Indent int    // levels of four spaces
	Code   string // the statement
	Values string // the values it held, "" for none
	Here   bool   // the line that decided: the return taken
}

// HereMark marks the line that decided.
const HereMark = "← here"

// Code writes d, decided by a, as a Listing. A fleet's decision is its
// server's and a racy tally's the count as read: the code is the kind's
// under its rules, with a line saying whose counts they are.
func Code(a Algorithm, d Decision) Listing {
	c := coder{d: d}
	switch {
	case a.Servers >= 2:
		c.note("the counts are this request's server's alone")
	case a.Racy:
		c.note("the counts as read: writes land " + shortDuration(a.RTT) + " after their request")
	}
	switch d.Kind {
	case KindFixedWindow:
		c.fixed()
	case KindSlidingLog:
		c.log()
	case KindSlidingCounter:
		c.counter()
	case KindTokenBucket:
		if d.isNginx() {
			c.nginx()
			break
		}
		c.bucket()
	case KindSegmentedWindow:
		c.segmented()
	}
	return Listing{Title: a.Title(), Lines: c.lines}
}

// Text is the listing as aligned lines of plain text: the code, then at
// one column "// " and the values, the line that decided ending "← here".
func (l Listing) Text() []string {
	width := l.CodeWidth()
	out := make([]string, len(l.Lines))
	for i, line := range l.Lines {
		out[i] = line.Pad(width) + line.Comment()
	}
	return out
}

// CodeWidth is the widest code of a line with a comment: where the
// comments' column begins.
func (l Listing) CodeWidth() int {
	width := 0
	for _, line := range l.Lines {
		if line.Comment() != "" {
			width = max(width, line.Width())
		}
	}
	return width
}

// Width is the code's width in cells, its indent included.
func (c CodeLine) Width() int { return 4*c.Indent + len([]rune(c.Code)) }

// Pad is the code indented and padded to width, with the comment's gap
// when it has one.
func (c CodeLine) Pad(width int) string {
	s := strings.Repeat("    ", c.Indent) + c.Code
	if c.Comment() == "" {
		return s
	}
	return s + strings.Repeat(" ", width-c.Width()+2)
}

// Comment is "// " with the values and the mark, "" when it has neither.
func (c CodeLine) Comment() string {
	parts := make([]string, 0, 2)
	if c.Values != "" {
		parts = append(parts, c.Values)
	}
	if c.Here {
		parts = append(parts, HereMark)
	}
	if len(parts) == 0 {
		return ""
	}
	return "// " + strings.Join(parts, " ")
}

// coder builds a listing line by line.
type coder struct {
	d     Decision
	depth int
	lines []CodeLine
}

func (c *coder) line(code, values string) {
	c.lines = append(c.lines, CodeLine{Indent: c.depth, Code: code, Values: values})
}

func (c *coder) note(text string) { c.line("// "+text, "") }

// test writes the if whose branch allows, the count or estimate v (as
// text) under the rules' comparison, and the two returns; count is the
// line that counts this request when the rules count only the allowed.
func (c *coder) test(v, value string, count string) {
	cond, shown := v+" < limit", value+" < "+human.Int(c.d.Limit)
	switch c.d.Rules.Compare {
	case ComparePlusOneAtMost:
		cond, shown = v+"+1 <= limit", value+" + 1 <= "+human.Int(c.d.Limit)
	case CompareAtMost:
		cond, shown = v+" <= limit", value+" <= "+human.Int(c.d.Limit)
	}
	c.line("if "+cond+" {", shown)
	c.depth++
	if count != "" && !c.d.Rules.CountRejected {
		c.line(count, "")
	}
	c.ret(true, "")
	c.depth--
	c.line("}", "")
}

// ret writes a return, marked when it is the one taken.
func (c *coder) ret(allow bool, values string) {
	code := "return deny"
	if allow {
		code = "return allow"
	}
	c.lines = append(c.lines, CodeLine{Indent: c.depth, Code: code, Values: values, Here: allow == c.d.Allowed})
}

// counted writes the line that counts every request, under rules that do.
func (c *coder) counted(count string) {
	if c.d.Rules.CountRejected {
		c.line(count, "every request is counted")
	}
}

func (c *coder) fixed() {
	d := c.d
	count := "counts[client, start]++"
	if d.Rules.WindowStart == WindowFirstRequest {
		count = "w.count++"
		c.line("w := windows[client]", "")
		if d.WindowStart == d.At && d.Count == 0 { // this request started it: the one that does is always counted
			c.line("if at >= w.start+window {", "new window from "+d.At.Short())
		} else {
			c.line("if at >= w.start+window {", "still in "+Range(d.WindowStart, d.WindowEnd()))
		}
		c.depth++
		c.line("w.start, w.count = at, 0", "")
		c.depth--
		c.line("}", "")
		c.line("count := w.count", human.Int(d.Count))
	} else {
		c.line("start := at.Truncate(window)", d.At.Short()+" → "+d.WindowStart.Short())
		c.line("count := counts[client, start]", human.Int(d.Count))
	}
	c.counted(count)
	c.test("count", human.Int(d.Count), count)
	c.ret(false, "")
}

func (c *coder) log() {
	d := c.d
	left := "none left"
	if d.Count > 0 {
		left = "oldest left " + d.Oldest.Short()
	}
	c.line("log := logs[client]", "")
	c.line("log.dropUpTo(at - window)", "up to "+d.At.Add(-d.Window).Short()+"; "+left)
	c.line("count := len(log)", human.Int(d.Count))
	c.counted("log.append(at)")
	c.test("count", human.Int(d.Count), "log.append(at)")
	c.ret(false, "")
}

func (c *coder) counter() {
	d := c.d
	wn, w := d.WeightRat()
	weight := human.Decimal(wn, w)
	prev, cur := human.Int(d.Previous), human.Int(d.Count)
	if d.Rules.WindowStart == WindowFirstEvent {
		c.clientWindows()
	} else {
		c.line("start := at.Truncate(window)", d.At.Short()+" → "+d.WindowStart.Short())
		c.line("current := counts[client, start]", cur)
		c.line("previous := counts[client, start-window]", prev)
	}
	c.line("weight := 1 - (at-start)/window", "1 - "+human.Duration(d.Elapsed)+"/"+human.Duration(d.Window)+" = "+weight)
	est := human.DecimalRat(d.EstimateBig())
	switch r, _ := d.Rounded(); d.Rules.Rounding {
	case RoundFloor:
		est = human.Int(r)
		c.line("estimate := floor(previous*weight) + current", "floor("+prev+"*"+weight+") + "+cur+" = "+est)
	case RoundHalfUp:
		est = human.Int(r)
		c.line("estimate := round(previous*weight + current)", "round("+prev+"*"+weight+" + "+cur+") = "+est)
	default:
		c.line("estimate := previous*weight + current", prev+"*"+weight+" + "+cur+" = "+est)
	}
	count := "counts[client, start]++"
	if d.Rules.WindowStart == WindowFirstEvent {
		count = "w.current++"
	}
	c.counted(count)
	c.test("estimate", est, count)
	c.ret(false, "")
}

func (c *coder) bucket() {
	d := c.d
	tn, tw := d.TokensRat()
	level := human.Decimal(tn, tw)
	c.line("b := buckets[client]", "")
	c.line("b.refill(at)", level+" of "+tokens.Of(d.Capacity)+", "+human.Int(d.Limit)+" more every "+human.Duration(d.Window))
	c.line("if b.tokens >= 1 {", level+" >= 1")
	c.depth++
	c.line("b.tokens--", "")
	c.ret(true, "")
	c.depth--
	c.line("}", "")
	next := ""
	if !d.Allowed {
		next = "next token in " + human.Duration(d.NextToken())
	}
	c.ret(false, next)
}
