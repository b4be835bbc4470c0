package ehframe

/*
#cgo CFLAGS: -I${SRCDIR}/../../native
#cgo LDFLAGS: -ldl
#cgo noescape orcrt_ehframe_init
#cgo nocallback orcrt_ehframe_init
#cgo nocallback orcrt_ehframe_find_fde
#cgo nocallback orcrt_ehframe_register_addr
#include "ehframe.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// LLVM 22 bootstrap names of the allocation actions (docs/protocol.md §3.2;
// the stock executor's C symbols behind them are named differently).
const (
	RegisterActionName   = "llvm_orc_registerEHFrameAllocAction"
	DeregisterActionName = "llvm_orc_deregisterEHFrameAllocAction"
)

var (
	initOnce sync.Once
	initErr  error

	mu         sync.Mutex
	registered = map[sps.Addr]int{} // start -> registrations
)

// Init loads libgcc_s.so.1 into the global scope (RTLD_NOW|RTLD_GLOBAL)
// and binds its frame registration functions. It runs once per process;
// later calls return the first result.
func Init() error {
	initOnce.Do(func() {
		var errbuf [512]byte
		if C.orcrt_ehframe_init((*C.char)(unsafe.Pointer(&errbuf[0])), C.size_t(len(errbuf))) != 0 {
			initErr = fmt.Errorf("ehframe: loading libgcc_s: %s", native.GoString(errbuf[:]))
		}
	})
	return initErr
}

// Register registers the .eh_frame section starting at start (which must
// end with a zero terminator) with libgcc's unwinder. The memory must
// stay mapped and unchanged until Deregister.
func Register(start sps.Addr) error {
	if err := Init(); err != nil {
		return err
	}
	if start == 0 {
		return errors.New("ehframe: register: null eh-frame address")
	}
	mu.Lock()
	defer mu.Unlock() // held across the C call: registration order = count order
	C.orcrt_ehframe_register(C.uintptr_t(start))
	registered[start]++
	return nil
}

// Deregister undoes one Register of start. Deregistering a section that
// is not registered is an error (libgcc would abort the process).
func Deregister(start sps.Addr) error {
	if err := Init(); err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	n := registered[start]
	if n == 0 {
		return fmt.Errorf("ehframe: deregister: no eh-frame section registered at %#x", uint64(start))
	}
	C.orcrt_ehframe_deregister(C.uintptr_t(start))
	if n == 1 {
		delete(registered, start)
	} else {
		registered[start] = n - 1
	}
	return nil
}

// Registered returns how many times start is currently registered.
func Registered(start sps.Addr) int {
	mu.Lock()
	defer mu.Unlock()
	return registered[start]
}

// FindFDE returns the address of the FDE libgcc's unwinder finds for pc,
// or 0: what unwinding through pc will use.
func FindFDE(pc uintptr) uintptr {
	if Init() != nil {
		return 0
	}
	return uintptr(C.orcrt_ehframe_find_fde(C.uintptr_t(pc)))
}

// RegisterFrameAddr returns the address of the __register_frame in use
// (libgcc_s's), or 0 if Init failed.
func RegisterFrameAddr() uintptr {
	if Init() != nil {
		return 0
	}
	return uintptr(C.orcrt_ehframe_register_addr())
}

// Actions returns the two allocation actions as wrapper functions:
// SPSError(SPSExecutorAddrRange) each.
func Actions() (register, deregister rt.WrapperFunc) {
	register = rt.Handle1(sps.RegisterEHFrameAction, func(_ *rt.Session, r sps.AddrRange) error {
		return Register(r.Start)
	})
	deregister = rt.Handle1(sps.DeregisterEHFrameAction, func(_ *rt.Session, r sps.AddrRange) error {
		return Deregister(r.Start)
	})
	return register, deregister
}

// Install loads the unwinder ([Init]), registers both actions on s and
// publishes them in syms under their LLVM 22 bootstrap names. Allocation
// action runners run them in Go (they are the Session's wrappers, not
// native functions).
func Install(s *rt.Session, syms *rt.SymbolTable) error {
	if err := Init(); err != nil {
		return err
	}
	reg, dereg := Actions()
	if err := syms.AddUnique(
		rt.Symbol{Name: RegisterActionName, Addr: s.RegisterWrapper(reg)},
		rt.Symbol{Name: DeregisterActionName, Addr: s.RegisterWrapper(dereg)},
	); err != nil {
		return fmt.Errorf("ehframe: install: %w", err)
	}
	return nil
}
