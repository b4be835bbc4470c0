package faultreport

/*
#cgo CFLAGS: -I${SRCDIR}/../jitsyms
#include <stdlib.h>
#include "faultreport.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	_ "github.com/orcgo/orcrt/native/jitsyms" // the C reader the handler names JIT'd code with
)

var (
	once       sync.Once
	installErr error
)

// Install puts the report handler in front of the handlers the process
// has for SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP and SIGABRT, each
// line starting with prefix ("orcrt jit: "). It must run after the Go
// runtime started (any time in main), once the runtime's own handlers are
// in place; it is idempotent, and later calls keep the first prefix.
func Install(prefix string) error {
	once.Do(func() {
		p := C.CString(prefix)
		defer C.free(unsafe.Pointer(p))
		if sig, err := C.orcrt_faultreport_install(p); sig != 0 {
			installErr = fmt.Errorf("faultreport: installing the %v handler: %w", syscall.Signal(sig), err)
		}
	})
	return installErr
}
