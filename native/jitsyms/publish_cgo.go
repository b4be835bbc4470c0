//go:build cgo

package jitsyms

/*
#include <stdlib.h>
#include "jitsyms.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// names are the interned C copies of the names, never freed (a C reader
// may hold one); table.mu guards them.
var names = map[string]*C.char{}

// publish hands C a copy of the table; table.mu held.
func publish() {
	var t *C.orcrt_jitsyms_table
	if n := len(table.syms); n > 0 {
		size := C.size_t(unsafe.Sizeof(C.orcrt_jitsyms_table{})) + C.size_t(n)*C.size_t(unsafe.Sizeof(C.orcrt_jitsym{}))
		t = (*C.orcrt_jitsyms_table)(C.malloc(size))
		t.n = C.size_t(n)
		dst := unsafe.Slice((*C.orcrt_jitsym)(unsafe.Add(unsafe.Pointer(t), unsafe.Sizeof(C.orcrt_jitsyms_table{}))), n)
		for i, s := range table.syms {
			name, ok := names[s.Name]
			if !ok {
				name = C.CString(s.Name)
				names[s.Name] = name
			}
			dst[i] = C.orcrt_jitsym{start: C.uintptr_t(s.Start), end: C.uintptr_t(s.End), name: name}
		}
	}
	C.orcrt_jitsyms_publish(t)
}

// find is the C reader, for tests.
func find(pc uint64) (string, uint64, bool) {
	var start C.uintptr_t
	name := C.orcrt_jitsyms_find(C.uintptr_t(pc), &start)
	if name == nil {
		return "", 0, false
	}
	return C.GoString(name), uint64(start), true
}

// EnableProfiling makes the Go runtime name JIT'd functions in CPU
// profiles (pprof) and in tracebacks of signals taken in JIT'd code:
// the sample's JIT'd function and the JIT'd callers found on the stack,
// then the Go frames that called into them. It calls
// runtime.SetCgoTraceback, which a program may do only once: call it
// once, early, and not in a program that installs another cgo
// symbolizer. Functions are named only once the executor knows them
// (perf support's code loads).
func EnableProfiling() {
	runtime.SetCgoTraceback(0, unsafe.Pointer(C.orcrt_jitsyms_traceback), nil, unsafe.Pointer(C.orcrt_jitsyms_symbolize))
}
