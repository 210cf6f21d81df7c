package render

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"windowlab/algo"
	"windowlab/human"
)

// algoTokens counts a token bucket's capacity.
var algoTokens = human.Noun{One: "token", Many: "tokens"}

// lanesPanel draws one lane per limiter from a snapshot: its state at the
// clock in the lesson's terms, its last decision and its figures.
type Lanes struct {
	C         Common
	Snap      *Snapshot
	Question  int // the lane a revealed question is about, or -1
	Presenter bool
	stacked   bool // never side by side (the presenter's focused lane)
	lane      int  // the lane being laid out, for its animated gauge
}

// field is one labelled line of a lane; fields with a higher prio are
// dropped first when the terminal is short.
type field struct {
	label string
	text  string
	prio  int
}

// lane is one limiter's state at the clock, in the lesson's terms.
type Lane struct {
	index  int
	kind   algo.Kind
	title  string
	right  string // allowed, denied and memory, beside the title when it fits
	fields []field
}

// laneLabelWidth is the column the field labels take.
const laneLabelWidth = 7

// headings name the fields when lanes stand side by side.
var headings = map[string]string{
	"last": "last request",
	"now":  "now",
	"most": "most admitted in one window",
}

// unit is a block of rendered lines dropped or kept as a whole.
type Unit struct {
	lines []string
	prio  int
}

func (p Lanes) List() []Lane {
	s, st := p.Snap, p.C.Styles
	out := make([]Lane, 0, len(s.Peek))
	for i, now := range s.Peek {
		p.lane = i
		stat := s.Stats[i]
		l := Lane{index: i, kind: now.Kind, title: stat.Algorithm.Title()}
		if p.Question == i {
			l.title += " ◀ the question"
		}
		counts, memory := p.header(i)
		l.right = counts + st.Faint.Render(" · ") + st.Label.Render("holds ") + memory

		last := st.Faint.Render("no request yet")
		if s.HasLast {
			d := s.Last.Decisions[i]
			last = p.mark(d.Allowed) + " " + Explain(d)
			if d.Delay > 0 {
				last = st.Allowed.Render(DelayedGlyph) + " " + Explain(d) // "… → allow, delayed 500ms"
			}
			if s.Last.WithoutStore&(1<<i) != 0 {
				// The policy's, not the tally's: its counts are the in-process twin's.
				last = storelessMark(st, d.Allowed) + " " + d.Verb() + st.Faint.Render(", decided without the store")
			}
			if s.Last.Arrival.Client != s.Client {
				last += st.Faint.Render(" (" + human.Visible(s.Last.Arrival.Client) + ")")
			}
		}
		l.fields = append(l.fields, field{"last", last, 0})
		switch now.Kind {
		case algo.KindFixedWindow:
			l.fields = append(l.fields, p.fixedFields(now)...)
		case algo.KindSlidingLog:
			l.fields = append(l.fields, p.logFields(now, s.Window[i])...)
		case algo.KindSlidingCounter:
			l.fields = append(l.fields, p.counterFields(now)...)
		case algo.KindTokenBucket:
			l.fields = append(l.fields, p.bucketFields(now)...)
		case algo.KindSegmentedWindow:
			l.fields = append(l.fields, p.segmentedFields(now, s.Window[i])...)
		default:
			l.fields = append(l.fields, field{"now", p.ifNow(now), 0})
		}
		if len(s.Servers[i]) > 0 {
			l.fields = append(l.fields, field{p.serverLabel(i), p.serverLine(i), 2})
		}
		if i < len(s.Shared) && s.Shared[i].Lagged != nil {
			l.fields = append(l.fields, field{"replica", replicaLine(s.Shared[i]), 2})
		}
		if i < len(s.Store) && s.Store[i].Shard != "" && s.Client != "" {
			// The focused client's keys (the header names it): which primary, which slot.
			l.fields = append(l.fields, field{"shard", st.Faint.Render(s.Store[i].Shard), 2})
		}
		for j := range l.fields {
			if l.fields[j].label != "last" {
				l.fields[j].prio = max(l.fields[j].prio, 1) // the verdict and the warning stay longest
			}
		}
		mostPrio := 2
		if stat.MaxInWindow > p.Snap.Config.Limit {
			mostPrio = 0 // the warning is the lesson: it stays whatever the height
		}
		l.fields = append(l.fields, field{"most", p.most(i), mostPrio})
		if p.Question >= 0 && p.Question != i {
			// Revealing an answer: the other lanes give way to the question's.
			for j := range l.fields {
				l.fields[j].prio += 3
			}
		}
		if _, wide := p.columnWidth(); wide {
			// Beside a title in a narrow box they would wrap; give them their own lines.
			l.right = ""
			// Like the title's, they are whole whatever the height: the
			// timeline gives way first.
			l.fields = append(l.fields, field{"so far", counts, 0}, field{"memory", memory, 0})
		}
		out = append(out, l)
	}
	return out
}

// header is lane i's counts ("✓ 3 allowed  ✗ 1 denied") and what it
// holds, with what Redis holds (on --store) or would hold beside it.
func (p Lanes) header(i int) (counts, memory string) {
	s, st := p.Snap, p.C.Styles
	stat := s.Stats[i]
	counts = st.Allowed.Render("✓ "+human.Int(stat.Allowed)+" allowed") + "  " +
		st.Denied.Render("✗ "+human.Int(stat.Denied)+" denied")
	if delaying(s.Algorithms[i : i+1]) {
		counts += "  " + st.Allowed.Render(glue(DelayedGlyph+" "+human.Int(stat.Delayed)+" delayed"))
	}
	if stat.WithoutStore > 0 {
		counts += "  " + st.Mixed.Render(glue(StorelessGlyph+" "+human.Int(stat.WithoutStore)+" without the store"))
	}
	memory = stat.Kind.Unit().Of(stat.Memory.Entries) + st.Faint.Render(", "+human.Bytes(stat.Memory.Bytes))
	if i < len(s.Store) && s.Store[i].OK {
		// On a real Redis: the model beside what its keys hold there.
		u := s.Store[i].Usage
		memory += " " + st.Faint.Render(glue("(Redis ≈"+human.Bytes(algo.RedisBytes(stat.Kind, stat.Memory))+
			"; MEMORY USAGE "+human.Bytes(u.Bytes)+" in "+human.Noun{One: "key", Many: "keys"}.Of(u.Keys)+")"))
	} else if redis := algo.RedisBytes(stat.Kind, stat.Memory); redis > 0 && p.redisShown() {
		memory += " " + st.Faint.Render(glue("(Redis ≈"+human.Bytes(redis)+")"))
	}
	return counts, memory
}

// redisShown is whether lanes have room to add what their state would take
// in Redis: in boxes side by side, where memory has a line of its own, or
// on a terminal wide enough to keep it beside the counts.
func (p Lanes) redisShown() bool {
	_, wide := p.columnWidth()
	return wide || p.C.Width >= 110
}

// nbsp joins words that should not be wrapped apart; render turns it back
// into a space.
const NoBreak = human.NoBreak

// glue keeps phrases together when wrapped.
func glue(s string) string { return human.Glue(s) }

// explain is Decision.Explain with its verdict, "→ allow (93 < 100)", kept on one line.
func Explain(d algo.Decision) string { return human.KeepVerdict(d.Explain()) }

// sep separates two facts in a field: on one line when lanes are stacked,
// on two in a box.
func (p Lanes) sep() string {
	if _, wide := p.columnWidth(); wide {
		return "\n"
	}
	return p.C.Styles.Faint.Render(" · ")
}

// ifNow is the decision a request from the focused client would get now.
func (p Lanes) ifNow(d algo.Decision) string {
	return p.C.Styles.Label.Render("a request now: ") + Explain(d)
}

// gaugeWidth is the length of every bar in a lane: in presenter mode, the
// lane's whole width.
func (p Lanes) gaugeWidth() int {
	if p.Presenter {
		return max(p.laneTextWidth(), 16)
	}
	return 16
}

// presenterRows is how tall a presenter's gauges are on a screen of at
// least presenterHeight lines; on a smaller one they keep to a line.
const (
	presenterRows   = 3
	presenterHeight = 36
)

// tall stacks a one-line gauge into rows, as many as the screen has room for.
func (p Lanes) tall(bar string) string {
	rows := 1
	if p.C.Height >= presenterHeight {
		rows = presenterRows
	}
	return strings.TrimSuffix(strings.Repeat(bar+"\n", rows), "\n")
}

func (p Lanes) fixedFields(d algo.Decision) []field {
	st := p.C.Styles
	bar := p.bar(d.Count, d.Limit, true)
	count := human.Int(d.Count) + "/" + human.Int(d.Limit)
	if d.Count >= d.Limit {
		count = st.Full.Render(count + " full")
	} else {
		count = st.Value.Render(count)
	}
	window := st.Label.Render("window ") + algo.Range(d.WindowStart, d.WindowEnd()) +
		st.Label.Render(" resets in"+NoBreak) + human.Duration(d.WindowEnd().Sub(d.At))
	if p.Presenter {
		return []field{
			{"now", count + p.C.Styles.Faint.Render(" · ") + window + "\n" + p.tall(bar), 0},
			{"", p.ifNow(d), 3},
		}
	}
	return []field{
		{"now", bar + " " + count + p.sep() + window, 0},
		{"", p.ifNow(d), 3},
	}
}

// stripEnds are the labels either side of the log's strip for d.
func stripEnds(d algo.Decision) (left, right string) {
	return "(" + d.At.Add(-d.Window).Short() + " ", " " + d.At.Short() + "]"
}

// stripCells is how many cells wide the log's strip for d is drawn (the
// segmented window's: segmentStrip).
func (p Lanes) StripCells(d algo.Decision) int {
	if d.Kind == algo.KindSegmentedWindow {
		return p.segmentCells(d)
	}
	left, right := stripEnds(d)
	return max(p.laneTextWidth()-p.C.Cells.StringWidth(left)-p.C.Cells.StringWidth(right)-2, 4)
}

func (p Lanes) logFields(d algo.Decision, window []int64) []field {
	st := p.C.Styles
	left, right := stripEnds(d)
	cellsText := logStrip(st, window, p.StripCells(d))
	strip := left + "▕" + cellsText + "▏" + right
	if p.Presenter && p.C.Height >= presenterHeight {
		pad := strings.Repeat(" ", p.C.Cells.StringWidth(left))
		strip = pad + "▕" + cellsText + "▏\n" + strip
	}
	var held string
	if d.Count == 0 {
		held = fmt.Sprintf("no timestamps in the last %s", human.Duration(d.Window))
	} else {
		held = p.bar(d.Count, d.Limit, true) + " " + st.Value.Render(human.Int(d.Count)+"/"+human.Int(d.Limit)) + " in the last " + human.Duration(d.Window) +
			st.Faint.Render(" · ") + st.Label.Render("oldest ") + d.Oldest.Short() +
			st.Label.Render(" leaves in"+NoBreak) + human.Duration(d.Leaves().Sub(d.At))
	}
	return []field{
		{"now", strip, 0},
		{"", held, 1},
		{"", p.ifNow(d), 3},
	}
}

func (p Lanes) counterFields(d algo.Decision) []field {
	st := p.C.Styles
	prevStart := d.WindowStart.Add(-d.Window)
	counts := st.Label.Render("previous"+NoBreak) + glue(algo.Range(prevStart, d.WindowStart)+" = ") + st.Value.Render(human.Int(d.Previous)) +
		p.sep() + st.Label.Render("current"+NoBreak) + glue(algo.Range(d.WindowStart, d.WindowEnd())+" = ") + st.Value.Render(human.Int(d.Current()))
	wn, w := d.WeightRat()
	weight := st.Label.Render("overlap ") + p.bar(wn, w, false) + " " + st.Value.Render(human.Decimal(wn, w)) +
		st.Faint.Render(" "+glue("= 1 − "+human.Duration(d.Elapsed)+"/"+human.Duration(d.Window)))
	if p.Presenter {
		weight = st.Label.Render("overlap ") + st.Value.Render(human.Decimal(wn, w)) +
			st.Faint.Render(" "+glue("= 1 − "+human.Duration(d.Elapsed)+"/"+human.Duration(d.Window))) + "\n" +
			p.tall(p.bar(wn, w, false))
	}
	return []field{
		{"now", counts, 0},
		{"", weight, 0},
		{"", p.ifNow(d), 3},
	}
}

// bucketFields show the token bucket's level now against its capacity and
// how long until the next whole token.
func (p Lanes) bucketFields(d algo.Decision) []field {
	st := p.C.Styles
	tn, w := d.TokensRat()
	capacity := d.Capacity * w
	bar := p.bar(tn, capacity, false)
	level := st.Value.Render(human.Decimal(tn, w)) + st.Label.Render(" of "+algoTokens.Of(d.Capacity))
	refill := st.Label.Render("refills ") + human.Int(d.Limit) + " per " + human.Duration(d.Window)
	if tn < capacity {
		refill += st.Faint.Render(" · ") + st.Label.Render("next token in"+NoBreak) + human.Duration(d.NextToken())
	} else {
		refill += st.Faint.Render(" · full")
	}
	if p.Presenter {
		return []field{
			{"now", level + p.sep() + refill + "\n" + p.tall(bar), 0},
			{"", p.ifNow(d), 3},
		}
	}
	return []field{
		{"now", bar + " " + level + p.sep() + refill, 0},
		{"", p.ifNow(d), 3},
	}
}

// most is the lesson's figure: the most requests admitted to one client in
// any interval one window long, with the warning when it beats the limit.
func (p Lanes) most(i int) string {
	st, s := p.C.Styles, p.Snap.Stats[i]
	w := human.Duration(p.Snap.Config.Window)
	switch {
	case s.MaxInWindow == 0:
		return st.Faint.Render("nothing admitted yet")
	case s.MaxInWindow <= p.Snap.Config.Limit:
		return fmt.Sprintf("at most %s to one client in any %s", human.Int(s.MaxInWindow), w) + st.Faint.Render(" — within the limit")
	}
	span := human.Span(int64(s.MaxInWindowFirst), int64(s.MaxInWindowLast))
	times := glue("— " + human.Times(s.MaxInWindow, p.Snap.Config.Limit))
	text := fmt.Sprintf("⚠ %s admitted to %s %s (%s) %s", human.Int(s.MaxInWindow), human.Visible(s.MaxInWindowClient),
		span, algo.Range(s.MaxInWindowFirst, s.MaxInWindowLast), times)
	// Stacked, one line, whole: fewer words, then without the interval
	// (in a box it wraps instead).
	_, boxed := p.columnWidth()
	if !boxed && p.C.Cells.StringWidth(text) > p.laneTextWidth() {
		text = fmt.Sprintf("⚠ %s to %s %s (%s) %s", human.Int(s.MaxInWindow), human.Visible(s.MaxInWindowClient),
			span, algo.Range(s.MaxInWindowFirst, s.MaxInWindowLast), times)
	}
	if !boxed && p.C.Cells.StringWidth(text) > p.laneTextWidth() {
		text = fmt.Sprintf("⚠ %s admitted to %s %s %s", human.Int(s.MaxInWindow), human.Visible(s.MaxInWindowClient), span, times)
	}
	return st.Warn.Render(text)
}

// bar is the lane's gauge of n out of total: while playing, drawn at the
// level its spring has reached (snapshot.shown), so it moves smoothly;
// the numbers beside it are always exact.
func (p Lanes) bar(n, total int64, isCount bool) string {
	w := p.gaugeWidth()
	if s := p.Snap.Shown; p.lane < len(s) && total > 0 {
		filled := int(math.Round(min(max(s[p.lane], 0), 1) * float64(w)))
		if n > 0 && filled == 0 {
			filled = 1
		}
		return bars(p.C.Styles, filled, w, isCount && n >= total)
	}
	return gauge(p.C.Styles, n, total, w, isCount)
}

// gaugeLevel is the share of its gauge a lane's state fills: the count
// against the limit, the counter's overlap weight, the bucket's level.
func GaugeLevel(d algo.Decision) float64 {
	switch d.Kind {
	case algo.KindSlidingCounter:
		wn, w := d.WeightRat()
		return float64(wn) / float64(max(w, 1))
	case algo.KindTokenBucket:
		tn, w := d.TokensRat()
		return float64(tn) / float64(max(d.Capacity*w, 1))
	}
	return float64(d.Count) / float64(max(d.Limit, 1))
}

// gauge draws n out of total as a bar of width cells. A count that reaches
// its limit turns red; a share such as the overlap weight never does.
func gauge(st *Styles, n, total int64, width int, isCount bool) string {
	if total <= 0 || width <= 0 {
		return ""
	}
	// In 128 bits: a bucket's level is tokens × window ms, up to 6·10¹⁷,
	// which times a width overflows 64.
	hi, lo := bits.Mul64(uint64(max(min(n, total), 0)), uint64(width))
	q, _ := bits.Div64(hi, lo, uint64(total))
	filled := int(q)
	if n > 0 && filled == 0 {
		filled = 1
	}
	return bars(st, filled, width, isCount && n >= total)
}

// bars is a gauge of filled cells out of width, red when full.
func bars(st *Styles, filled, width int, full bool) string {
	filled = min(max(filled, 0), width)
	on := st.GaugeOn
	if full {
		on = st.Full
	}
	return on.Render(strings.Repeat("█", filled)) + st.GaugeOff.Render(strings.Repeat("░", width-filled))
}

// densityGlyphs draw how many timestamps fall in a strip cell, relative to
// the fullest cell.
var densityGlyphs = []rune("▁▂▃▄▅▆▇█")

// logStrip draws a window's timestamps as cells, each showing how many of
// them fall in it (counts, from the snapshot; nil before any client).
func logStrip(st *Styles, counts []int64, cells int) string {
	return logStripOf(st, counts, cells, algo.KindSlidingLog)
}

// logStripOf is logStrip in kind's colour.
func logStripOf(st *Styles, counts []int64, cells int, kind algo.Kind) string {
	if counts == nil {
		counts = make([]int64, cells)
	}
	most := int64(0)
	for _, n := range counts {
		most = max(most, n)
	}
	var b strings.Builder
	for _, n := range counts {
		if n == 0 {
			b.WriteString("·")
			continue
		}
		b.WriteRune(densityGlyphs[min(int64(len(densityGlyphs)-1), (n*int64(len(densityGlyphs))-1)/most)])
	}
	return st.kindPlain(int(kind)).Render(b.String())
}

// laneTextWidth is the width a lane's field text wraps at.
func (p Lanes) laneTextWidth() int {
	if w, ok := p.columnWidth(); ok {
		return w - 4
	}
	return p.C.Width - laneLabelWidth
}

// columnWidth is each lane's width when they stand side by side.
func (p Lanes) columnWidth() (int, bool) {
	n := len(p.Snap.Peek)
	if !p.C.wide() || n == 0 || p.stacked {
		return 0, false
	}
	w := p.C.Width / n
	return w, w >= 38
}

// renderLane wraps a lane's title and fields to width.
func (p Lanes) renderLane(l Lane, width int) []Unit {
	st := p.C.Styles
	title := st.kind(int(l.kind)).Render(l.title)
	var units []Unit
	if p.C.Cells.StringWidth(title)+2+p.C.Cells.StringWidth(l.right) <= width {
		units = append(units, Unit{[]string{p.C.Spread(title, l.right, width, false)}, 0})
	} else {
		units = append(units, Unit{[]string{title}, 0})
		// The totals and memory on their own lines, as whole as the title's
		// line they would have ended: the timeline gives way first.
		units = append(units, Unit{strings.Split(p.C.Wrap(l.right, width), "\n"), 0})
	}
	textW := max(width-laneLabelWidth, 10)
	if _, wide := p.columnWidth(); wide {
		// In a narrow box the labels become headings, so each explanation
		// gets the box's whole width.
		for _, f := range l.fields {
			var lines []string
			text := f.text
			switch f.label {
			case "":
			case "last", "now", "most":
				lines = append(lines, st.Label.Render(headings[f.label]))
			default:
				text = st.Label.Render(f.label+" ") + text
			}
			lines = append(lines, strings.Split(p.C.Wrap(text, width), "\n")...)
			units = append(units, Unit{lines, f.prio})
		}
		return units
	}
	for _, f := range l.fields {
		text, first := f.text, f.label
		if len(first) >= laneLabelWidth { // "replica": too wide for the column, it leads its text
			text, first = st.Label.Render(first+" ")+text, ""
		}
		wrapped := strings.Split(p.C.Wrap(text, textW), "\n")
		lines := make([]string, len(wrapped))
		for i, w := range wrapped {
			label := ""
			if i == 0 {
				label = first
			}
			lines[i] = st.Label.Render(fmt.Sprintf("%-*s", laneLabelWidth, label)) + w
		}
		units = append(units, Unit{lines, f.prio})
	}
	return units
}

// fitUnits drops the least important units of several lanes until their
// lines fit in budget (a fixed cost per lane included), then cuts.
func fitUnits(lanes [][]Unit, budget, perLane int) [][]string {
	height := func() int {
		h := 0
		for _, us := range lanes {
			h += perLane
			for _, u := range us {
				h += len(u.lines)
			}
		}
		return h
	}
	for height() > budget {
		li, ui, worst := -1, -1, 0
		for i := len(lanes) - 1; i >= 0; i-- {
			for j := len(lanes[i]) - 1; j >= 0; j-- {
				if p := lanes[i][j].prio; p > worst {
					li, ui, worst = i, j, p
				}
			}
		}
		if li < 0 {
			break
		}
		lanes[li] = append(lanes[li][:ui:ui], lanes[li][ui+1:]...)
	}
	out := make([][]string, len(lanes))
	for i, us := range lanes {
		for _, u := range us {
			out[i] = append(out[i], u.lines...)
		}
	}
	if h := height(); h > budget && len(lanes) > 0 {
		each := max(budget/len(lanes)-perLane, 1)
		for i := range out {
			if len(out[i]) > each {
				out[i] = out[i][:each]
			}
		}
	}
	return out
}

// minHeight is the fewest lines the lanes need: each lane's title, its
// verdict on the focused request and the warning when it has one, whole.
func (p Lanes) MinHeight() int { return p.MinHeightOf(p.LayOut(p.List())) }

// layOut renders each lane at the width it gets (its box's inside, or the
// whole width stacked): a frame's minHeightOf and renderLanes share it.
func (p Lanes) LayOut(ls []Lane) [][]Unit {
	width := p.C.Width
	if colW, ok := p.columnWidth(); ok {
		width = colW - 4
	}
	out := make([][]Unit, len(ls))
	for i, l := range ls {
		out[i] = p.renderLane(l, width)
	}
	return out
}

// minHeightOf is minHeight for lanes already laid out.
func (p Lanes) MinHeightOf(units [][]Unit) int {
	essential := func(us []Unit) int {
		h := 0
		for _, u := range us {
			if u.prio == 0 {
				h += len(u.lines)
			}
		}
		return h
	}
	if _, ok := p.columnWidth(); ok {
		tallest := 0
		for _, us := range units {
			tallest = max(tallest, essential(us))
		}
		return tallest + 2
	}
	total := 0
	for _, us := range units {
		total += essential(us)
	}
	return total
}

// lanesView lays the lanes out in h lines: side by side in boxes when wide,
// stacked otherwise.
func (p Lanes) render(h int) []string { return p.Draw(p.LayOut(p.List()), h) }

// renderLanes is render for lanes already laid out.
func (p Lanes) Draw(units [][]Unit, h int) []string {
	if h <= 0 {
		return nil
	}
	if colW, ok := p.columnWidth(); ok {
		return p.sideBySide(units, colW, h)
	}
	// A blank line between lanes when there is room for it.
	gap := 1
	total := 0
	for _, us := range units {
		for _, u := range us {
			total += len(u.lines)
		}
	}
	if total+len(units)-1 > h {
		gap = 0
	}
	fitted := fitUnits(units, h-gap*(len(units)-1), 0)
	var out []string
	for i, lines := range fitted {
		if i > 0 && gap > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

func (p Lanes) sideBySide(units [][]Unit, colW, h int) []string {
	st := p.C.Styles
	ls := units
	tallest := 0
	fitted := make([][]string, len(ls))
	for i, us := range units {
		f := fitUnits([][]Unit{us}, h-2, 0)
		fitted[i] = f[0]
		tallest = max(tallest, len(f[0]))
	}
	// Boxes drawn by hand: lipgloss borders cost more than the rest of the frame.
	rows := make([]strings.Builder, tallest+2)
	for i, lines := range fitted {
		w := colW
		if i == len(ls)-1 {
			w = p.C.Width - colW*(len(ls)-1)
		}
		rows[0].WriteString(st.BoxLine.Render("╭" + strings.Repeat("─", w-2) + "╮"))
		side := st.BoxLine.Render("│")
		for j := range tallest {
			line := ""
			if j < len(lines) {
				line = lines[j]
			}
			pad := max(w-4-p.C.Cells.StringWidth(line), 0)
			rows[j+1].WriteString(side + " " + line + strings.Repeat(" ", pad) + " " + side)
		}
		rows[tallest+1].WriteString(st.BoxLine.Render("╰" + strings.Repeat("─", w-2) + "╯"))
	}
	out := make([]string, len(rows))
	for i := range rows {
		out[i] = rows[i].String()
	}
	return out
}

func (p Lanes) mark(allowed bool) string { return mark(p.C.Styles, allowed) }

// storelessMark is StorelessGlyph in the colour of what the policy decided.
func storelessMark(st *Styles, allowed bool) string {
	if allowed {
		return st.Allowed.Render(StorelessGlyph)
	}
	return st.Denied.Render(StorelessGlyph)
}

// mark is ✓ or ✗ in its colour: never colour alone.
func mark(st *Styles, allowed bool) string {
	if allowed {
		return st.Glyphs.MarkOK
	}
	return st.Glyphs.MarkNo
}

// serverLine is a fleet's servers side by side, each what it holds for the
// focused client against the limit, the one the next request reaches
// marked: "1: 100/100 · 2: 100/100 · ▸3: 99/100".
func (p Lanes) serverLine(i int) string {
	s, st := p.Snap, p.C.Styles
	parts := make([]string, len(s.Servers[i]))
	for j, d := range s.Servers[i] {
		var held string
		switch d.Kind {
		case algo.KindSlidingCounter:
			held = "≈" + strconv.FormatFloat(d.Estimate(), 'f', 1, 64)
		case algo.KindTokenBucket:
			n, den := d.TokensRat()
			held = human.Int(n/den) + " tokens"
		default:
			held = human.Int(d.Count)
		}
		if i < len(s.Shared) && s.Shared[i].Synced {
			if own := syncedServer(d, s.Shared[i].Shared); own != "" {
				held = own
			}
		}
		text := glue(fmt.Sprintf("%d: %s/%s", j+1, held, human.Int(d.Limit)))
		if d.Kind == algo.KindTokenBucket {
			text = glue(fmt.Sprintf("%d: %s", j+1, held))
		}
		if j == s.NextServer[i] {
			text = st.Value.Render("▸" + text)
		}
		parts[j] = text
	}
	return strings.Join(parts, st.Faint.Render(" · "))
}

// laneLines renders lane i alone, at the width the panel gives it.
func (p Lanes) LaneLines(i int) []string {
	width := p.C.Width
	if colW, ok := p.columnWidth(); ok {
		width = colW - 4
	}
	var lines []string
	for _, u := range p.renderLane(p.List()[i], width) {
		lines = append(lines, u.lines...)
	}
	return lines
}
