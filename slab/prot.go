package slab

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/arch"
)

// Prot is a page protection: a combination of [ProtRead], [ProtWrite] and
// [ProtExec]. The values equal LLVM's MemProt bits and Linux's PROT_* bits.
type Prot uint8

// Protections.
const (
	ProtNone  Prot = 0
	ProtRead  Prot = 1
	ProtWrite Prot = 2
	ProtExec  Prot = 4

	ProtRW = ProtRead | ProtWrite
	ProtRX = ProtRead | ProtExec
)

// String formats p like /proc/self/maps does ("r-x").
func (p Prot) String() string {
	b := []byte("---")
	if p&ProtRead != 0 {
		b[0] = 'r'
	}
	if p&ProtWrite != 0 {
		b[1] = 'w'
	}
	if p&ProtExec != 0 {
		b[2] = 'x'
	}
	if p&^(ProtRead|ProtWrite|ProtExec) != 0 {
		return fmt.Sprintf("Prot(%#x)", uint8(p))
	}
	return string(b)
}

// Check reports whether p may be applied: W|X is refused ([ErrWriteExec]),
// execute without read is refused ([ErrExecOnly]: cache maintenance by
// address needs read access), unknown bits are refused ([ErrBadProt]).
func (p Prot) Check() error {
	switch {
	case p&^(ProtRead|ProtWrite|ProtExec) != 0:
		return ErrBadProt
	case p&(ProtWrite|ProtExec) == ProtWrite|ProtExec:
		return ErrWriteExec
	case p&ProtExec != 0 && p&ProtRead == 0:
		return ErrExecOnly
	}
	return nil
}

// Sentinel errors; returned errors wrap them (test with errors.Is). Most
// are wrapped in an [*Error] that names the operation and range.
var (
	ErrClosed    = errors.New("slab: closed")
	ErrWriteExec = errors.New("slab: writable and executable protection refused (W^X)")
	ErrExecOnly  = errors.New("slab: execute-only protection not supported")
	ErrBadProt   = errors.New("slab: unknown protection bits")
	ErrNoSpace   = errors.New("slab: arena exhausted")
	// ErrNotSupported is arch's: executable memory needs cache maintenance.
	ErrNotSupported = arch.ErrNotSupported
	ErrBusy         = errors.New("slab: region busy (a Write is in progress)")
	ErrNotMapped    = errors.New("slab: range is not inside one live region of this slab")
	ErrDoubleFree   = errors.New("slab: already released (double free)")
	ErrForeign      = errors.New("slab: not allocated by this slab")
	ErrNotWritable  = errors.New("slab: pages are not writable")
	ErrBadSize      = errors.New("slab: bad size")
)

// Error describes a failed slab operation on an address range.
type Error struct {
	Op   string  // "reserve", "release", "protect", "write", ...
	Addr uintptr // start of the range (0 if none)
	Size uintptr // length of the range
	Err  error   // a sentinel above, or a wrapped system-call error
}

func (e *Error) Error() string {
	if e.Addr == 0 && e.Size == 0 {
		return fmt.Sprintf("slab: %s: %v", e.Op, trimPrefix(e.Err))
	}
	return fmt.Sprintf("slab: %s [%#x, %#x): %v", e.Op, e.Addr, e.Addr+e.Size, trimPrefix(e.Err))
}

func (e *Error) Unwrap() error { return e.Err }

// trimPrefix avoids "slab: op: slab: reason" stutter for the sentinels.
func trimPrefix(err error) string {
	s := err.Error()
	if len(s) > 6 && s[:6] == "slab: " {
		return s[6:]
	}
	return s
}

func opErr(op string, addr, size uintptr, err error) error {
	return &Error{Op: op, Addr: addr, Size: size, Err: err}
}
