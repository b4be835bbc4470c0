//go:build linux

package memfault_test

import (
	"errors"
	"runtime/debug"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/internal/memfault"
)

// store writes to a and returns what it recovered.
func store(a uintptr) (v any) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		v = recover()
	}()
	*(*byte)(memfault.Ptr(a)) = 1
	return nil
}

// TestAddr: a fault on an unwritable page gives its address, one in the
// zero page 0, and any other panic is not a fault.
func TestAddr(t *testing.T) {
	m, err := unix.Mmap(-1, 0, 2*unix.Getpagesize(), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	target := uintptr(unsafe.Pointer(&m[0])) + 100
	a, ok := memfault.Addr(store(target))
	assert.True(t, ok)
	assert.Equal(t, target, a)
	a, ok = memfault.Addr(store(16))
	assert.True(t, ok)
	assert.Zero(t, a)
	_, ok = memfault.Addr(errors.New("not a fault"))
	assert.False(t, ok)
}
