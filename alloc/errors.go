package alloc

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrClosed is returned (wrapped) by operations on a memory manager or
// shared-memory mapper after its Session shut it down.
var ErrClosed = errors.New("alloc: shut down")

// llvmError is an error whose message is LLVM 22's own text (an executor
// error string, or a strerror text), forwarded to the controller
// verbatim; it may wrap the Go-side cause.
type llvmError struct {
	msg string
	err error
}

func (e *llvmError) Error() string { return e.msg }
func (e *llvmError) Unwrap() error { return e.err }

// llvmErrorf formats an LLVM 22 message.
func llvmErrorf(format string, args ...any) error {
	return &llvmError{msg: fmt.Sprintf(format, args...)}
}

// strerror returns glibc's strerror text for the errno inside err, as LLVM's
// errorCodeToError reports a failed system call ("Cannot allocate memory",
// "File exists", "Invalid argument"): Go's errno strings are glibc's with
// the first letter lower-cased. Errors without an errno keep their text.
func strerror(err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err
	}
	s := errno.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return &llvmError{msg: s, err: err}
}

// Stock error messages of LLVM 22's SimpleExecutorMemoryManager
// (docs/protocol.md §5.1, §6.2). Addresses and sizes print as LLVM's
// formatv("{0:x}") does: lower-case hex with a 0x prefix.

func errContentSize(addr uint64, content int, size uint64) error {
	return llvmErrorf("Segment %#x content size (%#x bytes) exceeds segment size (%#x bytes)", addr, uint64(content), size)
}

func errInitRange(s, e uint64) error {
	return llvmErrorf("In initialize, range %#x -- %#x is not part of any reserved address range", s, e)
}

func errOverlap(s, e, os, oe uint64, prev bool) error {
	which := "following"
	if prev {
		which = "previous"
	}
	return llvmErrorf("In initialize, region %#x -- %#x overlaps %s region %#x -- %#x", s, e, which, os, oe)
}

func errDeinitNoSlab(a uint64) error {
	return llvmErrorf("In deinitialize, address %#x is not part of any reserved address range", a)
}

func errDeinitNoRegion(a uint64) error {
	return llvmErrorf("In deinitialize, address %#x does not correspond to the start of any initialized region", a)
}

// errReleaseNoSlab is a release (or deallocate) of a base that is not
// reserved, worded as the dialect words it.
func errReleaseNoSlab(format string, a uint64) error {
	return llvmErrorf(format, a)
}
