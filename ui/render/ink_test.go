package render

import (
	"testing"

	"charm.land/lipgloss/v2"
)

// An ink writes exactly what lipgloss writes, on every style of every
// background, for one line of text; and several lines, tabs or a style
// with room around it go to lipgloss itself.
func TestInkRendersAsLipgloss(t *testing.T) {
	texts := []string{"x", "holds 99 → allow (99 < 100)", " lead", "trail ", "client-1  ×100", "日本", "a\nb", "a\tb", ""}
	for _, dark := range []bool{true, false} {
		for _, presenter := range []bool{false, true} {
			s := NewStyles(dark, presenter)
			inks := map[string]Ink{"faint": s.Faint, "title": s.Title, "label": s.Label, "value": s.Value, "caption": s.Caption,
				"allowed": s.Allowed, "denied": s.Denied, "warn": s.Warn, "edge": s.Edge, "boxLine": s.BoxLine, "kind": s.Kinds[1], "plain": s.Plain[2]}
			for name, k := range inks {
				if !k.fast {
					t.Errorf("%s (dark %v, presenter %v): no fast path", name, dark, presenter)
				}
				for _, text := range texts {
					if got, want := k.Render(text), k.Style.Render(text); got != want {
						t.Errorf("%s (dark %v, presenter %v) of %q: %q, lipgloss %q", name, dark, presenter, text, got, want)
					}
				}
			}
		}
	}
	// A width pads each text to it: no one prefix and suffix, so lipgloss
	// renders it; padding is the same around every line, so either way.
	wide := newInk(lipgloss.NewStyle().Bold(true).Width(12))
	padded := newInk(lipgloss.NewStyle().Bold(true).Padding(0, 1))
	if wide.fast {
		t.Error("a style with a width took the fast path")
	}
	for _, k := range []Ink{wide, padded} {
		for _, text := range texts {
			if got, want := k.Render(text), k.Style.Render(text); got != want {
				t.Errorf("%q: %q, lipgloss %q", text, got, want)
			}
		}
	}
}
