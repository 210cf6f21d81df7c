// Package render draws windowlab's view: pure functions from a Snapshot (what
// the engine showed at the clock, taken after every move) and a Common (the
// terminal's size, styles and cell counting) to strings. The lanes, the
// timeline, the recent requests, the presenter's big verdict, the header and
// the caption live here; none of them reads an engine, a clock or the model.
// It imports nothing of package ui: ui routes messages and calls these.
package render
