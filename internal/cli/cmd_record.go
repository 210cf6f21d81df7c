package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/scenarios"
	"windowlab/ui"
)

// recordOptions are record's flags.
type recordOptions struct {
	out, size, keys, until string
	speed                  float64
	hold, longest          time.Duration
	light                  bool
}

func newRecordCommand() *cobra.Command {
	var opts recordOptions
	cmd := &cobra.Command{
		Use:   "record SCENARIO|FILE|- -o FILE.cast",
		Short: "Record the view playing a scenario, for slides: an asciicast file, the same every time",
		Long: "record plays the interactive view on the virtual clock, at a fixed size, with no terminal and no " +
			"wall clock, and writes it as an asciicast v2 file: the same command always writes the same file, " +
			"and its frames are exactly what the view draws. --keys are pressed at the start (space plays); a " +
			"caption that pauses the clock stays on screen for --hold, then the recording goes on, as a presenter " +
			"would; it ends at --until, at the end of the scenario, or after --longest.\n\n" +
			"asciinema play FILE plays it in a terminal; asciinema's player embeds it in a web page or slides; " +
			"agg FILE out.gif (asciinema's GIF generator) and svg-term --in FILE --out out.svg (npm) turn it into " +
			"an animated GIF or SVG.",
		Example: "  windowlab record boundary-burst -o burst.cast --until 12:01:05\n" +
			"  windowlab record worked-example -o worked.cast --size 120x36 --speed 4 --light",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeOneScenario,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRecord(cmd.Context(), stdioOf(cmd), opts, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.out, "output", "o", "", "the file to write (a new one; - for standard output)")
	f.StringVar(&opts.size, "size", "100x30", "the terminal's size, COLUMNSxROWS, at least 80x24")
	f.StringVar(&opts.keys, "keys", "space", "keys pressed at the start, by name, space-separated (space plays; \"space t\" …)")
	f.StringVar(&opts.until, "until", "", "end once the clock reaches this time, HH:MM:SS (default: the end of the scenario)")
	f.Float64Var(&opts.speed, "speed", 0, "the playback speed, "+scenarios.SpeedRange()+" (default: the scenario's, else 1)")
	f.DurationVar(&opts.hold, "hold", ui.DefaultHold, "how long a caption that pauses the clock, and the last frame, stay on screen, up to 1h (never shorter than the caption's reading time)")
	f.DurationVar(&opts.longest, "longest", ui.DefaultLongest, "the longest the recording may run, up to 1h")
	f.BoolVar(&opts.light, "light", false, "draw for a light background")
	return cmd
}

// parseSize reads COLUMNSxROWS, at least the view's 80x24.
func parseSize(s string) (w, h int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	w, errW := strconv.Atoi(a)
	h, errH := strconv.Atoi(b)
	switch {
	case !ok || errW != nil || errH != nil:
		return 0, 0, errors.New("give COLUMNSxROWS, such as 100x30")
	case w < 80 || h < 24 || w > 500 || h > 200:
		return 0, 0, errors.New("the view needs from 80x24 to 500x200")
	}
	return w, h, nil
}

// writeNew writes a file that does not exist yet, as windowlab writes
// every file: never over one (flag, "--save" or "-o", is what to name
// differently), and a file write fails to finish (a full disk, a signal)
// is removed, since it is ours and half written.
func writeNew(path, flag string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return invalid(fmt.Errorf("%s exists; windowlab never writes over a file: give %s another name", path, flag))
	}
	if err != nil {
		return invalid(err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: %w", path, cerr)
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// runRecord writes the asciicast of the view playing the scenario args[0]
// names, to -o (a new file) or standard output.
func runRecord(ctx context.Context, std stdio, opts recordOptions, args []string) error {
	o := ui.RecordOptions{Keys: strings.Fields(opts.keys), Speed: opts.speed, Hold: opts.hold, Longest: opts.longest, Light: opts.light}
	var err error
	if o.Width, o.Height, err = parseSize(opts.size); err != nil {
		return invalid(fmt.Errorf("--size %s: %w", opts.size, err))
	}
	if opts.until != "" {
		if o.Until, err = algo.ParseClock(opts.until); err != nil {
			return invalid(fmt.Errorf("--until %s is not a clock time; %w", opts.until, err))
		}
		o.HasUntil = true
	}
	if opts.speed != 0 && !(opts.speed >= scenarios.MinSpeed && opts.speed <= scenarios.MaxSpeed) { // NaN too
		return invalid(fmt.Errorf("--speed %s is out of range: from %s", strconv.FormatFloat(opts.speed, 'g', -1, 64), scenarios.SpeedRange()))
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--hold", opts.hold}, {"--longest", opts.longest}} {
		if d.v < 0 || d.v > ui.MaxLongest {
			return invalid(fmt.Errorf("%s %s is out of range: a duration from 0 to %s", d.flag, human.Duration(d.v), human.Duration(ui.MaxLongest)))
		}
	}
	if opts.out == "" {
		return invalid(errors.New("-o: name the file to write, such as -o burst.cast (or - for standard output)"))
	}
	s, err := resolveShowing(ctx, std.err, args[0])
	if err != nil {
		return invalid(err)
	}
	if err := s.Fits(viewOptions); err != nil {
		return invalid(err)
	}
	o.Scenario, o.Title = s, "windowlab · "+s.Title
	recordTo := func(w io.Writer) error {
		frames, length, err := ui.Record(ctx, w, o)
		switch {
		case ctx.Err() != nil:
			return context.Cause(ctx) // a signal: main says so, nothing is written
		case errors.As(err, new(writeFailed)):
			return err // standard output: exit 3, as every command's
		case err != nil:
			return invalid(err)
		case opts.out != "-":
			fmt.Fprintf(std.err, "%s: %s frames, %s long, %dx%d\n", opts.out, human.Int(int64(frames)), human.Duration(length.Round(time.Millisecond)), o.Width, o.Height)
		}
		return nil
	}
	if opts.out == "-" {
		return recordTo(std.out)
	}
	return writeNew(opts.out, "-o", recordTo)
}
