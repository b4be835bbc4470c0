//go:build cgo && linux

package worker

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/rt"
)

// TestIdleWatch: the idle timeout fires only with no call in flight and
// nothing read for the timeout.
func TestIdleWatch(t *testing.T) {
	a := &idleWatch{}
	a.touch()
	release := make(chan struct{})
	ran := make(chan struct{})
	a.Dispatch(rt.NewTask(func() { close(ran); <-release }))
	<-ran
	fired := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.watch(ctx, 40*time.Millisecond, func() { close(fired) })
	select {
	case <-fired:
		t.Fatal("idle while a call runs")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	select {
	case <-fired:
	case <-time.After(5 * time.Second):
		t.Fatal("never idle after the call returned")
	}
	assert.Zero(t, a.busy.Load())
}
