package scenarios

import (
	"fmt"
	"strings"
)

// Error is one thing wrong with a scenario file, located precisely enough
// that an editor can jump to it: File:Line:Column, the field's path (for
// example traffic[1].at) and a message that says what is wrong and what
// would be valid.
type Error struct {
	File   string
	Line   int // 1-based; 0 when the error is about the file as a whole
	Column int // 1-based; 0 when unknown
	Field  string
	Msg    string
}

// Error formats e as "file:line:col: field: message", leaving out the parts
// that are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxErrors bounds how many errors one file reports: past a handful, the
// rest are usually consequences of the first.
const maxErrors = 10

// ErrorList is every error found in one file, in file order, at most ten.
// Parse and Load return it (never empty) so a CLI can print one per line;
// errors.As(err, new(*Error)) finds the first.
type ErrorList []*Error

// Error prints one error per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes the individual errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}
