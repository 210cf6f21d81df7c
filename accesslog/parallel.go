package accesslog

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"sync"
)

// A large regular file is read in blocks of whole lines. With cores to
// spare they are parsed on more than one: one goroutine reads the file
// (and inflates it, when it is gzip) into blocks, workers parse them, each
// with a parser of its own, and the reading goroutine takes them in the
// file's order, line by line, as it takes the lines it parses itself
// (reader.one): the clients' numbers, the reorder window, the bad lines
// and their numbers, --from and --to, the progress, the Tail and ctrl+C
// are the same as on one core. Only what a line's parsing gives (its time
// and its key's parts, or why it is no request) is worked out ahead. The
// blocks are a fixed few (2 a worker and 2), handed round: the memory is
// bounded whatever the file. Without cores to spare, the reading cuts and
// parses each block itself (linesInBlocks).

// ParallelMin is the size from which a regular file is read in blocks:
// below it the blocks' start costs more than they save.
const ParallelMin = 4 << 20

// parallelWorkers is how many goroutines parse an input beside the
// reading: 0 for one read line by line (a pipe, standard input, a fifo, a
// small file, or one with --from on one core, whose lines mostly skipped
// cost less so), −1 for one read in blocks by the reading alone. Workers
// run only on cores to spare: the reading keeps one, a deciding beside it
// (Options.Tail, except up to --from, when the deciding waits) another,
// and the cutting and the workers need two more between them. On fewer
// they only take turns with the reading: on two cores shared with other
// work, a file read and skipped in parallel took 1.4× the CPU and up to
// 3× the wall of one core's reading (BENCHMARKS.md). A test sets it.
var parallelWorkers = func(in Input, opts Options) int {
	f, ok := in.R.(*os.File)
	if !ok {
		return 0
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() < ParallelMin {
		return 0
	}
	busy := 2 // the reading's own, and the cutting's
	if opts.Tail != nil && opts.From == 0 {
		busy++
	}
	if free := runtime.GOMAXPROCS(0) - busy; free >= 1 {
		return min(free, 4)
	}
	if opts.From != 0 {
		return 0 // most lines parsed and skipped: line by line costs less
	}
	return -1 // in blocks, by the reading itself (linesInBlocks)
}

// What a block holds at most (a test lowers them): lines, and bytes,
// past which it ends at the end of the line.
var (
	blockLines = 2048
	blockBytes = 1 << 18
)

// block is a run of a file's lines, and once parsed what each gives.
type block struct {
	text  []byte     // the lines as read, with their breaks
	spans [][2]int32 // where each starts and ends in text, as line gives it (parseBlock)
	err   error      // the reading's error after the last line (io.EOF at the end), or nil
	read  int64      // the file's bytes read at the end of the block (Options.Progress)
	lines []parsed   // what each line gives, once parsed
	parts []byte     // the key's parts' bytes, copied (a parser may reuse its own)
	ends2 []int32    // where each part ends in parts, a line's one after another
	done  chan struct{}
}

// parsed is what one line of a block gives.
type parsed struct {
	kind  uint8 // lineBlank, lineLong or lineParsed
	st    stamp
	err   error // why the line is no request (lineParsed)
	from  int32 // where its parts start in the block's parts
	first int32 // the index of its first part's end in the block's ends2
	// A key of one part that is short (shortKey: an IPv4 address): its
	// bytes packed, and the client's number when the table held it as the
	// block was taken, or −1.
	short   uint64
	isShort bool
	client  int32
}

const (
	lineBlank = iota
	lineLong
	lineParsed
)

// kindOf says whether a line is blank, too long, or one to parse.
func kindOf(line []byte) uint8 {
	switch {
	// A line starting with a printable ASCII byte is no blank one.
	case len(line) == 0 || (line[0] <= ' ' || line[0] >= 0x7f) && len(bytes.TrimSpace(line)) == 0:
		return lineBlank
	case len(line) > maxLine:
		return lineLong
	}
	return lineParsed
}

// unparsed takes a line kindOf says is not to be parsed: nothing for a
// blank one, a problem for one too long.
func (rd *reader) unparsed(kind uint8) error {
	if kind == lineLong {
		return rd.problem(fmt.Sprintf("longer than %d bytes", maxLine))
	}
	return nil
}

// pipeline is a parallel reading's goroutines and the blocks they pass.
type pipeline struct {
	free  chan *block // blocks to fill
	work  chan *block // blocks to parse
	order chan *block // blocks filled, in the file's order
	quit  chan struct{}
	wg    sync.WaitGroup
}

// bytesRead is the file's bytes read so far, for Options.Progress: of a
// parallel reading, as far as the lines taken.
func (rd *reader) bytesRead() int64 {
	if rd.piped {
		return rd.blockRead
	}
	return rd.counted.n
}

// linesParallel reads the file open as lines does, its lines parsed by
// rd.workers goroutines. The lines before the parser is known (the first,
// which sets the format, or a CSV's header) are taken one by one.
func (rd *reader) linesParallel() (stop bool, err error) {
	for rd.parser == nil || rd.headerNext {
		line, rerr := rd.line()
		if end, stop, err := rd.one(line, nil, rerr); end {
			return stop, err
		}
	}
	if rd.workers < 0 {
		return rd.linesInBlocks()
	}
	p := rd.startPipeline()
	defer p.stop(rd)
	for b := range p.order {
		<-b.done
		end, stop, err := rd.takeBlock(b)
		p.free <- b
		if end {
			return stop, err
		}
	}
	return false, nil
}

// takeBlock takes a parsed block's lines in order, its clients looked up
// first (findClients); end says the reading ends at one of them (stop and
// err, as takeBlockLine's).
func (rd *reader) takeBlock(b *block) (end, stop bool, err error) {
	rd.blockRead, rd.cur = b.read, b
	rd.findClients(b)
	for i := range b.lines {
		var rerr error
		if i == len(b.lines)-1 {
			rerr = b.err
		}
		if end, stop, err := rd.takeBlockLine(b, i, rerr); end {
			return true, stop, err
		}
	}
	return false, false, nil
}

// linesInBlocks reads the file open in blocks as a parallel reading does,
// but cut, parsed and taken by the reading itself, one block after
// another: a block's clients are looked up before its lines are taken
// (findClients), their cache misses overlapping.
func (rd *reader) linesInBlocks() (stop bool, err error) {
	b, parts := &block{}, make([][]byte, len(rd.parts))
	rd.piped = true
	defer func() { rd.piped = false }()
	for {
		rd.fill(b)
		b.read = rd.counted.n
		parseBlock(b, rd.parser, parts, rd.nkey)
		if end, stop, err := rd.takeBlock(b); end {
			return stop, err
		}
	}
}

// takeBlockLine takes a block's line i as one does.
func (rd *reader) takeBlockLine(b *block, i int, rerr error) (end, stop bool, err error) {
	sp := b.spans[i]
	return rd.one(b.text[sp[0]:sp[1]], &b.lines[i], rerr)
}

// startPipeline starts the goroutines that read, cut and parse the rest
// of the file open.
func (rd *reader) startPipeline() *pipeline {
	n := rd.workers
	p := &pipeline{free: make(chan *block, 2*n+2), work: make(chan *block, 2*n+2), order: make(chan *block, 2*n+2), quit: make(chan struct{})}
	for range 2*n + 2 {
		p.free <- &block{done: make(chan struct{}, 1)}
	}
	rd.piped = true
	p.wg.Add(1 + n)
	go func() {
		defer p.wg.Done()
		defer close(p.work)
		defer close(p.order)
		rd.cut(p)
	}()
	for range n {
		parser := rd.parser.clone()
		parts := make([][]byte, len(rd.parts))
		go func() {
			defer p.wg.Done()
			for b := range p.work {
				parseBlock(b, parser, parts, rd.nkey)
				b.done <- struct{}{}
			}
		}()
	}
	return p
}

// stop ends the goroutines, where the reading ended or stopped.
func (p *pipeline) stop(rd *reader) {
	close(p.quit)
	for range p.order { // let the cutting end, its blocks unread
	}
	p.wg.Wait()
	rd.piped = false
}

// cut reads the file into blocks of whole lines, in order, until its
// end, an error, or quit.
func (rd *reader) cut(p *pipeline) {
	for {
		var b *block
		select {
		case b = <-p.free:
		case <-p.quit:
			return
		}
		rd.fill(b)
		b.read = rd.counted.n
		select {
		case p.order <- b:
		case <-p.quit:
			return
		}
		p.work <- b
		if b.err != nil {
			return
		}
	}
}

// fill reads a block's text: some blockBytes of whole lines, each with its
// line break; after the last, when the reading ends (b.err), what the
// file had after its last line break. Of a line longer than maxLine, only
// its first maxLine+1 bytes are kept, as line does.
func (rd *reader) fill(b *block) {
	b.text, b.err = append(b.text[:0], rd.carry...), nil
	rd.carry = rd.carry[:0]
	for {
		if len(b.text) >= blockBytes {
			if i := bytes.LastIndexByte(b.text, '\n'); i >= 0 {
				rd.carry = append(rd.carry, b.text[i+1:]...)
				b.text = b.text[:i+1]
				return
			}
			if len(b.text) > maxLine+1 { // a line no break ended yet
				b.text, rd.longLine = b.text[:maxLine+1], true
			}
		}
		if cap(b.text)-len(b.text) < 1<<16 {
			b.text = append(b.text, make([]byte, 1<<16)...)[:len(b.text)]
		}
		n, err := rd.br.Read(b.text[len(b.text):cap(b.text)])
		read := b.text[len(b.text) : len(b.text)+n]
		if rd.longLine { // the rest of a long line is left out
			if i := bytes.IndexByte(read, '\n'); i >= 0 {
				n = copy(read, read[i:])
				rd.longLine = false
			} else {
				n = 0
			}
		}
		b.text = b.text[:len(b.text)+n]
		if err != nil {
			b.err = readError(err)
			return
		}
	}
}

// parseBlock parses a block's lines as take would: blank, too long, or
// what the parser gives, each part copied out of the parser's scratch.
func parseBlock(b *block, parser lineParser, parts [][]byte, nkey int) {
	b.lines, b.parts, b.ends2, b.spans = b.lines[:0], b.parts[:0], b.ends2[:0], b.spans[:0]
	for start := 0; start < len(b.text) || b.err != nil; {
		end := bytes.IndexByte(b.text[start:], '\n')
		next := start + end + 1
		if end < 0 {
			end, next = len(b.text)-start, -1 // the last, which the reading's end (b.err) follows
		}
		// As line: cut past maxLine, without its line break and a \r before it.
		end = start + min(end, maxLine+1)
		if end > start && b.text[end-1] == '\r' {
			end--
		}
		line := b.text[start:end]
		b.spans = append(b.spans, [2]int32{int32(start), int32(end)})
		p := parsed{kind: kindOf(line)}
		if p.kind == lineParsed {
			p.st, p.err = parser.parse(line, parts)
			if p.err == nil {
				if nkey == 1 {
					p.short, p.isShort = shortKey(parts[0])
				}
				if !p.isShort || len(parts) > 1 { // a short key alone is its packed bytes (takeParsed)
					p.from, p.first = int32(len(b.parts)), int32(len(b.ends2))
					for _, v := range parts {
						b.parts = append(b.parts, v...)
						b.ends2 = append(b.ends2, int32(len(b.parts)))
					}
				}
			}
		}
		b.lines = append(b.lines, p)
		if next < 0 {
			break
		}
		start = next
	}
}

// findClients looks up the block's short keys before its lines are
// taken, one after another with nothing between: the table's cache misses
// overlap rather than wait in turn. A client met first in the block is
// looked up again as its line is taken, and numbered then, in order.
func (rd *reader) findClients(b *block) {
	t := &rd.log.index.short
	for i := range b.lines {
		p := &b.lines[i]
		p.client = -1
		if p.isShort {
			if c, ok := t.find(p.short); ok {
				p.client = c
			}
		}
	}
}

// takeParsed takes a line a worker parsed, as take takes one it parses.
func (rd *reader) takeParsed(p *parsed) error {
	if p.kind != lineParsed {
		return rd.unparsed(p.kind)
	}
	switch {
	case p.err != nil:
	case p.isShort && len(rd.parts) == 1:
		if p.client < 0 { // its key is read only for a client new in the block
			rd.parts[0] = unpackShort(rd.scratch[:0], p.short)
			rd.scratch = rd.parts[0]
		}
	default:
		b, start := rd.cur, p.from
		for i := range rd.parts {
			end := b.ends2[int(p.first)+i]
			rd.parts[i] = b.parts[start:end:end]
			start = end
		}
	}
	rd.known = p.client
	err := rd.parsed(p.st, p.err)
	rd.known = -1
	return err
}
