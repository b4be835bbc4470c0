package target

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

var sink []byte

func TestHeapAllocsGrows(t *testing.T) {
	before := HeapAllocs()
	sink = make([]byte, 1<<20)
	assert.GreaterOrEqual(t, HeapAllocs()-before, uint64(1<<20))
}

func TestAllocMarkCountsSinceTheLastCall(t *testing.T) {
	var m AllocMark
	assert.Greater(t, m.Since(), uint64(0), "the first count is the process's")
	sink = make([]byte, 1<<20)
	got := m.Since()
	assert.GreaterOrEqual(t, got, uint64(1<<20))
	assert.Less(t, got, uint64(2<<20))
	assert.Less(t, m.Since(), uint64(1<<20))
}
