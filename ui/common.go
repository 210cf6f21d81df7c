package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// common is what every child view needs from the root: the terminal size
// and the styles for its background.
type common struct {
	width, height int
	styles        *styles
	// cells is how the renderer counts a string's cells: code point by code
	// point (wcwidth) until the terminal says it lays out grapheme clusters
	// (mode 2027). Every width the view measures, pads or cuts goes
	// through it, so a 👨‍👩‍👧‍👦 in a title never pushes the clock off the line.
	cells ansi.Method
}

// Smallest terminal the view lays out in.
const (
	minWidth  = 80
	minHeight = 24
	// wideWidth is where the lanes go side by side.
	wideWidth = 120
)

func (c common) tooSmall() bool { return c.width < minWidth || c.height < minHeight }

func (c common) wide() bool { return c.width >= wideWidth }

// spread puts left and right on one line of width w, right-aligned. When
// both do not fit, right is dropped, or with keepRight left is cut instead:
// the first line's right side holds the clock, which must always show.
func (c common) spread(left, right string, w int, keepRight bool) string {
	lw, rw := c.cells.StringWidth(left), c.cells.StringWidth(right)
	if lw+2+rw <= w {
		return left + strings.Repeat(" ", w-lw-rw) + right
	}
	if !keepRight || rw+2 > w {
		return c.cells.Truncate(left, w, "…")
	}
	left = c.cells.Truncate(left, w-rw-2, "…")
	return left + strings.Repeat(" ", max(w-c.cells.StringWidth(left)-rw, 0)) + right
}

// spreadCols is spread, but drops the left side's tail rather than the right.
func (c common) spreadCols(left, right string, w int) string {
	rw := c.cells.StringWidth(right)
	if c.cells.StringWidth(left)+2+rw > w {
		left = c.cells.Truncate(left, max(w-rw-2, 0), "…")
	}
	return c.spread(left, right, w, false)
}

// fit pads s with spaces to exactly w cells, cutting it with an ellipsis
// when it is longer: a column of names, whatever their length.
func (c common) fit(s string, w int) string {
	if c.cells.StringWidth(s) > w {
		s = c.cells.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", max(w-c.cells.StringWidth(s), 0))
}
