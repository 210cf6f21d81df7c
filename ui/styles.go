package ui

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/textinput"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// styles holds every style the view uses, built for one background. Colours
// only ever repeat what a glyph or a word already says, so the view reads
// the same with NO_COLOR (the program downsamples to the terminal's profile).
type styles struct {
	isDark bool

	appName  ink
	title    ink
	clock    ink
	playing  ink
	paused   ink
	faint    ink
	label    ink
	value    ink
	caption  ink
	allowed  ink
	denied   ink
	mixed    ink
	warn     ink
	err      ink
	cursor   lipgloss.Style
	edge     ink
	gaugeOn  ink
	gaugeOff ink
	full     ink
	selected ink
	kinds    []ink // lane titles, by algo.Kind
	plain    []ink // the same colours without bold, for lists
	border   color.Color
	boxLine  ink
	// Shading of a timeline row under a limiter's window: its current
	// window, the part of the previous one a counter still counts, the
	// rest of that previous window.
	winCur, winOverlap, winPrev lipgloss.Style

	help  help.Styles
	input textinput.Styles // every text prompt's

	// Pre-rendered glyphs for the timeline and lists: drawn hundreds of
	// times a frame, rendered once here.
	g     glyphs
	cells [marks][tints][2]string // timeline cells by mark, tint and cursor
}

// cellMark is what a timeline cell shows.
type cellMark uint8

const (
	markNone cellMark = iota
	markOK
	markNo
	markBoth
	markEdge
	marks
)

// tint is the shading under a timeline cell.
type tint uint8

const (
	tintNone tint = iota
	tintCurrent
	tintOverlap
	tintPrevious
	tints
)

// cellGlyph is a timeline cell: its mark over its shading, reversed under
// the cursor.
func (s *styles) cellGlyph(m cellMark, t tint, cursor bool) string {
	c := 0
	if cursor {
		c = 1
	}
	return s.cells[m][t][c]
}

// renderCells renders every timeline cell once.
func (s *styles) renderCells() {
	fg := map[cellMark]lipgloss.Style{markNone: lipgloss.NewStyle(), markOK: s.allowed.Style, markNo: s.denied.Style, markBoth: s.mixed.Style, markEdge: s.edge.Style}
	text := map[cellMark]string{markNone: " ", markOK: "✓", markNo: "✗", markBoth: "±", markEdge: "│"}
	bg := map[tint]lipgloss.Style{tintNone: lipgloss.NewStyle(), tintCurrent: s.winCur, tintOverlap: s.winOverlap, tintPrevious: s.winPrev}
	for m := range marks {
		for t := range tints {
			st := fg[m]
			if t != tintNone {
				st = st.Background(bg[t].GetBackground())
			}
			s.cells[m][t][0] = st.Render(text[m])
			s.cells[m][t][1] = st.Inherit(s.cursor).Reverse(true).Render(text[m])
		}
	}
}

// glyphs are styled strings, ready to concatenate.
type glyphs struct {
	ok, no, both, edge                  string // a timeline cell
	okCur, noCur, bothCur, edgeCur, cur string // the same under the cursor
	markOK, markNo                      string // ✓ and ✗ in text
	tick, edgeTick, cursorTick          string
}

// newStyles builds the styles for a background; presenter trades subtlety
// for contrast, for a projector and the back of a room: no faint text,
// everything that labels or explains in bold.
func newStyles(isDark, presenter bool) *styles {
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) lipgloss.Style {
		return lipgloss.NewStyle().Foreground(ld(lipgloss.Color(light), lipgloss.Color(dark)))
	}
	s := &styles{isDark: isDark}
	var r rawStyles
	r.appName = c("#6E7781", "#8B949E")
	r.title = lipgloss.NewStyle().Bold(true)
	r.clock = c("#0550AE", "#79C0FF").Bold(true)
	r.playing = c("#1A7F37", "#3FB950").Bold(true)
	r.paused = c("#9A6700", "#D29922").Bold(true)
	r.faint = c("#6E7781", "#8B949E")
	r.label = c("#57606A", "#8B949E")
	r.value = lipgloss.NewStyle().Bold(true)
	r.caption = c("#1F2328", "#E6EDF3").Italic(true)
	r.allowed = c("#1A7F37", "#3FB950")
	r.denied = c("#CF222E", "#F85149").Bold(true)
	r.mixed = c("#9A6700", "#D29922").Bold(true)
	r.warn = c("#9A6700", "#D29922").Bold(true)
	r.err = c("#CF222E", "#F85149")
	s.cursor = lipgloss.NewStyle().Reverse(true)
	r.edge = c("#8C959F", "#6E7681")
	r.gaugeOn = c("#0969DA", "#58A6FF")
	r.gaugeOff = c("#D0D7DE", "#30363D")
	r.full = c("#CF222E", "#F85149")
	r.selected = c("#0550AE", "#79C0FF").Bold(true)
	r.kinds = []lipgloss.Style{
		c("#0550AE", "#79C0FF").Bold(true), // fixed window
		c("#8250DF", "#D2A8FF").Bold(true), // sliding log
		c("#BC4C00", "#FFA657").Bold(true), // sliding counter
		c("#116329", "#56D364").Bold(true), // token bucket
	}
	if presenter {
		strong := c("#1F2328", "#F0F6FC")
		r.appName = strong.Bold(true)
		r.faint = strong.Bold(true)
		r.label = strong.Bold(true)
		r.caption = strong.Bold(true)
		r.allowed = r.allowed.Bold(true)
		r.edge = c("#57606A", "#C9D1D9").Bold(true)
		r.gaugeOff = c("#AFB8C1", "#6E7681")
	}
	s.help = help.DefaultStyles(isDark)
	if presenter {
		s.help.ShortKey = s.help.ShortKey.Bold(true).Foreground(r.label.GetForeground())
		s.help.ShortDesc = r.label.UnsetBold()
		s.help.ShortSeparator = r.label
		s.help.FullKey = s.help.ShortKey
		s.help.FullDesc = s.help.ShortDesc
		s.help.FullSeparator = r.label
	}
	cur := func(st lipgloss.Style) lipgloss.Style { return st.Inherit(s.cursor).Reverse(true) }
	s.g = glyphs{
		ok: r.allowed.Render("✓"), no: r.denied.Render("✗"), both: r.mixed.Render("±"), edge: r.edge.Render("│"),
		okCur: cur(r.allowed).Render("✓"), noCur: cur(r.denied).Render("✗"), bothCur: cur(r.mixed).Render("±"),
		edgeCur: cur(r.edge).Render("│"), cur: s.cursor.Render(" "),
		markOK: r.allowed.Render("✓"), markNo: r.denied.Render("✗"),
		tick: r.faint.Render("┴"), edgeTick: r.edge.Render("┃"), cursorTick: r.title.Render("▼"),
	}
	bgc := func(light, dark string) lipgloss.Style {
		return lipgloss.NewStyle().Background(ld(lipgloss.Color(light), lipgloss.Color(dark)))
	}
	s.winCur = bgc("#DDF4FF", "#12263F")
	s.winOverlap = bgc("#FFE8CC", "#3D2A0F")
	s.winPrev = bgc("#F6F8FA", "#1C2128")
	if presenter {
		s.winCur = bgc("#B6E3FF", "#1F3F66")
		s.winOverlap = bgc("#FFCF99", "#5C3B0A")
	}
	s.border = ld(lipgloss.Color("#D0D7DE"), lipgloss.Color("#30363D"))
	r.boxLine = lipgloss.NewStyle().Foreground(s.border)
	s.setInks(r)
	s.renderCells()
	s.input = s.inputStyles()
	return s
}

func (s *styles) kind(i int) ink {
	if i >= 0 && i < len(s.kinds) {
		return s.kinds[i]
	}
	return s.title
}

// kindPlain is kind(i) without its bold: a limiter's colour in a list.
func (s *styles) kindPlain(i int) ink {
	if i >= 0 && i < len(s.plain) {
		return s.plain[i]
	}
	return s.title
}

// inputStyles are the styles of every text prompt: a still cursor, so no
// blink timer runs behind a paused clock or a question, and a bold prompt.
func (s *styles) inputStyles() textinput.Styles {
	in := textinput.DefaultStyles(s.isDark)
	in.Cursor.Blink = false
	in.Focused.Prompt = s.title.Style
	return in
}

// rawStyles are the styles newStyles builds, before they become inks.
type rawStyles struct {
	appName, title, clock, playing, paused, faint, label, value, caption lipgloss.Style
	allowed, denied, mixed, warn, err, edge, gaugeOn, gaugeOff, full     lipgloss.Style
	selected, boxLine                                                    lipgloss.Style
	kinds                                                                []lipgloss.Style
}

// setInks makes r's styles the view's.
func (s *styles) setInks(r rawStyles) {
	for _, f := range []struct {
		dst *ink
		src lipgloss.Style
	}{
		{&s.appName, r.appName}, {&s.title, r.title}, {&s.clock, r.clock}, {&s.playing, r.playing},
		{&s.paused, r.paused}, {&s.faint, r.faint}, {&s.label, r.label}, {&s.value, r.value},
		{&s.caption, r.caption}, {&s.allowed, r.allowed}, {&s.denied, r.denied}, {&s.mixed, r.mixed},
		{&s.warn, r.warn}, {&s.err, r.err}, {&s.edge, r.edge}, {&s.gaugeOn, r.gaugeOn},
		{&s.gaugeOff, r.gaugeOff}, {&s.full, r.full}, {&s.selected, r.selected}, {&s.boxLine, r.boxLine},
	} {
		*f.dst = newInk(f.src)
	}
	s.kinds, s.plain = nil, nil
	for _, k := range r.kinds {
		s.kinds = append(s.kinds, newInk(k))
		s.plain = append(s.plain, newInk(k.UnsetBold()))
	}
}

// ink is a style of colours and attributes alone, its escape codes worked
// out once: Render puts them around one line of text, byte for byte what
// lipgloss writes, without deriving them again for each of the hundreds
// of words a frame styles. Anything else (several lines, tabs, a style
// with padding or width) goes through lipgloss.
type ink struct {
	lipgloss.Style
	pre, post string
	fast      bool
}

// inkProbes are texts a style must render as pre + text + post for ink to
// take its fast path.
var inkProbes = []string{"a", "12:00:59", " spaced words ", "✓ allow (99 < 100)", "é", "  "}

func newInk(st lipgloss.Style) ink {
	k := ink{Style: st}
	r := st.Render("\x00")
	i := strings.IndexByte(r, 0)
	if i < 0 {
		return k
	}
	k.pre, k.post = r[:i], r[i+1:]
	for _, p := range inkProbes {
		if st.Render(p) != k.pre+p+k.post {
			return k
		}
	}
	k.fast = true
	return k
}

// Render is lipgloss's Render, fast for one line of text.
func (k ink) Render(strs ...string) string {
	if k.fast && len(strs) == 1 {
		if t := strs[0]; t != "" && !strings.ContainsAny(t, "\n\r\t") {
			return k.pre + t + k.post
		}
	}
	return k.Style.Render(strs...)
}
