package render

import (
	"strings"
	"testing"
)

// The block letters spell what they are given, glyph by glyph.
func TestBlockRows(t *testing.T) {
	got := BlockRows("1.5", 1, 1)
	want := []string{"  #    ####", " ##    #", "  #    ####", "  #       #", " ### # ####"}
	for i := range want {
		if w := strings.ReplaceAll(want[i], "#", "█"); got[i] != w {
			t.Errorf("row %d = %q, want %q", i, got[i], w)
		}
	}
	if tall := BlockRows("0", 2, 3); len(tall) != 15 || tall[0] != "████████" {
		t.Errorf("scaled ×2 ×3: %q", tall)
	}
}
