package serve

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// The largest window a session's view is given: the renderer keeps cells
// for the whole window, so a client's size decides what a session
// allocates (4294967295×4294967295 asked for 100 GB; 300×100 costs about
// 5 MB, 500×200 17). A larger terminal shows the view in its top left
// 300×100, more than a 4K screen at a small font (about 240×70).
const (
	MaxWidth  = 300
	MaxHeight = 100
)

// MaxSessionsPerConnection is how many sessions one SSH connection may hold
// open at once: OpenSSH's ControlMaster shares one connection among a
// user's terminals (a teacher's laptop and projector, a student's second
// tab), but a room's seats are for people, and one connection opening 300
// sessions must not take 200 of them.
const MaxSessionsPerConnection = 4

// sessionsKey is a context key: a connection's open sessions, an
// *atomic.Int64.
type sessionsKey struct{}

// sessionChannel opens a session channel when its connection has a
// session to spare, its requests passed through sessionRequests.
func sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, ch gossh.NewChannel, ctx ssh.Context) {
	open, _ := ctx.Value(sessionsKey{}).(*atomic.Int64)
	if open == nil { // admit stores it for every connection; never nil in practice
		open = new(atomic.Int64)
		ctx.SetValue(sessionsKey{}, open)
	}
	n := open.Add(1)
	defer open.Add(-1) // each way below returns once the channel is closed, or never opened
	why := fmt.Sprintf("windowlab: at most %d sessions on one connection; close one, or connect again", MaxSessionsPerConnection)
	switch {
	case n <= MaxSessionsPerConnection:
		ssh.DefaultSessionHandler(srv, conn, filteredChannel{ch}, ctx)
	case n <= 2*MaxSessionsPerConnection:
		// OpenSSH's ControlMaster shows a rejection as "Session open
		// refused by peer", without its reason: a few are opened to be
		// told why.
		tell(ch, why)
	default:
		_ = ch.Reject(gossh.ResourceShortage, why)
	}
}

// tell opens a session only to say why it ends, with exit status 1, and
// holds it until the client has closed it too.
func tell(ch gossh.NewChannel, why string) {
	c, reqs, err := ch.Accept()
	if err != nil {
		return
	}
	go func() {
		_, _ = fmt.Fprint(c.Stderr(), why+"\r\n")
		_, _ = c.SendRequest("exit-status", false, gossh.Marshal(struct{ Status uint32 }{1}))
		_ = c.Close()
	}()
	gossh.DiscardRequests(reqs)
}

// filteredChannel is a session channel whose requests go through
// sessionRequests before the session sees them.
type filteredChannel struct{ gossh.NewChannel }

func (c filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, in, err := c.NewChannel.Accept()
	if err != nil {
		return ch, in, err
	}
	out := make(chan *gossh.Request)
	go sessionRequests(in, out)
	return ch, out, nil
}

// sessionRequests passes a session's requests on, its window sizes cut to
// MaxWidth×MaxHeight, and refuses agent forwarding as every other
// forwarding is refused (charm.land/ssh would accept it).
func sessionRequests(in <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer close(out)
	for req := range in {
		switch req.Type {
		case "auth-agent-req@openssh.com":
			_ = req.Reply(false, nil)
			continue
		case "pty-req":
			// string TERM, then the window: columns, rows, and pixels.
			if len(req.Payload) >= 4 {
				if n := binary.BigEndian.Uint32(req.Payload); uint64(n) <= uint64(len(req.Payload)-4) {
					clampWindow(req.Payload[4+n:])
				}
			}
		case "window-change":
			clampWindow(req.Payload)
		}
		out <- req
	}
}

// clampWindow cuts the columns and rows at the start of a window
// dimension message, in place, to MaxWidth and MaxHeight; a payload too
// short is left for the session to refuse.
func clampWindow(p []byte) {
	if len(p) < 8 {
		return
	}
	cols, rows := binary.BigEndian.Uint32(p), binary.BigEndian.Uint32(p[4:])
	binary.BigEndian.PutUint32(p, min(cols, MaxWidth))
	binary.BigEndian.PutUint32(p[4:], min(rows, MaxHeight))
}
