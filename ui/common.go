package ui

// common is what every child view needs from the root: the terminal size
// and the styles for its background.
type common struct {
	width, height int
	styles        *styles
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
