package ui

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"windowlab/scenarios"
)

// coloured is the frame of sc at its key moment at w×h, on a dark or a
// light background, with its colours.
func coloured(t *testing.T, sc *scenarios.Scenario, w, h int, light bool) string {
	t.Helper()
	bg := color.Color(color.Black)
	if light {
		bg = color.White
	}
	m := newModel(t, sc, w, h)
	m = update(t, m, tea.BackgroundColorMsg{Color: bg})
	m = update(t, m, goTo(keyMoments[sc.Name])...)
	return m.View().Content
}

// TestGoldenColours pins the key moments of the lesson's built-ins with
// their colours, on a dark and on a light background: a change of style
// shows in these files where the plain goldens cannot see it.
func TestGoldenColours(t *testing.T) {
	for _, name := range []string{"boundary-burst", "worked-example", "token-bucket"} {
		sc, err := scenarios.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, light := range []bool{false, true} {
			bg := "dark"
			if light {
				bg = "light"
			}
			t.Run(name+"/"+bg, func(t *testing.T) {
				golden.RequireEqual(t, coloured(t, sc, 120, 36, light))
			})
		}
	}
}

// WINDOWLAB_SHOTS=DIR writes every built-in's key frame on both
// backgrounds to DIR as ANSI, for a person to look at (freeze renders them).
func TestShots(t *testing.T) {
	dir := os.Getenv("WINDOWLAB_SHOTS")
	if dir == "" {
		t.Skip("WINDOWLAB_SHOTS is not set")
	}
	for _, sc := range scenarios.Builtins() {
		for _, light := range []bool{false, true} {
			name := fmt.Sprintf("%s-%v.ansi", sc.Name, map[bool]string{false: "dark", true: "light"}[light])
			if err := os.WriteFile(filepath.Join(dir, name), []byte(coloured(t, sc, 120, 36, light)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
