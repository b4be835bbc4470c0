//go:build libfuzzer

// Command llvmoracle is the libFuzzer shim of FuzzLLVM: package spsfuzz's
// Oracle body, judged by LLVM 22's own SPS deserializers (oracle.cpp,
// compiled into the same c-archive by cgo with CGO_CXXFLAGS="-O1
// -fsanitize=bool -fsanitize-minimal-runtime -fsanitize-coverage=...":
// the bool check marks LLVM's undefined answers, and libFuzzer's coverage
// instrumentation lets LLVM's decoder guide the fuzzer too).
// fuzz/oss-fuzz/build.sh builds it with -ldflags=-X=main.name=FuzzLLVM and
// links libLLVM-22 (see fuzz/internal/libfuzzer).
package main

/*
#cgo CXXFLAGS: -std=c++17 -I/usr/lib/llvm-22/include
#include <stdlib.h>
#include "oracle.h"
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/orcgo/orcrt/fuzz/internal/libfuzzer"
	"github.com/orcgo/orcrt/fuzz/internal/target"
	"github.com/orcgo/orcrt/fuzz/spsfuzz"
)

var name = "FuzzLLVM" // -ldflags=-X=main.name=FuzzX

func init() {
	libfuzzer.Register(name, map[string]target.Body{"FuzzLLVM": spsfuzz.Oracle(judge)})
}

// judge asks oracle.cpp in this process.
func judge(q spsfuzz.OracleQuery) (string, error) {
	shape := C.CString(q.Shape)
	defer C.free(unsafe.Pointer(shape))
	var why [1024]C.char
	ok := 0
	if q.OK {
		ok = 1
	}
	r := C.orcrt_llvm_oracle(shape, ptr(q.Msg), C.size_t(len(q.Msg)), C.int(ok), C.size_t(q.Consumed),
		ptr(q.Enc), C.size_t(len(q.Enc)), &why[0], C.size_t(len(why)))
	switch r {
	case 1:
		return "", nil
	case 0:
		return C.GoString(&why[0]), nil
	case 2:
		return spsfuzz.Undefined, nil
	case -2:
		return "", errNoBoolCheck
	}
	return "", spsfuzz.ErrUnknownShape(q.Shape)
}

// ptr is b's first byte for C (never nil: C reads no byte of an empty b).
func ptr(b []byte) *C.char {
	if len(b) == 0 {
		return (*C.char)(unsafe.Pointer(&zero))
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

var zero byte

var errNoBoolCheck = errors.New("llvmoracle: oracle.cpp was compiled without -fsanitize=bool (set CGO_CXXFLAGS as fuzz/oss-fuzz/build.sh does)")

func main() {}
