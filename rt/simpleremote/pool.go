package simpleremote

import (
	"math/bits"
	"sync"
)

// Payload buffers given back by borrowing wrapper calls are reused for
// later payloads of a similar size (RATIONALE.md, "rt/simpleremote"). The
// pool only keeps buffers of fully received payloads, within a budget.
// Size classes: 64 bytes, then four per power of two (×1.25, 1.5, 1.75,
// 2) up to poolMaxClass.
const (
	poolMinShift = 6        // the smallest class: 64 bytes
	poolMaxClass = 8 << 20  // larger buffers are not pooled
	poolBudget   = 16 << 20 // bytes held by one pool at most
	poolPerClass = 8        // buffers held per class at most
	poolClasses  = (23-poolMinShift)*4 + 1
)

// poolCeilClass returns the smallest class whose size is >= n (n > 0).
func poolCeilClass(n int) int {
	if n <= 1<<poolMinShift {
		return 0
	}
	k := bits.Len(uint(n-1)) - 1 // 2^k < n <= 2^(k+1)
	step := 1 << (k - 2)
	sub := (n - 1<<k + step - 1) / step // 1..4
	return (k-poolMinShift)*4 + sub
}

// poolFloorClass returns the largest class whose size is <= c, or -1.
func poolFloorClass(c int) int {
	if c < 1<<poolMinShift {
		return -1
	}
	k := bits.Len(uint(c)) - 1   // 2^k <= c < 2^(k+1)
	sub := (c - 1<<k) >> (k - 2) // 0..3
	return (k-poolMinShift)*4 + sub
}

// poolClassSize returns the size of class i.
func poolClassSize(i int) int {
	if i == 0 {
		return 1 << poolMinShift
	}
	k := poolMinShift + (i-1)/4
	sub := (i-1)%4 + 1
	return 1<<k + sub<<(k-2)
}

// poolRound returns n rounded up to its class (n beyond the pooled sizes).
func poolRound(n int) int {
	if n > poolMaxClass {
		return n
	}
	return poolClassSize(poolCeilClass(n))
}

// payloadPool holds released payload buffers by size class. get runs on
// the reader goroutine, put on whichever goroutine finishes a call.
type payloadPool struct {
	mu    sync.Mutex
	held  int // bytes
	stack [poolClasses][][]byte
}

// get returns an empty buffer with capacity >= n, or nil.
func (p *payloadPool) get(n int) []byte {
	if n <= 0 || n > poolMaxClass {
		return nil
	}
	i := poolCeilClass(n)
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stack[i]
	if len(s) == 0 {
		return nil
	}
	b := s[len(s)-1]
	s[len(s)-1] = nil
	p.stack[i] = s[:len(s)-1]
	p.held -= cap(b)
	return b
}

// put takes b back (an rt.ReleaseFunc). Buffers outside the pooled sizes,
// or beyond the budget, are left to the garbage collector.
func (p *payloadPool) put(b []byte) {
	c := cap(b)
	if c > poolMaxClass {
		return
	}
	i := poolFloorClass(c)
	if i < 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stack[i]
	if len(s) >= poolPerClass || p.held+c > poolBudget {
		return
	}
	if s == nil {
		s = make([][]byte, 0, poolPerClass)
	}
	p.stack[i] = append(s, b[:0])
	p.held += c
}
