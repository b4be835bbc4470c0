package native

/*
#include <stdint.h>
uintptr_t orcrt_export_addr(void);
*/
import "C"

import (
	"sync/atomic"
	"unsafe"
)

// ExportFunc receives a function JIT'd code published by name through
// orcrt_export. It returns 0 if it took it, or a non-zero status for the
// JIT'd code.
type ExportFunc func(name string, addr uintptr) int

var exportHandler atomic.Pointer[ExportFunc]

// ExportAddr is the address of the C function
//
//	int orcrt_export(const char *name, void *fn);
//
// which passes name and fn to the handler SetExportHandler installed
// (returning -1 without one, or for a NULL name or fn).
func ExportAddr() uintptr { return uintptr(C.orcrt_export_addr()) }

// SetExportHandler installs the process-wide handler of orcrt_export.
func SetExportHandler(h ExportFunc) { exportHandler.Store(&h) }

// maxExportName bounds the name orcrt_export reads: C strings from JIT'd
// code are untrusted.
const maxExportName = 4096

//export orcrtGoExport
func orcrtGoExport(name *C.char, fn C.uintptr_t) C.int {
	h := exportHandler.Load()
	if h == nil || name == nil || fn == 0 {
		return -1
	}
	p := unsafe.Pointer(name)
	n := 0
	for n < maxExportName && *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	if n == maxExportName {
		return -1
	}
	return C.int((*h)(string(unsafe.Slice((*byte)(p), n)), uintptr(fn)))
}
