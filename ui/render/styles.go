package render

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
type Styles struct {
	IsDark bool

	AppName  Ink
	Title    Ink
	Clock    Ink
	Playing  Ink
	Paused   Ink
	Faint    Ink
	Label    Ink
	Value    Ink
	Caption  Ink
	Allowed  Ink
	Denied   Ink
	Mixed    Ink
	Warn     Ink
	Err      Ink
	Cursor   lipgloss.Style
	Edge     Ink
	GaugeOn  Ink
	GaugeOff Ink
	Full     Ink
	Selected Ink
	Kinds    []Ink // lane titles, by algo.Kind
	Plain    []Ink // the same colours without bold, for lists
	Border   color.Color
	BoxLine  Ink
	// Shading of a timeline row under a limiter's window: its current
	// window, the part of the previous one a counter still counts, the
	// rest of that previous window.
	WinCur, WinOverlap, WinPrev lipgloss.Style

	Help  help.Styles
	Input textinput.Styles // every text prompt's

	// Pre-rendered glyphs for the timeline and lists: drawn hundreds of
	// times a frame, rendered once here.
	Glyphs Glyphs
	Cells  [marks][tints][2]string // timeline cells by mark, tint and cursor
}

// cellMark is what a timeline cell shows.
type cellMark uint8

const (
	markNone cellMark = iota
	markOK
	markNo
	markBoth
	markEdge
	markDelayed // every request allowed, some of them delayed (nginx limit_req)
	// Some requests decided without the store (its policy's): all allowed,
	// all refused, or both.
	markStorelessOK
	markStorelessNo
	markStorelessBoth
	marks
)

// tint is the shading under a timeline cell.
type Tint uint8

const (
	TintNone Tint = iota
	TintCurrent
	TintOverlap
	TintPrevious
	tints
)

// cellGlyph is a timeline cell: its mark over its shading, reversed under
// the cursor.
func (s *Styles) cellGlyph(m cellMark, t Tint, cursor bool) string {
	c := 0
	if cursor {
		c = 1
	}
	return s.Cells[m][t][c]
}

// renderCells renders every timeline cell once.
func (s *Styles) renderCells() {
	fg := map[cellMark]lipgloss.Style{markNone: lipgloss.NewStyle(), markOK: s.Allowed.Style, markNo: s.Denied.Style, markBoth: s.Mixed.Style, markEdge: s.Edge.Style, markDelayed: s.Allowed.Style,
		markStorelessOK: s.Allowed.Style, markStorelessNo: s.Denied.Style, markStorelessBoth: s.Mixed.Style}
	text := map[cellMark]string{markNone: " ", markOK: "✓", markNo: "✗", markBoth: "±", markEdge: "│", markDelayed: DelayedGlyph,
		markStorelessOK: StorelessGlyph, markStorelessNo: StorelessGlyph, markStorelessBoth: StorelessGlyph}
	bg := map[Tint]lipgloss.Style{TintNone: lipgloss.NewStyle(), TintCurrent: s.WinCur, TintOverlap: s.WinOverlap, TintPrevious: s.WinPrev}
	for m := range marks {
		for t := range tints {
			st := fg[m]
			if t != TintNone {
				st = st.Background(bg[t].GetBackground())
			}
			glyph := text[m]
			if m == markNone {
				glyph = WindowGlyph(t) // the window in a glyph too: read without colour
			}
			s.Cells[m][t][0] = st.Render(glyph)
			s.Cells[m][t][1] = st.Inherit(s.Cursor).Reverse(true).Render(glyph)
		}
	}
}

// DelayedGlyph marks requests allowed but delayed (nginx limit_req without
// nodelay): in a timeline cell, in the legend and on a lane's verdict.
const DelayedGlyph = "◔"

// StorelessGlyph marks requests decided without the store, by its policy
// (--on-store-error allow or deny, while a Redis or a cluster's primary
// did not answer): in a timeline cell, coloured as they were decided, in
// the legend, on a lane's verdict and in the recent requests.
const StorelessGlyph = "◌"

// storeless is the mark of a cell whose decisions m shows when some of
// them were made without the store.
func storeless(m cellMark) cellMark {
	switch m {
	case markNo:
		return markStorelessNo
	case markBoth:
		return markStorelessBoth
	}
	return markStorelessOK
}

// WindowGlyph is what an empty timeline cell shows under a limiter's
// window, so that the window reads without colour (NO_COLOR, or a reader
// who cannot tell the shades apart): ▔ over the current window, ▁ under
// the part of the previous window a sliding counter still counts, nothing
// under the rest of it.
func WindowGlyph(t Tint) string {
	switch t {
	case TintCurrent:
		return "▔"
	case TintOverlap:
		return "▁"
	}
	return " "
}

// glyphs are styled strings, ready to concatenate.
type Glyphs struct {
	OK, No, Both, Edge                  string // a timeline cell
	OKCur, NoCur, BothCur, EdgeCur, Cur string // the same under the cursor
	MarkOK, MarkNo                      string // ✓ and ✗ in text
	Tick, EdgeTick, CursorTick          string
}

// newStyles builds the styles for a background; presenter trades subtlety
// for contrast, for a projector and the back of a room: no faint text,
// everything that labels or explains in bold.
func NewStyles(isDark, presenter bool) *Styles {
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) lipgloss.Style {
		return lipgloss.NewStyle().Foreground(ld(lipgloss.Color(light), lipgloss.Color(dark)))
	}
	s := &Styles{IsDark: isDark}
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
	s.Cursor = lipgloss.NewStyle().Reverse(true)
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
		c("#1B7C83", "#39C5CF").Bold(true), // segmented window
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
	s.Help = help.DefaultStyles(isDark)
	if presenter {
		s.Help.ShortKey = s.Help.ShortKey.Bold(true).Foreground(r.label.GetForeground())
		s.Help.ShortDesc = r.label.UnsetBold()
		s.Help.ShortSeparator = r.label
		s.Help.FullKey = s.Help.ShortKey
		s.Help.FullDesc = s.Help.ShortDesc
		s.Help.FullSeparator = r.label
	}
	cur := func(st lipgloss.Style) lipgloss.Style { return st.Inherit(s.Cursor).Reverse(true) }
	s.Glyphs = Glyphs{
		OK: r.allowed.Render("✓"), No: r.denied.Render("✗"), Both: r.mixed.Render("±"), Edge: r.edge.Render("│"),
		OKCur: cur(r.allowed).Render("✓"), NoCur: cur(r.denied).Render("✗"), BothCur: cur(r.mixed).Render("±"),
		EdgeCur: cur(r.edge).Render("│"), Cur: s.Cursor.Render(" "),
		MarkOK: r.allowed.Render("✓"), MarkNo: r.denied.Render("✗"),
		Tick: r.faint.Render("┴"), EdgeTick: r.edge.Render("┃"), CursorTick: r.title.Render("▼"),
	}
	bgc := func(light, dark string) lipgloss.Style {
		return lipgloss.NewStyle().Background(ld(lipgloss.Color(light), lipgloss.Color(dark)))
	}
	s.WinCur = bgc("#DDF4FF", "#12263F")
	s.WinOverlap = bgc("#FFE8CC", "#3D2A0F")
	s.WinPrev = bgc("#F6F8FA", "#1C2128")
	if presenter {
		s.WinCur = bgc("#B6E3FF", "#1F3F66")
		s.WinOverlap = bgc("#FFCF99", "#5C3B0A")
	}
	s.Border = ld(lipgloss.Color("#D0D7DE"), lipgloss.Color("#30363D"))
	r.boxLine = lipgloss.NewStyle().Foreground(s.Border)
	s.setInks(r)
	s.renderCells()
	s.Input = s.inputStyles()
	return s
}

func (s *Styles) kind(i int) Ink {
	if i >= 0 && i < len(s.Kinds) {
		return s.Kinds[i]
	}
	return s.Title
}

// kindPlain is kind(i) without its bold: a limiter's colour in a list.
func (s *Styles) kindPlain(i int) Ink {
	if i >= 0 && i < len(s.Plain) {
		return s.Plain[i]
	}
	return s.Title
}

// inputStyles are the styles of every text prompt: a still cursor, so no
// blink timer runs behind a paused clock or a question, and a bold prompt.
func (s *Styles) inputStyles() textinput.Styles {
	in := textinput.DefaultStyles(s.IsDark)
	in.Cursor.Blink = false
	in.Focused.Prompt = s.Title.Style
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
func (s *Styles) setInks(r rawStyles) {
	for _, f := range []struct {
		dst *Ink
		src lipgloss.Style
	}{
		{&s.AppName, r.appName}, {&s.Title, r.title}, {&s.Clock, r.clock}, {&s.Playing, r.playing},
		{&s.Paused, r.paused}, {&s.Faint, r.faint}, {&s.Label, r.label}, {&s.Value, r.value},
		{&s.Caption, r.caption}, {&s.Allowed, r.allowed}, {&s.Denied, r.denied}, {&s.Mixed, r.mixed},
		{&s.Warn, r.warn}, {&s.Err, r.err}, {&s.Edge, r.edge}, {&s.GaugeOn, r.gaugeOn},
		{&s.GaugeOff, r.gaugeOff}, {&s.Full, r.full}, {&s.Selected, r.selected}, {&s.BoxLine, r.boxLine},
	} {
		*f.dst = newInk(f.src)
	}
	s.Kinds, s.Plain = nil, nil
	for _, k := range r.kinds {
		s.Kinds = append(s.Kinds, newInk(k))
		s.Plain = append(s.Plain, newInk(k.UnsetBold()))
	}
}

// ink is a style of colours and attributes alone, its escape codes worked
// out once: Render puts them around one line of text, byte for byte what
// lipgloss writes, without deriving them again for each of the hundreds
// of words a frame styles. Anything else (several lines, tabs, a style
// with padding or width) goes through lipgloss.
type Ink struct {
	lipgloss.Style
	pre, post string
	fast      bool
}

// inkProbes are texts a style must render as pre + text + post for ink to
// take its fast path.
var inkProbes = []string{"a", "12:00:59", " spaced words ", "✓ allow (99 < 100)", "é", "  "}

func newInk(st lipgloss.Style) Ink {
	k := Ink{Style: st}
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
func (k Ink) Render(strs ...string) string {
	if k.fast && len(strs) == 1 {
		if t := strs[0]; t != "" && !strings.ContainsAny(t, "\n\r\t") {
			return k.pre + t + k.post
		}
	}
	return k.Style.Render(strs...)
}
