//go:build cgo

package jitsyms

/*
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include "jitsyms.h"

// orcrt_jitsyms_describe_at describes a signal taken at pc, for tests.
static size_t orcrt_jitsyms_describe_at(char *b, size_t cap, const char *prefix, int sig, int code, uintptr_t addr, uintptr_t pc, int *jit) {
	siginfo_t info;
	ucontext_t uc;
	memset(&info, 0, sizeof info);
	memset(&uc, 0, sizeof uc);
	info.si_signo = sig;
	info.si_code = code;
	info.si_addr = (void *)addr;
#if defined(__x86_64__)
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
#elif defined(__aarch64__)
	uc.uc_mcontext.pc = pc;
#endif
	return orcrt_jitsyms_describe(b, cap, prefix, sig, &info, &uc, jit);
}
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
			var module *C.char
			if s.Module != "" {
				module = interned(s.Module)
			}
			dst[i] = C.orcrt_jitsym{start: C.uintptr_t(s.Start), end: C.uintptr_t(s.End), name: interned(s.Name), module: module}
		}
	}
	C.orcrt_jitsyms_publish(t)
}

// interned returns the C copy of s, made on first use; table.mu held.
func interned(s string) *C.char {
	c, ok := names[s]
	if !ok {
		c = C.CString(s)
		names[s] = c
	}
	return c
}

// find is the C reader, for tests: the function holding pc, with the
// start and module name C sees.
func find(pc uint64) (Sym, bool) {
	var start C.uintptr_t
	var module *C.char
	name := C.orcrt_jitsyms_find(C.uintptr_t(pc), &start, &module)
	if name == nil {
		return Sym{}, false
	}
	s := Sym{Start: uint64(start), Name: C.GoString(name)}
	if module != nil {
		s.Module = C.GoString(module)
	}
	return s, true
}

// describe is orcrt_jitsyms_describe, for tests, of a signal whose
// context holds pc (and no stack: no callers are looked for).
func describe(prefix string, sig, code int, addr, pc uint64) (string, bool) {
	p := C.CString(prefix)
	defer C.free(unsafe.Pointer(p))
	var b [160]C.char
	var jit C.int
	n := C.orcrt_jitsyms_describe_at(&b[0], C.size_t(len(b)), p, C.int(sig), C.int(code), C.uintptr_t(addr), C.uintptr_t(pc), &jit)
	return C.GoStringN(&b[0], C.int(n)), jit != 0
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
