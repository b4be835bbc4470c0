package crashers

/*
#cgo LDFLAGS: -pthread
#include "crashers.h"
*/
import "C"

// Run triggers the named crash in native code, or sets up what the next
// one chains to ("segv-default", "segv-plain").
func Run(name string) {
	switch name {
	case "segv":
		C.orcrt_crash_segv()
	case "segv-thread":
		C.orcrt_crash_segv_on_own_thread()
	case "ill":
		C.orcrt_crash_ill()
	case "trap":
		C.orcrt_crash_trap()
	case "fpe":
		C.orcrt_crash_fpe()
	case "bus":
		C.orcrt_crash_bus()
	case "abort":
		C.orcrt_crash_abort()
	case "sigpipe":
		C.orcrt_crash_pipe_write()
	case "atexit-segv":
		C.orcrt_crash_register_atexit_segv()
	case "buffered-print":
		C.orcrt_crash_buffered_print()
	case "segv-default":
		must(C.orcrt_crash_segv_default())
	case "segv-plain":
		must(C.orcrt_crash_segv_plain())
	}
}

func must(rc C.int) {
	if rc != 0 {
		panic("crashers: sigaction failed")
	}
}

// Func returns the range [start, end) of the C function that crashes as
// name: "segv" or "abort".
func Func(name string) (start, end uint64) {
	var e C.uintptr_t
	s := C.orcrt_crash_range(C.int(boolInt(name == "abort")), &e)
	return uint64(s), uint64(e)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
