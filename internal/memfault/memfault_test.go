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

// TestRun: a fault ends f and gives its address; f's normal return is no
// fault; any other panic passes through.
func TestRun(t *testing.T) {
	m, err := unix.Mmap(-1, 0, unix.Getpagesize(), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	target := uintptr(unsafe.Pointer(&m[0])) + 8
	after := false
	at, faulted := memfault.Run(func() {
		*(*byte)(memfault.Ptr(target)) = 1
		after = true
	})
	assert.True(t, faulted)
	assert.Equal(t, target, at)
	assert.False(t, after, "f went on after the fault")
	var read byte
	_, faulted = memfault.Run(func() { read = m[8] })
	assert.False(t, faulted, "a read of a readable page")
	assert.Zero(t, read)
	assert.PanicsWithValue(t, "bug", func() { memfault.Run(func() { panic("bug") }) })
}
