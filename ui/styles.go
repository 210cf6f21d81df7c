package ui

import (
	"image/color"

	"charm.land/bubbles/v2/textinput"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// styles holds every style the view uses, built for one background. Colours
// only ever repeat what a glyph or a word already says, so the view reads
// the same with NO_COLOR (the program downsamples to the terminal's profile).
type styles struct {
	isDark bool

	appName  lipgloss.Style
	title    lipgloss.Style
	clock    lipgloss.Style
	playing  lipgloss.Style
	paused   lipgloss.Style
	faint    lipgloss.Style
	label    lipgloss.Style
	value    lipgloss.Style
	caption  lipgloss.Style
	allowed  lipgloss.Style
	denied   lipgloss.Style
	mixed    lipgloss.Style
	warn     lipgloss.Style
	err      lipgloss.Style
	cursor   lipgloss.Style
	edge     lipgloss.Style
	gaugeOn  lipgloss.Style
	gaugeOff lipgloss.Style
	full     lipgloss.Style
	selected lipgloss.Style
	kinds    []lipgloss.Style // lane titles, by algo.Kind
	border   color.Color
	boxLine  lipgloss.Style
	// Shading of a timeline row under a limiter's window: its current
	// window, the part of the previous one a counter still counts, the
	// rest of that previous window.
	winCur, winOverlap, winPrev lipgloss.Style

	help  help.Styles
	input textinput.Styles // every text prompt's

	// Pre-rendered glyphs for the timeline and lists: drawn hundreds of
	// times a frame, rendered once here.
	g     glyphs
	cells map[cellKey]string // timeline cells, rendered on first use
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

type cellKey struct {
	mark   cellMark
	tint   tint
	cursor bool
}

// cellGlyph is a timeline cell: its mark over its shading, reversed under
// the cursor.
func (s *styles) cellGlyph(m cellMark, t tint, cursor bool) string {
	return s.cells[cellKey{m, t, cursor}]
}

// renderCells renders every timeline cell once.
func (s *styles) renderCells() {
	s.cells = make(map[cellKey]string, int(marks)*int(tints)*2)
	fg := map[cellMark]lipgloss.Style{markNone: lipgloss.NewStyle(), markOK: s.allowed, markNo: s.denied, markBoth: s.mixed, markEdge: s.edge}
	text := map[cellMark]string{markNone: " ", markOK: "✓", markNo: "✗", markBoth: "±", markEdge: "│"}
	bg := map[tint]lipgloss.Style{tintNone: lipgloss.NewStyle(), tintCurrent: s.winCur, tintOverlap: s.winOverlap, tintPrevious: s.winPrev}
	for m := range marks {
		for t := range tints {
			st := fg[m]
			if t != tintNone {
				st = st.Background(bg[t].GetBackground())
			}
			s.cells[cellKey{m, t, false}] = st.Render(text[m])
			s.cells[cellKey{m, t, true}] = st.Inherit(s.cursor).Reverse(true).Render(text[m])
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
	s.appName = c("#6E7781", "#8B949E")
	s.title = lipgloss.NewStyle().Bold(true)
	s.clock = c("#0550AE", "#79C0FF").Bold(true)
	s.playing = c("#1A7F37", "#3FB950").Bold(true)
	s.paused = c("#9A6700", "#D29922").Bold(true)
	s.faint = c("#6E7781", "#8B949E")
	s.label = c("#57606A", "#8B949E")
	s.value = lipgloss.NewStyle().Bold(true)
	s.caption = c("#1F2328", "#E6EDF3").Italic(true)
	s.allowed = c("#1A7F37", "#3FB950")
	s.denied = c("#CF222E", "#F85149").Bold(true)
	s.mixed = c("#9A6700", "#D29922").Bold(true)
	s.warn = c("#9A6700", "#D29922").Bold(true)
	s.err = c("#CF222E", "#F85149")
	s.cursor = lipgloss.NewStyle().Reverse(true)
	s.edge = c("#8C959F", "#6E7681")
	s.gaugeOn = c("#0969DA", "#58A6FF")
	s.gaugeOff = c("#D0D7DE", "#30363D")
	s.full = c("#CF222E", "#F85149")
	s.selected = c("#0550AE", "#79C0FF").Bold(true)
	s.kinds = []lipgloss.Style{
		c("#0550AE", "#79C0FF").Bold(true), // fixed window
		c("#8250DF", "#D2A8FF").Bold(true), // sliding log
		c("#BC4C00", "#FFA657").Bold(true), // sliding counter
		c("#116329", "#56D364").Bold(true), // token bucket
	}
	if presenter {
		strong := c("#1F2328", "#F0F6FC")
		s.appName = strong.Bold(true)
		s.faint = strong.Bold(true)
		s.label = strong.Bold(true)
		s.caption = strong.Bold(true)
		s.allowed = s.allowed.Bold(true)
		s.edge = c("#57606A", "#C9D1D9").Bold(true)
		s.gaugeOff = c("#AFB8C1", "#6E7681")
	}
	s.help = help.DefaultStyles(isDark)
	if presenter {
		s.help.ShortKey = s.help.ShortKey.Bold(true).Foreground(s.label.GetForeground())
		s.help.ShortDesc = s.label.UnsetBold()
		s.help.ShortSeparator = s.label
		s.help.FullKey = s.help.ShortKey
		s.help.FullDesc = s.help.ShortDesc
		s.help.FullSeparator = s.label
	}
	cur := func(st lipgloss.Style) lipgloss.Style { return st.Inherit(s.cursor).Reverse(true) }
	s.g = glyphs{
		ok: s.allowed.Render("✓"), no: s.denied.Render("✗"), both: s.mixed.Render("±"), edge: s.edge.Render("│"),
		okCur: cur(s.allowed).Render("✓"), noCur: cur(s.denied).Render("✗"), bothCur: cur(s.mixed).Render("±"),
		edgeCur: cur(s.edge).Render("│"), cur: s.cursor.Render(" "),
		markOK: s.allowed.Render("✓"), markNo: s.denied.Render("✗"),
		tick: s.faint.Render("┴"), edgeTick: s.edge.Render("┃"), cursorTick: s.title.Render("▼"),
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
	s.renderCells()
	s.border = ld(lipgloss.Color("#D0D7DE"), lipgloss.Color("#30363D"))
	s.boxLine = lipgloss.NewStyle().Foreground(s.border)
	s.input = s.inputStyles()
	return s
}

func (s *styles) kind(i int) lipgloss.Style {
	if i >= 0 && i < len(s.kinds) {
		return s.kinds[i]
	}
	return s.title
}

// inputStyles are the styles of every text prompt: a still cursor, so no
// blink timer runs behind a paused clock or a question, and a bold prompt.
func (s *styles) inputStyles() textinput.Styles {
	in := textinput.DefaultStyles(s.isDark)
	in.Cursor.Blink = false
	in.Focused.Prompt = s.title
	return in
}
