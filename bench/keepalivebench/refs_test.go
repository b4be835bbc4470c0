package keepalivebench

import (
	"sync"
	"testing"
)

// The references must do what they claim, or the comparison is void.

func TestMutexGroupSemantics(t *testing.T) {
	var g MutexGroup
	runs := 0
	g.AddOnComplete(func() { runs++ })
	if !g.Acquire() {
		t.Fatal("acquire on an open group failed")
	}
	g.Close()
	if g.Acquire() {
		t.Fatal("acquire after close succeeded")
	}
	if runs != 0 {
		t.Fatal("completed while a token is held")
	}
	g.Release()
	if runs != 1 {
		t.Fatalf("completion ran %d times, want 1", runs)
	}
	g.AddOnComplete(func() { runs++ })
	if runs != 2 {
		t.Fatal("AddOnComplete after completion did not run at once")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("release without acquire did not panic")
		}
	}()
	g.Release()
}

func TestCountersBalance(t *testing.T) {
	var p AtomicPair
	f := NewShardedFloor(stripes())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				p.Acquire()
				p.Release()
				f.Release(f.Acquire())
			}
		})
	}
	wg.Wait()
	if p.Count() != 0 || f.Count() != 0 {
		t.Fatalf("counts %d, %d after balanced use", p.Count(), f.Count())
	}
}
