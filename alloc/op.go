package alloc

import (
	"fmt"
	"runtime"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/keepalive"
)

// op is one operation that may run actions: its goroutine stays on its
// OS thread until end (native actions may use thread-local state) and,
// when it was started with a Session, holds one of its keepalive tokens
// so that shutdown waits for it.
type op struct {
	tok  keepalive.Token
	held bool
}

// startOp starts an op, with a keepalive token of s unless s is nil (the
// zero Runner, shutdown hooks). If the token is denied nothing is held.
func startOp(s *rt.Session) (op, error) {
	runtime.LockOSThread()
	if s == nil {
		return op{}, nil
	}
	tok, err := s.AcquireKeepalive()
	if err != nil {
		runtime.UnlockOSThread()
		return op{}, err
	}
	return op{tok: tok, held: true}, nil
}

// enter starts the op of the request named name, with a prefixed error.
func enter(s *rt.Session, name string) (op, error) {
	o, err := startOp(s)
	if err != nil {
		return o, fmt.Errorf("alloc: %s: %w", name, err)
	}
	return o, nil
}

// end ends o: the token goes back, the thread is unlocked.
func (o *op) end() {
	if o.held {
		o.tok.Release()
	}
	runtime.UnlockOSThread()
}

// withOp runs f in an op started by enter, with a result buffer.
func withOp(s *rt.Session, name string, f func(b *resultBuf) error) error {
	o, err := enter(s, name)
	if err != nil {
		return err
	}
	defer o.end()
	b := getBuf()
	defer putBuf(b)
	return f(b)
}
