package replay

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"windowlab/human"
)

// estimateSample is how much of a file's start the estimate of its
// lines reads: as stored (compressed, for a gzip file).
var estimateSample int64 = 4 << 20

// Estimate is how many lines a log's files hold, from their sizes and
// their first megabytes' bytes a line (a gzip file's compressed bytes a
// line); Exact when every file was read whole.
type Estimate struct {
	Lines int64
	Exact bool
}

// EstimateLines estimates the lines of the regular files at paths; ok is
// false when one is not a regular file (standard input, a fifo: no size
// tells) or holds no line in its first megabytes.
func EstimateLines(paths []string) (e Estimate, ok bool, err error) {
	e.Exact = true
	for _, p := range paths {
		info, err := os.Stat(p)
		if p == "-" || err != nil || !info.Mode().IsRegular() {
			return e, false, nil
		}
		n, exact, err := estimateFile(p, info.Size())
		if err != nil || n < 0 {
			return e, false, err
		}
		e.Lines += n
		e.Exact = e.Exact && exact
	}
	return e, true, nil
}

// estimateFile is one file's estimate; −1 when its sample has no line.
func estimateFile(path string, size int64) (int64, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	stored := &countingReader{r: io.LimitReader(f, estimateSample)}
	var r io.Reader = stored
	var magic [2]byte
	if n, _ := io.ReadFull(f, magic[:]); n == 2 && magic == [2]byte{0x1f, 0x8b} {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return 0, false, err
		}
		zr, err := gzip.NewReader(stored)
		if err != nil {
			return 0, false, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	} else if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, false, err
	}
	var lines int64
	buf := make([]byte, 64<<10)
	for {
		n, rerr := r.Read(buf)
		lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
		if rerr != nil {
			break // the sample's end (a gzip stream cut by it), or the file's
		}
	}
	if stored.n >= size { // read whole
		return lines, true, nil
	}
	if lines == 0 {
		return -1, false, nil
	}
	return lines * size / stored.n, false, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// About is n for a person, rounded: "about 60 M", "about 5,000".
func (e Estimate) About() string {
	if e.Exact {
		return human.Int(e.Lines)
	}
	if e.Lines >= 10_000_000 {
		return fmt.Sprintf("about %s M", human.Int((e.Lines+500_000)/1_000_000))
	}
	// Two significant figures.
	round := int64(1)
	for e.Lines/round >= 100 {
		round *= 10
	}
	return "about " + human.Int((e.Lines+round/2)/round*round)
}
