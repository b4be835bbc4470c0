//go:build linux && cgo

package jit

import (
	"io"
	"sync"
)

// tailSize is how much of the controller's standard error a
// ControllerExitError keeps.
const tailSize = 8 << 10

// tail keeps the last tailSize bytes written to it, and copies every
// write to w if set.
type tail struct {
	w  io.Writer
	mu sync.Mutex
	b  []byte
}

func newTail(w io.Writer) *tail { return &tail{w: w} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.b = append(t.b, p...)
	if over := len(t.b) - tailSize; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	t.mu.Unlock()
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
