package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// common is what every child view needs from the root: the terminal size
// and the styles for its background.
type Common struct {
	Width, Height int
	Styles        *Styles
	// cells is how the renderer counts a string's cells: code point by code
	// point (wcwidth) until the terminal says it lays out grapheme clusters
	// (mode 2027). Every width the view measures, pads or cuts goes
	// through it, so a 👨‍👩‍👧‍👦 in a title never pushes the clock off the line.
	Cells ansi.Method
}

// Smallest terminal the view lays out in.
const (
	MinWidth  = 80
	MinHeight = 24
	// wideWidth is where the lanes go side by side.
	wideWidth = 120
)

// Wrap wraps s to lines of at most width cells, at spaces only. The
// ansi package's Wrap also breaks at every hyphen, which cut the view's
// dates in two ("current 2026-11-" / "29 23:59:00"): the hyphens are held
// as non-breaking ones while it wraps (unless s has its own, which are
// then left as they are and the hyphens may break).
func (c Common) Wrap(s string, width int) string {
	const nonBreaking = "\u2011"
	if !strings.Contains(s, "-") || strings.Contains(s, nonBreaking) {
		return c.Cells.Wrap(s, width, " ")
	}
	return strings.ReplaceAll(c.Cells.Wrap(strings.ReplaceAll(s, "-", nonBreaking), width, " "), nonBreaking, "-")
}

func (c Common) TooSmall() bool { return c.Width < MinWidth || c.Height < MinHeight }

func (c Common) wide() bool { return c.Width >= wideWidth }

// spread puts left and right on one line of width w, right-aligned. When
// both do not fit, right is dropped, or with keepRight left is cut instead:
// the first line's right side holds the clock, which must always show.
func (c Common) Spread(left, right string, w int, keepRight bool) string {
	lw, rw := c.Cells.StringWidth(left), c.Cells.StringWidth(right)
	if lw+2+rw <= w {
		return left + strings.Repeat(" ", w-lw-rw) + right
	}
	if !keepRight || rw+2 > w {
		return c.Cells.Truncate(left, w, "…")
	}
	left = c.Cells.Truncate(left, w-rw-2, "…")
	return left + strings.Repeat(" ", max(w-c.Cells.StringWidth(left)-rw, 0)) + right
}

// spreadCols is spread, but drops the left side's tail rather than the right.
func (c Common) spreadCols(left, right string, w int) string {
	rw := c.Cells.StringWidth(right)
	if c.Cells.StringWidth(left)+2+rw > w {
		left = c.Cells.Truncate(left, max(w-rw-2, 0), "…")
	}
	return c.Spread(left, right, w, false)
}

// fit pads s with spaces to exactly w cells, cutting it with an ellipsis
// when it is longer: a column of names, whatever their length.
func (c Common) Fit(s string, w int) string {
	if c.Cells.StringWidth(s) > w {
		s = c.Cells.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", max(w-c.Cells.StringWidth(s), 0))
}
