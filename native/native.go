package native

/*
#cgo LDFLAGS: -rdynamic -ldl
#cgo noescape orcrt_dlsym
#cgo nocallback orcrt_dlsym
#cgo nocallback orcrt_fflush_all
#cgo nocallback orcrt_flush_stdout
#cgo nocallback orcrt_thread_stack_size
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "native.h"
#include "frame.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/orcgo/orcrt/sps"
)

// dlopen mode flags.
const (
	RTLD_LAZY   = int(C.RTLD_LAZY)
	RTLD_NOW    = int(C.RTLD_NOW)
	RTLD_GLOBAL = int(C.RTLD_GLOBAL)
	RTLD_LOCAL  = int(C.RTLD_LOCAL)
)

// InlineMax is the largest result carried inline in a
// CWrapperFunctionBuffer (sizeof(char*)).
const InlineMax = 8

// ErrNilFunction is returned for calls of address 0.
var ErrNilFunction = errors.New("native: call of function address 0")

// CallWrapper calls the C function
//
//	CWrapperFunctionBuffer fn(const char *ArgData, size_t ArgSize)
//
// at address fn with args, and appends the result bytes to dst: bytes are
// appended (a malloc'd result buffer is freed); an empty result returns
// dst unchanged; an out-of-band error returns dst unchanged and an
// *[sps.OutOfBandError] (its buffer freed). args must not be retained by
// the callee past its return; empty args pass a non-NULL pointer.
// CallWrapper may write anywhere in dst[len(dst):cap(dst)].
//
// With at least 32 bytes of spare capacity in dst, a result of up to
// cap(dst)-len(dst)-8 bytes costs one Go→C transition and no allocation;
// a larger one costs a growth of dst and a second transition. The call
// holds the goroutine's OS thread until fn returns; fn may call back into
// Go (jit-dispatch). A fault inside fn crashes the process.
func CallWrapper(fn uintptr, args, dst []byte) ([]byte, error) {
	l := len(dst)
	spare := dst[l:cap(dst)]
	if fn == 0 || len(spare) < frameMin {
		return callWrapperSlow(fn, args, dst)
	}
	// The frame and outcome travel in dst's spare capacity. Both are cgo
	// arguments, so they escape and cannot move during a callback into Go.
	var ap *C.char
	if len(args) > 0 {
		ap = (*C.char)(unsafe.Pointer(&args[0]))
	}
	binary.NativeEndian.PutUint64(spare[0:], uint64(fn))
	binary.NativeEndian.PutUint64(spare[8:], uint64(len(args)))
	binary.NativeEndian.PutUint64(spare[16:], uint64(len(spare)))
	C.orcrt_call_wrapper_frame(ap, (*C.char)(unsafe.Pointer(&spare[0])))
	r := binary.NativeEndian.Uint64(spare[len(spare)-8:])
	if r < resPtr { // r bytes of result (0: empty) are in spare
		return dst[:l+int(r)], nil
	}
	return wrapperResultDst(r, dst, spare)
}

// callWrapperSlow is CallWrapper for a null function or less than
// frameMin bytes of spare capacity: the callee's 16-byte result comes
// back through cgo's argument frame.
func callWrapperSlow(fn uintptr, args, dst []byte) ([]byte, error) {
	if fn == 0 {
		return dst, ErrNilFunction
	}
	var ap, dp *C.char
	if len(args) > 0 {
		ap = (*C.char)(unsafe.Pointer(&args[0]))
	}
	spare := dst[len(dst):cap(dst)]
	if len(spare) > 0 {
		dp = (*C.char)(unsafe.Pointer(&spare[0]))
	}
	r := C.orcrt_call_wrapper(C.uintptr_t(fn), ap, C.size_t(len(args)), dp, C.size_t(len(spare)))
	if n := uint64(r.Size); n-1 < InlineMax { // 1..8 bytes inline
		return append(dst, r.Data[:n]...), nil
	}
	return wrapperResultSlow(r, dst, spare)
}

// The fast path's frame: its minimum size (ORCRT_FRAME_MIN) and the flags
// of its outcome word.
const (
	frameMin = 32
	resOOB   = uint64(1) << 63 // an out-of-band error
	resPtr   = uint64(1) << 62 // a malloc'd buffer's address is in spare[0:8]
)

// wrapperResultDst decodes the fast path's outcome words other than "r
// bytes in spare".
func wrapperResultDst(r uint64, dst, spare []byte) ([]byte, error) {
	p := ptr(uintptr(binary.NativeEndian.Uint64(spare[:8])))
	switch {
	case r&resPtr == 0: // the message is in spare
		return dst, &sps.OutOfBandError{Msg: string(spare[:r&^resOOB])}
	case r == resOOB|resPtr:
		msg := C.GoString((*C.char)(p))
		C.free(p)
		return dst, &sps.OutOfBandError{Msg: msg}
	case r&resOOB != 0:
		return dst, errors.New("native: wrapper function returned an impossible result size")
	}
	n := r &^ resPtr
	if p == nil {
		// Not a wrapper function's result (a C function called as one).
		return dst, fmt.Errorf("native: wrapper function returned a NULL buffer of %d bytes", n)
	}
	dst = append(dst, unsafe.Slice((*byte)(p), n)...)
	C.free(p)
	return dst, nil
}

// wrapperResultSlow decodes every result state but inline.
func wrapperResultSlow(r C.orcrt_CWrapperFunctionBuffer, dst, spare []byte) ([]byte, error) {
	const copied, oobCopied = uint64(1) << 63, uint64(1) << 62
	size := uint64(r.Size)
	p := *(*unsafe.Pointer)(unsafe.Pointer(&r.Data))
	switch {
	case size&copied != 0:
		return dst[:len(dst)+int(size&^copied)], nil
	case size&oobCopied != 0:
		return dst, &sps.OutOfBandError{Msg: string(spare[:size&^oobCopied])}
	case size == 0 && p == nil:
		return dst, nil
	case size == 0:
		msg := C.GoString((*C.char)(p))
		C.free(p)
		return dst, &sps.OutOfBandError{Msg: msg}
	}
	// Large and not copied: dst was too small.
	if p == nil {
		return dst, fmt.Errorf("native: wrapper function returned a NULL buffer of %d bytes", size)
	}
	dst = append(dst, unsafe.Slice((*byte)(p), size)...)
	C.free(p)
	return dst, nil
}

// CallMain calls int main(int argc, char **argv) at fn with argc =
// len(args) and argv = NUL-terminated copies of args in C memory, argv[argc]
// = NULL; no program name is added. The strings stay alive (and writable)
// until main returns and are freed afterwards. An argument containing a
// NUL byte is seen by main truncated at it (C strings cannot hold NUL).
// One Go→C transition; it allocates one packing buffer.
func CallMain(fn uintptr, args []string) (int32, error) {
	if fn == 0 {
		return 0, ErrNilFunction
	}
	if uint64(len(args)) > 1<<30 {
		return 0, fmt.Errorf("native: run main: %d arguments", len(args))
	}
	size := 0
	for _, a := range args {
		size += cstrLen(a) + 1
	}
	packed := make([]byte, 0, size)
	for _, a := range args {
		packed = append(packed, a[:cstrLen(a)]...)
		packed = append(packed, 0)
	}
	var pp *C.char
	if len(packed) > 0 {
		pp = (*C.char)(unsafe.Pointer(&packed[0]))
	}
	var ok C.int
	r := C.orcrt_call_main(C.uintptr_t(fn), C.int(len(args)), pp, C.size_t(len(packed)), &ok)
	if ok == 0 {
		return 0, errors.New("native: run main: out of C memory for argv")
	}
	return int32(r), nil
}

// cstrLen is the length of the C string in s: up to its first NUL, or
// all of it.
func cstrLen[T string | []byte](s T) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return len(s)
}

// CallIntVoid calls int fn(void). One Go→C transition.
func CallIntVoid(fn uintptr) (int32, error) {
	if fn == 0 {
		return 0, ErrNilFunction
	}
	return int32(C.orcrt_call_int_void(C.uintptr_t(fn))), nil
}

// CallIntInt calls int fn(int). One Go→C transition.
func CallIntInt(fn uintptr, arg int32) (int32, error) {
	if fn == 0 {
		return 0, ErrNilFunction
	}
	return int32(C.orcrt_call_int_int(C.uintptr_t(fn), C.int(arg))), nil
}

// ptr turns a C address into an unsafe.Pointer without tripping vet's
// unsafeptr check; the memory is never Go's.
func ptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

const dlErrCap = 512

// Dlopen opens a shared object, or with path "" the main program (whose
// symbols include this package's exported C functions). The error carries
// dlerror()'s text.
func Dlopen(path string, flags int) (uintptr, error) {
	var cp *C.char
	if path != "" {
		cp = C.CString(path)
		defer C.free(unsafe.Pointer(cp))
	}
	var errbuf [dlErrCap]byte
	h := C.orcrt_dlopen(cp, C.int(flags), (*C.char)(unsafe.Pointer(&errbuf[0])), dlErrCap)
	if h == 0 {
		return 0, fmt.Errorf("native: dlopen %q: %s", path, GoString(errbuf[:]))
	}
	return uintptr(h), nil
}

// Dlsym looks name up in handle (from Dlopen). A symbol whose value is 0
// is returned as (0, nil); a missing one as an error with dlerror()'s
// text.
func Dlsym(handle uintptr, name string) (uintptr, error) {
	buf := make([]byte, len(name)+1)
	copy(buf, name)
	var errbuf [dlErrCap]byte
	p := C.orcrt_dlsym(C.uintptr_t(handle), (*C.char)(unsafe.Pointer(&buf[0])), (*C.char)(unsafe.Pointer(&errbuf[0])), dlErrCap)
	if errbuf[0] != 0 {
		return 0, fmt.Errorf("native: dlsym %q: %s", name, GoString(errbuf[:]))
	}
	return uintptr(p), nil
}

// Dlclose closes a handle from Dlopen.
func Dlclose(handle uintptr) error {
	var errbuf [dlErrCap]byte
	if C.orcrt_dlclose(C.uintptr_t(handle), (*C.char)(unsafe.Pointer(&errbuf[0])), dlErrCap) != 0 {
		return fmt.Errorf("native: dlclose: %s", GoString(errbuf[:]))
	}
	return nil
}

// GoString returns the C string in b: its bytes up to the first NUL, or
// all of b if it has none. It reads the error buffers orcrt_copy_err
// (errcopy.h) fills, in this package and in every cgo package that
// includes the header.
func GoString(b []byte) string { return string(b[:cstrLen(b)]) }

// FflushAll calls fflush(NULL): JIT'd programs' output sits in libc's
// stdio buffers, which Go's os.Exit does not flush.
func FflushAll() error {
	if C.orcrt_fflush_all() != 0 {
		return errors.New("native: fflush(NULL) failed")
	}
	return nil
}

// FlushStdout flushes the C stdout buffer unless another thread holds its
// lock (it never waits for one), so output a JIT'd call printed appears
// when the call returns rather than when the process exits.
func FlushStdout() { C.orcrt_flush_stdout() }

// threadStackSize returns the size of the C stack of the thread running
// the calling goroutine (pthread_getattr_np), the stack native calls run
// on; 0 if unknown. Lock the goroutine to its thread for a lasting answer.
func threadStackSize() uintptr { return uintptr(C.orcrt_thread_stack_size()) }
