//go:build cgo

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/orcgo/orcrt/rt/simpleremote"
)

// openConn is s.Open, except that listen=HOST:0 reports the port it got
// on w, "orcrt-executor: listening on 127.0.0.1:40123", once the socket
// listens: nothing else could tell a controller where to connect. (The
// stock executor prints nothing in listen mode, and binds a port it never
// reports; with an explicit port orcrt is silent too, so stderr stays the
// stock's.)
func openConn(ctx context.Context, s simpleremote.Spec, w io.Writer) (simpleremote.Conn, error) {
	if s.Mode != simpleremote.ModeListen || s.PortNum != 0 {
		return s.Open(ctx)
	}
	l, err := s.Listen()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "orcrt-executor: listening on %s\n", l.Addr())
	return l.Accept(ctx)
}
