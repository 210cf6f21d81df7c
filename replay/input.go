package replay

import (
	"context"
	"io"
)

// waitingInput is a log's input that may wait without end: standard input
// or a fifo, whose writer may be idle or never come. A goroutine of its own
// opens and reads it, so a Read returns as soon as ctx ends, with ctx's
// cause, however long the input waits (a read blocked in the kernel cannot
// be called back); that goroutine, if it is stuck in the wait, ends with
// the process.
type waitingInput struct {
	ctx    context.Context
	chunks chan inputChunk
	free   chan []byte   // buffers the reading goroutine may fill
	done   chan struct{} // closed by Close: the reading goroutine stops
	cur    []byte        // what is left of the chunk being read
	buf    []byte        // its buffer, to give back
	err    error         // the input's own end or error, after cur
}

type inputChunk struct {
	data []byte
	err  error
}

// inputBuffers are the buffers a waitingInput fills ahead, each of
// inputBuffer bytes.
const (
	inputBuffers = 3
	inputBuffer  = 64 << 10
)

// newWaitingInput reads what open opens (closing it when done), in a
// goroutine of its own until Close.
func newWaitingInput(ctx context.Context, open func() (io.Reader, func(), error)) *waitingInput {
	in := &waitingInput{ctx: ctx, chunks: make(chan inputChunk, inputBuffers), free: make(chan []byte, inputBuffers), done: make(chan struct{})}
	for range inputBuffers {
		in.free <- make([]byte, inputBuffer)
	}
	go in.fill(open)
	return in
}

func (in *waitingInput) fill(open func() (io.Reader, func(), error)) {
	r, closeR, err := open() // a fifo's opening waits for its writer
	if err != nil {
		in.send(inputChunk{err: err})
		return
	}
	defer closeR()
	for {
		var buf []byte
		select {
		case buf = <-in.free:
		case <-in.done:
			return
		}
		n, err := r.Read(buf)
		if !in.send(inputChunk{data: buf[:n], err: err}) || err != nil {
			return
		}
	}
}

// send hands a chunk to Read; false when the reading has ended.
func (in *waitingInput) send(c inputChunk) bool {
	select {
	case in.chunks <- c:
		return true
	case <-in.done:
		return false
	}
}

func (in *waitingInput) Read(p []byte) (int, error) {
	for len(in.cur) == 0 {
		if in.err != nil {
			return 0, in.err
		}
		if in.buf != nil {
			in.free <- in.buf[:cap(in.buf)]
			in.buf = nil
		}
		var c inputChunk
		select {
		case c = <-in.chunks:
		default:
			select {
			case c = <-in.chunks:
			case <-in.ctx.Done():
				return 0, context.Cause(in.ctx) // whatever the input is doing
			}
		}
		in.cur, in.err = c.data, c.err
		if c.data != nil {
			in.buf = c.data
		}
	}
	n := copy(p, in.cur)
	in.cur = in.cur[n:]
	return n, nil
}

// Close stops the reading goroutine, at once unless it is waiting on the
// input.
func (in *waitingInput) Close() { close(in.done) }
