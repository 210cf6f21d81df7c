package replay

import (
	"errors"
	"fmt"
	"slices"

	"windowlab/algo"
	"windowlab/human"
)

// WithSegments splits every setting's window into segments for its
// segmented windows; the error names --segments, and a window the
// segments do not divide.
func WithSegments(settings []Setting, segments int64) ([]Setting, error) {
	if segments < 1 || segments > algo.MaxSegments {
		return nil, fmt.Errorf("--segments %d: give the segments the segmented window splits its window into, a whole number from 1 to %s",
			segments, human.Int(algo.MaxSegments))
	}
	out := make([]Setting, len(settings))
	for i, s := range settings {
		s.Config.Segments = segments
		segmented := slices.ContainsFunc(s.Algorithms, func(a algo.Algorithm) bool { return a.Kind == algo.KindSegmentedWindow })
		if err := s.Config.CheckSegments(); err != nil && segmented {
			var oe *algo.OptionError
			errors.As(err, &oe)
			return nil, fmt.Errorf("--segments %s", oe.Problem)
		}
		out[i] = s
	}
	return out, nil
}
