package scenarios

import "testing"

// A title is one line wherever it is shown (the view's header, the report),
// even when the file writes it as a block that ends in a line break. Found
// by the UI fuzzer: a title with a line break made every frame a line taller
// than the terminal.
func TestTitleIsOneLine(t *testing.T) {
	for text, want := range map[string]string{
		"title: >\n  The boundary\n  burst\n":     "The boundary burst",
		"title: |\n  Two\n  lines\n":              "Two lines",
		"title: \"tab\\tand  spaces \"\n":         "tab and spaces",
		"title: Plain\n":                          "Plain",
		"title: \"line\\nbreak\\n\\nand more\"\n": "line break and more",
	} {
		s := mustParse(t, "t.yaml", text+"limit: 1\nwindow: 1s\ntraffic: [{at: \"12:00:00\"}]\n")
		if s.Title != want {
			t.Errorf("%q: title %q, want %q", text, s.Title, want)
		}
	}
}
